"""``tofu-solve graph``: the solved tree as a networkx graph, drawn for people.

By default the graph is the **module tree**: ``root`` and one node per module call (call
name, package, version), parent -> child edges labelled with the call's constraint. Options
add the rest:

* ``providers=True``: one node per provider (address, version) and one edge from each module
  (or the root) that constrains it, labelled with its *distinct* constraints (identical
  constraints from several files of one module are shown once); the **binding** constraint,
  the one that keeps the provider from its next release, is drawn bold red;
* ``opentofu=True``: the OpenTofu node and its constraints, likewise.

Marks: a module package used at several versions is filled orange (``multi_version``); a
call held back below the newest version its constraint allows is dashed with "held back",
the newest allowed version and what holds it (``held_back_by`` in JSON: the hold-back
``init`` computed, :mod:`tofu_solve.explain.holdback`, the same reason ``why`` and
``outdated`` give); a selected version fenced off by a newer release of its own line (same
major.minor excluding the chosen provider) is marked "fenced off" in red.

Exported as Graphviz DOT (left to right; ``networkx.drawing.nx_pydot``), node-link JSON,
or rendered to SVG/PNG by Graphviz ``dot`` (:func:`render`).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import networkx as nx

from .._lazy import load
from ..errors import TofuSolveError
from ..lockfile.write import write_atomic
from ..output_edge import json_safe
from ..settings import Settings
from ..versions import apparentlymart_go_versions as gvs
from ..workdir.solved import Solved, load_solved
from .arguments.report_flags import GraphArguments
from .views.report_views import GraphView

HELD_BY = {"policy": "by the policy", "cooldown": "by the release cooldown", "lock": "by the lock",
           "provider": "by a provider constraint", "opentofu": "by an OpenTofu constraint",
           "module": "by a nested call", "constraint": "by a constraint", "objective": "fewest versions skipped",
           "unknown": "not examined"}
"""A hold-back's kind as a node's label names it (the reason itself is in ``-json``)."""


def build_graph(s: Solved, providers: bool = False, opentofu: bool = False) -> nx.DiGraph:
    """The graph of a solved tree (see the module docstring). Node ids: ``root``,
    ``module.<call path>``, ``provider.<address>``, ``opentofu``."""
    g = nx.DiGraph(name="tofu-solve")
    g.add_node("root", kind="root", label="root module")
    versions_by_package: dict[str, set[str]] = defaultdict(set)
    for node in s.calls.values():
        versions_by_package[node.package or node.display_source].add(node.version)
    for path, node in sorted(s.calls.items()):
        pkg = node.package or node.display_source
        multi = len(versions_by_package[pkg]) > 1
        name = path.rsplit(".", 1)[-1]
        label = [name, node.display_source, node.version]
        first = node.newer[0] if node.newer else None  # the one analysis init made (issue #47 §3)
        held = first.version if first is not None else None
        if first is not None:  # a version the policy or the cooldown keeps out is never called allowed (#59 §6)
            newer = f"{first.version} denied" if first.kind == "policy" else \
                f"{first.version} too young" if first.kind == "cooldown" else f"{first.version} allowed"
            label.append(f"held back ({newer}): {HELD_BY.get(first.kind, first.kind)}")
        fenced = node.fenced_off
        if fenced:
            label.append(f"fenced off by {fenced}")
        g.add_node(f"module.{path}", kind="module", call=path, source=node.display_source, version=node.version,
                   package=pkg, multi_version=multi, held_back=held,
                   held_back_by=first.as_data() if first is not None else None, fenced_off=fenced,
                   label="\n".join(label))
        parent = f"module.{node.parent}" if node.parent else "root"
        c = node.call.version.text if node.call.version else "any"
        g.add_edge(parent, f"module.{path}", kind="module_call", constraint=c, where=str(node.call.where), label=c)
    if providers:
        for addr, info in sorted(s.providers.items()):
            short = s.product.short(addr)
            g.add_node(f"provider.{addr}", kind="provider", address=addr, version=info["version"],
                       label=f"{short}\n{info['version']}")
            binding = _binding(info, s.provider_uses.get(addr, []))
            per_source: dict[str, dict[str, list[str]]] = defaultdict(dict)
            for u in s.provider_uses.get(addr, []):
                src = f"module.{u.owner}" if u.owner in s.calls else "root"
                c = u.requirement.constraint.text if u.requirement.constraint else "any"
                per_source[src].setdefault(c, []).append(str(u.requirement.where))
            for src, constraints in per_source.items():
                bound = any(c in binding.get(src, ()) for c in constraints)
                g.add_edge(src, f"provider.{addr}", kind="requires", constraints=sorted(constraints),
                           where=sorted(w for ws in constraints.values() for w in ws), binding=bound,
                           label="\n".join(sorted(constraints)))
    if opentofu:
        g.add_node("opentofu", kind="opentofu", version=s.opentofu, label=f"OpenTofu\n{s.opentofu}")
        per_source = defaultdict(dict)
        for c, _imposed, _version, owner in s.core_uses:
            src = f"module.{owner}" if owner in s.calls else "root"
            per_source[src].setdefault(c.constraint.text, []).append(str(c.where))
        for src, constraints in per_source.items():
            g.add_edge(src, "opentofu", kind="requires", constraints=sorted(constraints), binding=False,
                       where=sorted(w for ws in constraints.values() for w in ws), label="\n".join(sorted(constraints)))
    return g


def _binding(info: dict, uses: list) -> dict[str, set[str]]:
    """Source node -> constraints that exclude the provider's next release (the ones that
    hold it at its version)."""
    nxt = info.get("next")
    out: dict[str, set[str]] = defaultdict(set)
    if not nxt:
        return out
    try:
        nv = gvs.Version.parse(nxt)
    except TofuSolveError:
        return out
    for u in uses:
        r = u.requirement
        if r.constraint is not None and not r.constraint.allows(nv):
            out[f"module.{u.owner}" if u.owner else "root"].add(r.constraint.text)
    return out


def to_dot(g: nx.DiGraph) -> str:
    """Graphviz DOT text (valid for ``dot``), laid out left to right."""
    load("networkx.drawing.nx_pydot")
    from networkx.drawing.nx_pydot import to_pydot

    h = nx.DiGraph()
    h.graph.update({"graph": {"rankdir": "LR", "nodesep": "0.15", "ranksep": "0.5", "fontname": "Helvetica"},
                    "node": {"fontname": "Helvetica", "fontsize": "10"},
                    "edge": {"fontname": "Helvetica", "fontsize": "9"}})
    style = {"root": {"shape": "house"}, "module": {"shape": "box"}, "provider": {"shape": "ellipse"},
             "opentofu": {"shape": "diamond"}}
    for n, d in g.nodes(data=True):
        attrs = {"label": _q(d.get("label", n)), **style.get(d.get("kind"), {})}
        styles = []
        if d.get("multi_version"):
            styles.append("filled")
            attrs["fillcolor"] = "orange"
        if d.get("held_back"):
            styles.append("dashed")
        if d.get("fenced_off"):
            attrs["color"] = "red"
        if styles:
            attrs["style"] = _q(",".join(styles))
        h.add_node(_q(n), **attrs)
    for a, b, d in g.edges(data=True):
        attrs = {"label": _q(d.get("label", ""))}
        if d.get("binding"):
            attrs.update({"color": "red", "penwidth": "2", "fontcolor": "red"})
        if d.get("kind") == "requires":
            attrs["style"] = "dotted" if not d.get("binding") else "bold"
        h.add_edge(_q(a), _q(b), **attrs)
    return to_pydot(h).to_string()


def _q(text: str) -> str:
    return '"' + str(text).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def to_json(g: nx.DiGraph) -> str:
    """node-link JSON (networkx ``node_link_data``)."""
    return json.dumps(json_safe(nx.node_link_data(g, edges="links")), indent=1, default=str)


def render(dot_text: str, out: Path) -> None:
    """Render DOT to ``out`` with Graphviz ``dot``, the format taken from the suffix
    (``.svg``, ``.png``, ``.pdf``).

    Raises:
        TofuSolveError: ``dot`` is not installed, the suffix is unknown, or ``dot`` fails.
    """
    fmt = out.suffix.lstrip(".").lower()
    if fmt not in ("svg", "png", "pdf"):
        raise TofuSolveError("Unknown graph format",
                             f"{out.name}: write .svg, .png or .pdf to render, .dot for DOT text, .json for JSON.")
    dot = shutil.which("dot")
    if dot is None:
        raise TofuSolveError("Graphviz is not installed",
                             f"Rendering {out.name} needs Graphviz's dot on PATH (apt install graphviz). Without it, "
                             "write DOT text (-o graph.dot) and render it elsewhere.")
    done = subprocess.run([dot, f"-T{fmt}", "-o", str(out)], input=dot_text.encode(), capture_output=True,
                          timeout=120)
    if done.returncode != 0:
        raise TofuSolveError("Graphviz failed", done.stderr.decode(errors="replace").strip()[:500])


def run(ns, settings: Settings) -> int:
    """The command: ``ns`` as the parser left it, read once into :class:`GraphArguments`."""
    args = GraphArguments.from_namespace(ns)
    solved = load_solved(Path(args.chdir), settings, tuple(args.vars or ()))
    g = build_graph(solved, providers=args.providers, opentofu=args.opentofu)
    out = Path(args.output) if args.output else None
    as_json = args.json or (out is not None and out.suffix.lower() == ".json")
    text = to_json(g) if as_json else to_dot(g)
    if out is not None and out.suffix.lower() in (".svg", ".png", ".pdf"):
        render(text, out)
    elif out is not None:
        write_atomic(out, text if text.endswith("\n") else text + "\n")
    else:
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
    missing = solved.missing_error()
    if missing is not None:  # a smaller tree is never given as the whole one (issue #47 §4)
        GraphView(as_json).incomplete(missing)
        return 1
    return 0
