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
