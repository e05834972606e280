"""Where a Terraform before 1.15.5 cannot load a ``version`` on a git or OCI source
(``tofu_solve.workdir.overrides.refuse_unloadable``), and where no client needs to: a
Terragrunt unit's own call, whose source Terragrunt reads (issue #82 §4)."""

from __future__ import annotations

import subprocess
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

import pytest

from tofu_solve.addrs.product import TERRAFORM
from tofu_solve.errors import ConfigurationError
from tofu_solve.terragrunt.unit import read_unit, unit_tree
from tofu_solve.versions.hashicorp_go_version import GoVersion
from tofu_solve.versions.target import TargetVersion
from tofu_solve.workdir.overrides import refuse_unloadable

OLD = TargetVersion(GoVersion.parse("1.11.4"), ".terraform-version", TERRAFORM)
BRIDGED = TargetVersion(GoVersion.parse("1.15.5"), ".terraform-version", TERRAFORM)


def _resolution(call) -> SimpleNamespace:
    """What ``refuse_unloadable`` reads of a resolution: one call at its root, at v1.2.0."""
    cand = SimpleNamespace(source=call.source, available=SimpleNamespace(label="v1.2.0"))
    req = SimpleNamespace(call=call, origin=SimpleNamespace(call_path="", package=None, version=None))
    return SimpleNamespace(modules={call.name: cand}, module_requirements={call.name: req})


@pytest.fixture
def unit_call(tmp_path: Path):
    repo = tmp_path / "repo"
    (repo / "live/app").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / "live/app/terragrunt.hcl").write_text(
        'terraform {\n  source = "git::https://git.example.com/net.git?ref=v1.0.0" # tofu-solve version = "~> 1.0"\n}\n')
    unit = read_unit(repo / "live/app", {}, repo, TERRAFORM)
    (rc,) = unit_tree(unit, TERRAFORM).remote_calls
    return rc.call


def test_a_units_own_git_range_needs_no_bridge_on_any_terraform(unit_call):
    assert unit_call.terragrunt and unit_call.version is not None
    refuse_unloadable(_resolution(unit_call), OLD)  # nothing to refuse: Terragrunt reads the source


def test_the_same_call_in_a_tf_file_is_refused_before_1_15_5(unit_call):
    plain = replace(unit_call, terragrunt=False)
    with pytest.raises(ConfigurationError, match=r"Override bridge needs Terraform 1\.15\.5"):
        refuse_unloadable(_resolution(plain), OLD)
    refuse_unloadable(_resolution(plain), BRIDGED)
