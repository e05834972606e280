"""Terragrunt's own fixtures read by tofu-solve's Terragrunt reader (issue #73 §5); sources
and rules in README.md beside this file."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tofu_solve.addrs.product import OPENTOFU, TERRAFORM
from tofu_solve.command.monorepo import find_roots
from tofu_solve.errors import ConfigurationError
from tofu_solve.terragrunt.stack import instances_of
from tofu_solve.terragrunt.unit import UnitLeftOut, read_unit, unit_tree

FIXTURES = Path(__file__).with_name("fixtures")


@pytest.fixture
def fixtures(tmp_path) -> Path:
    """The fixtures in a git repository of their own (``get_repo_root`` and discovery read git)."""
    copy = tmp_path / "fixtures"
    shutil.copytree(FIXTURES, copy)
    subprocess.run(["git", "init", "-q", str(copy)], check=True)
    return copy


@pytest.mark.parametrize("region", ["us-east-1", "us-west-2"])
def test_exposed_includes_read_each_regions_file_for_the_unit(fixtures, region):
    base = fixtures / "docs/02-overview/step-05-exposed-includes"
    unit = read_unit(base / region / "vpc", {}, base)
    assert unit is not None and unit.kind == "registry"
    assert (unit.source_text, unit.range, unit.terragrunt_constraint) == (
        "terraform-aws-modules/vpc/aws", "5.16.0", "5.16.0")
    assert unit.range_where.file == f"{region}/vpc/terragrunt.hcl" and unit.range_where.line == 11
    # root.hcl's find_in_parent_folders and read_terragrunt_config answer for the unit's directory
    (provider,) = [g for g in unit.config.generated if g.name == "provider"]
    assert f'region = "{region}"' in provider.contents
    assert [str(f.relative_to(base)) for f in unit.config.files] == [
        f"{region}/vpc/terragrunt.hcl", "root.hcl", f"{region}/region.hcl"]


def test_a_dependency_read_only_by_inputs_leaves_the_source_readable(fixtures):
    base = fixtures / "docs/02-overview/step-05-exposed-includes"
    unit = read_unit(base / "us-east-1/ec2", {}, base)
    assert (unit.source_text, unit.range) == ("terraform-aws-modules/ec2-instance/aws", "6.2.0")
    tree = unit_tree(unit)
    assert [rc.call.name for rc in tree.remote_calls] == ["unit"]


def test_tfr_takes_the_products_registry(fixtures):
    base = fixtures / "docs/02-overview/step-05-exposed-includes"
    for product in (OPENTOFU, TERRAFORM):
        tree = unit_tree(read_unit(base / "us-east-1/vpc", {}, base, product), product)
        assert tree.remote_calls[0].call.source.package.host == product.registry_host


def test_source_dot_is_the_units_own_directory(fixtures):
    unit = read_unit(fixtures / "find-parent/app", {}, fixtures)
    assert unit.kind == "local" and unit.source_text == "."
    assert [str(f.relative_to(fixtures)) for f in unit.config.files] == ["find-parent/app/terragrunt.hcl",
                                                                         "find-parent/root.hcl"]


def test_the_deprecated_root_terragrunt_hcl_is_found_and_is_no_unit(fixtures):
    base = fixtures / "find-parent-with-deprecated-root"
    assert read_unit(base / "app", {}, base).config.files[1] == base / "terragrunt.hcl"
    assert read_unit(base, {}, base) is None  # no terraform block: an include's parent
    assert find_roots(base, environ={}) == [base / "app"]


def test_a_local_source_reads_the_module_after_the_double_slash(fixtures):
    base = fixtures / "download/local-with-include-dir"
    units = find_roots(base, environ={})
    assert len(units) == 5
    for u in units:
        unit = read_unit(u, {}, base)
        tree = unit_tree(unit)
        (req,) = [p for _, p in tree.providers]
        assert str(req.address) == "registry.opentofu.org/hashicorp/null" and req.constraint.text == "3.2.4"
        assert req.where.file.endswith("hello-world-no-remote/main.tf")


def test_an_include_that_includes_is_refused(fixtures):
    base = fixtures / "parent-folders/multiple-terragrunt-in-parents"
    with pytest.raises(ConfigurationError) as e:
        read_unit(base / "child/sub-child/sub-sub-child", {}, base)
    assert e.value.summary == "Too many levels of includes" and "Only one level of includes is allowed" in e.value.detail


UNIT = 'terraform {{\n  source  = "{source}"\n{version}}}\n'


@pytest.mark.parametrize(("source", "version", "error"), [
    # pkg/config/config.go ValidateVersion: VersionAttributeNonRegistrySourceError
    ("git::https://example.com/vpc.git?ref=v1.0.0", "~> 1.0", "Version attribute on a non-registry source"),
    ("../modules/vpc", "~> 1.0", "Version attribute on a non-registry source"),
    # VersionAttributeSourceConstraintConflictError
    ("tfr:///terraform-aws-modules/vpc/aws?version=6.0.0", "~> 6.0", "Version set twice"),
    # tfr.go: NAMESPACE/NAME/SYSTEM (MalformedRegistryURLErr)
    ("tfr:///terraform-aws-modules/vpc", None, "Malformed registry URL"),
])
def test_the_version_attribute_is_refused_where_terragrunt_refuses_it(tmp_path, source, version, error):
    version_line = f'  version = "{version}"\n' if version else ""
    (tmp_path / "terragrunt.hcl").write_text(UNIT.format(source=source, version=version_line))
    with pytest.raises(ConfigurationError) as e:
        read_unit(tmp_path, {}, tmp_path)
    assert e.value.summary == error and e.value.where.file == "terragrunt.hcl"


def test_a_version_range_and_the_default_host(tmp_path):
    (tmp_path / "terragrunt.hcl").write_text(UNIT.format(source="tfr:///terraform-aws-modules/vpc/aws//modules/x",
                                                         version='  version = "~> 6.0"\n'))
    unit = read_unit(tmp_path, {}, tmp_path)
    assert (unit.source_text, unit.range, unit.pin) == ("terraform-aws-modules/vpc/aws//modules/x", "~> 6.0", None)
    # TG_TF_DEFAULT_REGISTRY_HOST names tfr:///'s host (tf.DefaultRegistryDomain)
    other = read_unit(tmp_path, {"TG_TF_DEFAULT_REGISTRY_HOST": "registry.example.com"}, tmp_path)
    assert other.source_text == "registry.example.com/terraform-aws-modules/vpc/aws//modules/x"
    # no version: the newest stable release (PR #6112): no range
    (tmp_path / "terragrunt.hcl").write_text(UNIT.format(source="tfr:///terraform-aws-modules/vpc/aws", version=""))
    assert read_unit(tmp_path, {}, tmp_path).range is None


@pytest.mark.parametrize(("expression", "why"), [
    ('run_cmd("echo", "vpc")', "run_cmd()"),
    ('"${get_aws_account_id()}/vpc/aws"', "get_aws_account_id()"),
    ('sops_decrypt_file("secrets.yaml")', "sops_decrypt_file()"),
    ('"terraform-aws-modules/${dependency.net.outputs.name}/aws"', "dependency.net"),
])
def test_a_source_only_terragrunt_knows_leaves_the_unit_out_with_the_reason(tmp_path, expression, why):
    (tmp_path / "terragrunt.hcl").write_text(f"terraform {{\n  source = {expression}\n}}\n")
    with pytest.raises(UnitLeftOut) as e:
        read_unit(tmp_path, {}, tmp_path)
    assert why in e.value.detail and e.value.where.line == 2


def test_get_env_without_a_default_is_an_error_when_unset(tmp_path):
    (tmp_path / "terragrunt.hcl").write_text('terraform {\n  source = "tfr:///${get_env("MOD")}/aws"\n}\n')
    with pytest.raises(ConfigurationError) as e:
        read_unit(tmp_path, {}, tmp_path)
    assert "MOD is not set" in e.value.detail or "does not let units read" in e.value.detail
    allowed = {"TOFU_SOLVE_TERRAGRUNT_ENV": "MOD"}  # the job names what units may read (issue #80 §1)
    with pytest.raises(ConfigurationError) as e:
        read_unit(tmp_path, allowed, tmp_path)
    assert "MOD is not set" in e.value.detail
    assert read_unit(tmp_path, {"MOD": "acme/vpc", **allowed}, tmp_path).source_text == "acme/vpc/aws"


def test_a_stacks_units_come_from_its_catalog(fixtures):
    base = fixtures / "docs/03-stacks-with-local-state"
    assert find_roots(base, environ={}) == [base / "units/basic"]  # the catalog unit: the stack's one lock
    instances = instances_of(base / "units/basic", {}, base)
    assert [(i.name, str(i.generated.relative_to(base))) for i in instances] == [
        ("foo", "live/.terragrunt-stack/foo"), ("bar", "live/.terragrunt-stack/bar"),
        ("baz", "live/.terragrunt-stack/baz")]
    assert all(i.catalog == base / "units/basic" and not i.values for i in instances)


def test_terraform_binary_picks_the_product_unless_a_version_file_names_one(tmp_path):
    """Terragrunt runs ``terraform_binary`` (``TerragruntConfig.TerraformBinary``); a lock for
    it names that product's registry, and ``tfr:///`` resolves there."""
    from tofu_solve.terragrunt.unit import unit_and_target
    from tofu_solve.versions.target import target_version

    (tmp_path / "terragrunt.hcl").write_text('terraform_binary = "/usr/local/bin/terraform"\n'
                                             'terraform {\n  source = "tfr:///acme/vpc/aws?version=1.0.0"\n}\n')
    unit, target = unit_and_target(tmp_path, "", {}, target_version(None, tmp_path))
    assert target.product is TERRAFORM and target.origin == "terraform_binary in terragrunt.hcl:1"
    assert unit_tree(unit, target.product).remote_calls[0].call.source.package.host == "registry.terraform.io"
    (tmp_path / ".opentofu-version").write_text("1.10.6\n")  # named: the version file decides
    unit, target = unit_and_target(tmp_path, "", {}, target_version(None, tmp_path))
    assert target.product is OPENTOFU and str(target.version) == "1.10.6"


