"""The CLI configuration written for one run of the client's init (issue #68 §2):
``tofu_solve.workdir.client_config``."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from tofu_solve.addrs.product import OPENTOFU, TERRAFORM
from tofu_solve.config import hcl1
from tofu_solve.config.cliconfig import parse_installation_block
from tofu_solve.lockfile.hashes import hash_dir
from tofu_solve.store.cache import Cache
from tofu_solve.store.plugin_dirs import verified_dir
from tofu_solve.workdir.client_config import (
    ProviderMirror,
    client_config_file,
    offered_text,
    provider_mirror,
    token_variable,
    written,
)
from tofu_solve.workdir.client_config import render as render_files


def render(text: str, name: str, mirror):
    """The run's configuration for one user file of ``text`` ("" for none)."""
    return render_files([(name, hcl1.parse(text, name))] if text else [], mirror)


def _body(text: str):
    """The written file as the client reads it: HCL 1."""
    return hcl1.to_body(hcl1.parse(text, "written"))

AWS = "registry.terraform.io/hashicorp/aws"
TLS = "registry.terraform.io/hashicorp/tls"
MIRROR = ProviderMirror(Path("/cache/plugins"), "linux_amd64", ((AWS, "6.58.0"),))

USER = '''plugin_cache_dir = "/var/cache/tf"
credentials "app.terraform.io" {
  token = "xyz.atlasv1.very-secret"
}
host "registry.terraform.io" {
  services = {
    "providers.v1" = "http://127.0.0.1:9/v1/providers/"
  }
}
provider_installation {
  network_mirror {
    url     = "https://mirror.example.com/providers/"
    include = ["hashicorp/*"]
  }
  direct {
    exclude = ["example.com/*/*"]
  }
}
'''


def _methods(text: str):
    return parse_installation_block(_body(text).blocks_of("provider_installation")[0], "rc")


def test_the_verified_providers_come_from_the_mirror_first_and_nowhere_else():
    text, _ = render(USER, "rc", MIRROR)
    methods = _methods(text)
    assert [m.kind for m in methods] == ["filesystem_mirror", "network_mirror", "direct"]
    assert methods[0].location == "/cache/plugins"
    assert [p.text for p in methods[0].include] == [AWS]
    # the user's own methods, as written, with the verified providers excluded from each
    assert [p.text for p in methods[1].include] == ["hashicorp/*"]
    assert [p.text for p in methods[1].exclude] == [AWS]
    assert [p.text for p in methods[2].exclude] == ["example.com/*/*", AWS]
    assert text.count("provider_installation {") == 1


def test_the_rest_of_the_users_configuration_is_kept_and_no_credential_is_written():
    text, tokens = render(USER, "rc", MIRROR)
    assert "very-secret" not in text and "credentials" not in text
    assert tokens == {"app.terraform.io": "xyz.atlasv1.very-secret"}
    body = _body(text)
    assert [b.labels for b in body.blocks_of("host")] == [["registry.terraform.io"]]
    assert body.attribute("plugin_cache_dir").expr.literal() == "/var/cache/tf"


def test_without_a_users_configuration_everything_else_is_direct():
    text, tokens = render("", "rc", MIRROR)
    methods = _methods(text)
    assert [m.kind for m in methods] == ["filesystem_mirror", "direct"] and tokens == {}
    assert [p.text for p in methods[1].exclude] == [AWS]


def test_a_path_with_template_characters_is_written_as_a_literal():
    odd = ProviderMirror(Path('/c/${x}/%{y}/"q"'), "linux_amd64", ((AWS, "6.58.0"),))
    text, _ = render("", "rc", odd)
    assert _methods(text)[0].location == '/c/${x}/%{y}/"q"'


def _package(d: Path, text: str = "binary") -> str:
    d.mkdir(parents=True)
    (d / "terraform-provider-x_v1.0.0_x5").write_text(text)
    return hash_dir(d)


