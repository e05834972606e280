"""Where code scanning shows a finding (issue #70 §1; each place switched off fails a fast
test, issue #71 §1): ``check`` on a real root whose call's constraint was edited since it
was locked, through the SARIF log and the GitHub annotations. The finding is on the line the
constraint is written, in a URI relative to the repository's top."""

from __future__ import annotations

import subprocess

from tofu_solve.command.check import check
from tofu_solve.command.views.sarif import check_log, github_annotations
from tofu_solve.lockfile import LockFile, ModuleLock, write_lock_file
from tofu_solve.settings import Settings

MAIN = '''terraform {
  required_version = ">= 1.8.0"
}

module "vpc" {
  source  = "terraform-aws-modules/vpc/aws"
  version = "~> 6.0"
}
'''


def test_a_changed_constraint_is_shown_on_the_line_it_is_written(tmp_path, monkeypatch):
    repo = tmp_path / "repo"
    root = repo / "envs" / "prod"
    root.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (root / "main.tf").write_text(MAIN)
    write_lock_file(root / ".terraform.lock.hcl", LockFile({}, {"vpc": ModuleLock(
        "vpc", "5.8.1", "registry.opentofu.org/terraform-aws-modules/vpc/aws", "~> 5.0", ("h1:" + "A" * 43 + "=",))}))
    monkeypatch.chdir(repo)
    found = check(root, Settings.from_environ({"HOME": str(tmp_path), "TOFU_SOLVE_CACHE_DIR": str(tmp_path / "c")}))
    changed = [d for d in found if d.kind == "constraints"]
    assert changed, found
    line = MAIN.splitlines().index('  version = "~> 6.0"') + 1  # where the reviewer looks
    log = check_log([(".", changed)], str(root), str(repo))
    place = log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]
    assert place["region"]["startLine"] == line
    assert place["artifactLocation"] == {"uri": "envs/prod/main.tf", "uriBaseId": "SRCROOT"}
    assert f"file=envs/prod/main.tf,line={line}," in github_annotations([(".", changed)], str(root), str(repo))[0]
    assert "version" in (root / "main.tf").read_text().splitlines()[line - 1]


def test_under_recursive_a_roots_lock_file_and_a_shared_line_are_placed_from_the_top(tmp_path, monkeypatch):
    """Issue #81 §2: a finding named at the bare lock file is the root's own lock file, not
    the top's; a finding at a line two roots share is one result naming both."""
    from types import SimpleNamespace

    from tofu_solve.errors import SourceRange

    repo = tmp_path / "repo"
    for name in ("a", "b"):
        (repo / name).mkdir(parents=True)
        (repo / name / ".terraform.lock.hcl").write_text("# lock\n")
    (repo / "shared.hcl").write_text("x\n")
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    monkeypatch.chdir(repo)
    locked = SimpleNamespace(kind="stale-lock", subject='module "vpc"', detail="stale", where=SourceRange(".terraform.lock.hcl", 1))
    shared = SimpleNamespace(kind="constraints", subject='module "unit"', detail="drift", where=SourceRange("shared.hcl", 1))
    log = check_log([("a", [shared]), ("b", [locked, shared])], str(repo), str(repo))
    results = [(r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"], r["message"]["text"])
               for r in log["runs"][0]["results"]]
    assert results == [("shared.hcl", 'module "unit": drift (root modules a, b)'),
                       ("b/.terraform.lock.hcl", 'module "vpc": stale (root module b)')]
