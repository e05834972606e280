"""Issue #62 §3: the registry client reads what a registry says of a version's life from a
real HTTP server answering as HCP Terraform's private registry does
(:class:`tofu_solve.world.servers.RegistryServer` with ``hcp=True``): ``deprecation`` per
listed version, ``revoked-versions`` and each version's ``revocation`` from the v2 API, kept
in the cache for offline readers; and a registry without ``tfe.v2`` is never asked."""

from __future__ import annotations

from tofu_solve.addrs.module_source import RegistryPackage
from tofu_solve.config.cliconfig import load_cli_config
from tofu_solve.remote.lifecycle import Deprecation, Revocation
from tofu_solve.remote.registry import RegistryClient
from tofu_solve.remote.registry_lifecycle import cached_revocations
from tofu_solve.store.cache import Cache
from tofu_solve.world.servers import RegistryServer, write_cli_config

PACKAGE = RegistryPackage("registry.opentofu.org", "acme", "net", "aws")
MODULES = {"acme/net/aws": {"versions": {v: f"git::https://example.invalid/net.git?ref=v{v}"
                                         for v in ("1.0.0", "1.1.0", "1.2.0")}}}


def client(tmp_path, url: str, hcp: bool, offline: bool = False) -> RegistryClient:
    rc = write_cli_config(tmp_path / "rc", url, hosts=("registry.opentofu.org",), hcp=hcp)
    return RegistryClient(load_cli_config({"TF_CLI_CONFIG_FILE": str(rc), "HOME": str(tmp_path)}),
                          cache=Cache(tmp_path / "cache"), offline=offline)


def test_deprecations_and_revocations_are_read_and_kept(tmp_path):
    with RegistryServer(None, extra_modules=MODULES, hcp=True) as reg:
        reg.deprecations["acme/net/aws"] = {"1.1.0": {"reason": "slow", "link": "https://example.com/d"}}
        reg.revocations["acme/net/aws"] = {"1.2.0": {"message": "CVE-1 https://user:secret@example.com/x",
                                                      "link": ""}}
        c = client(tmp_path, reg.url, hcp=True)
        assert c.module_versions(PACKAGE) == ["1.0.0", "1.1.0", "1.2.0"]
        assert c.lifecycle.deprecations(PACKAGE) == {"1.1.0": Deprecation("slow", "https://example.com/d")}
        revoked = c.lifecycle.revocations(PACKAGE)
        assert set(revoked) == {"1.2.0"}
        assert "secret" not in revoked["1.2.0"].message  # a registry's words are redacted before any output
        asked = reg.log.count()
        assert c.lifecycle.revocations(PACKAGE) == revoked and reg.log.count() == asked  # once per run
    # a later offline reader (check, list) gets what the cache kept, without a server
    offline = client(tmp_path, "http://127.0.0.1:9", hcp=True, offline=True)
    assert offline.lifecycle.revocations(PACKAGE) == revoked
    assert offline.lifecycle.deprecations(PACKAGE) == {"1.1.0": Deprecation("slow", "https://example.com/d")}
    assert cached_revocations(Cache(tmp_path / "cache"), PACKAGE) == revoked
    assert isinstance(revoked["1.2.0"], Revocation) and revoked["1.2.0"].refusal().startswith(
        "its registry revoked it: CVE-1")


def test_a_registry_without_the_v2_api_is_never_asked(tmp_path):
    with RegistryServer(None, extra_modules=MODULES, hcp=True) as reg:
        reg.revocations["acme/net/aws"] = {"1.2.0": {"message": "x", "link": ""}}
        c = client(tmp_path, reg.url, hcp=False)  # services without tfe.v2
        assert c.lifecycle.revocations(PACKAGE) == {}
        assert not any(path.startswith("/api/v2/") for _, path, _ in reg.log.requests)


def test_an_unrevoked_version_and_an_unreadable_answer_revoke_nothing(tmp_path):
    with RegistryServer(None, extra_modules=MODULES, hcp=True) as reg:
        c = client(tmp_path, reg.url, hcp=True)
        assert c.lifecycle.revocations(RegistryPackage("registry.opentofu.org", "acme", "missing", "aws")) == {}  # a 404
        assert c.lifecycle.revocations(PACKAGE) == {}


def test_every_listed_revoked_version_stays_revoked_past_the_read_bound_and_the_deadline(tmp_path):
    """Issue #67 §7: 60 revoked versions, each message answered after 0.3 s: the messages are
    read in parallel until the run's lifecycle deadline, and every version stays revoked
    whether its message was read or not (the list used to be cut at 50)."""
    versions = {f"1.{i}.0": f"git::https://example.invalid/net.git?ref=v1.{i}.0" for i in range(60)}
    with RegistryServer(None, extra_modules={"acme/net/aws": {"versions": versions}}, hcp=True) as reg:
        reg.revocations["acme/net/aws"] = {v: {"message": f"bad {v}", "link": "javascript:alert(1)"} for v in versions}
        reg.revocation_delay = 0.3
        c = client(tmp_path, reg.url, hcp=True)
        c.lifecycle.lifecycle_seconds = 1.0
        revoked = c.lifecycle.revocations(PACKAGE)
        assert set(revoked) == set(versions)
        told = [r for r in revoked.values() if r.message]
        assert 0 < len(told) < 50  # some messages came in time, not all: the deadline held
        assert all(r.message == f"bad {r.version}" and r.link == "" for r in told)  # no javascript: link


def test_a_version_is_url_encoded_in_the_query(tmp_path):
    with RegistryServer(None, extra_modules={"acme/net/aws": {"versions": {"1.0.0": "git::https://x.invalid/a.git"}}},
                        hcp=True) as reg:
        reg.revocations["acme/net/aws"] = {"1.0.0&x=y": {"message": "m", "link": "https://example.com/r"}}
        c = client(tmp_path, reg.url, hcp=True)
        revoked = c.lifecycle.revocations(PACKAGE)
        assert set(revoked) == {"1.0.0&x=y"} and revoked["1.0.0&x=y"].link == "https://example.com/r"
        asked = [path for _, path, _ in reg.log.requests if "module_version=" in path]
        assert asked and all("module_version=1.0.0%26x%3Dy" in path for path in asked), asked


def test_only_http_links_are_passed_on():
    from tofu_solve.remote.lifecycle import safe_link

    assert safe_link("https://example.com/a b") == ""  # one line, no spaces: a URL
    assert safe_link("https://example.com/d") == "https://example.com/d"
    assert safe_link("HTTP://example.com") == "HTTP://example.com"
    assert safe_link("javascript:alert(1)") == "" and safe_link("data:text/html,x") == ""
    assert Deprecation.from_registry({"reason": "r", "link": "file:///etc/passwd"}).link == ""