def test_only_the_locked_versions_present_for_this_platform_are_offered(tmp_path):
    h1 = _package(tmp_path / "registry.terraform.io/hashicorp/aws/6.58.0/linux_amd64")
    _package(tmp_path / "registry.terraform.io/hashicorp/aws/6.57.0/linux_amd64")
    _package(tmp_path / "registry.terraform.io/hashicorp/tls/4.0.0/darwin_arm64")
    locked = {AWS: "6.58.0", "registry.terraform.io/hashicorp/tls": "4.0.0"}
    hashes = {AWS: (h1, "zh:" + "0" * 64)}
    mirror = provider_mirror(locked, tmp_path, "linux_amd64", hashes)
    assert mirror is not None
    assert mirror.offered == ((AWS, "6.58.0"),)
    assert mirror.missing == (("registry.terraform.io/hashicorp/tls", "4.0.0"),)
    assert "hashicorp/tls 4.0.0" in offered_text(mirror, "terraform").splitlines()[1]
    assert provider_mirror({AWS: "6.0.0"}, tmp_path, "linux_amd64", hashes) is None
    assert provider_mirror(locked, None, "linux_amd64", hashes) is None
    assert ProviderMirror.from_dict(mirror.to_dict()) == mirror and ProviderMirror.from_dict(
        mirror.to_dict()).hashes == {AWS: (h1,)}


def test_a_directory_is_offered_for_its_bytes_never_because_it_exists(tmp_path):
    """Issue #80 §3: a plugin cache restored with a backdoor at the locked version's path is
    not offered; a verified directory is remembered by its signature, and a change to it
    (its change time moves) is hashed again."""
    d = tmp_path / "plugins/registry.terraform.io/hashicorp/aws/6.58.0/linux_amd64"
    good = _package(tmp_path / "good", "binary")
    _package(d, "backdoor")
    cache = Cache(tmp_path / "cache")
    mirror = provider_mirror({AWS: "6.58.0"}, tmp_path / "plugins", "linux_amd64", {AWS: (good,)}, cache)
    assert mirror is None  # nothing to offer: the one package there is refused
    (d / "terraform-provider-x_v1.0.0_x5").write_text("binary")
    mirror = provider_mirror({AWS: "6.58.0"}, tmp_path / "plugins", "linux_amd64", {AWS: (good,)}, cache)
    assert mirror is not None and mirror.offered == ((AWS, "6.58.0"),)
    assert verified_dir(d, (good,), cache)  # from its signature now
    (d / "terraform-provider-x_v1.0.0_x5").write_text("backdoor")  # the same size, another change time
    assert not verified_dir(d, (good,), cache)
    refused = provider_mirror({AWS: "6.58.0", TLS: "4.0.0"}, tmp_path / "plugins", "linux_amd64",
                              {AWS: (good,), TLS: (_package(tmp_path / "plugins" / TLS / "4.0.0/linux_amd64"),)},
                              cache)
    assert refused is not None and refused.refused == ((AWS, "6.58.0"),) and refused.offered == ((TLS, "4.0.0"),)
    assert "Not offered: hashicorp/aws 6.58.0" in offered_text(refused, "tofu")


def test_the_file_the_client_reads(tmp_path):
    home = tmp_path
    (home / ".terraformrc").write_text("")
    (home / ".tofurc").write_text("")
    assert client_config_file({"HOME": str(home)}, OPENTOFU) == home / ".tofurc"
    assert client_config_file({"HOME": str(home)}, TERRAFORM) == home / ".terraformrc"
    named = home / "x.tfrc"
    named.write_text("")
    assert client_config_file({"HOME": str(home), "TF_CLI_CONFIG_FILE": str(named)}, TERRAFORM) == named
    # a TF_CLI_CONFIG_FILE that does not exist is no configuration, for the hand-over as for the solve's own
    # reading (which warns), and never a failed run (issue #82 §1: the two readers disagreed)
    assert client_config_file({"HOME": str(home), "TF_CLI_CONFIG_FILE": str(home / "gone")}, TERRAFORM) is None
    assert token_variable("my-host.example.com") == "TF_TOKEN_my__host_example_com"


def test_written_is_private_carries_tokens_in_memory_and_is_gone_after(tmp_path):
    rc = tmp_path / "user.tfrc"
    rc.write_text(USER)
    environ = {"TF_CLI_CONFIG_FILE": str(rc), "HOME": str(tmp_path)}
    with written(MIRROR, environ, TERRAFORM) as extra:
        path = Path(extra["TF_CLI_CONFIG_FILE"])
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
        assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
        assert "very-secret" not in path.read_text()
        assert extra["TF_TOKEN_app_terraform_io"] == "xyz.atlasv1.very-secret"
    assert not path.exists() and not path.parent.exists()
    # a token the environment already gives is the environment's
    with written(MIRROR, {**environ, "TF_TOKEN_app_terraform_io": "env"}, TERRAFORM) as extra:
        assert "TF_TOKEN_app_terraform_io" not in extra
    assert "TF_TOKEN_app_terraform_io" not in os.environ  # nothing reached this process's environment
