"""The registry's ``packages`` field read and checked (issue #82 §2), in memory: the rules
of ``tofu_solve.remote.registry_packages`` and ``tofu_solve.plugins.registry_hashes``
(OpenTofu v1.12.0 ``registry_client.go`` and ``registryPackageAuthentication``)."""

from __future__ import annotations

import pytest

from tofu_solve.addrs.product import OPENTOFU, TERRAFORM
from tofu_solve.addrs.provider import parse_provider_source
from tofu_solve.errors import IntegrityError, RegistryError
from tofu_solve.plugins.registry_hashes import (
    check_package,
    platform_hashes,
    reads_registry_hashes,
    reported_hashes,
    signing_required,
)
from tofu_solve.remote.registry import ProviderDownload
from tofu_solve.remote.registry_packages import parse_packages
from tofu_solve.versions.hashicorp_go_version import GoVersion
from tofu_solve.versions.target import TargetVersion

SHA = "ab" * 32
H1 = "h1:" + "Q" * 43 + "="
OTHER_H1 = "h1:" + "R" * 43 + "="
FIELD = {"linux_amd64": {"hashes": [f"zh:{SHA}", H1], "package_size": 100},
         "darwin_arm64": {"hashes": ["zh:" + "cd" * 32, OTHER_H1, "h2:future"], "package_size": 90}}


def _meta(packages, host="registry.opentofu.org", platform="linux_amd64") -> ProviderDownload:
    return ProviderDownload(parse_provider_source("hashicorp/aws", host), "5.100.0", platform, "f.zip", "https://x/",
                            "https://x/s", "https://x/s.sig", SHA, (), ("5.0",),
                            parse_packages({"packages": packages}, "aws"))


def test_the_field_is_read_as_opentofu_reads_it():
    got = parse_packages({"packages": FIELD}, "aws")
    assert got["linux_amd64"].hashes == (f"zh:{SHA}", H1) and got["linux_amd64"].size == 100
    assert got["darwin_arm64"].hashes == ("zh:" + "cd" * 32, OTHER_H1)  # PreferredHashes: h2: passed over
    assert parse_packages({}, "aws") == {}


@pytest.mark.parametrize("bad", [
    [], {"linux": {"hashes": [], "package_size": 1}}, {"Linux_AMD64": {"hashes": [], "package_size": 1}},
    {"linux_amd64": {"hashes": ["nocolon"], "package_size": 1}},
    {"linux_amd64": {"hashes": [":empty-scheme"], "package_size": 1}},
    {"linux_amd64": {"hashes": ['h1:"\n}'], "package_size": 1}},
    {"linux_amd64": {"hashes": ["zh:XYZ"], "package_size": 1}},
    {"linux_amd64": {"hashes": [], "package_size": "100"}},
    {f"os{i}_arch": {"hashes": [], "package_size": 1} for i in range(65)},
])
def test_a_malformed_field_makes_the_answer_invalid(bad):
    with pytest.raises(RegistryError, match="Invalid response from provider registry"):
        parse_packages({"packages": bad}, "aws")


def test_the_package_is_checked_against_its_own_platform():
    check_package(_meta(FIELD), 100, H1)
    check_package(_meta({}), 1, "h1:anything")  # no field: nothing to check
    cases = [
        ({**FIELD, "linux_amd64": {**FIELD["linux_amd64"], "package_size": 0}}, 100, H1, "invalid package size 0"),
        (FIELD, 101, H1, "indicates a package of size 100, but received a package of size 101"),
        ({**FIELD, "linux_amd64": {"hashes": ["zh:" + "00" * 32], "package_size": 100}}, 100, H1,
         "expected sha256sum is"),
        ({**FIELD, "linux_amd64": {"hashes": [H1], "package_size": 100}}, 100, H1,
         "does not contain matching sha256sum package entry"),
        ({"darwin_arm64": FIELD["darwin_arm64"]}, 100, H1, 'missing package with platform "linux_amd64"'),
        (FIELD, 100, OTHER_H1, "but the package unpacks to"),
    ]
    for field, size, h1, words in cases:
        with pytest.raises(IntegrityError, match=words):
            check_package(_meta(field), size, h1)


def test_the_field_reaches_the_lock_only_where_signing_is_not_required():
    assert reported_hashes(_meta(FIELD), {}) == tuple(sorted({f"zh:{SHA}", H1, "zh:" + "cd" * 32, OTHER_H1}))
    assert reported_hashes(_meta(FIELD), {"OPENTOFU_ENFORCE_GPG_VALIDATION": "true"}) == ()
    assert reported_hashes(_meta(FIELD, host="registry.example.com"), {}) == ()
    assert signing_required("registry.example.com", {}) and not signing_required("registry.opentofu.org", {})


def test_which_clients_read_the_field():
    def target(product, v):
        return TargetVersion(GoVersion.parse(v), "test", product)
    assert reads_registry_hashes(target(OPENTOFU, "1.12.0")) and reads_registry_hashes(target(OPENTOFU, "1.13.0"))
    assert not reads_registry_hashes(target(OPENTOFU, "1.11.6"))
    assert not reads_registry_hashes(target(TERRAFORM, "1.15.5"))


def test_another_platforms_hashes_need_one_h1_and_the_answers_shasum():
    meta = _meta(FIELD, platform="linux_amd64")
    assert platform_hashes(meta, "linux_amd64") == (H1, f"zh:{SHA}")
    assert platform_hashes(meta, "darwin_arm64") is None  # not that platform's own answer
    two = {"linux_amd64": {"hashes": [f"zh:{SHA}", H1, OTHER_H1], "package_size": 100}}
    assert platform_hashes(_meta(two), "linux_amd64") is None
