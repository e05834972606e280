"""Module source addresses: OpenTofu's normalization table and error cases."""

import pytest

from tofu_solve.addrs.module_source import (
    LocalSource,
    OciSource,
    RegistrySource,
    RemoteSource,
    SourceKind,
    go_path_clean,
    parse_source,
)
from tofu_solve.errors import SourceAddressError

# (input, type, str(), package, subdir) — rows from OpenTofu's module_source_test.go (reference §2)
TABLE = [
    ("github.com/hashicorp/terraform-cidr-subnets//example/foo?ref=bar", RemoteSource,
     "git::https://github.com/hashicorp/terraform-cidr-subnets.git//example/foo?ref=bar",
     "git::https://github.com/hashicorp/terraform-cidr-subnets.git?ref=bar", "example/foo"),
    ("git::git@example.com:code/baz.git//bleep/bloop", RemoteSource,
     "git::ssh://git@example.com/code/baz.git//bleep/bloop", "git::ssh://git@example.com/code/baz.git", "bleep/bloop"),
    ("git::https://example.com/code/baz.git//bleep/bloop?otherthing=blah", RemoteSource,
     "git::https://example.com/code/baz.git//bleep/bloop?otherthing=blah",
     "git::https://example.com/code/baz.git?otherthing=blah", "bleep/bloop"),
    ("git://example.com/code/baz.git", RemoteSource, "git://example.com/code/baz.git",
     "git://example.com/code/baz.git", ""),
    ("www.googleapis.com/storage/v1/BUCKET/PATH", RemoteSource,
     "gcs::https://www.googleapis.com/storage/v1/BUCKET/PATH", "gcs::https://www.googleapis.com/storage/v1/BUCKET/PATH", ""),
    ("s3-eu-west-1.amazonaws.com/bucket/vpc.zip", RemoteSource,
     "s3::https://s3-eu-west-1.amazonaws.com/bucket/vpc.zip", "s3::https://s3-eu-west-1.amazonaws.com/bucket/vpc.zip", ""),
    ("https://example.com/module?archive=tar&checksum=blah", RemoteSource,
     "https://example.com/module?archive=tar&checksum=blah", "https://example.com/module?archive=tar&checksum=blah", ""),
    ("dfgdfgsd:dgfhdfghdfghdfg/dfghdfghdfg", RemoteSource, "dfgdfgsd:dgfhdfghdfghdfg/dfghdfghdfg",
     "dfgdfgsd:dgfhdfghdfghdfg/dfghdfghdfg", ""),
    ("hashicorp/consul/aws", RegistrySource, "registry.opentofu.org/hashicorp/consul/aws",
     "registry.opentofu.org/hashicorp/consul/aws", ""),
    ("hashicorp/consul/aws//modules/consul-cluster", RegistrySource,
     "registry.opentofu.org/hashicorp/consul/aws//modules/consul-cluster", "registry.opentofu.org/hashicorp/consul/aws",
     "modules/consul-cluster"),
    ("Example.com:8443/ns/name/aws", RegistrySource, "example.com:8443/ns/name/aws", "example.com:8443/ns/name/aws", ""),
    ("github.com/org/repo/sub/dir", RemoteSource, "git::https://github.com/org/repo.git//sub/dir",
     "git::https://github.com/org/repo.git", "sub/dir"),
    ("git@github.com:org/repo.git?ref=v1.2.0", RemoteSource, "git::ssh://git@github.com/org/repo.git?ref=v1.2.0",
     "git::ssh://git@github.com/org/repo.git?ref=v1.2.0", ""),
    ("/srv/modules/vpc", RemoteSource, "file:///srv/modules/vpc", "file:///srv/modules/vpc", ""),
    ("oci://example.com/org/repo//sub?tag=1.0.0", OciSource, "oci://example.com/org/repo//sub?tag=1.0.0",
     "oci://example.com/org/repo?tag=1.0.0", "sub"),
]


@pytest.mark.parametrize("raw,typ,text,package,subdir", TABLE, ids=[r[0] for r in TABLE])
def test_normalization(raw, typ, text, package, subdir):
    s = parse_source(raw)
    assert isinstance(s, typ)
    assert str(s) == text
    pkg = str(s.package) if isinstance(s, RegistrySource) else s.package
    assert pkg == package
    assert s.subdir == subdir


@pytest.mark.parametrize("raw,expected", [
    ("./nope/../child", "./child"),
    (".\\nope\\..\\..\\sibling", "../sibling"),
    ("./a//b/", "./a/b"),
    ("../x/./y", "../x/y"),
])
def test_local_paths(raw, expected):
    s = parse_source(raw)
    assert isinstance(s, LocalSource) and str(s) == expected and s.kind is SourceKind.LOCAL


