"""``check``'s findings as CI code scanning reads them (issue #59 §5): a SARIF 2.1.0 log
validated by Microsoft's SARIF multitool against the schema and its rules (``.ci/run``
installs it into ``.node-sarif/``; elsewhere point ``TOFU_SOLVE_SARIF_MULTITOOL`` at it),
each difference at its file and line; and GitHub Actions annotations with
``GITHUB_ACTIONS=true``."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

from tests.conftest import require_tool
from tests.e2e.conftest import write_root

REPO = Path(__file__).resolve().parents[2]
MULTITOOL = Path(os.environ.get("TOFU_SOLVE_SARIF_MULTITOOL")
                 or REPO / ".node-sarif" / "node_modules" / ".bin" / "sarif-multitool")

KMS = 'module "kms" {\n  source  = "terraform-aws-modules/kms/aws"\n  version = "~> 3.0"\n}\n'


def _validate(log: Path, tmp: Path) -> list[dict]:
    """The multitool's findings of error level on ``log`` (none: valid SARIF 2.1.0)."""
    require_tool(MULTITOOL.exists() and shutil.which("node"), "Microsoft's SARIF multitool (npm)",
                 "nodejs npm; npm install --prefix .node-sarif @microsoft/sarif-multitool")
    out = tmp / "validation.sarif"
    done = subprocess.run([str(MULTITOOL), "validate", str(log), "-o", str(out), "--log", "ForceOverwrite"], capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    results = json.loads(out.read_text())["runs"][0].get("results", [])
    return [r for r in results if r.get("level", "warning") == "error"]


def _monorepo(tmp_path: Path, tofu_solve) -> Path:
    base = tmp_path / "repo"
    for name in ("live/a", "live/b"):
        write_root(base / name, KMS)
    assert tofu_solve(base, "init", "-recursive", "-handover=false").code == 0
    # a constraint edited after init, and an installed copy removed
    main = base / "live/a/main.tf"
    main.write_text(main.read_text().replace('"~> 3.0"', '"~> 3.1"'))
    shutil.rmtree(base / "live/b/.terraform/modules/kms")
    return base


def test_check_writes_sarif_that_code_scanning_reads(tmp_path, tofu_solve, isolated, monkeypatch):
    base = _monorepo(tmp_path, tofu_solve)
    monkeypatch.chdir(base)  # paths are relative to where the command was run
    r = tofu_solve(base, "check", "-recursive", "-format=sarif")
    assert r.code == 1
    log = json.loads(r.out)
    assert log["version"] == "2.1.0"
    results = log["runs"][0]["results"]
    where = {(x["ruleId"], x["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
              x["locations"][0]["physicalLocation"]["region"]["startLine"]) for x in results}
    assert ("constraints", "live/a/main.tf", 3) in where, where  # the version line of the edited call
    assert any(rule == "not-installed" and uri.startswith("live/b/") for rule, uri, _ in where), where
    assert all("root module live/" in x["message"]["text"] for x in results)
    rules = {rule["id"] for rule in log["runs"][0]["tool"]["driver"]["rules"]}
    assert {x["ruleId"] for x in results} <= rules
    path = tmp_path / "check.sarif"
    path.write_text(r.out)
    assert _validate(path, tmp_path) == []
    # one root, and a clean tree: an empty log, still valid
    single = tofu_solve(base / "live/a", "check", "-format=sarif")
    assert single.code == 1
    assert {x["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
            for x in json.loads(single.out)["runs"][0]["results"]} == {"live/a/main.tf"}
    assert tofu_solve(base, "init", "-recursive", "-handover=false").code == 0
    clean = tofu_solve(base, "check", "-recursive", "-format=sarif")
    assert clean.code == 0 and json.loads(clean.out)["runs"][0]["results"] == []
    path.write_text(clean.out)
    assert _validate(path, tmp_path) == []


def test_check_annotates_a_github_actions_run(tmp_path, tofu_solve, isolated, monkeypatch):
    base = _monorepo(tmp_path, tofu_solve)
    monkeypatch.chdir(base)
    plain = tofu_solve(base, "check", "-recursive")
    assert "::error" not in plain.out
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    r = tofu_solve(base, "check", "-recursive")
    assert r.code == 1
    notes = [line for line in r.out.splitlines() if line.startswith("::error ")]
    assert any(line.startswith("::error file=live/a/main.tf,line=3,title=ConstraintNotLocked::module \"kms\"")
               for line in notes), notes
    assert all("\n" not in line and "%0A" not in line.split("::", 2)[1] for line in notes)
    assert len(notes) == len(json.loads(tofu_solve(base, "check", "-recursive", "-format=sarif").out)
                             ["runs"][0]["results"])


def test_init_lockfile_readonly_writes_the_refused_lock_changes_as_sarif(tmp_path, tofu_solve, isolated,
                                                                        monkeypatch):
    """``init -lockfile=readonly -format=sarif``: each lock that would change, at the line of
    the root's call (else the lock file), the text on standard error; annotations under
    GitHub Actions."""
    base = tmp_path / "repo"
    for name in ("live/a", "live/b"):
        write_root(base / name, KMS)
    assert tofu_solve(base, "init", "-recursive", "-handover=false").code == 0
    (base / "tofu-solve-policy.hcl").write_text('deny "module" "terraform-aws-modules/kms/aws" {\n'
                                                '  versions = "3.1.1"\n  reason   = "a bad release"\n}\n')
    monkeypatch.chdir(base)
    r = tofu_solve(base, "init", "-recursive", "-handover=false", "-lockfile=readonly", "-format=sarif")
    assert r.code == 1
    log = json.loads(r.out)  # standard output is the log alone
    results = log["runs"][0]["results"]
    modules = [x for x in results if x["message"]["text"].startswith('module "kms"')]
    assert sorted((x["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
                   x["locations"][0]["physicalLocation"]["region"]["startLine"]) for x in modules) == \
        [("live/a/main.tf", 3), ("live/b/main.tf", 3)], results
    assert all(x["ruleId"] == "lock-change" and "denied by deny" in x["message"]["text"] for x in modules)
    assert "Lock file would change" in r.err
    path = tmp_path / "init.sarif"
    path.write_text(r.out)
    assert _validate(path, tmp_path) == []
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    gh = tofu_solve(base, "init", "-recursive", "-handover=false", "-lockfile=readonly")
    notes = [line for line in gh.out.splitlines() if line.startswith("::error ")]
    assert any(line.startswith("::error file=live/b/main.tf,line=3,title=LockFileWouldChange::module \"kms\"")
               for line in notes), notes


IMPOSSIBLE = '''terraform {
  required_providers {
    aws = {
      source  = "hashicorp/aws"
      version = "< 5.0"
    }
  }
}

module "vpc" {
  source  = "terraform-aws-modules/vpc/aws"
  version = "~> 6.1"
}
'''


def _results(log: dict) -> set[tuple[str, str, int]]:
    return {(x["ruleId"], x["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
             x["locations"][0]["physicalLocation"]["region"]["startLine"]) for x in log["runs"][0]["results"]}


def test_a_failing_root_is_a_result_at_its_lines_and_paths_are_the_repositorys(tmp_path, tofu_solve, isolated,
                                                                               monkeypatch):
    """Issue #70 §1: a pull request with one impossible root and a new root: the failure is a
    result at each line the root writes that the conflict cites, the new root's lock changes
    at the lines that cause them (its lock file does not exist), every path relative to the
    repository's top wherever the command runs; the same places as annotations."""
    base = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", str(base)], check=True)
    write_root(base / "live/a", KMS)
    assert tofu_solve(base / "live/a", "init", "-handover=false").code == 0
    (base / "live/bad").mkdir(parents=True)
    (base / "live/bad/main.tf").write_text(IMPOSSIBLE)
    write_root(base / "live/new", KMS)
    monkeypatch.chdir(base)
    r = tofu_solve(base, "init", "-recursive", "-handover=false", "-lockfile=readonly", "-format=sarif")
    assert r.code == 1
    log = json.loads(r.out)
    got = _results(log)
    assert {("error", "live/bad/main.tf", 5), ("error", "live/bad/main.tf", 12)} <= got, got
    assert ("lock-change", "live/new/main.tf", 3) in got, got
    assert not any(uri.endswith(".terraform.lock.hcl") for _, uri, _ in got), got
    path = tmp_path / "init.sarif"
    path.write_text(r.out)
    assert _validate(path, tmp_path) == []

    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    gh = tofu_solve(base, "init", "-recursive", "-handover=false", "-lockfile=readonly")
    notes = [line for line in gh.out.splitlines() if line.startswith("::error ")]
    assert any(n.startswith("::error file=live/bad/main.tf,line=12,title=RootModuleError::No consistent set of versions")
               for n in notes), notes
    monkeypatch.delenv("GITHUB_ACTIONS")

    # check's policy finding, run from a root: the policy file at the repository's top
    (base / "tofu-solve-policy.hcl").write_text('deny "module" "terraform-aws-modules/kms/aws" {\n'
                                                '  versions = ">= 0.0.0"\n  reason   = "retired"\n}\n')
    monkeypatch.chdir(base / "live/a")
    checked = tofu_solve(base / "live/a", "check", "-format=sarif")
    assert checked.code == 1
    assert ("policy", "tofu-solve-policy.hcl", 1) in _results(json.loads(checked.out)), checked.out
    assert json.loads(checked.out)["runs"][0]["originalUriBaseIds"]["SRCROOT"]["uri"] == \
        base.resolve().as_uri() + "/"
    assert "../../tofu-solve-policy.hcl" in tofu_solve(base / "live/a", "check").err  # text: from where it ran


def test_a_failure_of_the_run_itself_is_one_notification():
    from tofu_solve.command.views.sarif import Notification, check_log, error_findings, github_annotations
    from tofu_solve.errors import ConfigurationError, NetworkError, SourceRange

    down = error_findings(NetworkError("Failed to reach registry", "connection refused"))
    assert down == Notification("Failed to reach registry", "connection refused")
    placed = error_findings(ConfigurationError("Invalid version constraint", "x", SourceRange("main.tf", 3)))
    assert [(f.kind, f.where.file, f.where.line) for f in placed] == [("error", "main.tf", 3)]
    log = check_log([], ".", ".", notifications=[down])
    assert log["runs"][0]["invocations"][0]["toolExecutionNotifications"][0]["message"]["text"] == \
        "Failed to reach registry: connection refused"
    assert github_annotations([], ".", ".", notifications=[down]) == \
        ["::error title=Failed to reach registry::connection refused"]


def test_a_check_that_stops_is_still_a_sarif_log_with_its_error_placed(tmp_path, tofu_solve, isolated, monkeypatch):
    """Issue #70 §1: a policy file that does not read stops check; under -format=sarif the
    standard output is still a valid log, the error a result at the policy's line."""
    base = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", str(base)], check=True)
    write_root(base / "live/a", KMS)
    assert tofu_solve(base / "live/a", "init", "-handover=false").code == 0
    (base / "broken.policy.hcl").write_text('module_policy "*" "x" {\n  enforce {\n    condition = nope(1)\n'
                                            '  }\n}\n')
    monkeypatch.chdir(base)
    r = tofu_solve(base / "live/a", "check", "-format=sarif")
    assert r.code == 1 and "Call to unsupported function" in r.err, (r.out, r.err)
    log = json.loads(r.out)
    assert ("error", "broken.policy.hcl", 3) in _results(log), r.out
    path = tmp_path / "check.sarif"
    path.write_text(r.out)
    assert _validate(path, tmp_path) == []
    rec = tofu_solve(base, "check", "-recursive", "-format=sarif")
    assert ("error", "broken.policy.hcl", 3) in _results(json.loads(rec.out)), rec.out
