"""Unpacking module packages: the rules of Python's ``data`` extraction filter (PEP 706),
held by tofu-solve's own code so that they hold on every interpreter the package admits
(Debian 12's Python 3.11.2 has no ``filter=``), plus size limits counted as bytes are written.
Archives are built here with the standard library's writers."""

from __future__ import annotations

import io
import os
import stat
import tarfile
import zipfile

import pytest

from tofu_solve.errors import IntegrityError
from tofu_solve.remote.archives import extract_archive
from tofu_solve.settings import Limits


def tar_of(*members: tuple[tarfile.TarInfo, bytes | None], mode: str = "w:gz") -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode=mode) as tf:
        for info, data in members:
            if data is not None:
                info.size = len(data)
                tf.addfile(info, io.BytesIO(data))
            else:
                tf.addfile(info)
    return buf.getvalue()


def entry(name: str, kind=tarfile.REGTYPE, link: str = "", mode: int = 0o644) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type = kind
    info.linkname = link
    info.mode = mode
    return info


def test_files_dirs_and_inside_links_unpack(tmp_path):
    dest = tmp_path / "pkg"
    dest.mkdir()
    archive = tar_of((entry("modules", tarfile.DIRTYPE, mode=0o755), None),
                     (entry("modules/main.tf"), b'module "x" {}\n'),
                     (entry("main.tf", mode=0o4777), b"# root\n"),
                     (entry("alias.tf", tarfile.SYMTYPE, "modules/main.tf"), None),
                     (entry("copy.tf", tarfile.LNKTYPE, "modules/main.tf"), None))
    extract_archive(archive, "tar.gz", dest)
    assert (dest / "modules/main.tf").read_bytes() == b'module "x" {}\n'
    assert os.readlink(dest / "alias.tf") == "modules/main.tf"
    assert (dest / "copy.tf").read_bytes() == b'module "x" {}\n' and not (dest / "copy.tf").is_symlink()
    # setuid and group/other write bits dropped, as the data filter does
    assert stat.S_IMODE(os.stat(dest / "main.tf").st_mode) == 0o755


@pytest.mark.parametrize("members", [
    [(entry("../evil.tf"), b"x")],
    [(entry("/abs/evil.tf"), b"x")],
    [(entry("up.tf", tarfile.SYMTYPE, "../outside"), None)],
    [(entry("abs.tf", tarfile.SYMTYPE, "/etc/passwd"), None)],
    # lexically inside, physically outside: x -> ".", then y -> "x/.." is the package's parent
    [(entry("x", tarfile.SYMTYPE, "."), None), (entry("y", tarfile.SYMTYPE, "x/.."), None),
     (entry("y/evil.tf"), b"x")],
    # a file written through a directory link that leaves the package
    [(entry("d", tarfile.SYMTYPE, "sub/../.."), None), (entry("d/evil.tf"), b"x")],
    [(entry("hard.tf", tarfile.LNKTYPE, "../../etc/passwd"), None)],
    [(entry("fifo", tarfile.FIFOTYPE), None)],
    [(entry("dev", tarfile.CHRTYPE), None)],
], ids=["dotdot", "absolute", "symlink-up", "symlink-absolute", "symlink-through-symlink", "dir-link-out",
        "hardlink-out", "fifo", "device"])
def test_unsafe_tar_entries_are_refused_and_nothing_lands_outside(tmp_path, members):
    dest = tmp_path / "a" / "pkg"
    dest.mkdir(parents=True)
    with pytest.raises(IntegrityError) as e:
        extract_archive(tar_of(*members), "tar.gz", dest)
    assert e.value.summary == "Unsafe module package"
    assert not (tmp_path / "a" / "evil.tf").exists() and not (tmp_path / "evil.tf").exists()


def test_a_zip_link_that_resolves_outside_is_refused(tmp_path):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for name, target in (("x", "."), ("y", "x/..")):
            info = zipfile.ZipInfo(name)
            info.external_attr = (stat.S_IFLNK | 0o777) << 16
            zf.writestr(info, target)
        zf.writestr("y/evil.tf", "x")
    dest = tmp_path / "a" / "pkg"
    dest.mkdir(parents=True)
    with pytest.raises(IntegrityError):
        extract_archive(buf.getvalue(), "zip", dest)
    assert not (tmp_path / "a" / "evil.tf").exists()


def test_sizes_are_counted_as_written_not_as_declared(tmp_path):
    dest = tmp_path / "pkg"
    dest.mkdir()
    limits = Limits(file_bytes=1000)
    with pytest.raises(IntegrityError) as e:
        extract_archive(tar_of((entry("big.tf"), b"x" * 1001)), "tar.gz", dest, limits)
    assert e.value.summary == "Module package too large"
    extract_archive(tar_of((entry("ok.tf"), b"x" * 1000)), "tar.gz", dest, limits)
    assert (dest / "ok.tf").stat().st_size == 1000


