"""Issue #39 §2: ``tofu-solve list``, an inventory of what every root uses, from lock files
only: across a monorepo, with the policy's verdict, as text, JSON and a CycloneDX SBOM that
the library's own validator accepts."""

from __future__ import annotations

import json

from tests.e2e.conftest import write_root

PROD = '''
module "vpc" {
  source  = "terraform-aws-modules/vpc/aws"
  version = "~> 6.0"
}
'''
DEV = '''
module "net" {
  source  = "terraform-aws-modules/vpc/aws"
  version = "~> 6.0"
}
module "kms" {
  source  = "terraform-aws-modules/kms/aws"
  version = "~> 3.0"
}
'''


def monorepo(tmp_path, tofu_solve):
    repo = tmp_path / "repo"
    write_root(repo / "envs" / "prod", PROD)
    write_root(repo / "envs" / "dev", DEV)
    write_root(repo / "envs" / "new", PROD)  # never initialised: no lock file, not listed
    for env in ("prod", "dev"):
        assert tofu_solve(repo / "envs" / env, "init", "-handover=false").code == 0
    return repo


def test_an_inventory_across_a_monorepo(tmp_path, tofu_solve):
    repo = monorepo(tmp_path, tofu_solve)
    r = tofu_solve(repo, "list", "-recursive", "-json")
    assert r.code == 0, r.err
    data = r.json()
    assert data["roots"] == ["envs/dev", "envs/prod"]
    vpc = next(i for i in data["items"] if i["name"] == "registry.opentofu.org/terraform-aws-modules/vpc/aws")
    assert vpc["kind"] == "module" and vpc["version"] == "6.6.0"
    assert vpc["uses"] == [{"root": "envs/dev", "path": "net"}, {"root": "envs/prod", "path": "vpc"}]
    assert any(h.startswith("h1:") for h in vpc["hashes"]) and vpc["policy"] is None
    # the release day as the registry's listing gave it and the cache kept it (no network now)
    assert vpc["released"] is not None and vpc["age_seconds"] > 0
    aws = next(i for i in data["items"] if i["name"] == "registry.opentofu.org/hashicorp/aws")
    assert aws["kind"] == "provider" and {u["root"] for u in aws["uses"]} == {"envs/dev", "envs/prod"}
    assert any(h.startswith("zh:") for h in aws["hashes"])
    text = tofu_solve(repo, "list", "-recursive").out
    assert "2 root modules with a lock file: envs/dev, envs/prod" in text
    assert f"- registry.opentofu.org/terraform-aws-modules/vpc/aws 6.6.0 (released {vpc['released']}, " in text
    assert "ago)\n    envs/dev: net\n    envs/prod: vpc" in text
    # one root, no network: the registry is not even configured
    one = tofu_solve(repo / "envs" / "prod", "list", "-json").json()
    assert one["roots"] == ["."] and {i["name"].rsplit("/", 2)[-2] for i in one["items"]} >= {"vpc"}


def test_the_policy_verdict_is_listed(tmp_path, tofu_solve):
    repo = monorepo(tmp_path, tofu_solve)
    (repo / "tofu-solve-policy.hcl").write_text(
        'deny "module" "terraform-aws-modules/vpc/aws" {\n  versions = "6.6.0"\n  reason = "NAT gateways"\n}\n')
    data = tofu_solve(repo, "list", "-recursive", "-json").json()
    verdicts = {i["name"].split("/")[-2]: i["policy"] for i in data["items"] if i["kind"] == "module"}
    assert verdicts["kms"] == "allowed"
    assert verdicts["vpc"].startswith('denied: deny "module" "registry.opentofu.org/terraform-aws-modules/vpc/aws"')
    assert "NAT gateways" in tofu_solve(repo, "list", "-recursive").out


