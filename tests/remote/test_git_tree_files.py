"""A package's configuration files read straight from a git mirror's objects
(``git_mirror_read.tree_files``: ``git ls-tree`` and ``git cat-file --batch``) are what reading
the commit's ``git archive`` gives (``read_config_files``), with the same refusals; where a
``.gitattributes`` could make the archive differ, the archive is read instead (issue #23)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tofu_solve.errors import IntegrityError
from tofu_solve.remote.archives import read_config_files
from tofu_solve.remote.git import RemoteRef
from tofu_solve.remote.git_mirror_read import ARCHIVE, tree_files
from tofu_solve.settings import Limits

ENV = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "t",
       "GIT_COMMITTER_EMAIL": "t@example.com"}


def git(repo: Path, *args: str, input: bytes | None = None) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, env=ENV,
                          input=input).stdout.decode().strip()


def commit_of(tmp_path: Path, files: dict[str, str], extra=None, staged=None) -> tuple[Path, str]:
    work = tmp_path / "work"
    work.mkdir()
    git(work, "init", "-q")
    for name, text in files.items():
        (work / name).parent.mkdir(parents=True, exist_ok=True)
        (work / name).write_text(text)
    if extra:
        extra(work)
    git(work, "add", "-A")
    if staged:
        staged(work)
    git(work, "commit", "-q", "-m", "c")
    return work / ".git", git(work, "rev-parse", "HEAD")


def both(tmp_path: Path, mirror: Path, commit: str, limits: Limits | None = None):
    ref = RemoteRef(commit, commit)
    tree = tree_files("git://example.invalid/r.git", ref, mirror, False, ENV, limits or Limits())
    tar = tmp_path / "a.tar"
    with open(tar, "wb") as out:
        subprocess.run(["git", "--git-dir", str(mirror), "archive", "--format=tar", commit], stdout=out, check=True)
    return tree, read_config_files(tar, limits)


FILES = {"main.tf": 'module "x" {\n  source = "./modules/x"\n}\n', "README.md": "# r\n",
         "modules/x/main.tf": "variable \"v\" {}\n", "modules/x/override.tf.json": "{}\n",
         "modules/x/extra.tofu": "locals {}\n", "docs/a/b/notes.txt": "n\n", "examples/e/main.tf": "\n"}


def test_the_same_files_and_directories_as_the_archive(tmp_path):
    def gitlink(work: Path):  # a submodule: an empty directory in the archive
        sha = "1" * 40
        git(work, "update-index", "--add", "--cacheinfo", f"160000,{sha},vendor/sub")
    mirror, commit = commit_of(tmp_path, {**FILES, "run.sh": "#!/bin/sh\n"},
                               lambda w: os.chmod(w / "run.sh", 0o755), staged=gitlink)
    tree, tar = both(tmp_path, mirror, commit)
    assert tree is not ARCHIVE and tree is not None
    assert tree.files == tar.files
    assert tree.dirs == tar.dirs
    assert set(tree.files) == {"main.tf", "modules/x/main.tf", "modules/x/override.tf.json", "modules/x/extra.tofu",
                               "examples/e/main.tf"}
    assert {"vendor", "vendor/sub", "docs/a/b", "modules/x"} <= tree.dirs


def test_a_link_makes_both_answer_none(tmp_path):
    mirror, commit = commit_of(tmp_path, FILES, lambda w: os.symlink("main.tf", w / "link.tf"))
    tree, tar = both(tmp_path, mirror, commit)
    assert tree is None and tar is None


def test_a_gitattributes_file_sends_the_read_to_the_archive(tmp_path):
    files = {**FILES, "modules/.gitattributes": "x/extra.tofu export-ignore\n"}
    mirror, commit = commit_of(tmp_path, files)
    assert tree_files("git://example.invalid/r.git", RemoteRef(commit, commit), mirror, False, ENV, Limits()) is ARCHIVE
    _, tar = both(tmp_path, mirror, commit)
    assert "modules/x/extra.tofu" not in tar.files  # what the archive path then gives


@pytest.mark.parametrize("limits", [Limits(entries=5), Limits(file_bytes=10), Limits(extracted_bytes=40)])
def test_the_same_limits_and_the_same_error(tmp_path, limits):
    mirror, commit = commit_of(tmp_path, {**FILES, "big.tf": "x" * 100})
    with pytest.raises(IntegrityError) as from_tree:
        tree_files("git://example.invalid/r.git", RemoteRef(commit, commit), mirror, False, ENV, limits)
    tar = tmp_path / "a.tar"
    with open(tar, "wb") as out:
        subprocess.run(["git", "--git-dir", str(mirror), "archive", "--format=tar", commit], stdout=out, check=True)
    with pytest.raises(IntegrityError) as from_tar:
        read_config_files(tar, limits)
    assert from_tree.value.summary == from_tar.value.summary == "Module package too large"


def test_a_tree_entry_that_climbs_out_is_refused(tmp_path):
    """A hostile remote can send a tree whose entry is named ``..``; listed, it is refused
    as an archive entry would be."""
    mirror, _ = commit_of(tmp_path, FILES)
    blob = git(mirror.parent, "hash-object", "-w", "--stdin", input=b'module "x" {}\n')
    inner = git(mirror.parent, "mktree", input=f"100644 blob {blob}\tmain.tf\n".encode())
    try:
        top = git(mirror.parent, "mktree", "--missing", input=f"040000 tree {inner}\t..\n".encode())
    except subprocess.CalledProcessError:
        pytest.skip("this git refuses to write a tree entry named '..'")
    commit = git(mirror.parent, "commit-tree", top, "-m", "hostile")
    with pytest.raises(IntegrityError, match="outside the package"):
        tree_files("git://example.invalid/r.git", RemoteRef(commit, commit), mirror, False, ENV, Limits())


def _drop_blob(mirror: Path, commit: str, path: str) -> None:
    """Remove one blob's loose object, as a fetch killed before it wrote every object leaves
    a mirror: ``git ls-tree -l`` then prints its size as ``BAD`` (builtin/ls-tree.c)."""
    oid = git(mirror.parent, "rev-parse", f"{commit}:{path}")
    (mirror / "objects" / oid[:2] / oid[2:]).unlink()
    listing = subprocess.run(["git", "--git-dir", str(mirror), "ls-tree", "-r", "-l", commit], capture_output=True,
                             env=ENV).stdout
    assert b" BAD\t" + path.encode() in listing


def test_a_blob_missing_from_the_mirror_is_a_broken_mirror_not_a_crash(tmp_path):
    """Issue #38: a kill left a mirror whose trees name a blob it does not hold; ``ls-tree
    -l`` sizes it ``BAD``, which was read as a number (ValueError, "internal error in
    tofu-solve" on every later run). It is a damaged mirror: rebuilt from the remote on the
    first read, an error naming the remote when the rebuilt one is damaged too."""
    from tofu_solve.errors import NetworkError
    from tofu_solve.remote.git_mirror_read import BrokenMirror

    mirror, commit = commit_of(tmp_path, FILES)
    _drop_blob(mirror, commit, "modules/x/main.tf")
    ref = RemoteRef(commit, commit)
    with pytest.raises(BrokenMirror):
        tree_files("git://example.invalid/r.git", ref, mirror, False, ENV, Limits())
    with pytest.raises(NetworkError) as e:
        tree_files("git://example.invalid/r.git", ref, mirror, True, ENV, Limits())
    assert "modules/x/main.tf" in e.value.detail and "git://example.invalid/r.git" in e.value.detail
