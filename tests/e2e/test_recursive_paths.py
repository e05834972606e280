"""Paths from where you stand, counts that say what happened (issue #81 §4): a path a flag or
``TOFU_SOLVE_POLICY`` names is read relative to the ``-chdir`` directory once, under
``-recursive`` as for one root; ``check -recursive`` counts roots that differ and roots that
could not be checked apart, and an error every root shares is said once."""

from __future__ import annotations

from tests.e2e.conftest import write_root

VPC = 'module "vpc" {\n  source  = "terraform-aws-modules/vpc/aws"\n  version = "~> 6.0"\n}\n'
POLICY = ('module_policy "*" "note" {\n  enforcement_level = "advisory"\n  enforce {\n    condition = true\n'
          '    error_message = "never"\n  }\n}\n')


def _repo(tmp_path, tofu_solve):
    repo = tmp_path / "repo"
    for name in ("a", "b"):
        write_root(repo / name, VPC)
        assert tofu_solve(repo / name, "init", "-handover=false").code == 0
    (repo / "policies").mkdir()
    (repo / "policies" / "p.policy.hcl").write_text(POLICY)
    return repo


def test_a_relative_policy_is_read_from_where_the_command_stands(tmp_path, tofu_solve, monkeypatch):
    repo = _repo(tmp_path, tofu_solve)
    for flag in ("-policy=policies", "-policy=policies/"):
        r = tofu_solve(repo, "check", "-recursive", flag)
        assert r.code == 0, r.out + r.err
        assert "Policy file not found" not in r.out + r.err
    monkeypatch.setenv("TOFU_SOLVE_POLICY", "policies")
    r = tofu_solve(repo, "check", "-recursive")
    assert r.code == 0, r.out + r.err
    monkeypatch.setenv("TOFU_SOLVE_POLICY", "missing")
    r = tofu_solve(repo, "check", "-recursive")
    assert r.code == 1
    said = r.out + r.err
    assert said.count("Policy file not found") == 1, said  # one input the roots share: said once
    assert "differ from their lock files" not in said


def test_check_recursive_counts_what_differs_and_what_failed_apart(tmp_path, tofu_solve):
    repo = _repo(tmp_path, tofu_solve)
    (repo / "a" / "main.tf").write_text(VPC.replace("~> 6.0", "~> 5.0"))  # differs
    write_root(repo / "c", "module {\n")  # cannot be read
    r = tofu_solve(repo, "check", "-recursive")
    assert r.code == 1
    assert "1 of 3 root modules differ from their lock files; 1 could not be checked (an error above)." in r.out


def _sarif_places(out: str) -> list[tuple[str, int, str]]:
    import json

    log = json.loads(out)
    return [(loc["physicalLocation"]["artifactLocation"]["uri"], loc["physicalLocation"]["region"]["startLine"],
             r["message"]["text"]) for r in log["runs"][0]["results"] for loc in r["locations"]]


def test_every_roots_findings_are_placed_from_the_top_in_sarif(tmp_path, tofu_solve, monkeypatch):
    """Issue #81 §2: a root's lock-file finding in the root's own lock file; a policy finding
    in the policy file named from the top (``-policy`` absolute or relative); both relative
    to the repository's top and existing."""
    import subprocess

    repo = _repo(tmp_path, tofu_solve)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / "b" / "main.tf").write_text("")  # the call removed: its lock block is stale
    (repo / "policies" / "p.policy.hcl").write_text(POLICY.replace('"advisory"', '"mandatory"').replace(
        "condition = true", "condition = false"))
    monkeypatch.chdir(repo)
    for flag in (f"-policy={repo / 'policies'}", "-policy=policies"):
        r = tofu_solve(repo, "check", "-recursive", "-format=sarif", flag)
        assert r.code == 1, r.err
        places = _sarif_places(r.out)
        assert all((repo / uri).is_file() for uri, _, _ in places), places
        assert any(uri == "b/.terraform.lock.hcl" for uri, _, _ in places), places
        assert any(uri == "policies/p.policy.hcl" for uri, _, _ in places), places


def test_a_shared_include_is_one_result_naming_every_unit(tmp_path, tofu_solve, monkeypatch):

    from tests.e2e.test_lsp_terragrunt import ENVCOMMON, live_repo

    repo = live_repo(tmp_path / "live", "~> 6.0")
    for unit in ("live/dev/vpc", "live/prod/vpc"):
        assert tofu_solve(repo / unit, "init").code == 0
    (repo / "_envcommon/vpc.hcl").write_text(ENVCOMMON.replace("RANGE", "~> 5.0"))  # both units drift
    monkeypatch.chdir(repo)
    r = tofu_solve(repo, "check", "-recursive", "-format=sarif")
    assert r.code == 1, r.err
    shared = [p for p in _sarif_places(r.out) if p[0] == "_envcommon/vpc.hcl"]
    assert len(shared) == 1 and "root modules live/dev/vpc, live/prod/vpc" in shared[0][2], _sarif_places(r.out)


