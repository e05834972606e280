"""The fixes an explanation offers (and the language server with it) are verified: each
was solved with exactly its edits (issue #70 §3; each place of the rule caught by a fast
test, issue #71 §1). A fix whose check could not finish, as when a cold run's read
allowance runs out, is not offered."""

from __future__ import annotations

from tests.world.memory import MemoryContext, universe_from_index
from tofu_solve.explain.whatif import Outcome, WhatIf
from tofu_solve.solver.resolve import root_requirements

AWS = {"name": "aws", "source": "hashicorp/aws", "file": "versions.tf", "line": 3}
INDEX = {"target": "1.10.0", "providers": {"hashicorp/aws": ["1.0.0", "1.5.0", "2.0.0", "2.5.0"]},
         "modules": {"acme/net/aws": {
             "1.0.0": {"calls": [], "providers": [dict(AWS, version=">= 2.0.0")]},
             "1.1.0": {"calls": [], "providers": [dict(AWS, version=">= 2.0.0")]},
             "2.0.0": {"calls": [], "providers": [dict(AWS, version=">= 1.0.0")]}}},
         "root": {"calls": [{"name": "net", "source": "acme/net/aws", "version": "~> 1.0", "file": "main.tf",
                             "line": 1, "version_line": 3}],
                  "providers": [dict(AWS, version="< 2.0.0")]}}


def _suggestions(verify_finishes: bool) -> list:
    u = universe_from_index(INDEX)
    ctx = MemoryContext(u)
    try:
        wi = WhatIf(ctx, root_requirements(u.root, ctx), None)
        first = wi.minimal_clash(wi.levers)
        assert first, "the root does clash"
        if not verify_finishes:
            solve = wi.attempt

            def attempt(relaxed=frozenset(), changed=None, **kwargs):
                if changed:  # a fix's own check: its reads ran out, as on a cold network run
                    return Outcome("unknown")
                return solve(relaxed, changed, **kwargs)
            wi.attempt = attempt  # type: ignore[method-assign]
        return wi.suggestions([first])[0]
    finally:
        ctx.close()


def test_a_fix_is_offered_only_when_its_own_check_solved():
    offered = _suggestions(verify_finishes=True)
    assert offered and all(s.edits for s in offered)
    assert _suggestions(verify_finishes=False) == []
