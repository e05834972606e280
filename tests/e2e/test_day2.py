"""Issue #15: day-2 workflows driven end to end in the fixture world: outdated, the graph,
output conventions, monorepos."""

from __future__ import annotations

import json

from tests.e2e.conftest import write_root

ROOT_3 = '''
terraform {
  required_providers {
    aws = {
      source  = "hashicorp/aws"
      version = ">= 5.0"
    }
  }
}
module "vpc" {
  source  = "terraform-aws-modules/vpc/aws"
  version = "6.4.0"
}
module "kms" {
  source  = "terraform-aws-modules/kms/aws"
  version = "3.0.0"
}
module "eks" {
  source  = "terraform-aws-modules/eks/aws"
  version = "~> 20.0"
}
'''


def _locked_then_loosened(tmp_path, tofu_solve):
    root = write_root(tmp_path / "root", ROOT_3)
    assert tofu_solve(root, "init").code == 0
    main = root / "main.tf"
    main.write_text(main.read_text().replace('"6.4.0"', '"~> 6.0"').replace('"3.0.0"', '"~> 3.0"'))
    assert tofu_solve(root, "init").code == 0  # both still allowed: the lock keeps them
    return root


def test_outdated_names_what_holds_each_call_back(tmp_path, tofu_solve):
    root = _locked_then_loosened(tmp_path, tofu_solve)
    lock_before = (root / ".terraform.lock.hcl").read_text()
    r = tofu_solve(root, "outdated", "-json")
    assert r.code == 2, r.err  # something can move
    rows = {i["name"]: i for i in r.json()["items"]}
    assert rows["vpc"]["locked"] == "6.4.0" and rows["vpc"]["can_move_to"] == "6.6.0"
    assert rows["vpc"]["held_by"] == "lock" and rows["vpc"]["can_move"]
    assert rows["kms"]["held_by"] == "lock" and rows["kms"]["newest_allowed"] == "3.1.1"
    # eks 20.37.2 (newest ~> 20.0 allows) needs aws < 6.0 while vpc 6.6.0 needs >= 6.28
    assert rows["eks"]["locked"] == rows["eks"]["can_move_to"] == "20.37.0"
    assert rows["eks"]["newest_allowed"] == "20.37.2" and rows["eks"]["held_by"] == "provider"
    assert '"~> 20.0"' not in rows["eks"]["reason"] and "hashicorp/aws" in rows["eks"]["reason"]
    assert rows["eks"]["newest"].startswith("21.")
    assert rows["eks.kms"]["held_by"] == "constraint"
    aws = rows["registry.opentofu.org/hashicorp/aws"]
    assert aws["kind"] == "provider" and aws["held_by"] is None and not aws["can_move"]
    text = tofu_solve(root, "outdated")
    assert text.code == 2
    assert text.out.splitlines()[0].split() == ["NAME", "LOCKED", "CAN", "MOVE", "TO", "NEWEST", "ALLOWED", "NEWEST",
                                                "HELD", "BACK", "BY"]
    assert "tofu-solve init -upgrade=kms,vpc" in text.out
    assert (root / ".terraform.lock.hcl").read_text() == lock_before  # read-only
    # take what it offers: nothing can move any more
    assert tofu_solve(root, "init", "-upgrade=kms,vpc").code == 0
    again = tofu_solve(root, "outdated", "-json")
    assert again.code == 0 and not again.json()["can_move"]


def test_graph_is_readable_at_16_calls(tmp_path, tofu_solve):
    """The default graph is the module tree, left to right, rendered by Graphviz within a
    sane size; -providers adds providers with de-duplicated labels and the binding
    constraint marked."""
    import re
    import shutil
    import xml.etree.ElementTree as ET

    from tests.e2e.test_explanations import SHARED_8

    assert shutil.which("dot"), "Graphviz dot must be installed (CI installs it)"
    root = write_root(tmp_path / "root", SHARED_8)
    assert tofu_solve(root, "init").code == 0
    data = tofu_solve(root, "graph", "-json").json()
    modules = [n for n in data["nodes"] if n["kind"] == "module"]
    assert len(modules) >= 16
    assert {n["kind"] for n in data["nodes"]} == {"root", "module"}  # the tree only, by default
    svg = tmp_path / "g.svg"
    r = tofu_solve(root, "graph", "-o", str(svg))
    assert r.code == 0, r.err
    doc = ET.parse(svg).getroot()
    width, height = (float(re.match(r"[\d.]+", doc.get(k)).group()) for k in ("width", "height"))
    assert width <= 1400 and height <= 1000, (width, height)  # was 6983x853 px for 16 calls
    titles = {t.text for t in doc.iter("{http://www.w3.org/2000/svg}title")}
    assert {f"module.{n['call']}" for n in modules} <= titles
    assert "root->module.eks" in titles and "module.eks->module.eks.kms" in titles
    png = tmp_path / "g.png"
    assert tofu_solve(root, "graph", "-o", str(png)).code == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

    full = tofu_solve(root, "graph", "-json", "-providers", "-opentofu").json()
    kinds = {n["kind"] for n in full["nodes"]}
    assert {"provider", "opentofu"} <= kinds
    aws_edges = [e for e in full["links"] if e["target"] == "provider.registry.opentofu.org/hashicorp/aws"]
    assert all(len(e["constraints"]) == len(set(e["constraints"])) for e in aws_edges)
    eks = next(e for e in aws_edges if e["source"] == "module.eks")
    assert eks["label"].count(">= 6.28") == 1  # four files, one label line
    dot = tofu_solve(root, "graph", "-providers").out
    assert "rankdir=LR" in dot


def test_graph_marks_held_back_calls(tmp_path, tofu_solve):
    root = write_root(tmp_path / "root", '''
        module "vpc" {
          source  = "terraform-aws-modules/vpc/aws"
          version = "~> 6.0"
        }
        module "eks" {
          source  = "terraform-aws-modules/eks/aws"
          version = "~> 20.0"
        }
    ''')
    assert tofu_solve(root, "init").code == 0
    data = tofu_solve(root, "graph", "-json").json()
    eks = next(n for n in data["nodes"] if n["id"] == "module.eks")
    # eks 20.37.0: 20.37.1 and 20.37.2 fence aws 6.x off (vpc 6.6.0 needs aws >= 6.28)
    assert eks["held_back"] == "20.37.2" and eks["fenced_off"] == "20.37.2"
    assert "held back (20.37.2 allowed)" in eks["label"] and "fenced off by 20.37.2" in eks["label"]
    dot = tofu_solve(root, "graph").out
    assert "dashed" in dot and "color=red" in dot
