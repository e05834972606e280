"""The fixture world and its servers (real git daemon, real HTTP registry on 127.0.0.1),
started once per test session and stopped at its end."""

from __future__ import annotations

import contextlib
import io
import json
import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import SHARED
from tofu_solve.cli import main
from tofu_solve.world import build_world, default_world_dir, running_world


@pytest.fixture(scope="session")
def world():
    return build_world(SHARED / "corpus", default_world_dir())


@pytest.fixture(scope="session")
def running(world, tmp_path_factory):
    with running_world(world, tmp_path_factory.mktemp("servers")) as rw:
        yield rw


@pytest.fixture(scope="session")
def shared_cache(tmp_path_factory):
    return tmp_path_factory.mktemp("cache")


@dataclass
class Run:
    code: int
    out: str
    err: str
    root: Path

    @property
    def lock(self) -> str:
        p = self.root / ".terraform.lock.hcl"
        return p.read_text() if p.exists() else ""

    def stream(self) -> list[dict]:
        """``init -json``: OpenTofu's JSON-lines stream, one message per line."""
        return [json.loads(line) for line in self.out.splitlines() if line.strip()]

    def json(self):
        """The command's JSON document; for ``init``'s stream, the result of its last
        ``init_result`` message, or ``{"error": ...}`` from its error diagnostic."""
        text = self.out.lstrip()
        if text.startswith('{"@level"'):
            messages = self.stream()
            for m in reversed(messages):
                if m["type"].endswith("_result"):
                    return m["result"]
                if m["type"] == "diagnostic" and m["diagnostic"]["severity"] == "error":
                    return {"error": m["error"]}
            raise AssertionError("a stream without a result or an error")
        return json.loads(self.out)


@pytest.fixture
def tofu_solve(running, shared_cache, monkeypatch):
    """Run the CLI in-process against the running world: ``tofu_solve(root, *args)``."""
    monkeypatch.setenv("TF_CLI_CONFIG_FILE", str(running.cli_config))
    monkeypatch.setenv("TOFU_SOLVE_CACHE_DIR", str(shared_cache))

    def run(root: Path, *args: str) -> Run:
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main([*args, f"-chdir={root}"])
        return Run(code, out.getvalue(), err.getvalue(), root)
    return run


@pytest.fixture
def own_cache(tmp_path, monkeypatch, tofu_solve):
    """An empty cache of the test's own (set after ``tofu_solve``'s shared one)."""
    cache = tmp_path / "cache"
    monkeypatch.setenv("TOFU_SOLVE_CACHE_DIR", str(cache))
    return cache


@pytest.fixture
def isolated(tmp_path, own_cache):
    """``tmp_path``, with a cache of the test's own."""
    return tmp_path


AWS5_VPC61 = '''
terraform {
  required_providers {
    aws = {
      source  = "hashicorp/aws"
      version = "~> 5.0"
    }
  }
}

module "vpc" {
  source  = "terraform-aws-modules/vpc/aws"
  version = "~> 6.1"
}
'''
"""The smallest impossible root: vpc ~> 6.1 needs aws >= 6.0, the root allows only 5.x
("~> 5.0" at main.tf:5, the call at main.tf:10, its "~> 6.1" at main.tf:12)."""

VPC6_EKS20 = '''
module "vpc" {
  source  = "terraform-aws-modules/vpc/aws"
  version = "~> 6.0"
}
module "eks" {
  source  = "terraform-aws-modules/eks/aws"
  version = "~> 20.0"
}
'''
"""The root that needs a joint solution: newest-per-call (vpc 6.6.0 with aws >= 6.28, eks
20.37.2 with aws < 6.0.0) admits no aws; tofu-solve takes eks 20.37.0 (and eks.kms 2.1.0)."""


def write_root(dir: Path, main_tf: str, files: dict[str, str] | None = None) -> Path:
    dir.mkdir(parents=True, exist_ok=True)
    (dir / "main.tf").write_text(textwrap.dedent(main_tf).lstrip())
    for name, text in (files or {}).items():
        p = dir / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(textwrap.dedent(text).lstrip())
    return dir


def lock_versions(lock_text: str) -> dict[str, str]:
    from tofu_solve.lockfile import parse_lock_text
    locks, _ = parse_lock_text(lock_text)
    return {p: m.version for p, m in locks.modules.items()}


def make_repo(path: Path, versions: list[tuple[str, dict[str, str]]], annotated: bool = False,
              dates: dict[str, float] | None = None) -> str:
    """A git repository at ``path`` with one commit per (tag, files); returns its file:// URL.
    ``dates``: tag -> commit time (seconds since the epoch; default now)."""
    import subprocess
    path.mkdir(parents=True, exist_ok=True)
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@x.invalid", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@x.invalid", "HOME": str(path), "PATH": "/usr/bin:/bin"}
    run = lambda *a: subprocess.run(["git", *a], cwd=path, env=env, check=True, capture_output=True)  # noqa: E731
    run("init", "-q", "-b", "main")
    for tag, files in versions:
        for f in path.iterdir():
            if f.name != ".git":
                import shutil
                shutil.rmtree(f) if f.is_dir() else f.unlink()
        for name, text in files.items():
            p = path / name
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(textwrap.dedent(text).lstrip())
        run("add", "-A")
        when = (dates or {}).get(tag)
        if when is not None:
            env["GIT_AUTHOR_DATE"] = env["GIT_COMMITTER_DATE"] = f"@{int(when)} +0000"
        else:
            env.pop("GIT_AUTHOR_DATE", None)
            env.pop("GIT_COMMITTER_DATE", None)
        run("commit", "-q", "--allow-empty", "-m", tag or "commit")
        if tag:
            if annotated:
                run("tag", "-a", tag, "-m", f"release {tag}")
            else:
                run("tag", tag)
    return f"file://{path}"