def test_a_root_left_out_is_named_in_every_mode_and_never_fails_the_run(tmp_path, tofu_solve, monkeypatch):
    """Issue #81 §5: a root the repository's ``.tofu-solve-exclude`` (or ``-exclude-dir``)
    leaves out is never read (here it does not even parse), never a failure, and named as
    left out, with the file and line and the reason, by init, check and outdated in text,
    JSON and SARIF."""
    import json
    import subprocess

    repo = _repo(tmp_path, tofu_solve)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    write_root(repo / "c", "module {\n")  # would stop the run: "Invalid syntax"
    r = tofu_solve(repo, "check", "-recursive")
    assert r.code == 1  # the rule switched off: the same run fails
    (repo / ".tofu-solve-exclude").write_text("# reads another unit's outputs\nc/\n")
    monkeypatch.chdir(repo)

    r = tofu_solve(repo, "init", "-recursive", "-handover=false")
    assert r.code == 0, r.out + r.err
    row = next(line for line in r.out.splitlines() if line.startswith("c "))
    assert "left out" in row and ".tofu-solve-exclude:2: reads another unit's outputs" in row
    assert "2 root modules; 1 left out" in r.out
    r = tofu_solve(repo, "init", "-recursive", "-handover=false", "-json")
    assert r.code == 0, r.err
    result = next(d for d in map(json.loads, r.out.splitlines()) if d["type"] == "init_result")
    assert result["@message"] == "2 of 2 root modules initialized, 1 left out"
    roots = {x["root"]: x for x in result["result"]["roots"]}
    assert roots["c"]["left_out"]["by"] == ".tofu-solve-exclude:2" and roots["c"]["ok"] is True
    assert roots["a"]["left_out"] is None

    r = tofu_solve(repo, "check", "-recursive")
    assert r.code == 0, r.out + r.err
    assert "c: left out by .tofu-solve-exclude:2: reads another unit's outputs" in r.out
    assert "All 2 root modules agree with their lock files; 1 left out" in r.out
    r = tofu_solve(repo, "check", "-recursive", "-json")
    doc = json.loads(r.out)
    assert doc["ok"] is True and {x["root"]: x["left_out"] and x["left_out"]["line"] for x in doc["roots"]} == \
        {"a": None, "b": None, "c": 2}
    r = tofu_solve(repo, "check", "-recursive", "-format=sarif")
    assert r.code == 0
    notes = json.loads(r.out)["runs"][0]["invocations"][0]
    assert notes["executionSuccessful"] is True
    left = [n for n in notes["toolExecutionNotifications"] if n["message"]["text"].startswith("Root left out")]
    assert [n["level"] for n in left] == ["note"]  # beside it, the note that policies/ applied to no root
    assert "c: left out by .tofu-solve-exclude:2" in left[0]["message"]["text"]
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    r = tofu_solve(repo, "check", "-recursive")
    assert "::notice title=Root left out::c: left out by .tofu-solve-exclude:2" in r.out
    monkeypatch.delenv("GITHUB_ACTIONS")

    r = tofu_solve(repo, "outdated", "-recursive", "-json")
    assert r.code in (0, 2), r.err
    assert {x["root"]: bool(x["left_out"]) for x in json.loads(r.out)["roots"]} == {"a": False, "b": False, "c": True}

    (repo / ".tofu-solve-exclude").unlink()  # the flag does the same, relative to -chdir
    r = tofu_solve(repo, "check", "-recursive", "-exclude-dir=c")
    assert r.code == 0 and "c: left out by -exclude-dir=c" in r.out
    r = tofu_solve(repo, "check", "-exclude-dir=c")
    assert r.code == 2 and "add -recursive" in r.err



def test_a_policy_set_no_root_reads_is_said_once_with_the_flag_that_applies_it(tmp_path, tofu_solve, monkeypatch):
    """Issue #84 §1: ``policies/*.policy.hcl`` at the repository's top is on no root's path:
    ``init``, ``check`` and ``outdated -recursive`` say so once, naming the files and
    ``-policy=policies``; with it, nothing is passed over."""
    import json
    import subprocess

    repo = _repo(tmp_path, tofu_solve)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    monkeypatch.chdir(repo)
    r = tofu_solve(repo, "init", "-recursive", "-handover=false")
    said = r.out + r.err
    assert r.code == 0 and said.count("applied to no root module") == 1, said
    assert "policies/p.policy.hcl" in said and "-policy=policies" in said
    r = tofu_solve(repo, "init", "-recursive", "-handover=false", "-json")
    warned = [d for d in map(json.loads, r.out.splitlines()) if d["type"] == "diagnostic"
              and d["diagnostic"]["summary"] == "Policy files applied to no root module"]
    assert len(warned) == 1 and "policies/p.policy.hcl" in warned[0]["diagnostic"]["detail"]
    for cmd in ("check", "outdated"):
        doc = json.loads(tofu_solve(repo, cmd, "-recursive", "-json").out)
        assert [w["summary"] for w in doc["warnings"]] == ["Policy files applied to no root module"], doc
        doc = json.loads(tofu_solve(repo, cmd, "-recursive", "-json", "-policy=policies").out)
        assert doc["warnings"] == [], doc
    r = tofu_solve(repo, "init", "-recursive", "-handover=false", "-policy=policies")
    assert "applied to no root module" not in r.out + r.err
    r = tofu_solve(repo, "init", "-recursive", "-handover=false", "-policy=policies", "-format=markdown")
    assert "Judged by the policy files: policies/p.policy.hcl (2 roots)." in r.out, r.out  # each root's set, counted
    r = tofu_solve(repo, "init", "-recursive", "-handover=false", "-format=markdown")
    assert "> [!WARNING]\n> Policy files applied to no root module" in r.out, r.out