def test_an_oci_source_takes_a_range_from_its_comment_and_its_tag_is_the_pin(tmp_path):
    from tofu_solve.terragrunt.pins import pin_edit

    (tmp_path / "terragrunt.hcl").write_text(
        'terraform {\n  source = "oci://example.com/modules/vpc?tag=1.0.0" # tofu-solve version = "~> 1.0"\n}\n')
    unit = read_unit(tmp_path, {}, tmp_path)
    assert (unit.kind, unit.source_text, unit.range, unit.pin) == ("oci", "oci://example.com/modules/vpc", "~> 1.0",
                                                                 "1.0.0")
    edit = pin_edit(unit, "1.2.0")
    assert edit.text == ('terraform {\n  source = "oci://example.com/modules/vpc?tag=1.2.0" '
                         '# tofu-solve version = "~> 1.0"\n}\n')
    assert pin_edit(unit, "1.0.0") is None  # Terragrunt installs that tag already
    # without the comment the tag is exact: no range, nothing to pin
    (tmp_path / "terragrunt.hcl").write_text('terraform {\n  source = "oci://example.com/modules/vpc?tag=1.0.0"\n}\n')
    unit = read_unit(tmp_path, {}, tmp_path)
    assert unit.range is None and pin_edit(unit, "1.2.0") is None


