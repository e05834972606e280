"""why and graph on roots resolved against the real-data world; golden text for why, DOT
parsed back and rendered with Graphviz."""

from __future__ import annotations

import json
import shutil
import subprocess

import pydot
import pytest

from tests.conftest import require_tool
from tests.e2e.conftest import write_root

VPC_EKS = '''
terraform {
  required_providers {
    aws = {
      source  = "hashicorp/aws"
      version = ">= 5.95"
    }
  }
}

module "vpc" {
  source  = "terraform-aws-modules/vpc/aws"
  version = "~> 6.0"
}

module "eks" {
  source  = "terraform-aws-modules/eks/aws"
  version = "~> 20.0"
}
'''


@pytest.fixture
def solved_root(tmp_path, tofu_solve):
    root = write_root(tmp_path / "root", VPC_EKS)
    r = tofu_solve(root, "init")
    assert r.code == 0, r.err
    return root


def test_why_module_held_back_golden(solved_root, tofu_solve):
    r = tofu_solve(solved_root, "why", "eks")
    assert r.code == 0, r.err
    assert r.out == '''module "eks" (terraform-aws-modules/eks/aws) is at 20.37.0
  root module
  └─ eks: terraform-aws-modules/eks/aws "~> 20.0" (main.tf:17) -> 20.37.0
  20.37.0 is not the newest version "~> 20.0" allows:
    - eks is 20.37.0, not 20.37.2: 20.37.2 needs hashicorp/aws ">= 5.95, < 6.0.0" (terraform-aws-modules/eks/aws 20.37.2: versions.tf:7), and module "vpc" 6.6.0 needs ">= 6.28" (terraform-aws-modules/vpc/aws 6.6.0: versions.tf:7)
    - eks is 20.37.0, not 20.37.1: 20.37.1 needs hashicorp/aws ">= 5.95, < 6.0.0" (terraform-aws-modules/eks/aws 20.37.1: versions.tf:7), and module "vpc" 6.6.0 needs ">= 6.28" (terraform-aws-modules/vpc/aws 6.6.0: versions.tf:7)
'''


def test_why_nested_call_path_and_package(solved_root, tofu_solve):
    by_path = tofu_solve(solved_root, "why", "eks.kms")
    by_package = tofu_solve(solved_root, "why", "terraform-aws-modules/kms/aws")
    assert by_path.code == by_package.code == 0
    assert by_path.out == by_package.out
    assert by_path.out == '''module "eks.kms" (terraform-aws-modules/kms/aws) is at 2.1.0
  root module
  └─ eks: terraform-aws-modules/eks/aws "~> 20.0" (main.tf:17) -> 20.37.0
     └─ kms: terraform-aws-modules/kms/aws "2.1.0" (terraform-aws-modules/eks/aws 20.37.0: main.tf:304) -> 2.1.0
  2.1.0 is the newest version "2.1.0" allows.
'''


def test_why_provider(solved_root, tofu_solve):
    r = tofu_solve(solved_root, "why", "hashicorp/aws")
    assert r.code == 0
    lines = r.out.splitlines()
    assert lines[0] == "provider hashicorp/aws is at 6.58.0"
    assert '    - ">= 5.95" required by the root module at main.tf:5' in lines  # its version line
    assert '    - ">= 6.28" required by module "vpc" (terraform-aws-modules/vpc/aws 6.6.0) at versions.tf:7' in lines
    assert lines[-1] == "  6.58.0 is the newest version available."


def test_why_provider_bounded(tmp_path, tofu_solve):
    root = write_root(tmp_path / "r", VPC_EKS.replace('">= 5.95"', '"~> 5.0"').replace('"~> 6.0"', '"6.0.0"'))
    assert tofu_solve(root, "init").code == 0
    r = tofu_solve(root, "why", "aws", "-json")
    data = r.json()
    assert data[0]["kind"] == "provider" and data[0]["version"].startswith("5.")
    bounded = data[0]["bounded_by"]
    assert {"constraint": "~> 5.0", "file": "main.tf", "line": 5, "imposed_by": "root"} in bounded
    assert {"constraint": ">= 5.95, < 6.0.0", "file": "versions.tf", "line": 7, "imposed_by": "eks"} in bounded
    assert all(b["constraint"] in ("~> 5.0", ">= 5.95, < 6.0.0") for b in bounded)


def test_why_unknown_name(solved_root, tofu_solve):
    r = tofu_solve(solved_root, "why", "ekss")
    assert r.code == 1
    assert "Error: Unknown name" in r.err and "Did you mean: eks" in r.err


def test_why_before_init(tmp_path, tofu_solve):
    root = write_root(tmp_path / "fresh", VPC_EKS)
    r = tofu_solve(root, "why", "eks")
    assert r.code == 1 and "run tofu-solve init" in r.err


def test_why_needs_no_network(solved_root, tofu_solve, monkeypatch, tmp_path):
    cfg = tmp_path / "down.tfrc"
    cfg.write_text('host "registry.opentofu.org" {\n  services = {\n    "modules.v1" = "http://127.0.0.1:9/"\n  }\n}\n')
    monkeypatch.setenv("TF_CLI_CONFIG_FILE", str(cfg))
    assert tofu_solve(solved_root, "why", "eks").code == 0
    assert tofu_solve(solved_root, "graph").code == 0