def test_a_cyclonedx_sbom_that_validates(tmp_path, tofu_solve):
    from cyclonedx.schema import SchemaVersion
    from cyclonedx.validation.json import JsonStrictValidator

    repo = monorepo(tmp_path, tofu_solve)
    r = tofu_solve(repo, "list", "-recursive", "-format=cyclonedx")
    assert r.code == 0, r.err
    assert JsonStrictValidator(SchemaVersion.V1_6).validate_str(r.out) is None  # the library's own validator
    sbom = json.loads(r.out)
    assert sbom["bomFormat"] == "CycloneDX" and sbom["specVersion"] == "1.6"
    comps = {c["bom-ref"]: c for c in sbom["components"]}
    vpc = comps["module:registry.opentofu.org/terraform-aws-modules/vpc/aws@6.6.0"]
    # purl-spec PR #889's draft terraform type: namespace/name, the registry as repository_url
    assert vpc["purl"] == ("pkg:terraform/terraform-aws-modules/vpc@6.6.0"
                           "?repository_url=https://registry.opentofu.org&target_system=aws")
    assert sbom["metadata"]["properties"] == [{"name": "tofu-solve:product", "value": "OpenTofu"},
                                              {"name": "tofu-solve:root", "value": "envs/dev"},
                                              {"name": "tofu-solve:root", "value": "envs/prod"}]
    assert sbom["metadata"]["component"]["name"] == "envs/ (2 roots)"  # issue #60 §3: brief, not a joined list
    lock_vpc = next(i for i in tofu_solve(repo, "list", "-recursive", "-json").json()["items"]
                    if i["name"].endswith("/vpc/aws"))
    commit = lock_vpc["package"].rpartition("?ref=")[2]  # the world's registry serves vpc from its git server
    assert len(commit) == 40, lock_vpc
    assert [(r["type"], r.get("comment")) for r in vpc["externalReferences"]] == [("vcs", f"commit {commit}")]
    props = {(p["name"], p["value"]) for p in vpc["properties"]}
    assert ("tofu-solve:use", "envs/dev:net") in props and any(n == "tofu-solve:h1" for n, _ in props)
    aws = next(c for ref, c in comps.items() if ref.startswith("provider:registry.opentofu.org/hashicorp/aws@"))
    assert aws["hashes"] and all(h["alg"] == "SHA-256" and len(h["content"]) == 64 for h in aws["hashes"])


def test_each_package_kind_has_the_identity_a_scanner_reads():
    """Issue #50 §3: registry modules and providers get the draft ``pkg:terraform`` purl, a
    git package a ``vcs`` reference with its commit, an OCI package ``pkg:oci`` with its
    digest and a ``distribution`` reference hashed SHA-256; the SBOM of all of them passes
    the library's strict validator and every purl parses back to what was written."""
    from cyclonedx.schema import SchemaVersion
    from cyclonedx.validation.json import JsonStrictValidator
    from packageurl import PackageURL

    from tofu_solve.command.inventory import Item, cyclonedx, identity

    commit, digest = "a" * 40, "b" * 64
    git_pkg = f"git::https://git.example.com/team/network.git?ref={commit}"
    items = [
        Item("module", "registry.terraform.io/terraform-aws-modules/vpc/aws", "6.0.1",
             package=f"git::https://github.com/terraform-aws-modules/terraform-aws-vpc?ref={commit}"),
        Item("module", "git::https://git.example.com/team/network.git", "v1.2.0", package=git_pkg),
        Item("module", "oci://registry.example.com/modules/net", "1.0.0",
             package=f"oci://registry.example.com/modules/net?digest=sha256:{digest}"),
        Item("provider", "registry.terraform.io/hashicorp/aws", "6.0.0", hashes={"zh:" + "c" * 64}),
        Item("provider", "registry.opentofu.org/hashicorp/aws", "6.0.0"),
    ]
    got = {i.name: identity(i) for i in items}
    vpc = got["registry.terraform.io/terraform-aws-modules/vpc/aws"]
    assert vpc.purl.to_string() == "pkg:terraform/terraform-aws-modules/vpc@6.0.1?target_system=aws"
    assert vpc.vcs == ("https://github.com/terraform-aws-modules/terraform-aws-vpc", commit)
    net = got["git::https://git.example.com/team/network.git"]
    assert net.purl.type == "generic" and net.purl.name == "network"
    assert net.purl.qualifiers["vcs_url"] == f"git+https://git.example.com/team/network.git@{commit}"
    oci = got["oci://registry.example.com/modules/net"]
    assert oci.purl.to_string() == (f"pkg:oci/net@sha256:{digest}"
                                    "?repository_url=registry.example.com/modules/net&tag=1.0.0")
    assert oci.distribution == (f"oci://registry.example.com/modules/net@sha256:{digest}", digest)
    assert got["registry.terraform.io/hashicorp/aws"].purl.to_string() == "pkg:terraform/hashicorp/aws@6.0.0"
    assert got["registry.opentofu.org/hashicorp/aws"].purl.qualifiers == {
        "repository_url": "https://registry.opentofu.org"}
    for ident in got.values():
        assert PackageURL.from_string(ident.purl.to_string()) == ident.purl

    out = cyclonedx(["."], items, ["Terraform"])
    assert JsonStrictValidator(SchemaVersion.V1_6).validate_str(out) is None
    comps = {c["bom-ref"]: c for c in json.loads(out)["components"]}
    refs = {r["type"]: r for c in comps.values() for r in c.get("externalReferences", [])}
    assert refs["vcs"]["comment"] == f"commit {commit}"
    assert refs["distribution"]["hashes"] == [{"alg": "SHA-256", "content": digest}]
    assert comps["provider:registry.terraform.io/hashicorp/aws@6.0.0"]["hashes"] == [
        {"alg": "SHA-256", "content": "c" * 64}]


