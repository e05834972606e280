"""Each stage of a solve, shown to matter (issue #58 §3): on fresh roots built so that the
search alone can miss the optimum (one call's newer releases raise their provider floor,
another's cap it), the answer with every stage is the oracle's best, and over the draws the
improvement pass and the exact stage each change an answer the search alone gives. Vacuous
draws (no solution) are discarded with ``assume``; ``event`` records how often each stage
mattered, and the run fails when one never did (a stage switched off is noticed here, outside
``tests/e2e/``)."""

from __future__ import annotations

from collections import Counter
from unittest import mock

from hypothesis import HealthCheck, assume, event, given, settings
from hypothesis import strategies as st

from tests.solver.oracle import objective, solutions
from tests.solver.test_oracle import _resolve, _selection
from tofu_solve.solver import resolve

AWS = ["1.0.0", "2.0.0", "3.0.0"]


def _release(draw, bound: str) -> dict:
    """A module release: no provider requirement, or an aws floor (``>=``) or cap (``<``)."""
    if draw(st.booleans()):
        return {"calls": [], "providers": []}
    at = draw(st.sampled_from(AWS[1:]))
    return {"calls": [], "providers": [{"name": "aws", "source": "hashicorp/aws", "version": f"{bound} {at}",
                                        "file": "versions.tf", "line": 3}]}


@st.composite
def fresh_tangled_roots(draw) -> dict:
    """Two root calls without locks: ``a``'s releases may raise the aws floor, ``b``'s may cap
    it, in either order in the configuration."""
    a = {f"1.{i}.0": _release(draw, ">=") for i in range(draw(st.integers(2, 3)))}
    b = {f"2.{i}.0": _release(draw, "<") for i in range(draw(st.integers(2, 4)))}
    calls = [{"name": "a", "source": "acme/a/aws", "version": "~> 1.0", "file": "main.tf", "line": 1},
             {"name": "b", "source": "acme/b/aws", "version": "~> 2.0", "file": "main.tf", "line": 5}]
    if draw(st.booleans()):
        calls.reverse()
    return {"target": "1.12.6", "providers": {"hashicorp/aws": AWS}, "modules": {"acme/a/aws": a, "acme/b/aws": b},
            "root": {"calls": calls, "providers": [{"name": "aws", "source": "hashicorp/aws", "file": "versions.tf",
                                                    "line": 3}]}}


def _without(index: dict, improve: bool, exact: bool):
    """The selection with the improvement pass and/or the exact stage switched off."""
    patches = []
    if not improve:
        patches.append(mock.patch.object(resolve, "improve", lambda result, *a, **k: result))
    if not exact:
        patches.append(mock.patch.object(resolve, "optimise", lambda result, *a, **k: (result, None)))
    for p in patches:
        p.start()
    try:
        res = _resolve(index)
    finally:
        for p in patches:
            p.stop()
    return None if res is None else _selection(res)


def test_each_stage_changes_the_answer_of_some_fresh_root():
    mattered: Counter[str] = Counter()

    @settings(max_examples=300, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
    @given(fresh_tangled_roots())
    def one(index: dict) -> None:
        expected = solutions(index)
        assume(expected)  # a root with no solution says nothing about the stages
        res = _resolve(index)
        assert res is not None
        best = min(objective(index, s, {}, {}) for s in expected)
        assert objective(index, _selection(res), {}, {}) == best  # every stage on: the oracle's best
        alone = _without(index, improve=False, exact=False)
        if alone is None or objective(index, alone, {}, {}) == best:
            return
        mattered["the search alone misses the optimum"] += 1
        event("the search alone misses the optimum")
        for stage, improve, exact in (("the improvement pass", True, False), ("the exact stage", False, True)):
            got = _without(index, improve=improve, exact=exact)
            if got is not None and objective(index, got, {}, {}) == best:
                mattered[f"{stage} alone reaches it"] += 1
                event(f"{stage} alone reaches it")
    one()
    assert mattered["the search alone misses the optimum"], mattered
    assert mattered["the improvement pass alone reaches it"], mattered
    assert mattered["the exact stage alone reaches it"], mattered
