"""Reading nested calls ahead of the search (Context.read_nested_ahead, issue #23), bounded:
the behaviour against real servers is in tests/e2e/test_nested_read_ahead.py."""

from __future__ import annotations

from tofu_solve.solver.context import NESTED_READ_AHEAD
from tofu_solve.solver.model import ModuleCandidate
from tofu_solve.solver.provider import requirements_of_tree
from tofu_solve.world.memory import MemoryContext, universe_from_index


class _Submitted:
    """A pool that only records what is submitted to it."""

    def __init__(self):
        self.calls: list = []

    def submit(self, fn, *args):
        self.calls.append((fn, args))


def test_nested_calls_read_ahead_are_bounded_and_deduplicated():
    """A version with many nested calls (hostile, or just large) starts at most
    NESTED_READ_AHEAD reads ahead of the search, one per distinct source and constraint."""
    many = [{"name": f"c{i}", "source": f"t/c{i}/null", "version": ">= 1.0", "file": "main.tf", "line": i + 1}
            for i in range(40)]
    same = [{"name": f"s{i}", "source": "t/z/null", "version": ">= 1.0", "file": "main.tf", "line": i + 1}
            for i in range(40)]
    root = [{"name": "many", "source": "t/many/null", "file": "main.tf", "line": 1},
            {"name": "same", "source": "t/same/null", "file": "main.tf", "line": 2}]
    u = universe_from_index({"modules": {"t/many/null": {"1.0.0": {"calls": many}},
                                         "t/same/null": {"1.0.0": {"calls": same}}},
                             "root": {"calls": root}})
    ctx = MemoryContext(u)
    pool = ctx.pool
    try:
        for req, expected in zip(requirements_of_tree(u.root, "", None, None, ctx), (NESTED_READ_AHEAD, 1)):
            package = req.call.source.package.for_display
            cand = ModuleCandidate(req.call_path, req.call.source, ctx.available(req)[0], package)
            ctx.pool = _Submitted()
            ctx.read_nested_ahead(cand, u.trees[(package, "1.0.0")])
            assert len(ctx.pool.calls) == expected, package
    finally:
        ctx.pool = pool
        ctx.close()