def test_registry_display_omits_default_host():
    s = parse_source("terraform-aws-modules/vpc/aws")
    assert s.for_display == "terraform-aws-modules/vpc/aws"
    assert parse_source("example.com/a/b/c").for_display == "example.com/a/b/c"


@pytest.mark.parametrize("raw,fragment", [
    ("boop/bloop", "OpenTofu cannot detect a supported external module source type for boop/bloop"),
    ("git::https://example.com/x.git//../escape", "leads outside of the module package"),
    ("oci://example.com/repo?tag=1&digest=sha256:" + "a" * 64, 'cannot set both "tag" and "digest"'),
    ("oci://example.com/repo?archive=zip", 'the "archive" argument is not allowed for OCI sources'),
    ("oci://example.com/Repo", "invalid repository"),
    ("foo::https://example.com/x", 'Unsupported module source type "foo"'),
])
def test_errors(raw, fragment):
    with pytest.raises(SourceAddressError) as e:
        parse_source(raw)
    assert fragment in e.value.detail


def test_reserved_registry_hosts_fall_through_to_git():
    s = parse_source("github.com/hashicorp/example/aws")
    assert isinstance(s, RemoteSource) and s.kind is SourceKind.GIT


def test_git_parts():
    g = parse_source("git::https://example.com/x.git?ref=v1.2.0&depth=1").git
    assert (g.url, g.ref, g.depth) == ("https://example.com/x.git", "v1.2.0", 1)
    with pytest.raises(SourceAddressError, match="depth"):
        _ = parse_source("git::https://example.com/x.git?depth=abc").git
    pinned = parse_source("git::https://example.com/x.git//sub?ref=main").with_ref("v2.0.0")
    assert str(pinned) == "git::https://example.com/x.git//sub?ref=v2.0.0"


def test_source_kinds():
    assert parse_source("git::file:///srv/repo").kind is SourceKind.GIT
    assert parse_source("hg::https://example.com/repo").kind is SourceKind.HG
    assert parse_source("https://example.com/m.zip").kind is SourceKind.HTTP
    assert parse_source("oci://r.example.com/m").kind is SourceKind.OCI
    assert parse_source("oci://r.example.com/m").package_address == "oci://r.example.com/m"


@pytest.mark.parametrize("p,expected", [("", "."), ("a/../..", ".."), ("/a/../..", "/"), ("a//b/./c/", "a/b/c")])
def test_go_path_clean(p, expected):
    assert go_path_clean(p) == expected


def test_address_forms_from_opentofu_tables():
    """go-getter detect_s3.go (five-part virtual-host form), go-digest (registered
    algorithms only), registry-address ParseProviderSource (reserved type prefixes, "--")."""
    from tofu_solve.addrs.module_source import parse_source
    from tofu_solve.addrs.provider import ProviderAddressError, parse_provider_source
    from tofu_solve.errors import TofuSolveError
    assert str(parse_source("bucket.s3.eu-west-1.amazonaws.com/mods/vpc.zip")) == \
        "s3::https://s3.eu-west-1.amazonaws.com/bucket/mods/vpc.zip"
    with pytest.raises(TofuSolveError, match="invalid digest: unsupported digest algorithm"):
        parse_source("oci://registry.example.com/mods/vpc?digest=md5:0123456789abcdef0123456789abcdef")
    for bad, why in [("hashicorp/terraform-provider-aws", 'Did you mean "hashicorp/aws"'),
                     ("acme/terraform-thing", 'the prefix "terraform-"'), ("acme/opentofu-thing", 'the prefix "opentofu-"'),
                     ("acme/a--b", "consecutive dashes"), ("ac--me/b", "consecutive dashes")]:
        with pytest.raises(ProviderAddressError, match=why):
            parse_provider_source(bad)
    assert str(parse_provider_source("acme/terraform")) == "registry.opentofu.org/acme/terraform"


def test_lock_constraints_as_go_versions_reads_them():
    """depsfile/locks_file.go decodeProviderVersionConstraintsArgument: parsed with
    ParseRubyStyleMulti, then required to be in canonical form; "" is no constraint."""
    from tofu_solve.lockfile import parse_lock_text
    block = 'provider "registry.opentofu.org/a/b" {{\n  version     = "1.0.0"\n  constraints = "{}"\n}}\n'
    assert parse_lock_text(block.format(""))[1] == []
    for c in (">= 1.0.0,", " ", ">= 1.0"):
        diags = parse_lock_text(block.format(c))[1]
        assert [d.summary for d in diags] == ["Invalid provider version constraints"], c
        assert "normalized form" in diags[0].detail or "invalid" in diags[0].detail
