"""A brute-force resolver for small module universes: the oracle the solver is tested against
(issue #34's conservative update, issue #35's oracle; Cargo's resolver proptests are the model).

It enumerates every consistent selection of an index (:mod:`tests.world.memory`'s
shape): each module call present takes a version its constraint admits (nested calls follow
from the versions taken), each provider takes a version every selected constraint admits,
every OpenTofu constraint admits the target. Nothing of the solver is used, only the version
semantics (go-version for modules, go-versions for providers), which the conformance
vectors test on their own.

The lock cost of a selection is the number of locks it moves, in the sense of
:mod:`tofu_solve.solver.holds`: a module call present whose lock applies (same source, its
constraint admits the locked version) at another version; a provider whose lock the root's
constraints admit at another version.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass

from tofu_solve.versions.constraints import module_constraint, provider_constraint

PROVIDER_HOST = "registry.opentofu.org/"


@dataclass(frozen=True)
class Selection:
    """One consistent selection: call path -> version, provider address -> version."""

    modules: tuple[tuple[str, str], ...]
    providers: tuple[tuple[str, str], ...]

    @property
    def module_map(self) -> dict[str, str]:
        return dict(self.modules)

    @property
    def provider_map(self) -> dict[str, str]:
        return dict(self.providers)


def _admits_module(constraint: str | None, version: str) -> bool:
    return constraint is None or module_constraint(constraint).allows(version)


def _module_assignments(index: dict, calls: list[tuple[str, dict]]) -> Iterator[dict[str, tuple[str, dict]]]:
    """Every assignment of versions to ``calls`` (prefix, call) and, recursively, to the
    calls inside the versions taken: call path -> (version, the call)."""
    if not calls:
        yield {}
        return
    (prefix, call), rest = calls[0], calls[1:]
    path = f"{prefix}.{call['name']}" if prefix else call["name"]
    for version, tree in index["modules"][call["source"]].items():
        if not _admits_module(call.get("version"), version):
            continue
        inner = [(path, c) for c in tree.get("calls", [])]
        for tail in _module_assignments(index, inner + rest):
            yield {path: (version, call), **tail}


def solutions(index: dict) -> list[Selection]:
    """Every consistent selection of ``index``, in a deterministic order."""
    target = index.get("target", "1.12.6")
    out = []
    root_calls = [("", c) for c in index["root"].get("calls", [])]
    for assignment in _module_assignments(index, root_calls):
        trees = [index["root"]] + [index["modules"][call["source"]][v] for v, call in assignment.values()]
        if not all(module_constraint(c["constraint"]).allows(target) for t in trees for c in t.get("opentofu", [])):
            continue
        constraints: dict[str, list[str]] = {}
        for t in trees:
            for p in t.get("providers", []):
                constraints.setdefault(PROVIDER_HOST + p["source"], []).extend([p["version"]] if p.get("version") else [])
        choices = []
        for addr, texts in sorted(constraints.items()):
            versions = [v for v in index["providers"][addr.removeprefix(PROVIDER_HOST)]
                        if all(provider_constraint(t).allows(v) for t in texts)]
            choices.append([(addr, v) for v in versions])
        modules = tuple(sorted((p, v) for p, (v, _) in assignment.items()))
        for combo in itertools.product(*choices):
            out.append(Selection(modules, tuple(combo)))
    return out


def calls_of(index: dict, selection: Selection) -> dict[str, dict]:
    """Call path -> the call (its source and constraint) in ``selection``."""
    out = {}
    stack = [("", c) for c in index["root"].get("calls", [])]
    mods = selection.module_map
    while stack:
        prefix, c = stack.pop()
        path = f"{prefix}.{c['name']}" if prefix else c["name"]
        out[path] = c
        stack += [(path, inner) for inner in index["modules"][c["source"]][mods[path]].get("calls", [])]
    return out


def lock_cost(index: dict, selection: Selection, module_locks: dict[str, tuple[str, str]],
              provider_locks: dict[str, str]) -> int:
    """How many locks ``selection`` moves. ``module_locks``: call path -> (source, version);
    ``provider_locks``: provider address -> version."""
    cost = 0
    calls = calls_of(index, selection)
    mods = selection.module_map
    for path, (source, version) in module_locks.items():
        call = calls.get(path)
        if call is None or call["source"] != source or not _admits_module(call.get("version"), version):
            continue  # the lock does not apply here
        if mods[path] != version:
            cost += 1
    root_provider = {}
    for p in index["root"].get("providers", []):
        root_provider.setdefault(PROVIDER_HOST + p["source"], []).extend([p["version"]] if p.get("version") else [])
    provs = selection.provider_map
    for addr, version in provider_locks.items():
        if not all(provider_constraint(t).allows(version) for t in root_provider.get(addr, [])):
            continue
        if addr in provs and provs[addr] != version:
            cost += 1
    return cost
