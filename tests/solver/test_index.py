"""The module index protocol (tofu_solve/solver/index.py): the in-memory universe answers the
same two questions the network does, and the context around it is the network's, unchanged
(issue #35: before, the in-memory world overrode eight of the context's methods)."""

from __future__ import annotations

import inspect

import pytest

from tests.world.memory import MemoryContext, UniverseIndex, universe_from_index
from tofu_solve.addrs.module_source import lock_source, parse_source
from tofu_solve.errors import TofuSolveError
from tofu_solve.lockfile import LockFile
from tofu_solve.lockfile.entries import ModuleLock
from tofu_solve.solver.context import Context
from tofu_solve.solver.resolve import root_requirements, solve

INDEX = {"modules": {"t/a/null": {"1.0.0": {"calls": [
    {"name": "b", "source": "t/b/null", "version": ">= 1.0", "file": "main.tf", "line": 3}]}, "1.1.0": {}},
    "t/b/null": {"1.0.0": {}}},
    "root": {"calls": [{"name": "a", "source": "t/a/null", "version": "1.0.0", "file": "main.tf", "line": 1}]}}


def test_the_memory_context_overrides_nothing_of_the_context():
    """Only the constructor differs: every question goes through the context's own memo,
    budgets and checks, as a network run's does."""
    own = {name for name, value in vars(MemoryContext).items() if inspect.isfunction(value)}
    assert own == {"__init__"}
    assert isinstance(MemoryContext(universe_from_index(INDEX)).index, UniverseIndex)


def test_a_tree_asked_for_twice_is_read_once():
    u = universe_from_index(INDEX)
    ctx = MemoryContext(u)
    try:
        (req,) = root_requirements(u.root, ctx)
        cand = ctx.module_candidates(req)[0]
        assert ctx.tree(cand) is ctx.tree(cand) is u.trees[("t/a/null", "1.0.0")]
        assert ctx.stats.trees_read == 1
        assert ctx.tree_known(cand) and ctx.known_tree(cand) is u.trees[("t/a/null", "1.0.0")]
    finally:
        ctx.close()


def test_a_locked_version_the_universe_does_not_offer_is_an_error_as_on_the_network():
    """The locked-version check (issue #34) is the context's, so it holds in memory too: a
    lock naming a version the source no longer lists is OpenTofu's "Locked version no longer
    available", never a silent re-pick."""
    u = universe_from_index({**INDEX, "root": {"calls": [
        {"name": "a", "source": "t/a/null", "version": ">= 1.0", "file": "main.tf", "line": 1}]}})
    locks = LockFile()
    locks.modules["a"] = ModuleLock("a", "1.2.0", lock_source(parse_source("t/a/null"), True, "1.2.0"),
                                    hashes=("h1:x=",))
    ctx = MemoryContext(u, locks=locks)
    try:
        with pytest.raises(TofuSolveError) as e:
            solve(u.root, ctx)
        assert e.value.summary == "Locked version no longer available"
    finally:
        ctx.close()


def test_solving_in_memory_reads_only_what_the_search_asks_for():
    u = universe_from_index(INDEX)
    ctx = MemoryContext(u)
    try:
        res = solve(u.root, ctx)
    finally:
        ctx.close()
    assert {p: c.version_text for p, c in res.modules.items()} == {"a": "1.0.0", "a.b": "1.0.0"}
    assert ctx.stats.trees_read == 2 and ctx.stats.trees_from_cache == 0


def test_a_context_needs_somewhere_to_list_providers():
    with pytest.raises(TypeError):
        Context(MemoryContext(universe_from_index(INDEX)).options, LockFile(),
                UniverseIndex(universe_from_index(INDEX)), None)
