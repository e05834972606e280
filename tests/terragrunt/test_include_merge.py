"""Terragrunt's ``merge_strategy`` on an include (issue #83 §1: a promise no test held):
``"no_merge"`` merges nothing of the included file into the unit, so the module its
``terraform`` block names is not the unit's (Terragrunt's ``include`` docs; ``"shallow"``,
the default, merges it). In process, offline: the reader itself."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tofu_solve.terragrunt.unit import read_unit

COMMON = 'terraform {\n  source = "tfr:///terraform-aws-modules/vpc/aws?version=6.5.1"\n}\n'


def _unit(tmp_path: Path, merge: str | None) -> Path:
    repo = tmp_path / "repo"
    (repo / "live/app").mkdir(parents=True)
    (repo / "_envcommon").mkdir()
    (repo / "_envcommon/vpc.hcl").write_text(COMMON)
    strategy = f'  merge_strategy = "{merge}"\n' if merge else ""
    (repo / "live/app/terragrunt.hcl").write_text(
        f'include "vpc" {{\n  path = "${{get_repo_root()}}/_envcommon/vpc.hcl"\n{strategy}}}\n')
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    return repo / "live/app"


@pytest.mark.parametrize("merge", [None, "shallow", "deep"])
def test_a_merged_include_gives_the_unit_its_source(tmp_path, merge):
    unit = read_unit(_unit(tmp_path, merge), {}, tmp_path)
    assert unit is not None and unit.source_text == "terraform-aws-modules/vpc/aws"


def test_no_merge_gives_the_unit_nothing_of_the_included_file(tmp_path):
    # the included file's terraform.source is not the unit's: no source, so no unit (a plain directory)
    assert read_unit(_unit(tmp_path, "no_merge"), {}, tmp_path) is None