def test_graph_dot_parses_and_renders(solved_root, tofu_solve, tmp_path):
    r = tofu_solve(solved_root, "graph", "--dot", "-opentofu")
    assert r.code == 0
    graphs = pydot.graph_from_dot_data(r.out)
    assert graphs and len(graphs) == 1
    g = graphs[0]
    names = {n.get_name().strip('"') for n in g.get_nodes()}
    assert {"root", "module.vpc", "module.eks", "module.eks.kms", "opentofu"} <= names
    edge = next(e for e in g.get_edges() if e.get_destination().strip('"') == "module.eks.kms")
    assert edge.get_source().strip('"') == "module.eks"
    assert edge.get("label").strip('"') == "2.1.0"  # the call's constraint (where: in the JSON)
    dot = shutil.which("dot")
    require_tool(dot, "Graphviz dot", "graphviz")
    out = tmp_path / "g.svg"
    subprocess.run([dot, "-Tsvg", "-o", str(out)], input=r.out, text=True, check=True)
    assert out.read_text().lstrip().startswith(("<?xml", "<svg"))


def test_graph_json_and_multi_version_packages(tmp_path, tofu_solve):
    root = write_root(tmp_path / "multi", '''
        module "kms_a" {
          source  = "terraform-aws-modules/kms/aws"
          version = "~> 2.0"
        }

        module "kms_b" {
          source  = "terraform-aws-modules/kms/aws"
          version = "~> 3.0"
        }
    ''')
    assert tofu_solve(root, "init").code == 0
    r = tofu_solve(root, "graph", "-json")
    data = json.loads(r.out)
    mods = {n["id"]: n for n in data["nodes"] if n.get("kind") == "module"}
    assert mods["module.kms_a"]["multi_version"] and mods["module.kms_b"]["multi_version"]
    assert mods["module.kms_a"]["version"] != mods["module.kms_b"]["version"]
    dot = tofu_solve(root, "graph").out
    assert 'fillcolor=orange' in dot


def test_why_says_when_the_lock_holds_a_call_back(tmp_path, tofu_solve):
    """Issue #12: a call the lock holds back is not "the newest version its constraint allows"."""
    root = write_root(tmp_path / "root", 'module "vpc" {\n  source  = "terraform-aws-modules/vpc/aws"\n'
                                         '  version = "6.4.1"\n}\n')
    assert tofu_solve(root, "init").code == 0
    (root / "main.tf").write_text((root / "main.tf").read_text().replace('"6.4.1"', '"~> 6.0"'))
    assert tofu_solve(root, "init").code == 0  # the lock keeps 6.4.1, as tofu init would
    r = tofu_solve(root, "why", "vpc")
    assert r.code == 0, r.err
    assert "is at 6.4.1" in r.out and "is the newest version" not in r.out
    assert "held by .terraform.lock.hcl" in r.out and "tofu-solve init -upgrade" in r.out
    data = tofu_solve(root, "why", "vpc", "-json").json()
    assert data[0]["locked"] is True
    assert tofu_solve(root, "init", "-upgrade").code == 0
    r = tofu_solve(root, "why", "vpc")
    assert "is at 6.6.0" in r.out and "held by" not in r.out


def test_why_a_locked_call_names_the_newest_allowed_and_the_one_upgrade(isolated, tofu_solve):
    """Held by the lock, not listed this run: ``why`` names the newest version the
    constraint allows by the listing an earlier run cached and that listing's age (issue
    #24), and names no command it has not proven to land a newer version (issue #47 §3)."""
    root = write_root(isolated / "root", 'module "vpc" {\n  source  = "terraform-aws-modules/vpc/aws"\n'
                                         '  version = "6.0.0"\n}\n')
    assert tofu_solve(root, "init").code == 0
    (root / "main.tf").write_text((root / "main.tf").read_text().replace('"6.0.0"', '"~> 6.0"'))
    r = tofu_solve(root, "init")
    assert r.code == 0, r.err
    why = tofu_solve(root, "why", "vpc")
    assert why.code == 0, why.err
    assert '6.0.0 is held by .terraform.lock.hcl; "~> 6.0" allows up to 6.6.0 (the registry\'s listing read ' in why.out
    # the newer versions were never read: no command is claimed to land one (issue #47 §3)
    assert ("- vpc is 6.0.0, not 6.0.1 to 6.6.0: held by the lock at 6.0.0; not read "
            "yet, so whether it fits the rest of the selection is not known (tofu-solve outdated reads it)") in why.out
    data = tofu_solve(root, "why", "vpc", "-json").json()[0]
    assert data["newest_allowed"] == "6.6.0" and data["upgrade"] is None
    assert isinstance(data["listed_at"], float)
    assert tofu_solve(root, "outdated").code == 2  # reads the newest: now it is known to fit
    assert tofu_solve(root, "init").code == 0
    why = tofu_solve(root, "why", "vpc")
    assert ("- vpc is 6.0.0, not 6.0.1 to 6.6.0: held by the lock at 6.0.0: tofu-solve "
            "init -upgrade=vpc takes the newest that fits (6.6.0), every other lock kept") in why.out, why.out
    assert tofu_solve(root, "why", "vpc", "-json").json()[0]["upgrade"] == "tofu-solve init -upgrade=vpc"
    r = tofu_solve(root, "init", "-upgrade=vpc")  # the command named lands what it said
    assert r.code == 0 and '~ module "vpc" 6.0.0 -> 6.6.0' in r.out