def test_an_spdx_document_the_spdx_library_reads_back_valid(tmp_path, tofu_solve):
    """Issue #50 §3: ``-format=spdx`` is SPDX 2.3 JSON that spdx-tools parses back and finds
    valid: one package per item with its purl, the git commit as download location, the
    provider's SHA256 checksums, the roots depending on each; the same locks give the same
    namespace."""
    from spdx_tools.spdx.parser.parse_anything import parse_file
    from spdx_tools.spdx.validation.document_validator import validate_full_spdx_document

    repo = monorepo(tmp_path, tofu_solve)
    r = tofu_solve(repo, "list", "-recursive", "-format=spdx")
    assert r.code == 0, r.err
    path = tmp_path / "sbom.spdx.json"
    path.write_text(r.out)
    doc = parse_file(str(path))
    assert validate_full_spdx_document(doc, "SPDX-2.3") == []
    assert doc.creation_info.spdx_version == "SPDX-2.3"
    packages = {p.name: p for p in doc.packages}
    vpc = packages["registry.opentofu.org/terraform-aws-modules/vpc/aws"]
    assert vpc.version == "6.6.0"
    assert [(ref.reference_type, ref.locator) for ref in vpc.external_references] == [
        ("purl", "pkg:terraform/terraform-aws-modules/vpc@6.6.0"
                 "?repository_url=https://registry.opentofu.org&target_system=aws")]
    # the world's git server is at an IP address, which spdx-tools' download-location grammar has no room for
    assert str(vpc.download_location) == "NOASSERTION"
    assert vpc.source_info.startswith("installed from git+git://127.0.0.1:") and len(
        vpc.source_info.rpartition("@")[2]) == 40
    aws = next(p for p in doc.packages if p.name == "registry.opentofu.org/hashicorp/aws")
    assert [ref.locator for ref in aws.external_references] == [
        f"pkg:terraform/hashicorp/aws@{aws.version}?repository_url=https://registry.opentofu.org",
        f"pkg:golang/github.com/hashicorp/terraform-provider-aws@v{aws.version}"]
    assert packages["envs/ (2 roots)"].comment == "the root modules read: envs/dev, envs/prod"
    assert aws.checksums and all(c.algorithm.name == "SHA256" and len(c.value) == 64 for c in aws.checksums)
    depends = {(x.spdx_element_id, x.related_spdx_element_id) for x in doc.relationships
               if x.relationship_type.name == "DEPENDS_ON"}
    assert {p.spdx_id for p in doc.packages} - {"SPDXRef-roots"} == {b for _, b in depends}
    assert doc.creation_info.creator_comment == "Lock files written for OpenTofu"
    again = tofu_solve(repo, "list", "-recursive", "-format=spdx").out
    assert json.loads(again)["documentNamespace"] == json.loads(r.out)["documentNamespace"]


def test_an_spdx_download_location_is_the_commit_where_the_grammar_admits_it():
    """A git package on a host SPDX's grammar admits: its commit is the download location;
    an OCI digest address, which the grammar has no scheme for, is the source information."""
    from tofu_solve.command.inventory import Item, spdx

    commit = "a" * 40
    items = [Item("module", "git::https://github.com/team/network.git", "v1.2.0",
                  package=f"git::https://github.com/team/network.git?ref={commit}"),
             Item("module", "oci://registry.example.com/modules/net", "1.0.0",
                  package="oci://registry.example.com/modules/net?digest=sha256:" + "b" * 64)]
    doc = json.loads(spdx(["."], items, ["Terraform"], now=0))
    by_name = {p["name"]: p for p in doc["packages"]}
    assert by_name["git::https://github.com/team/network.git"]["downloadLocation"] == \
        f"git+https://github.com/team/network.git@{commit}"
    oci = by_name["oci://registry.example.com/modules/net"]
    assert oci["downloadLocation"] == "NOASSERTION" and oci["sourceInfo"].endswith("@sha256:" + "b" * 64)
    assert doc["creationInfo"]["created"] == "1970-01-01T00:00:00Z"


def test_credentials_in_a_hand_edited_lock_reach_no_output(tmp_path, tofu_solve):
    """A lock file edited by hand with a password in a git address: text, JSON and both SBOMs
    name the package without it (the one redaction rule, addrs/redact.py)."""
    root = tmp_path / "root"
    root.mkdir()
    commit = "c" * 40
    (root / ".terraform.lock.hcl").write_text(
        'module "net" {\n  version = "v1.0.0"\n'
        '  source  = "git::https://deploy:hunter2@git.example.com/team/net.git?ref=v1.0.0"\n'
        '  hashes = [\n    "h1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=",\n  ]\n'
        f'  package = "git::https://git.example.com/team/net.git?ref={commit}"\n}}\n')
    for args in ((), ("-json",), ("-format=cyclonedx",), ("-format=spdx",)):
        r = tofu_solve(root, "list", *args)
        assert r.code == 0, r.err
        assert "hunter2" not in r.out + r.err and "git.example.com/team/net.git" in r.out, args
    # in the package address the lock reader refuses it outright, at its line, without echoing it
    text = (root / ".terraform.lock.hcl").read_text()
    (root / ".terraform.lock.hcl").write_text(text.replace("https://git.example.com", "https://deploy:hunter2@git.example.com"))
    r = tofu_solve(root, "list", "-format=spdx")
    assert r.code == 1 and "Invalid module package" in r.err and "line 7" in r.err and "hunter2" not in r.out + r.err


