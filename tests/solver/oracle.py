"""A brute-force resolver for small module universes: the oracle the solver is tested against
(issue #34's conservative update, issue #35's oracle; Cargo's resolver proptests are the model).

It enumerates every consistent selection of an index (:mod:`tests.world.memory`'s
shape): each module call present takes a version its constraint admits (nested calls follow
from the versions taken), each provider takes a version every selected constraint admits,
every OpenTofu constraint admits the target. Nothing of the solver is used, only the version
semantics (go-version for modules, go-versions for providers), which the conformance
vectors test on their own.

The lock cost of a selection is the number of locks it moves, in the sense of
:mod:`tofu_solve.solver.locks`: a module call present whose lock applies (same source, its
constraint admits the locked version) at another version; a provider whose lock the root's
constraints admit at another version.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass

from tofu_solve.versions.constraints import module_constraint, provider_constraint
from tofu_solve.versions.hashicorp_go_version import GoVersion

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


def _nearest(ordered: list[str], locked: str) -> list[str]:
    """``ordered`` (ascending) nearest ``locked`` first by position, the newer of two equally
    near first; the locked version itself first."""
    rank = {v: i for i, v in enumerate(ordered)}
    return sorted(ordered, key=lambda v: (abs(rank[v] - rank[locked]), -rank[v]))


DEPTHS = 6  # the user guide: deeper calls count with the sixth level


def objective(index: dict, selection: Selection, module_locks: dict[str, tuple[str, str]],
              provider_locks: dict[str, str]) -> tuple[int, tuple[int, ...], int, int]:
    """The stated objective of ``selection`` (issue #48 §3, the user guide's "What a solve
    optimises"), from its words alone: (locks moved, module versions skipped per depth of
    call (the root's calls, the calls inside them, ...), module versions fenced off by their
    own line from a selected provider version, provider versions skipped). A call skips the versions before its own in its order: a lock that applies
    first, then the versions nearest it (by position among the versions its constraint
    admits; the newer of two equally near first); a call without one, newest first. A
    provider likewise, among the versions the root's own constraints admit, nearness counted
    among every version it has."""
    moved = lock_cost(index, selection, module_locks, provider_locks)
    calls = calls_of(index, selection)
    mods = selection.module_map
    provs = selection.provider_map
    fenced = provider_skip = 0
    by_depth = [0] * DEPTHS
    for path, call in calls.items():
        admitted = sorted((v for v in index["modules"][call["source"]] if _admits_module(call.get("version"), v)),
                          key=GoVersion.parse)
        lock = module_locks.get(path)
        if lock is not None and lock[0] == call["source"] and lock[1] in admitted:
            order = _nearest(admitted, lock[1])
        else:
            order = admitted[::-1]
        by_depth[min(path.count("."), DEPTHS - 1)] += order.index(mods[path])
        mine = GoVersion.parse(mods[path])
        for addr, version in provs.items():
            for newer in admitted:
                nv = GoVersion.parse(newer)
                if nv.compare(mine) <= 0 or nv.segments[:2] != mine.segments[:2]:
                    continue
                texts = [p["version"] for p in index["modules"][call["source"]][newer].get("providers", [])
                         if PROVIDER_HOST + p["source"] == addr and p.get("version")]
                if any(not provider_constraint(t).allows(version) for t in texts):
                    fenced += 1
                    break
    root_texts: dict[str, list[str]] = {}
    for p in index["root"].get("providers", []):
        root_texts.setdefault(PROVIDER_HOST + p["source"], []).extend([p["version"]] if p.get("version") else [])
    for addr, version in provs.items():
        every = sorted(index["providers"][addr.removeprefix(PROVIDER_HOST)], key=GoVersion.parse)
        admitted = [v for v in every if all(provider_constraint(t).allows(v) for t in root_texts.get(addr, []))]
        lock = provider_locks.get(addr)
        if lock is not None and lock in admitted:
            order = [v for v in _nearest(every, lock) if v in admitted]
        else:
            order = admitted[::-1]
        provider_skip += order.index(version)
    return moved, tuple(by_depth), fenced, provider_skip
