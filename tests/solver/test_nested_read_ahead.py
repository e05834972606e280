"""Reading nested calls ahead of the search (Prefetcher.nested, issue #23), bounded: the
behaviour against real servers is in tests/e2e/test_nested_read_ahead.py. An in-memory run is
given no prefetcher; these give one to a memory context, its pool replaced by a recorder."""

from __future__ import annotations

from tests.world.memory import MemoryContext, universe_from_index
from tofu_solve.solver.factory import requirements_of_tree
from tofu_solve.solver.model import ModuleCandidate
from tofu_solve.solver.prefetch import Prefetcher
from tofu_solve.solver.readahead import NESTED as NESTED_READ_AHEAD
from tofu_solve.solver.resolve import root_requirements


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
    ahead = ctx.run.prefetcher = Prefetcher(ctx.run.memo, ctx.run.lock, ctx.run.speculative, 1)
    pool = ctx.pool
    try:
        for req, expected in zip(root_requirements(u.root, ctx), (NESTED_READ_AHEAD, 1), strict=False):
            package = req.call.source.package.for_display
            cand = ModuleCandidate(req.call_path, req.call.source, ctx.available(req)[0], package)
            ctx.pool = _Submitted()
            ahead.nested(ctx, cand, u.trees[(package, "1.0.0")])
            assert len(ctx.pool.calls) == expected, package
    finally:
        ctx.pool = pool
        ctx.close()


class _Inline:
    """A pool that runs what is submitted at once, in the caller's thread."""

    def submit(self, fn, *args):
        fn(*args)


def test_a_read_ahead_that_fails_is_forgotten():
    """A nested call's tree read ahead of need whose read fails (a network error that was
    only bad luck) is not remembered: the search, when it asks, reads it again."""
    from tofu_solve.errors import NetworkError
    from tofu_solve.solver.context import Context

    class FailsOnce(MemoryContext):
        def __init__(self, u):
            super().__init__(u)
            self.loads = 0

        def load_tree(self, cand, key, nested=True):
            self.loads += 1
            if self.loads == 1:
                raise NetworkError("Connection reset", "the server went away")
            return self.index.tree(cand)

    u = universe_from_index({"modules": {"t/a/null": {"1.0.0": {"calls": [
        {"name": "b", "source": "t/b/null", "version": ">= 1.0", "file": "main.tf", "line": 1}]}},
        "t/b/null": {"1.0.0": {}}}, "root": {"calls": [{"name": "a", "source": "t/a/null", "file": "main.tf",
                                                        "line": 1}]}})
    ctx = FailsOnce(u)
    ahead = ctx.run.prefetcher = Prefetcher(ctx.run.memo, ctx.run.lock, ctx.run.speculative, 1)
    pool = ctx.pool
    try:
        ctx.pool = _Inline()
        (root_call,) = root_requirements(u.root, ctx)
        a = ModuleCandidate("a", root_call.call.source, ctx.available(root_call)[0], "t/a/null")
        ahead.nested(ctx, a, u.trees[("t/a/null", "1.0.0")])  # b 1.0.0 read ahead: fails
        assert ctx.loads == 1
        (b_call,) = requirements_of_tree(u.trees[("t/a/null", "1.0.0")], "a", "1.0.0", None, ctx)
        ctx.note_calls([b_call])
        b = ctx.module_candidates(b_call)[0]
        assert Context.tree(ctx, b) is u.trees[("t/b/null", "1.0.0")]  # read again, not the old error
        assert ctx.loads == 2
    finally:
        ctx.pool = pool
        ctx.close()
