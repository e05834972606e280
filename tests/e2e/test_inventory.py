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
    assert vpc["purl"].startswith("pkg:generic/registry.opentofu.org/terraform-aws-modules/vpc/aws@6.6.0")
    props = {(p["name"], p["value"]) for p in vpc["properties"]}
    assert ("tofu-solve:use", "envs/dev:net") in props and any(n == "tofu-solve:h1" for n, _ in props)
    aws = next(c for ref, c in comps.items() if ref.startswith("provider:registry.opentofu.org/hashicorp/aws@"))
    assert aws["hashes"] and all(h["alg"] == "SHA-256" and len(h["content"]) == 64 for h in aws["hashes"])
