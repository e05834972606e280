"""HashiCorp's own expression and template cases (``tests/conformance/hcl/``, with their
source) through the policy evaluator: each value as hclsyntax gives it, each error an error
(issue #69 §2)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tofu_solve.config import hcl
from tofu_solve.config.hcl.evaluate import EvalContext, EvalError, evaluate, template_value
from tofu_solve.config.hcl.functions import policy_functions
from tofu_solve.errors import TofuSolveError

HERE = Path(__file__).parent / "hcl"


def table(name: str) -> list[dict]:
    return json.loads((HERE / name).read_text(encoding="utf-8"))["cases"]


def context(case: dict) -> EvalContext:
    return EvalContext(dict(case.get("vars", {})), policy_functions(lambda: None))


def same(got, want) -> bool:
    """cty's RawEquals on known values: a bool is never a number, 1 == 1.0."""
    if isinstance(want, bool) or isinstance(got, bool):
        return type(got) is type(want) and got == want
    if isinstance(want, list):
        return isinstance(got, list) and len(got) == len(want) and all(map(same, got, want))
    if isinstance(want, dict):
        return isinstance(got, dict) and got.keys() == want.keys() and all(same(got[k], want[k]) for k in want)
    return got == want and type(got) in ((int, float) if isinstance(want, (int, float)) else (type(want),))


@pytest.mark.parametrize("case", table("expressions.json"), ids=lambda c: c["input"][:60])
def test_expressions_as_hclsyntax_evaluates_them(case):
    def run():
        # ParseExpression takes the expression alone; as an attribute, its surrounding newlines go
        tree = hcl.parse(f"x = {case['input'].strip()}\n", "t").attributes[0].expr.tree
        return evaluate(tree, context(case))

    if case.get("error"):
        with pytest.raises((EvalError, TofuSolveError)):
            run()
    else:
        got = run()
        assert same(got, case["want"]), (got, case["want"])


@pytest.mark.parametrize("case", table("templates.json"), ids=lambda c: c["input"][:60])
def test_templates_as_hclsyntax_evaluates_them(case):
    if case.get("error"):
        with pytest.raises(EvalError):
            template_value(case["input"], context(case))
    else:
        got = template_value(case["input"], context(case))
        assert same(got, case["want"]), (got, case["want"])


def test_the_tables_are_whole():
    """Every case kept (a count to update with the table, so none is dropped unnoticed)."""
    assert (len(table("expressions.json")), len(table("templates.json"))) == (121, 43)
