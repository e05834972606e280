"""Terraform 1.17's variables and locals in ``required_providers`` (issue #82 §3,
hashicorp/terraform#39153): read as Terraform reads a module's ``source`` and ``version``
since 1.15 (const variables, their defaults or the values given from outside, locals), with
the same errors; refused for a target before 1.17, and by OpenTofu, with the error those give
(``internal/configs/provider_requirements.go``: "Invalid version constraint", "Version must
be specified as a string.")."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from tofu_solve.addrs.product import OPENTOFU, TERRAFORM
from tofu_solve.config import load_module_dir
from tofu_solve.config.variables import InputValue
from tofu_solve.errors import ConfigurationError
from tofu_solve.versions.hashicorp_go_version import GoVersion
from tofu_solve.versions.target import TargetVersion
from tofu_solve.workdir.overrides import refuse_provider_expressions

VARIABLE = 'variable "aws_floor" {\n  const   = true\n  default = "~> 5.0"\n}\n'
PROVIDERS = ('terraform {\n  required_providers {\n    aws = {\n      source  = "hashicorp/aws"\n'
             '      version = var.aws_floor\n    }\n  }\n}\n')


def _aws(cfg):
    (p,) = [p for p in cfg.provider_requirements if p.local_name == "aws"]
    return p


def test_a_const_variable_is_read_with_where_its_value_came_from(tmp_path):
    (tmp_path / "variables.tf").write_text(VARIABLE)
    (tmp_path / "main.tf").write_text(PROVIDERS)
    p = _aws(load_module_dir(tmp_path, product=TERRAFORM))
    assert p.constraint.text == "~> 5.0" and (p.where.file, p.where.line) == ("main.tf", 5)
    assert p.via == "version = var.aws_floor (its default, variables.tf:3)"
    given = {"aws_floor": InputValue("~> 5.90", "-var")}
    p = _aws(load_module_dir(tmp_path, product=TERRAFORM, inputs=given))
    assert p.constraint.text == "~> 5.90" and p.via == "version = var.aws_floor (-var)"


def test_a_local_and_a_template_are_read(tmp_path):
    (tmp_path / "main.tf").write_text(
        VARIABLE + 'locals {\n  ns = "hashicorp"\n}\n' + PROVIDERS.replace('"hashicorp/aws"', '"${local.ns}/aws"'))
    p = _aws(load_module_dir(tmp_path, product=TERRAFORM))
    assert str(p.address) == "registry.terraform.io/hashicorp/aws"
    assert p.via.startswith("source = local.ns (main.tf:") and "version = var.aws_floor" in p.via


def test_a_variable_not_declared_const_is_terraforms_error(tmp_path):
    (tmp_path / "main.tf").write_text(VARIABLE.replace("  const   = true\n", "") + PROVIDERS)
    with pytest.raises(ConfigurationError) as e:
        load_module_dir(tmp_path, product=TERRAFORM)
    assert e.value.detail == "Only literal values and const variables can be evaluated during init."


def test_opentofu_refuses_it_as_it_does_today(tmp_path):
    (tmp_path / "main.tf").write_text(VARIABLE + PROVIDERS)
    with pytest.raises(ConfigurationError) as e:
        load_module_dir(tmp_path, product=OPENTOFU)
    assert (e.value.summary, e.value.detail) == ("Invalid version constraint", "Version must be specified as a string.")


def test_a_target_before_1_17_refuses_it_where_it_is_written(tmp_path):
    (tmp_path / "main.tf").write_text(VARIABLE + PROVIDERS)
    p = _aws(load_module_dir(tmp_path, product=TERRAFORM))
    req = SimpleNamespace(via=p.via, origin=SimpleNamespace(where=p.where))
    res = SimpleNamespace(provider_requirements={str(p.address): [req]})

    def target(v):
        return TargetVersion(GoVersion.parse(v), ".terraform-version", TERRAFORM)
    refuse_provider_expressions(res, target("1.17.0"))
    with pytest.raises(ConfigurationError) as e:
        refuse_provider_expressions(res, target("1.16.2"))
    assert e.value.summary == "Invalid version constraint" and e.value.where == p.where
    assert "var.aws_floor (its default, main.tf:3)" in e.value.detail and "1.17" in e.value.detail
    literal = SimpleNamespace(provider_requirements={"x": [SimpleNamespace(via="", origin=None)]})
    refuse_provider_expressions(literal, target("1.11.4"))