# ---------------------------------------------------------------- issue #47 §4: the lock, not the cache


def _answers(root, tofu_solve) -> dict[str, tuple[int, str, str]]:
    """Every answer ``why`` and ``graph`` give about a solved root: ``why`` of each call
    path and provider the lock holds, and the whole graph, as data."""
    from tests.e2e.conftest import lock_versions
    from tofu_solve.lockfile import parse_lock_text

    text = (root / ".terraform.lock.hcl").read_text()
    names = sorted(lock_versions(text)) + sorted(parse_lock_text(text)[0].providers)
    out = {}
    for name in names:
        r = tofu_solve(root, "why", name, "-json")
        out[f"why {name}"] = (r.code, r.out, r.err)
    r = tofu_solve(root, "graph", "-json", "-providers", "-opentofu")
    out["graph"] = (r.code, r.out, r.err)
    return out


def test_why_and_graph_answer_alike_without_the_download_cache(solved_root, tofu_solve, monkeypatch, tmp_path):
    """Issue #47 §4, as a property of every answer: in a shell whose cache is not the one
    ``init`` used, ``why`` and ``graph`` give exactly what they give with it (they read the
    lock, ``.terraform/modules`` and what init recorded), eks.kms and the providers' module
    constraints included."""
    full = _answers(solved_root, tofu_solve)
    assert "module.eks.kms" in full["graph"][1] and json.loads(full["why registry.opentofu.org/hashicorp/tls"][1])
    assert all(code == 0 for code, _, _ in full.values())
    monkeypatch.setenv("TOFU_SOLVE_CACHE_DIR", str(tmp_path / "another-cache"))
    assert _answers(solved_root, tofu_solve) == full


def test_why_and_graph_say_what_is_missing_when_neither_cache_nor_copy_holds_it(solved_root, tofu_solve,
                                                                                monkeypatch, tmp_path):
    """Neither the cache nor an installed copy: a warning naming what is missing and how to
    get it, and exit 1, never a smaller tree or "Unknown name" for a name the lock holds."""
    monkeypatch.setenv("TOFU_SOLVE_CACHE_DIR", str(tmp_path / "another-cache"))
    shutil.rmtree(solved_root / ".terraform" / "modules" / "eks")
    graph = tofu_solve(solved_root, "graph")
    assert graph.code == 1
    assert "Warning: Module contents not available" in graph.err and "eks, eks.kms" in graph.err
    assert "Run tofu-solve init" in graph.err
    why = tofu_solve(solved_root, "why", "eks.kms")
    assert why.code == 1 and "Unknown name" not in why.err and "Module contents not available" in why.err
    assert tofu_solve(solved_root, "why", "vpc").code == 1  # answered, but the answer is partial: said so
    assert tofu_solve(solved_root, "init").code == 0  # reinstalled from the lock
    assert tofu_solve(solved_root, "graph").code == 0


def test_why_graph_and_outdated_give_one_reason_for_a_held_back_version(tmp_path, tofu_solve):
    """Issue #47 §3: one analysis, one reason. vpc 6.6.0 denied by the policy and eks held by
    a provider clash: ``why``, ``graph`` and ``outdated`` name the same kind and the same words,
    and the command they name lands what it says."""
    root = write_root(tmp_path / "root", VPC_EKS)
    (root / "tofu-solve-policy.hcl").write_text('deny "module" "terraform-aws-modules/vpc/aws" {\n'
                                                '  versions = "6.6.0"\n  reason   = "breaks the NAT gateways"\n}\n')
    assert tofu_solve(root, "init").code == 0
    graph = {n["id"]: n for n in json.loads(tofu_solve(root, "graph", "-json").out)["nodes"]}
    rows = {r["name"]: r for r in tofu_solve(root, "outdated", "-json").json()["items"]}
    for call in ("vpc", "eks"):
        why = tofu_solve(root, "why", call, "-json").json()[0]
        first = why["held_back"][0]
        assert graph[f"module.{call}"]["held_back_by"] == first
        assert (rows[call]["held_by"], rows[call]["reason"]) == (first["kind"], first["reason"]), call
    assert rows["vpc"]["held_by"] == "policy" and "breaks the NAT gateways" in rows["vpc"]["reason"]
    assert '(tofu-solve-policy.hcl:1): breaks the NAT gateways' in rows["vpc"]["reason"]
    assert rows["eks"]["held_by"] == "provider"
    # nothing can move on its own: no -upgrade=NAME is suggested anywhere
    assert rows["vpc"]["command"] is None and rows["eks"]["command"] is None
    assert "-upgrade=" not in tofu_solve(root, "outdated").out
