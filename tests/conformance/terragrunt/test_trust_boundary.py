"""A Terragrunt unit's functions inside the trust boundary (issue #80 §1): a pull request's
``terragrunt.hcl`` reads from the environment only what the job allows, asks the machine
nothing outside the repository, and is read on a budget. In process, offline: the reader
itself (``tofu_solve.terragrunt.read``, ``unit.unit_tree``)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tofu_solve.errors import ConfigurationError
from tofu_solve.terragrunt.read import ENV_ALLOW_VARIABLE, env_allowed
from tofu_solve.terragrunt.unit import UnitLeftOut, read_unit, unit_tree

SECRET = "ghp_s3cr3tv4lue"


def _repo(tmp_path: Path, unit: str, files: dict[str, str] | None = None) -> Path:
    repo = tmp_path / "repo"
    (repo / "live/app").mkdir(parents=True)
    (repo / "live/app/terragrunt.hcl").write_text(unit)
    for name, text in (files or {}).items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(text)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    return repo / "live/app"


def test_which_variables_a_job_lets_units_read():
    assert env_allowed("TG_REGION", {}) and not env_allowed("GH_PAT", {}) and not env_allowed("TF_VAR_db", {})
    assert env_allowed("GH_PAT", {ENV_ALLOW_VARIABLE: "REGION, GH_PAT"})
    assert env_allowed("APP_NAME", {ENV_ALLOW_VARIABLE: "APP_*"}) and not env_allowed("TG_X", {ENV_ALLOW_VARIABLE: ""})
    assert not env_allowed("TG_TOKEN", {}) and not env_allowed("DB_PASSWORD", {ENV_ALLOW_VARIABLE: "DB_*"})


@pytest.mark.parametrize("name", ["GH_PAT", "DB_PASS", "DATABASE_URL", "CI_JOB_JWT", "MYSQL_PWD", "SENTRY_DSN"])
def test_a_secret_not_named_like_one_is_not_read(tmp_path, name):
    unit = _repo(tmp_path, f'terraform {{\n  source = "tfr:///acme/${{get_env("{name}")}}/aws?version=1.0.0"\n}}\n')
    with pytest.raises(UnitLeftOut) as e:
        read_unit(unit, {name: SECRET}, unit)
    assert name in e.value.detail and ENV_ALLOW_VARIABLE in e.value.detail and SECRET not in str(e.value)
    # with a default, the default: the job's value never reaches the source
    unit.joinpath("terragrunt.hcl").write_text(
        f'terraform {{\n  source = "tfr:///acme/${{get_env("{name}", "vpc")}}/aws?version=1.0.0"\n}}\n')
    assert read_unit(unit, {name: SECRET}, unit).source_text == "acme/vpc/aws"


def test_a_variable_the_job_names_is_read(tmp_path):
    unit = _repo(tmp_path, 'terraform {\n  source = "tfr:///acme/${get_env("APP")}/aws?version=1.0.0"\n}\n')
    assert read_unit(unit, {"APP": "vpc", ENV_ALLOW_VARIABLE: "APP"}, unit).source_text == \
        "acme/vpc/aws"


def test_fileexists_and_find_in_parent_folders_answer_only_inside_the_repository(tmp_path):
    (tmp_path / "above.hcl").write_text("")  # beside the repository, not in it
    unit = _repo(tmp_path, 'locals {\n  here = fileexists("/etc/hostname")\n}\n'
                           'terraform {\n  source = "tfr:///acme/${local.here}/aws?version=1.0.0"\n}\n')
    with pytest.raises(ConfigurationError, match="outside the repository"):
        read_unit(unit, {}, unit)
    unit.joinpath("terragrunt.hcl").write_text(
        'terraform {\n  source = "tfr:///acme/${basename(find_in_parent_folders("above.hcl", "none"))}/aws'
        '?version=1.0.0"\n}\n')
    assert read_unit(unit, {}, unit).source_text == "acme/none/aws"  # the walk stops at the top
    unit.joinpath("x.hcl").write_text("")
    unit.joinpath("terragrunt.hcl").write_text(
        'terraform {\n  source = "tfr:///acme/${fileexists("x.hcl") ? "yes" : "no"}/aws?version=1.0.0"\n}\n')
    assert read_unit(unit, {}, unit).source_text == "acme/yes/aws"


def test_read_terragrunt_config_reads_each_file_once_however_often_it_is_named(tmp_path):
    """Seven files, each with eight locals reading the next: 8^6 reads before, seven now."""
    files = {}
    for k in range(7):
        nxt = f'read_terragrunt_config("f{k + 1}.hcl").locals.v0' if k < 6 else '"vpc"'
        files[f"live/app/f{k}.hcl"] = "locals {\n" + "".join(f"  v{i} = {nxt}\n" for i in range(8)) + "}\n"
    unit = _repo(tmp_path, 'locals {\n  all = [for i in range(8) : read_terragrunt_config("f0.hcl").locals["v${i}"]]\n}\n'
                           'terraform {\n  source = "tfr:///acme/${local.all[7]}/aws?version=1.0.0"\n}\n', files)
    read: list[Path] = []
    got = read_unit(unit, {}, unit, reads=read.append)
    assert got is not None and got.source_text == "acme/vpc/aws"
    assert sorted(p.name for p in read) == ["f0.hcl", "f1.hcl", "f2.hcl", "f3.hcl", "f4.hcl", "f5.hcl", "f6.hcl",
                                            "terragrunt.hcl"]


def test_a_unit_is_read_on_a_budget_with_an_error_at_the_line(tmp_path):
    unit = _repo(tmp_path, 'locals {\n  big = [for i in range(2000) : [for j in range(1000) : j]]\n}\n'
                           'terraform {\n  source = "tfr:///acme/${length(local.big)}/aws?version=1.0.0"\n}\n')
    with pytest.raises(ConfigurationError) as e:
        read_unit(unit, {}, unit)
    assert e.value.summary == "Expression too costly" and e.value.where.line == 2
    big = _repo(tmp_path / "big", 'include "x" {\n  path = "big.hcl"\n}\n',
                {"live/app/big.hcl": "locals {\n" + "  x = 1\n" * (300 << 10) + "}\n"})
    with pytest.raises(ConfigurationError, match="too large") as e:
        read_unit(big, {}, big)
    assert e.value.where is not None and e.value.where.line == 1  # where the include names it


@pytest.mark.parametrize("source", ["../../../victim", "file:///etc"])
def test_a_local_source_outside_the_repository_is_refused(tmp_path, source):
    (tmp_path / "victim").mkdir()
    (tmp_path / "victim/main.tf").write_text('output "x" {\n  value = 1\n}\n')
    unit = _repo(tmp_path, f'terraform {{\n  source = "{source}"\n}}\n')
    with pytest.raises(ConfigurationError, match="Local source outside the repository") as e:
        unit_tree(read_unit(unit, {}, unit))
    assert e.value.where is not None and e.value.where.line == 2
