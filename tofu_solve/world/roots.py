"""Root modules assembled from the corpus, for the demo, the benchmarks and tests.

``example_roots`` turns the maintainers' own ``examples/**`` roots (``example_roots.json``)
into standalone roots: a local call to the module itself (``../../``) or to one of its
submodules (``../../modules/x``) becomes a registry call (``ns/name/sys[//modules/x]``)
with ``~> MAJOR.0`` of that release, as a user would write it; other calls and the
``required_providers`` are kept as written.
"""

from __future__ import annotations

import json
import posixpath
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Root:
    """A named root module: its ``main.tf`` text."""

    name: str
    main_tf: str
    calls: int

    def write(self, dir: Path) -> Path:
        dir.mkdir(parents=True, exist_ok=True)
        (dir / "main.tf").write_text(self.main_tf)
        return dir


def render_root(calls: list[tuple[str, str, str | None]], providers: list[tuple[str, str, str | None]]) -> str:
    """``main.tf`` for (name, source, version) calls and (local name, source, version)
    provider requirements."""
    out = []
    if providers:
        out += ["terraform {", "  required_providers {"]
        for name, source, version in providers:
            out.append(f"    {name} = {{")
            out.append(f"      source  = {json.dumps(source)}")
            if version:
                out.append(f"      version = {json.dumps(version)}")
            out.append("    }")
        out += ["  }", "}", ""]
    for name, source, version in calls:
        out.append(f"module {json.dumps(name)} {{")
        out.append(f"  source  = {json.dumps(source)}")
        if version:
            out.append(f"  version = {json.dumps(version)}")
        out += ["}", ""]
    return "\n".join(out)


def example_roots(corpus: str | Path, only_known: bool = True) -> list[Root]:
    """Every example root; with ``only_known``, those whose root-level module calls and
    providers are all in the corpus (so the fixture world can serve them)."""
    corpus = Path(corpus)
    data = json.loads((corpus / "example_roots.json").read_text())
    known_modules = set(json.loads((corpus / "modules.json").read_text()))
    known_providers = {k for k in json.loads((corpus / "providers.json").read_text()) if not k.startswith("_")}
    out = []
    for addr, entry in sorted(data.items()):
        for version, examples in sorted(entry["versions"].items()):
            major = version.split(".")[0]
            for ex, d in sorted(examples.items()):
                calls = []
                for c in d["module_calls"]:
                    if c["source_type"] == "registry":
                        calls.append((c["name"], c["source"], c["version"]))
                    elif c["source_type"] == "local":
                        target = posixpath.normpath(posixpath.join(ex, c["source"]))
                        if target in (".", ""):
                            calls.append((c["name"], addr, f"~> {major}.0"))
                        elif target.startswith("modules/"):
                            calls.append((c["name"], f"{addr}//{target}", f"~> {major}.0"))
                if not calls:
                    continue
                providers = []
                seen = set()
                for p in d["required_providers"]:
                    if p["name"] in seen:
                        continue
                    seen.add(p["name"])
                    providers.append((p["name"], p.get("address") or p.get("source") or f"hashicorp/{p['name']}",
                                      p.get("version")))
                if only_known and (
                        any(src.split("//")[0] not in known_modules for _, src, _ in calls)
                        or any(p.removeprefix("registry.terraform.io/").removeprefix("registry.opentofu.org/")
                               not in known_providers for _, p, _ in providers)):
                    continue
                name = f"{addr.replace('/', '_')}@{version}:{ex.replace('/', '_')}"
                out.append(Root(name, render_root(calls, providers), len(calls)))
    return out


ASSEMBLY_MODULES = (
    "terraform-aws-modules/vpc/aws", "terraform-aws-modules/eks/aws", "terraform-aws-modules/rds/aws",
    "terraform-aws-modules/s3-bucket/aws", "terraform-aws-modules/security-group/aws",
    "terraform-aws-modules/alb/aws", "terraform-aws-modules/kms/aws", "terraform-aws-modules/ecs/aws",
    "cloudposse/eks-cluster/aws", "cloudposse/dynamic-subnets/aws", "cloudposse/vpc/aws",
)


def assembled_roots(corpus: str | Path, majors: int = 2) -> list[Root]:
    """Roots a user might write: every pair of widely used modules, each at ``~> MAJOR.0``
    of one of its ``majors`` newest majors, with no root aws constraint and with
    ``~> 5.0`` (the aws 6.0 split is where newest-per-call breaks)."""
    mods = json.loads((Path(corpus) / "modules.json").read_text())
    options = []
    for addr in ASSEMBLY_MODULES:
        if addr not in mods:
            continue
        ms = sorted({int(v.split(".")[0]) for v in mods[addr]["versions"] if "-" not in v})[-majors:]
        options += [(addr, m) for m in ms]
    out = []
    for i, (a, ma) in enumerate(options):
        for b, mb in options[i + 1:]:
            if a == b:
                continue
            calls: list[tuple[str, str, str | None]] = [(a.split("/")[1].replace("-", "_"), a, f"~> {ma}.0"),
                     (b.split("/")[1].replace("-", "_") + "_b", b, f"~> {mb}.0")]
            no_providers: list[tuple[str, str, str | None]] = []
            aws5: list[tuple[str, str, str | None]] = [("aws", "hashicorp/aws", "~> 5.0")]
            for label, prov in (("free", no_providers), ("aws5", aws5)):
                name = f"pair:{a.split('/')[1]}@{ma}+{b.split('/')[1]}@{mb}:{label}"
                out.append(Root(name, render_root(calls, prov), 2))
    return out
