"""Overrides that are reviewed and expire (issue #84 §4): an ``override "LABEL"`` block in
``tofu-solve-overrides.hcl`` at the repository's top lifts a ``mandatory_overridable`` rule
for the roots it names, with a reason and an expiry date; every run that uses it says so
(text and ``-json``); an expired or unknown override, or one of a ``mandatory`` rule, is an
error at its line; CI needs no flag."""

from __future__ import annotations

import json
import subprocess
from datetime import date, timedelta

from tests.e2e.conftest import write_root
from tests.e2e.test_policy_refusals import EKS, EKS_RULE

LATER = (date.today() + timedelta(days=30)).isoformat()
EARLIER = (date.today() - timedelta(days=1)).isoformat()


def _override(label: str = "eks_tested_line", expires: str = LATER, roots: str = '["live/prod"]') -> str:
    return (f'override "{label}" {{\n  reason  = "eks 20 verified in staging (PR #812)"\n  expires = "{expires}"\n'
            f"  roots   = {roots}\n}}\n")


def _repo(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / "p.policy.hcl").write_text(EKS_RULE)
    for env in ("prod", "dev"):
        write_root(repo / "live" / env, EKS)
    return repo


def test_a_committed_override_lifts_the_rule_for_its_roots_and_says_so(tmp_path, tofu_solve):
    repo = _repo(tmp_path)
    r = tofu_solve(repo / "live" / "prod", "init", "-handover=false")
    assert r.code == 1 and "eks_tested_line" in r.err  # the rule holds without the override
    (repo / "tofu-solve-overrides.hcl").write_text(_override())
    r = tofu_solve(repo / "live" / "prod", "init", "-handover=false")
    assert r.code == 0, r.err
    said = r.out + r.err
    assert "the override committed at ../../tofu-solve-overrides.hcl:1" in said, said
    assert "eks 20 verified in staging (PR #812)" in said and f"expires {LATER}" in said
    assert "allowed by the override of eks_tested_line committed at ../../tofu-solve-overrides.hcl:1" in said
    assert "-policy-override" not in said
    r = tofu_solve(repo / "live" / "prod", "init", "-handover=false", "-json")
    result = next(d for d in map(json.loads, r.out.splitlines()) if d["type"] == "init_result")
    committed = result["result"]["policy"]["committed_overrides"]
    assert [(o["label"], o["expires"], o["line"]) for o in committed] == [("eks_tested_line", LATER, 1)]
    r = tofu_solve(repo / "live" / "prod", "init", "-handover=false", "-lockfile=readonly", "-format=sarif")
    assert r.code == 0, r.err
    notes = json.loads(r.out)["runs"][0]["invocations"][0]["toolExecutionNotifications"]
    assert [n["level"] for n in notes] == ["note"] and "tofu-solve-overrides.hcl:1" in notes[0]["message"]["text"]
    r = tofu_solve(repo / "live" / "dev", "init", "-handover=false")
    assert r.code == 1  # a root the override does not name: the rule holds


def test_an_expired_unknown_or_mandatory_override_is_an_error_at_its_line(tmp_path, tofu_solve):
    repo = _repo(tmp_path)
    (repo / "tofu-solve-overrides.hcl").write_text("# reviewed by @policy-team\n" + _override(expires=EARLIER))
    r = tofu_solve(repo / "live" / "prod", "init", "-handover=false")
    assert r.code == 1 and "Policy override expired" in r.err and "tofu-solve-overrides.hcl line 4" in r.err, r.err
    (repo / "tofu-solve-overrides.hcl").write_text(_override(label="eks_tested_lines"))
    r = tofu_solve(repo / "live" / "prod", "init", "-handover=false")
    assert r.code == 1 and "Invalid policy override" in r.err and 'Did you mean "eks_tested_line"' in r.err, r.err
    (repo / "p.policy.hcl").write_text(EKS_RULE.replace('"mandatory_overridable"', '"mandatory"'))
    (repo / "tofu-solve-overrides.hcl").write_text(_override())
    r = tofu_solve(repo / "live" / "prod", "init", "-handover=false")
    assert r.code == 1 and "only a mandatory_overridable rule can be overridden" in r.err, r.err
    (repo / "tofu-solve-overrides.hcl").write_text(_override().replace('  expires = "' + LATER + '"\n', ""))
    r = tofu_solve(repo / "live" / "prod", "init", "-handover=false")
    assert r.code == 1 and 'expires = "YYYY-MM-DD"' in r.err
