"""Runs where ``tofu`` runs (part of issue #14): early evaluation of ``source``/``version``
from outside the configuration, every ``tofu init`` flag accepted, ``TF_CLI_ARGS``, and a
missing ``TF_CLI_CONFIG_FILE``.

OpenTofu sources: ``internal/command/meta_vars.go`` ``collectVariableValues`` (precedence),
``cmd/tofu/main.go`` ``mergeEnvArgs`` (``TF_CLI_ARGS``), ``internal/command/init.go``
(flags), ``internal/command/cliconfig/cliconfig.go`` (missing CLI config: a warning).
"""

from __future__ import annotations

import json

import pytest

from tests.e2e.conftest import lock_versions, write_root

ROOT = '''
variable "kms_version" {
  type = string
}
module "kms" {
  source  = "terraform-aws-modules/kms/aws"
  version = var.kms_version
}
'''


def _major(r) -> str:
    assert r.code == 0, r.err
    return lock_versions(r.lock)["kms"].split(".")[0]


def test_variable_values_follow_opentofu_precedence(isolated, tofu_solve, monkeypatch, tmp_path):
    root = write_root(isolated / "root", ROOT)
    missing = tofu_solve(root, "inspect")
    assert missing.code == 1 and "give it with -var, TF_VAR_kms_version" in missing.err
    monkeypatch.setenv("TF_VAR_kms_version", "~> 1.0")
    assert _major(tofu_solve(root, "init", "-upgrade")) == "1"  # the environment
    (root / "terraform.tfvars").write_text('kms_version = "~> 2.0"\n')
    assert _major(tofu_solve(root, "init", "-upgrade")) == "2"  # terraform.tfvars beats TF_VAR_
    (root / "terraform.tfvars.json").write_text(json.dumps({"kms_version": "~> 3.0"}))
    assert _major(tofu_solve(root, "init", "-upgrade")) == "3"  # .tfvars.json beats .tfvars
    (root / "b.auto.tfvars").write_text('kms_version = "~> 2.0"\n')
    (root / "a.auto.tfvars.json").write_text(json.dumps({"kms_version": "~> 1.0"}))
    assert _major(tofu_solve(root, "init", "-upgrade")) == "2"  # *.auto.tfvars, lexical: b after a
    extra = tmp_path / "extra.tfvars"
    extra.write_text('kms_version = "~> 1.0"\n')
    r = tofu_solve(root, "init", "-upgrade", "-var=kms_version=~> 3.0", f"-var-file={extra}")
    assert _major(r) == "1"  # command line, in order: the file given last wins
    r = tofu_solve(root, "init", "-upgrade", f"-var-file={extra}", "-var", "kms_version=~> 3.0")
    assert _major(r) == "3"
    # check and inspect see the same values
    assert tofu_solve(root, "check", "-var", "kms_version=~> 3.0").code == 0
    data = tofu_solve(root, "inspect", "-json", "-var=kms_version=~> 3.0").json()
    assert data["module_calls"][0]["version"] == "~> 3.0"


@pytest.mark.parametrize("args,summary", [
    (["-var=kms_version"], "Invalid -var option"),
    (["-var-file=nope.tfvars"], "Failed to read variables file"),
])
def test_bad_variable_options(isolated, tofu_solve, args, summary):
    r = tofu_solve(write_root(isolated / "root", ROOT), "init", *args)
    assert r.code == 1 and f"Error: {summary}" in r.err


def test_tfvars_with_an_expression_is_refused(isolated, tofu_solve):
    root = write_root(isolated / "root", ROOT, {"terraform.tfvars": 'kms_version = var.other\n'})
    r = tofu_solve(root, "init")
    assert r.code == 1 and "Error: Variables not allowed" in r.err and "on terraform.tfvars line 1:" in r.err


def test_every_tofu_init_flag_is_accepted(isolated, tofu_solve):
    root = write_root(isolated / "root", ROOT, {"terraform.tfvars": 'kms_version = "~> 3.0"\n'})
    r = tofu_solve(root, "init", "-no-color", "-input=false", "-backend=false", "-cloud=false", "-get=true",
                   "-backend-config=bucket=x", "-backend-config=backend.hcl", "-force-copy", "-reconfigure",
                   "-migrate-state", "-lock=false", "-lock-timeout=30s", "-plugin-dir=/nonexistent",
                   "-ignore-remote-version", "-test-directory=tests", "-compact-warnings",
                   "-consolidate-warnings=false", "-consolidate-errors")
    assert r.code == 0, r.err
    assert lock_versions(r.lock)["kms"].startswith("3.")