def test_a_pin_reads_back_as_the_same_range(tmp_path):
    """The pin round trip, for every place a range can be written: what init writes, read
    again, is the same range with the lock's version as its pin (one truth)."""
    from tofu_solve.terragrunt.pins import pin_edit

    include = 'terraform {\n  source  = "tfr:///acme/vpc/aws"\n  version = "~> 6.0"\n}\n'
    cases = {
        "own": ('terraform {\n  source  = "tfr:///acme/vpc/aws"\n  version = "~> 6.0"\n}\n', None),
        "own, computed": ('locals {\n  v = "~> 6.0"\n}\nterraform {\n  source  = "tfr:///acme/vpc/aws"\n'
                          '  version = local.v\n}\n', None),
        "include": ('include "c" {\n  path = "c.hcl"\n}\n', include),
        "include, own block": ('include "c" {\n  path = "c.hcl"\n}\nterraform {\n  extra_arguments "x" {\n'
                               '    commands = ["plan"]\n  }\n}\n', include),
    }
    for name, (unit_text, included) in cases.items():
        d = tmp_path / name.replace(" ", "_").replace(",", "")
        d.mkdir()
        (d / "terragrunt.hcl").write_text(unit_text)
        if included:
            (d / "c.hcl").write_text(included)
        for version in ("6.2.1", "6.3.0"):  # pinned, then moved
            unit = read_unit(d, {}, d)
            edit = pin_edit(unit, version)
            assert edit is not None, name
            edit.path.write_text(edit.text)
            again = read_unit(d, {}, d)
            assert (again.range, again.pin) == ("~> 6.0", version), (name, edit.text)
            assert pin_edit(again, version) is None


