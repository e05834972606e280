"""The one git layer (tofu_solve/remote/gitcmd.py), against the real git executable."""

from __future__ import annotations

import os
import socket
import subprocess

import pytest

from tofu_solve.remote import gitcmd
from tofu_solve.remote.gitcmd import GitError


def test_an_ext_transport_is_refused_by_git_itself_and_runs_nothing(tmp_path):
    """go-getter's git getter speaks file, git, http(s) and ssh; ``ext::`` would run a
    command (the class of GHSA-q7j3-v8qv-22vq): GIT_ALLOW_PROTOCOL makes git refuse it."""
    marker = tmp_path / "ran"
    with pytest.raises(GitError) as e:
        gitcmd.run(["ls-remote", f"ext::sh -c touch% {marker}"], dict(os.environ), timeout=30)
    assert "transport 'ext' not allowed" in e.value.stderr
    assert e.value.status not in (0, None)
    assert not marker.exists()


def test_the_allowed_transports_still_work(tmp_path):
    repo = tmp_path / "r.git"
    subprocess.run(["git", "init", "-q", "--bare", str(repo)], check=True)
    assert gitcmd.run(["ls-remote", f"file://{repo}"], dict(os.environ), timeout=30) == b""
    assert gitcmd.succeeds(["rev-parse", "--git-dir"], dict(os.environ), git_dir=repo)


def test_a_failure_carries_its_status_and_stderr_and_a_deadline_kills(tmp_path):
    with pytest.raises(GitError) as e:
        gitcmd.run(["cat-file", "-e", "0" * 40], dict(os.environ), git_dir=tmp_path / "none.git", timeout=30)
    assert e.value.status and e.value.stderr and e.value.args_ == ("cat-file", "-e", "0" * 40)
    with socket.socket() as silent:  # a git daemon on loopback that accepts and never answers
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        port = silent.getsockname()[1]
        proc = gitcmd.start(["ls-remote", f"git://127.0.0.1:{port}/x.git"], dict(os.environ))
        with pytest.raises(GitError) as late:
            gitcmd.finish(proc, ["ls-remote"], timeout=0.5)
    assert late.value.status is None and "timed out" in late.value.stderr
    assert proc.poll() is not None  # killed, not left running
