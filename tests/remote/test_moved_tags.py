"""Issue #83 §1: the moved-tag check where the listing is read (``GitRemotes.refs``), held by a
fast test on a real git repository on disk (issue #25: a tag that now names another commit
than the listing kept is said; a deleted one too)."""

from __future__ import annotations

import subprocess

from tofu_solve.remote.git import GitRemotes
from tofu_solve.store.cache import Cache


def _git(cwd, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True,
                          env={"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@x", "GIT_COMMITTER_NAME": "t",
                               "GIT_COMMITTER_EMAIL": "t@x", "HOME": str(cwd), "PATH": "/usr/bin:/bin"}).stdout


def test_a_tag_moved_or_deleted_since_the_listing_was_kept_is_noticed(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q", "-b", "main")
    (repo / "main.tf").write_text("# one\n")
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "one")
    _git(repo, "tag", "v1.0.0")
    _git(repo, "tag", "v0.9.0")
    first = _git(repo, "rev-parse", "HEAD").strip()
    url = f"file://{repo}"
    cache = Cache(tmp_path / "cache")
    environ = {"HOME": str(tmp_path), "PATH": "/usr/bin:/bin"}
    assert GitRemotes(cache, environ=environ).tags(url)["v1.0.0"] == first  # the listing kept

    (repo / "main.tf").write_text("# two\n")
    _git(repo, "commit", "-q", "-am", "two")
    _git(repo, "tag", "-f", "v1.0.0")
    _git(repo, "tag", "-d", "v0.9.0")
    second = _git(repo, "rev-parse", "HEAD").strip()
    again = GitRemotes(cache, environ=environ)
    assert again.tags(url)["v1.0.0"] == second
    assert again.moved == {url: {"v1.0.0": (first, second)}}
    assert again.deleted == {url: {"v0.9.0"}}