def test_a_credential_named_variable_is_never_read(tmp_path):
    """A pull request's unit may not build its source from the job's secrets: the value would
    reach the lock, a registry request and the output (``read.CREDENTIAL_NAME``)."""
    (tmp_path / "terragrunt.hcl").write_text('terraform {\n  source = "tfr:///acme/${get_env("AWS_SECRET_ACCESS_KEY")}'
                                             '/aws"\n}\n')
    with pytest.raises(UnitLeftOut) as e:
        read_unit(tmp_path, {"AWS_SECRET_ACCESS_KEY": "s3cr3t"}, tmp_path)
    assert "AWS_SECRET_ACCESS_KEY" in e.value.detail and "s3cr3t" not in str(e.value)
    (tmp_path / "terragrunt.hcl").write_text('terraform {\n  source = "tfr:///acme/${get_env("REGION")}/aws"\n}\n')
    assert read_unit(tmp_path, {"REGION": "eu", "TOFU_SOLVE_TERRAGRUNT_ENV": "REGION"}, tmp_path).source_text == \
        "acme/eu/aws"


def test_a_units_files_are_read_only_from_its_repository(tmp_path):
    outside = tmp_path / "outside.hcl"
    outside.write_text('terraform {\n  source = "tfr:///acme/vpc/aws"\n}\n')
    repo = tmp_path / "repo"
    (repo / "unit").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / "unit/terragrunt.hcl").write_text(f'include "x" {{\n  path = "{outside}"\n}}\n')
    with pytest.raises(ConfigurationError) as e:
        read_unit(repo / "unit", {}, repo)
    assert e.value.summary == "File outside the repository" and e.value.where.line == 1


def test_the_override_file_pins_the_modules_own_calls_from_the_lock():
    from tofu_solve.lockfile.entries import ModuleLock
    from tofu_solve.terragrunt.pins import HEADER, override_text, unpinnable

    modules = {
        "unit": ModuleLock("unit", "20.37.2", "registry.opentofu.org/terraform-aws-modules/eks/aws", "~> 20.0"),
        "unit.kms": ModuleLock("unit.kms", "2.1.0", "registry.opentofu.org/terraform-aws-modules/kms/aws", "2.1.0"),
        "unit.net": ModuleLock("unit.net", "v1.2.0", "git::https://example.com/net.git?ref=v1.2.0", "~> 1.0"),
        "unit.kms.inner": ModuleLock("unit.kms.inner", "1.0.0", "registry.opentofu.org/a/b/c", ""),
    }
    assert override_text(modules, "unit.") == HEADER + (
        '\nmodule "kms" {\n  version = "= 2.1.0"\n}\n'
        '\nmodule "net" {\n  source  = "git::https://example.com/net.git?ref=v1.2.0"\n  version = null\n}\n')
    assert unpinnable(modules, "unit.") == ["unit.kms.inner"]
    assert override_text({"unit": modules["unit"]}, "unit.") is None  # no call of the module: no file


def test_a_local_that_needs_itself_is_an_error_at_its_line(tmp_path):
    (tmp_path / "terragrunt.hcl").write_text('locals {\n  a = local.b\n  b = local.a\n}\n'
                                             'terraform {\n  source = "tfr:///acme/${local.a}/aws"\n}\n')
    with pytest.raises(ConfigurationError) as e:
        read_unit(tmp_path, {}, tmp_path)
    assert e.value.summary == "Cycle in local values" and e.value.where.line in (2, 3)


def test_a_stack_unit_path_stays_inside_the_stack(tmp_path):
    """A pull request's stack file may not make tofu-solve read or write a unit outside the
    stack's directory (``path = "../../x"``)."""
    from tofu_solve.terragrunt.stack import read_stack

    stack = tmp_path / "terragrunt.stack.hcl"
    stack.write_text('unit "x" {\n  source = "../units/x"\n  path   = "../../etc"\n}\n')
    with pytest.raises(ConfigurationError) as e:
        read_stack(stack, {}, tmp_path)
    assert e.value.summary == "Invalid unit path" and e.value.where.line == 3
