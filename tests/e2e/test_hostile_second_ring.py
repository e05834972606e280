"""The second ring of a hostile pull request (issue #80), each case with tofu-solve as its own
process as CI runs it (under ``GITHUB_ACTIONS=true``, its output read as GitHub's runner
reads it: :func:`tests.e2e.test_hostile_edges.assert_safe`), against the fixture world's
real registry, whose request log shows what reached it."""

from __future__ import annotations

import subprocess

from tests.e2e.test_hostile_edges import SECRET, assert_safe, run


def test_a_units_get_env_of_a_secret_not_named_like_one_reaches_no_request_and_no_output(tmp_path, running):
    """§1: ``GH_PAT`` holds a token; a unit builds its source from it. Nothing is read: the
    unit is left out naming the variable, the registry is asked nothing with the value."""
    repo = tmp_path / "repo"
    (repo / "live/x").mkdir(parents=True)
    (repo / "live/x/terragrunt.hcl").write_text(
        'terraform {\n  source = "tfr:///acme/${get_env("GH_PAT")}/test?version=1.0.0"\n}\n')
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    before = len(running.registry.log.requests)
    for args in (["init", "-recursive", "-handover=false"], ["check", "-recursive"], ["check", "-recursive", "-json"]):
        p = run([*args, f"-chdir={repo}"], tmp_path, running.cli_config, tmp_path / "c", GH_PAT=SECRET)
        assert_safe(p)
        assert "GH_PAT" in p.stdout + p.stderr and "Unit left out" in p.stdout + p.stderr
    assert not [r for r in running.registry.log.requests[before:] if SECRET in str(r)]
