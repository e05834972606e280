"""What the language server reads of Terragrunt and policy files (issue #85 §1-2), in
process and offline: the units a shared include is read by (as each reads it now, unsaved
buffers included), a unit's tree from an unsaved ``terragrunt.hcl``, and a policy file's
errors and the roots each rule refuses, from their lock files."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from tofu_solve.lsp.analysis import _root_tree, units_reading
from tofu_solve.lsp.policy_files import analyse_policy_file, is_policy_file
from tofu_solve.settings import Settings
from tofu_solve.versions.target import target_version

UNIT = ('include "root" {\n  path = find_in_parent_folders("root.hcl")\n}\n'
        'include "envcommon" {\n  path = "${dirname(find_in_parent_folders("root.hcl"))}/_envcommon/NAME.hcl"\n}\n')
ENVCOMMON = 'terraform {\n  source  = "tfr:///terraform-aws-modules/NAME/aws"\n  version = "~> 6.0"\n}\n'


def _repo(base: Path) -> Path:
    files = {"root.hcl": "", "_envcommon/vpc.hcl": ENVCOMMON.replace("NAME", "vpc"),
             "_envcommon/s3.hcl": ENVCOMMON.replace("NAME", "s3-bucket"),
             "live/dev/vpc/terragrunt.hcl": UNIT.replace("NAME", "vpc"),
             "live/prod/vpc/terragrunt.hcl": UNIT.replace("NAME", "vpc"),
             "live/dev/s3/terragrunt.hcl": UNIT.replace("NAME", "s3")}
    for name, text in files.items():
        (base / name).parent.mkdir(parents=True, exist_ok=True)
        (base / name).write_text(text)
    subprocess.run(["git", "init", "-q", str(base)], check=True)
    return base


def _settings(tmp_path: Path) -> Settings:
    return Settings.from_environ({"HOME": str(tmp_path), "PATH": os.environ.get("PATH", ""),
                                  "TOFU_SOLVE_CACHE_DIR": str(tmp_path / "cache")})


def test_a_shared_include_is_read_by_the_units_that_include_it(tmp_path):
    repo = _repo(tmp_path / "repo")
    s = _settings(tmp_path)
    assert units_reading(repo / "_envcommon/vpc.hcl", repo, s, {}) == [repo / "live/dev/vpc", repo / "live/prod/vpc"]
    assert units_reading(repo / "root.hcl", repo, s, {}) == [repo / "live/dev/s3", repo / "live/dev/vpc",
                                                             repo / "live/prod/vpc"]
    # an unsaved edit of a unit counts: dev/s3 now includes the vpc file too
    edited = {repo / "live/dev/s3/terragrunt.hcl": UNIT.replace("NAME", "vpc")}
    assert repo / "live/dev/s3" in units_reading(repo / "_envcommon/vpc.hcl", repo, s, edited)


def test_a_units_tree_is_read_from_its_unsaved_buffers(tmp_path):
    repo = _repo(tmp_path / "repo")
    unit = repo / "live/dev/vpc"
    s = _settings(tmp_path)
    target = target_version(None, unit)
    tree, _ = _root_tree(unit, {}, s, target)
    (rc,) = tree.remote_calls
    assert rc.call.version.text == "~> 6.0" and rc.call.version_where.file == "../../../_envcommon/vpc.hcl"
    texts = {repo / "_envcommon/vpc.hcl": ENVCOMMON.replace("NAME", "vpc").replace("~> 6.0", "~> 5.0")}
    tree, _ = _root_tree(unit, texts, s, target)
    assert tree.remote_calls[0].call.version.text == "~> 5.0"


def test_an_unsaved_buffer_outside_the_repository_is_not_read(tmp_path):
    """The editor's buffers stand in for the disk only inside the repository boundary the
    disk is read within (issue #67 §3): a unit including a file outside it is refused by
    name, buffer or not."""
    repo = _repo(tmp_path / "repo")
    outside = tmp_path / "elsewhere.hcl"
    outside.write_text(ENVCOMMON.replace("NAME", "vpc"))
    unit = repo / "live/dev/vpc"
    texts = {unit / "terragrunt.hcl": f'include "x" {{\n  path = "{outside}"\n}}\n',
             outside: ENVCOMMON.replace("NAME", "vpc")}
    import pytest

    from tofu_solve.errors import ConfigurationError

    with pytest.raises(ConfigurationError, match="outside the repository"):
        _root_tree(unit, texts, _settings(tmp_path), target_version(None, unit))


POLICY = ('module_policy "terraform-aws-modules/vpc/aws" "vpc_floor" {\n  enforce {\n'
          '    condition     = core::semverconstraint(meta.version, ">= 6.6.0")\n'
          '    error_message = "vpc below 6.6.0"\n  }\n}\n')
LOCK = ('module "vpc" {\n  version     = "VERSION"\n  constraints = "~> 6.0"\n'
        '  source      = "registry.opentofu.org/terraform-aws-modules/vpc/aws"\n  hashes = [\n'
        '    "h1:' + "A" * 43 + '=",\n  ]\n}\n')


def test_a_policy_files_rules_name_the_roots_they_refuse_today(tmp_path):
    repo = tmp_path / "repo"
    for name, version in (("envs/old", "6.5.1"), ("envs/new", "6.6.0")):
        (repo / name).mkdir(parents=True)
        (repo / name / "main.tf").write_text('module "vpc" {\n  source = "terraform-aws-modules/vpc/aws"\n}\n')
        (repo / name / ".terraform.lock.hcl").write_text(LOCK.replace("VERSION", version))
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    policy = repo / "vpc.policy.hcl"
    policy.write_text(POLICY)
    assert is_policy_file(policy) and not is_policy_file(repo / "root.hcl")
    report = analyse_policy_file(policy, {}, _settings(tmp_path), repo)
    assert report.findings == []
    assert [(x.line, x.title) for x in report.lenses] == [(1, "refuses today: envs/old (vpc 6.5.1)")]
    # a policies/ folder is on no root's path: said, not silently nothing
    (repo / "policies").mkdir()
    elsewhere = repo / "policies" / "vpc.policy.hcl"
    elsewhere.write_text(POLICY)
    (lens,) = analyse_policy_file(elsewhere, {}, _settings(tmp_path), repo).lenses
    assert lens.title.startswith("applies to no root of the workspace")


def test_a_policy_files_error_is_at_its_line_from_the_unsaved_buffer(tmp_path):
    policy = tmp_path / "vpc.policy.hcl"
    policy.write_text(POLICY)
    broken = POLICY.replace("core::semverconstraint", "core::semver_constraint")
    report = analyse_policy_file(policy, {policy: broken}, _settings(tmp_path), None)
    (f,) = report.findings
    assert (f.file, f.line, f.severity) == ("vpc.policy.hcl", 3, "error") and "semver_constraint" in f.message
    assert report.read_error


def test_a_document_outside_the_workspace_is_not_solved(tmp_path):
    """Issue #80 §5: a ``file://`` URI whose ``%2e%2e`` segments leave the workspace names a
    path outside it: not solved, whatever it names."""
    from lsprotocol.types import WorkspaceFolder
    from pygls.workspace import Workspace

    from tofu_solve.lsp.server import SolveServer, uri_path

    (tmp_path / "ws").mkdir()
    server = SolveServer(_settings(tmp_path))
    server.protocol._workspace = Workspace((tmp_path / "ws").as_uri(),
                                           workspace_folders=[WorkspaceFolder((tmp_path / "ws").as_uri(), "ws")])
    sneaky = (tmp_path / "ws").as_uri() + "/%2e%2e/victim/main.tf"
    path = uri_path(sneaky)
    assert path == tmp_path / "victim/main.tf"
    assert not server.in_workspace(path) and server.in_workspace(tmp_path / "ws/root/main.tf")
    server.schedule(sneaky)
    assert server._generation == {}  # nothing was scheduled


def test_the_server_solves_within_its_budget(tmp_path, monkeypatch):
    """Issue #83 §1: the server passes its solve budget (``SOLVE_SECONDS``) to every solve,
    a deadline counted from when the solve starts (no test held it: the analysis honours a
    deadline, but only when it is given one)."""
    import time
    import types

    from tofu_solve.lsp import server as lsp_server

    seen = {}

    def analyse(root, texts, settings, client, network=False, deadline=None):
        seen["deadline"], seen["at"], seen["network"] = deadline, time.monotonic(), network
        return types.SimpleNamespace()

    s = lsp_server.SolveServer(_settings(tmp_path))
    monkeypatch.setattr(lsp_server, "analyse", analyse)
    for name, value in (("_later", lambda fn: None), ("_target_client", lambda: None),
                        ("_documents", lambda root: {}), ("_progress_begin", lambda title: None),
                        ("_progress_end", lambda token: None)):
        monkeypatch.setattr(s, name, value)
    s._solve(tmp_path, s._generation.get(tmp_path), debounce=False)
    assert seen["deadline"] is not None
    assert 0 < seen["deadline"] - seen["at"] <= lsp_server.SOLVE_SECONDS
    # issue #83 §1: offline until the editor turns the network on (issue #67 §6)
    assert seen["network"] is False
