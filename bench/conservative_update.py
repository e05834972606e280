"""What the conservative update costs (issue #34): the solver alone, in memory, on the
synthetic universes of ``solver_scaling.py`` (105 and 1,050 module calls).

For each universe: a cold solve (no lock); a warm solve under the lock it wrote (every lock
held: the re-init path); then edits of one root call's constraint that the lock no longer
meets (``~> N.0`` for the oldest major the call was not at, whose releases fence the
provider lowest), each solved under the lock: how long it
took, how many feasibility searches the minimisation asked, how many locks moved and how
many a search that holds none moves. Best of three runs each. Prints one JSON line.

    python3 bench/conservative_update.py
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import dataclasses
import json
import time

from synthetic import MemoryContext, make_universe

import tofu_solve.solver.hypothetical as hypothetical
import tofu_solve.solver.resolve as resolve
from tofu_solve.addrs.module_source import lock_source
from tofu_solve.cli import tune_collector
from tofu_solve.config.tree import ModuleTree
from tofu_solve.lockfile import LockFile, ModuleLock
from tofu_solve.lockfile.entries import ProviderLock
from tofu_solve.versions.constraints import module_constraint

EDITS = 5  # root calls edited, one at a time


def lock_of(res) -> LockFile:
    modules = {p: ModuleLock(p, c.version_text, lock_source(c.source, res.module_requirements[p].constraint is not None,
                                                            c.version_text), "", ("h1:x",), "", True)
               for p, c in res.modules.items()}
    providers = {a: ProviderLock(c.address, str(c.version)) for a, c in res.providers.items()}
    return LockFile(providers, modules)


def edited(u, index: int, res):
    """The universe with root call ``index``'s constraint moved to another major than its
    selected version's (the lock no longer meets it)."""
    calls = list(u.root.remote_calls)
    rc = calls[index]
    path = rc.call.name
    major = res.modules[path].version.segments[0]
    majors = sorted({int(v.split(".")[0]) for v in u.versions[str(rc.call.source.package.for_display)]})
    other = next((m for m in majors if m != major), None)  # the oldest other major: its fences sit lowest
    if other is None:
        return None
    call = dataclasses.replace(rc.call, version=module_constraint(f"~> {other}.0"))
    calls[index] = dataclasses.replace(rc, call=call)
    root = ModuleTree(tuple(calls), u.root.local_calls, u.root.providers, u.root.core)
    return dataclasses.replace(u, root=root)


def provider_edited(u, res, below: int):
    """The universe with a root constraint on the synthetic provider that excludes its
    locked version: ``< (locked major - below).0``: every module version that requires more
    must move, the fewest of them."""
    from tests.world.memory import SYNTHETIC_PROVIDER
    from tofu_solve.config import RequiredProvider
    from tofu_solve.errors import SourceRange
    from tofu_solve.versions.constraints import provider_constraint

    locked = next(iter(res.providers.values())).version
    cap = provider_constraint(f"< {max(1, locked.major - below)}.0")
    req = RequiredProvider("synthetic", SYNTHETIC_PROVIDER, cap, SourceRange("versions.tf", 3))
    root = ModuleTree(u.root.remote_calls, u.root.local_calls, u.root.providers + (((), req),), u.root.core)
    return dataclasses.replace(u, root=root), cap.text


def timed(u, locks=None):
    ctx = MemoryContext(u, locks=locks)
    t0 = time.perf_counter()
    try:
        res = resolve.solve(u.root, ctx)
    finally:
        ctx.close()
    return time.perf_counter() - t0, res


def main() -> None:
    tune_collector()
    asked = {"searches": 0}
    real = hypothetical.feasible

    def counting(*a, **k):
        asked["searches"] += 1
        return real(*a, **k)
    hypothetical.feasible = counting
    rows = []
    for args in ((60, 30, 2, 15), (450, 40, 2, 150)):
        u = make_universe(*args)
        cold, res = min((timed(u) for _ in range(3)), key=lambda t: t[0])
        locks = lock_of(res)
        warm, again = min((timed(u, locks) for _ in range(3)), key=lambda t: t[0])
        assert {p: c.version_text for p, c in again.modules.items()} == {p: c.version_text for p, c in res.modules.items()}
        edits = []
        for i in range(0, len(u.root.remote_calls), max(1, len(u.root.remote_calls) // EDITS))[:EDITS]:
            v = edited(u, i, res)
            if v is None:
                continue
            asked["searches"] = 0
            seconds, after = min((timed(v, locks) for _ in range(3)), key=lambda t: t[0])
            searches = asked["searches"] // 3
            moved = sorted(p for p, c in after.modules.items() if p in locks.modules
                           and locks.modules[p].version != c.version_text and p.split(".")[0] != f"r{i}")
            moved += sorted(a for a, c in after.providers.items() if a in locks.providers
                            and locks.providers[a].version != str(c.version))
            edits.append({"call": f"r{i}", "seconds": round(seconds, 3), "feasibility_searches": searches,
                          "locks_moved_besides_the_edited_call": len(moved), "released": len(after.released)})
        # (on the 1,050-call universe a cold solve of this edit, with no lock at all, runs
        # for minutes: a limit of the search's own on that universe, recorded in RESULTS)
        for below in ((1, 3) if len(res.modules) < 500 else ()):
            v, text = provider_edited(u, res, below)
            asked["searches"] = 0
            try:
                seconds, after = min((timed(v, locks) for _ in range(3)), key=lambda t: t[0])
            except Exception as e:  # an edit no selection meets
                edits.append({"provider": text, "error": type(e).__name__})
                continue
            moved = [p for p, c in after.modules.items() if p in locks.modules and locks.modules[p].version != c.version_text]
            edits.append({"provider": text, "seconds": round(seconds, 3), "feasibility_searches": asked["searches"] // 3,
                          "locks_moved": len(moved), "released": len(after.released)})
        rows.append({"universe": args, "calls": len(res.modules), "cold_s": round(cold, 3), "warm_s": round(warm, 3),
                     "edits": edits})
    print(json.dumps({"conservative_update": rows}))


if __name__ == "__main__":
    main()