def test_a_provider_carries_the_go_module_advisory_databases_key_on(tmp_path, tofu_solve, world, running,
                                                                     monkeypatch):
    """Issue #60 §3: GitHub's advisory database and OSV key provider advisories on the Go
    module of the provider's repository. init asks the registry once which repository that is
    (registry.terraform.io's ``GET /v1/providers/NS/TYPE`` ``source``, as Renovate reads it) and
    keeps the answer, so ``list`` stays offline; the CycloneDX component carries it as
    ``evidence.identity`` (the spec's field for a second identity), the SPDX package as a
    second purl reference. A registry that names another repository is followed, not the
    naming convention; where no registry says, the convention is used and marked so."""
    from cyclonedx.schema import SchemaVersion
    from cyclonedx.validation.json import JsonStrictValidator

    from tofu_solve.world import RegistryServer, write_cli_config

    reg = RegistryServer(world, running.git.url).start()
    reg.provider_sources["hashicorp/aws"] = "https://github.com/example-fork/terraform-provider-aws.git"
    monkeypatch.setenv("TF_CLI_CONFIG_FILE", str(write_cli_config(tmp_path / "rc", reg.url)))
    monkeypatch.setenv("TOFU_SOLVE_CACHE_DIR", str(tmp_path / "cache"))
    try:
        root = write_root(tmp_path / "root", PROD)
        assert tofu_solve(root, "init", "-handover=false").code == 0
    finally:
        reg.stop()  # list reads the cache only: nothing is asked of the registry any more
    r = tofu_solve(root, "list", "-format=cyclonedx")
    assert r.code == 0, r.err
    assert JsonStrictValidator(SchemaVersion.V1_6).validate_str(r.out) is None
    aws = next(c for c in json.loads(r.out)["components"] if c["bom-ref"].startswith("provider:"))
    version = aws["version"]
    assert aws["evidence"]["identity"] == [
        {"field": "purl", "concludedValue": f"pkg:golang/github.com/example-fork/terraform-provider-aws@v{version}"}]
    assert {"name": "tofu-solve:go-module-from", "value": "registry"} in aws["properties"]
    monkeypatch.setenv("TOFU_SOLVE_CACHE_DIR", str(tmp_path / "another-machine"))  # no registry said here
    r = tofu_solve(root, "list", "-format=cyclonedx")
    aws = next(c for c in json.loads(r.out)["components"] if c["bom-ref"].startswith("provider:"))
    assert aws["evidence"]["identity"][0]["concludedValue"] == \
        f"pkg:golang/github.com/hashicorp/terraform-provider-aws@v{version}"
    assert {"name": "tofu-solve:go-module-from", "value": "convention"} in aws["properties"]


def test_a_slow_provider_details_endpoint_is_not_waited_for(tmp_path, world, running, tofu_solve, monkeypatch):
    """Issue #72 §1: the providers' repositories (for the SBOM) are asked beside the work, and
    init does not wait for an endpoint slower than its grace; the next run asks again and
    keeps the answer."""
    from tofu_solve.command import init as init_command
    from tofu_solve.world import RegistryServer, write_cli_config

    reg = RegistryServer(world, running.git.url).start()
    reg.details_delay = 4.0
    monkeypatch.setattr(init_command, "REPOSITORY_GRACE_SECONDS", 0.2)
    monkeypatch.setenv("TF_CLI_CONFIG_FILE", str(write_cli_config(tmp_path / "rc", reg.url)))
    cache = tmp_path / "cache"
    monkeypatch.setenv("TOFU_SOLVE_CACHE_DIR", str(cache))
    try:
        root = write_root(tmp_path / "root", PROD)
        assert tofu_solve(root, "init", "-handover=false").code == 0
        assert not [p for p in cache.rglob("provider-repository/**/*") if p.is_file()], "init waited for the details"
        reg.details_delay = 0.0
        monkeypatch.setattr(init_command, "REPOSITORY_GRACE_SECONDS", 30.0)
        assert tofu_solve(root, "init", "-handover=false").code == 0
        assert [p for p in cache.rglob("provider-repository/**/*") if p.is_file()]
    finally:
        reg.stop()
