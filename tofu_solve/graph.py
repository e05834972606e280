"""``tofu-solve graph``: the solved dependency tree as a networkx graph.

Nodes: ``root``; one per module call (label: call path, source and version; ``package``
attribute); one per provider (address and version); ``opentofu``. Edges: parent -> child
module call, and module -> provider / OpenTofu, each labelled with the constraint and its
``file:line``. Module packages used at several versions are marked (``multi_version``
attribute, filled orange in DOT) so they stand out. Exported as Graphviz DOT
(``networkx.drawing.nx_pydot``) or node-link JSON.
"""

from __future__ import annotations

import json
from collections import defaultdict

import networkx as nx

from .state import Solved


def build_graph(s: Solved) -> nx.DiGraph:
    g = nx.DiGraph(name="tofu-solve")
    g.add_node("root", kind="root", label="root module")
    versions_by_package: dict[str, set[str]] = defaultdict(set)
    for node in s.calls.values():
        versions_by_package[node.package or node.display_source].add(node.version)
    for path, node in sorted(s.calls.items()):
        pkg = node.package or node.display_source
        multi = len(versions_by_package[pkg]) > 1
        g.add_node(f"module.{path}", kind="module", call=path, source=node.display_source, version=node.version,
                   package=pkg, multi_version=multi, label=f"{path}\n{node.display_source}\n{node.version}")
        parent = f"module.{node.parent}" if node.parent else "root"
        c = node.call.version.text if node.call.version else "any"
        g.add_edge(parent, f"module.{path}", kind="module_call", constraint=c, where=str(node.call.where),
                   label=f"{c} ({node.call.where})")
    for addr, info in sorted(s.providers.items()):
        short = addr.removeprefix("registry.opentofu.org/")
        g.add_node(f"provider.{addr}", kind="provider", address=addr, version=info["version"],
                   label=f"{short}\n{info['version']}")
    for addr, uses in s.provider_uses.items():
        if f"provider.{addr}" not in g:
            continue
        for u in uses:
            src = f"module.{u.owner}" if u.owner in s.calls else "root"
            c = u.requirement.constraint.text if u.requirement.constraint else "any"
            _add_or_extend(g, src, f"provider.{addr}", c, str(u.requirement.where))
    g.add_node("opentofu", kind="opentofu", version=s.opentofu, label=f"OpenTofu\n{s.opentofu}")
    for c, imposed, version, owner in s.core_uses:
        src = f"module.{owner}" if owner in s.calls else "root"
        _add_or_extend(g, src, "opentofu", c.constraint.text, str(c.where))
    return g


def _add_or_extend(g: nx.DiGraph, a: str, b: str, constraint: str, where: str) -> None:
    text = f"{constraint} ({where})"
    if g.has_edge(a, b):
        g[a][b]["label"] += f"\n{text}"
        g[a][b]["constraint"] += f", {constraint}"
    else:
        g.add_edge(a, b, kind="requires", constraint=constraint, where=where, label=text)


def to_dot(g: nx.DiGraph) -> str:
    """Graphviz DOT text (valid for ``dot``)."""
    from networkx.drawing.nx_pydot import to_pydot

    h = nx.DiGraph()
    h.graph.update({"rankdir": "LR"})
    style = {"root": {"shape": "house"}, "module": {"shape": "box"}, "provider": {"shape": "ellipse"},
             "opentofu": {"shape": "diamond"}}
    for n, d in g.nodes(data=True):
        attrs = {"label": _q(d.get("label", n)), **style.get(d.get("kind"), {})}
        if d.get("multi_version"):
            attrs.update({"style": "filled", "fillcolor": "orange"})
        h.add_node(_q(n), **attrs)
    for a, b, d in g.edges(data=True):
        h.add_edge(_q(a), _q(b), label=_q(d.get("label", "")))
    return to_pydot(h).to_string()


def _q(text: str) -> str:
    return '"' + str(text).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def to_json(g: nx.DiGraph) -> str:
    """node-link JSON (networkx ``node_link_data``)."""
    return json.dumps(nx.node_link_data(g, edges="links"), indent=1, default=str)
