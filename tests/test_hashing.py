"""h1 (Go dirhash Hash1) and zh hashes: every dirhash vector, plus tofu-solve's VCS exclusion."""

import base64
import os
import zipfile

import pytest

from tests.conftest import VECTORS
from tofu_solve.errors import HashError
from tofu_solve.lockfile.hashes import (
    EMPTY_H1,
    VCS_DIRS,
    dir_files,
    hash1,
    hash_dir,
    hash_zip,
    parse_hash,
    zip_sha256,
)


def _content(f):
    return base64.b64decode(f["content_b64"]) if "content_b64" in f else f["content"].encode()


def _build_dir(root, files):
    for f in files:
        p = root / f["name"]
        p.parent.mkdir(parents=True, exist_ok=True)
        if "symlink_to" in f:
            os.symlink(f["symlink_to"], p)
        elif f["name"].endswith("/"):
            p.mkdir(parents=True, exist_ok=True)
        else:
            p.write_bytes(_content(f))


CASES = [c for c in VECTORS["dirhash"] if c["kind"] in ("hash1", "dir", "zip")]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c["id"])
def test_dirhash_vectors(case, tmp_path):
    def run():
        if case["kind"] == "hash1":
            files = {f["name"]: _content(f) for f in case["files"]}
            return hash1(list(files), files.__getitem__)
        if case["kind"] == "dir":
            _build_dir(tmp_path / "pkg", case["files"])
            (tmp_path / "pkg").mkdir(exist_ok=True)
            if "expected_names" in case:
                assert sorted(dir_files(tmp_path / "pkg", case.get("prefix", ""))) == case["expected_names"]
            return hash_dir(tmp_path / "pkg", case.get("prefix", ""))
        z = tmp_path / "pkg.zip"
        with zipfile.ZipFile(z, "w") as zf:
            for f in case["files"]:
                zf.writestr(f["name"], _content(f))
        return hash_zip(z)

    if case.get("expected_error") or case.get("expected_error_contains"):
        with pytest.raises(HashError) as e:
            run()
        assert (case.get("expected_error") or case["expected_error_contains"]) in e.value.detail
    else:
        assert run() == case["expected"]


def test_zip_hash_equals_dir_hash_of_same_entries(tmp_path):
    case = next(c for c in VECTORS["dirhash"] if c["kind"] == "zip-file-metadata-only")
    z = tmp_path / "p.zip"
    with zipfile.ZipFile(z, "w") as zf:
        for e in case["zip_entries"]:
            zf.writestr(e["name"], e["content"])
    assert hash_zip(z) == case["expected_h1_of_zip"]
    assert zip_sha256(z).startswith("zh:") and len(zip_sha256(z)) == 3 + 64


def test_zip_directory_entries_count(tmp_path):
    # HashZip hashes every entry, directory entries included: differs from the extracted tree.
    z = tmp_path / "p.zip"
    with zipfile.ZipFile(z, "w") as zf:
        zf.writestr("dir/", "")
        zf.writestr("dir/a.tf", "x")
    d = tmp_path / "d" / "dir"
    d.mkdir(parents=True)
    (d / "a.tf").write_text("x")
    assert hash_zip(z) != hash_dir(tmp_path / "d")


def test_zh_is_sha256_of_bytes(tmp_path):
    p = tmp_path / "f.zip"
    p.write_bytes(b"abc")
    assert zip_sha256(p) == "zh:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"


def test_empty_dir(tmp_path):
    assert hash_dir(tmp_path) == EMPTY_H1


def test_worked_example_from_reference(tmp_path):
    (tmp_path / "main.tf").write_text("hello\n")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "b.tf").write_text("")
    assert hash_dir(tmp_path) == "h1:xza2r4XvxzPL6cYBOd0ZejlOca2G42QB3Wjr3L0Q48M="


def test_vcs_directories_excluded_only_when_asked(tmp_path):
    (tmp_path / "main.tf").write_text("hello\n")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "b.tf").write_text("")
    clean = hash_dir(tmp_path)
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    assert hash_dir(tmp_path) != clean  # dirhash itself excludes nothing
    assert hash_dir(tmp_path, exclude=VCS_DIRS) == clean


def test_symlink_to_file_hashed_through_link_and_to_dir_is_error(tmp_path):
    (tmp_path / "real.tf").write_text("x")
    os.symlink("real.tf", tmp_path / "link.tf")
    names = sorted(dir_files(tmp_path))
    assert names == ["link.tf", "real.tf"]
    hash_dir(tmp_path)
    (tmp_path / "d").mkdir()
    os.symlink("d", tmp_path / "dlink")
    with pytest.raises(HashError):
        hash_dir(tmp_path)


def test_byte_order_sorting():
    files = {"a-b": b"1", "a.txt": b"2", "a/b": b"3", "a0": b"4", "A": b"5", "_x": b"6", "a": b"7"}
    seen = []
    hash1(list(files), lambda n: (seen.append(n), files[n])[1])
    assert seen == ["A", "_x", "a", "a-b", "a.txt", "a/b", "a0"]


@pytest.mark.parametrize("case", VECTORS["tofu_hash_parse"], ids=lambda c: repr(c["input"]))
def test_parse_hash(case):
    if case["ok"]:
        h = parse_hash(case["input"])
        assert (h.scheme, h.value) == (case["scheme"], case["value"])
    else:
        with pytest.raises(HashError) as e:
            parse_hash(case["input"])
        assert e.value.detail == case["error"]


def test_not_a_directory(tmp_path):
    f = tmp_path / "f"
    f.write_text("x")
    with pytest.raises(HashError, match="not a directory"):
        hash_dir(f)


def test_sha256sums_document():
    from tofu_solve.lockfile.hashes import zh_hashes_from_sha256sums
    for case in VECTORS["tofu_sha256sums"]:
        assert sorted(set(zh_hashes_from_sha256sums(case["document"]))) == case["expected_zh_sorted"]
    with pytest.raises(HashError):
        zh_hashes_from_sha256sums("nothex  file.zip\n")