def test_tf_cli_args_are_read_as_tofu_reads_them(isolated, tofu_solve, monkeypatch):
    root = write_root(isolated / "root", ROOT, {"terraform.tfvars": 'kms_version = "~> 3.0"\n'})
    monkeypatch.setenv("TF_CLI_ARGS", "-no-color -input=false")
    monkeypatch.setenv("TF_CLI_ARGS_init", "-lockfile=readonly -var='kms_version=~> 2.0'")
    r = tofu_solve(root, "init")
    assert r.code == 1 and "Error: Lock file would change" in r.err  # readonly came from the environment
    monkeypatch.setenv("TF_CLI_ARGS_init", "-var='kms_version=~> 2.0'")
    r = tofu_solve(root, "init", "-var", "kms_version=~> 3.0")  # the command line is applied last
    assert r.code == 0, r.err
    assert lock_versions(r.lock)["kms"].startswith("3.")
    monkeypatch.setenv("TF_CLI_ARGS_init", "-var='unterminated")
    bad = tofu_solve(root, "init")
    assert bad.code == 1 and "Error parsing extra CLI args from TF_CLI_ARGS_init" in bad.err


def test_missing_cli_config_file_is_a_warning(isolated, tofu_solve, monkeypatch, running):
    root = write_root(isolated / "root", 'module "a" {\n  source = "./a"\n}\n', {"a/main.tf": "# a\n"})
    monkeypatch.setenv("TF_CLI_CONFIG_FILE", str(isolated / "no-such.tfrc"))
    r = tofu_solve(root, "init")
    assert r.code == 0, r.err
    assert "Warning: Unable to open CLI configuration file" in r.out and "no-such.tfrc" in r.out


def test_tf_log_shows_registry_and_git_traffic_without_secrets(isolated, tofu_solve, monkeypatch):
    root = write_root(isolated / "root", ROOT, {"terraform.tfvars": 'kms_version = "~> 3.0"\n'})
    log = isolated / "tofu.log"
    monkeypatch.setenv("TF_LOG", "debug")
    monkeypatch.setenv("TF_LOG_PATH", str(log))
    monkeypatch.setenv("TF_TOKEN_registry_opentofu_org", "s3cr3t-registry-token")
    assert tofu_solve(root, "init").code == 0
    text = log.read_text()
    assert "[DEBUG] tofu_solve.remote.registry: GET http://127.0.0.1:" in text and "/v1/modules/" in text
    assert "git ls-remote" in text or "git fetch" in text
    assert "services of registry.opentofu.org from the CLI configuration's host block" in text  # discovery
    assert "s3cr3t-registry-token" not in text
    monkeypatch.setenv("TF_LOG", "off")
    before = log.read_text()
    assert tofu_solve(root, "init").code == 0
    assert log.read_text() == before  # OFF logs nothing
    monkeypatch.setenv("TF_LOG", "json")
    assert tofu_solve(root, "init", "-upgrade").code == 0
    lines = [line for line in log.read_text()[len(before):].splitlines() if line]
    assert lines and all(json.loads(line)["@module"].startswith("tofu_solve") for line in lines)


def test_empty_directory_is_reported_and_nothing_written(isolated, tofu_solve):
    """tofu init in a directory without configuration says so and writes nothing
    (internal/command/init.go: "initialized in an empty directory")."""
    root = isolated / "empty"
    root.mkdir()
    (root / "README.md").write_text("not configuration\n")
    r = tofu_solve(root, "init")
    assert r.code == 0, r.err
    assert "initialized in an empty directory!" in r.out and "no OpenTofu configuration files" in r.out
    assert sorted(p.name for p in root.iterdir()) == ["README.md"]


@pytest.mark.skipif(__import__("shutil").which("tofu") is not None, reason="a tofu on PATH decides the version first")
def test_version_files_of_tenv_and_tofuenv_pick_the_opentofu_version(isolated, tofu_solve):
    base = isolated / "repo"
    root = write_root(base / "live" / "root", 'module "a" {\n  source = "./a"\n}\n', {"a/main.tf": "# a\n"})
    (base / ".tofu-version").write_text("1.9.1\n")
    assert tofu_solve(root, "init", "-json").json()["opentofu"] == "1.9.1"  # found in a parent directory
    (root / ".opentofu-version").write_text("v1.10.3\n")
    assert tofu_solve(root, "init", "-json").json()["opentofu"] == "1.10.3"  # the nearest wins
    assert tofu_solve(root, "init", "-json", "-tofu-version=1.8.0").json()["opentofu"] == "1.8.0"  # the flag first
    (root / ".opentofu-version").write_text("latest\n")  # not an exact version: the newest known release
    assert tofu_solve(root, "init", "-json").json()["opentofu"] not in ("1.9.1", "1.10.3")
