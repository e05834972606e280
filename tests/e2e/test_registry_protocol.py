"""The module registry protocol in its variants, each against a real HTTP registry on
127.0.0.1: indirect locations (header and JSON), v1.12 direct downloads, credentials from
the CLI config and TF_TOKEN_*, service discovery on a loopback host; and the round cap."""

from __future__ import annotations

import pytest

from tests.e2e.conftest import VPC6_EKS20, lock_versions, write_root
from tofu_solve.world import RegistryServer, write_cli_config

KMS = '''
module "kms" {
  source  = "terraform-aws-modules/kms/aws"
  version = "~> 3.0"
}
'''


@pytest.fixture
def isolated(tmp_path, monkeypatch, tofu_solve):
    # after tofu_solve's own settings: these tests need an empty cache of their own
    monkeypatch.setenv("TOFU_SOLVE_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    for k in list(__import__("os").environ):
        if k.startswith("TF_TOKEN_"):
            monkeypatch.delenv(k)
    return tmp_path


@pytest.mark.parametrize("style", ["header", "json", "direct"])
def test_download_styles(style, world, running, isolated, tofu_solve, monkeypatch):
    with RegistryServer(world, running.git.url, download_style=style) as reg:
        monkeypatch.setenv("TF_CLI_CONFIG_FILE", str(write_cli_config(isolated / "rc", reg.url)))
        r = tofu_solve(write_root(isolated / "root", KMS), "init")
        assert r.code == 0, r.err
        assert lock_versions(r.lock)["kms"].startswith("3.")
        paths = [p for _, p, _ in reg.log.requests]
        if style == "direct":
            assert any(p.startswith("/archives/") for p in paths)  # downloaded by tofu-solve itself
        assert (isolated / "root/.terraform/modules/kms/versions.tf").exists()


def test_credentials_from_cli_config_reach_direct_downloads(world, running, isolated, tofu_solve, monkeypatch):
    with RegistryServer(world, running.git.url, download_style="direct", token="sekrit-token") as reg:
        monkeypatch.setenv("TF_CLI_CONFIG_FILE", str(write_cli_config(isolated / "noauth.rc", reg.url)))
        r = tofu_solve(write_root(isolated / "a", KMS), "init")
        assert r.code == 1 and "error looking up module versions" in r.err and "401" in r.err
        monkeypatch.setenv("TF_CLI_CONFIG_FILE", str(write_cli_config(isolated / "auth.rc", reg.url,
                                                                      token="sekrit-token")))
        r = tofu_solve(write_root(isolated / "b", KMS), "init")
        assert r.code == 0, r.err
        assert "sekrit-token" not in r.out + r.err + r.lock


def test_tf_token_environment_variable(world, running, isolated, tofu_solve, monkeypatch):
    with RegistryServer(world, running.git.url, token="env-token") as reg:
        monkeypatch.setenv("TF_CLI_CONFIG_FILE", str(write_cli_config(isolated / "rc", reg.url)))
        monkeypatch.setenv("TF_TOKEN_registry_opentofu_org", "env-token")
        r = tofu_solve(write_root(isolated / "root", KMS), "init")
        assert r.code == 0, r.err


def test_service_discovery_on_a_loopback_host(world, running, isolated, tofu_solve, monkeypatch):
    with RegistryServer(world, running.git.url) as reg:
        # providers still come from the world registry; the module host has no host block
        monkeypatch.setenv("TF_CLI_CONFIG_FILE", str(running.cli_config))
        host = f"127.0.0.1:{reg.port}"
        r = tofu_solve(write_root(isolated / "root", f'''
            module "kms" {{
              source  = "{host}/terraform-aws-modules/kms/aws"
              version = "~> 3.0"
            }}
        '''), "init")
        assert r.code == 0, r.err
        assert ("GET", "/.well-known/terraform.json", 200) in reg.log.requests
        assert f'source      = "{host}/terraform-aws-modules/kms/aws"' in r.lock


def test_module_not_found(world, running, isolated, tofu_solve, monkeypatch):
    with RegistryServer(world, running.git.url) as reg:
        monkeypatch.setenv("TF_CLI_CONFIG_FILE", str(write_cli_config(isolated / "rc", reg.url)))
        r = tofu_solve(write_root(isolated / "root", '''
            module "x" {
              source  = "nobody/nothing/aws"
              version = "1.0.0"
            }
        '''), "init")
        assert r.code == 1 and "Error: Module not found" in r.err and "nobody/nothing/aws" in r.err


def test_round_cap_is_a_clear_error(tmp_path, tofu_solve):
    root = write_root(tmp_path / "root", VPC6_EKS20)
    r = tofu_solve(root, "init", "-max-rounds=2")
    assert r.code == 1
    assert "Error: Resolution took too long" in r.err and "-max-rounds" in r.err