def test_zip_entries_keep_their_unix_mode_without_set_id_or_world_write(tmp_path):
    """A provider's executable must stay executable (go-getter's ZipDecompressor applies the
    entry's mode; tofu init runs it from there); set-id bits and write for others go, as in
    the tar rule."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for name, mode in (("terraform-provider-x_v1.0.0_x5", 0o755), ("setuid", 0o4777), ("plain.txt", 0o644)):
            info = zipfile.ZipInfo(name)
            info.create_system = 3
            info.external_attr = (stat.S_IFREG | mode) << 16
            zf.writestr(info, "#!/bin/sh\n")
        zf.writestr("no-unix-mode.txt", "x")  # written by a tool that records no Unix mode
    dest = tmp_path / "pkg"
    dest.mkdir()
    extract_archive(buf.getvalue(), "zip", dest)
    modes = {p.name: stat.S_IMODE(p.stat().st_mode) for p in dest.iterdir()}
    assert modes["terraform-provider-x_v1.0.0_x5"] == 0o755
    assert modes["setuid"] == 0o755 and modes["plain.txt"] == 0o644
    assert os.access(dest / "terraform-provider-x_v1.0.0_x5", os.X_OK)
    assert not os.access(dest / "no-unix-mode.txt", os.X_OK)


# --------------------------------------------------------------------------- read into memory (issue #23)


def plain_tar(*members: tuple[tarfile.TarInfo, bytes | None]) -> bytes:
    """An uncompressed tar, as ``git archive`` writes one."""
    return tar_of(*members, mode="w")


def test_a_packages_module_tree_reads_the_same_from_memory_as_unpacked(tmp_path):
    """read_config_files keeps the configuration files and every directory, and the module
    tree read from them is the one read from the unpacked package."""
    from tofu_solve.config.files import MemoryDir
    from tofu_solve.config.tree import read_module_tree
    from tofu_solve.remote.archives import read_config_files

    data = plain_tar(
        (entry("main.tf"), b'module "a" {\n  source = "./modules/a"\n}\nmodule "e" {\n  source = "./empty"\n}\n'),
        (entry("README.md"), b"# big\n" * 1000),
        (entry("modules/a/versions.tf"), b'terraform {\n  required_providers {\n    aws = {\n'
                                         b'      source  = "hashicorp/aws"\n      version = ">= 5.0"\n    }\n  }\n}\n'),
        (entry("modules/a/main.tf.json"), b'{"module": {"k": {"source": "terraform-aws-modules/kms/aws", '
                                          b'"version": "~> 2.0"}}}'),
        (entry("empty/", tarfile.DIRTYPE), None),
        (entry("examples/x/notes.txt"), b"not read"),
    )
    (tmp_path / "p.tar").write_bytes(data)
    got = read_config_files(tmp_path / "p.tar")
    assert sorted(got.files) == ["main.tf", "modules/a/main.tf.json", "modules/a/versions.tf"]
    assert {"", "modules", "modules/a", "empty", "examples", "examples/x"} <= got.dirs
    extract_archive(tmp_path / "p.tar", "tar", tmp_path / "out")
    assert read_module_tree(MemoryDir(got)) == read_module_tree(tmp_path / "out")
    assert [c.call.name for c in read_module_tree(MemoryDir(got)).remote_calls] == ["k"]


def test_reading_into_memory_refuses_what_unpacking_refuses_and_leaves_links_to_it(tmp_path):
    from tofu_solve.remote.archives import read_config_files

    def read(*members, limits=None):
        p = tmp_path / "x.tar"
        p.write_bytes(plain_tar(*members))
        return read_config_files(p, limits)

    with pytest.raises(IntegrityError, match="outside the package"):
        read((entry("../main.tf"), b"x"))
    with pytest.raises(IntegrityError, match="device or FIFO"):
        read((entry("dev", tarfile.FIFOTYPE), None))
    with pytest.raises(IntegrityError, match="too large"):
        read((entry("a.tf"), b"x" * 100), (entry("b.bin"), b"y" * 100),
             limits=Limits(extracted_bytes=150))
    with pytest.raises(IntegrityError, match="too large"):  # what is not kept counts as if written
        read((entry("big.bin"), b"y" * 200), limits=Limits(extracted_bytes=150))
    # a link's meaning depends on the files around it: the package is unpacked instead
    assert read((entry("main.tf"), b""), (entry("link.tf", tarfile.SYMTYPE, "main.tf"), None)) is None


def test_a_tar_of_too_many_entries_is_refused_before_anything_is_written(tmp_path):
    """Issue #80 §5: the entry limit is met while reading the headers, not after writing
    the files it allows."""
    from tofu_solve.settings import Limits

    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tf:
        for i in range(60):
            info = tarfile.TarInfo(f"f{i}.tf")
            tf.addfile(info, io.BytesIO(b""))
    dest = tmp_path / "out"
    dest.mkdir()
    with pytest.raises(IntegrityError, match="more than 50 entries"):
        extract_archive(buf.getvalue(), "tar.gz", dest, Limits(entries=50))
    assert list(dest.iterdir()) == []
    extract_archive(buf.getvalue(), "tar.gz", dest, Limits(entries=60))
    assert len(list(dest.iterdir())) == 60
