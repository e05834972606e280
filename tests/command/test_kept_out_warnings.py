"""Issue #83 §3 in the warnings: ``init`` warns once per reason a version is kept out, by the
one vocabulary of :mod:`tofu_solve.solver.kept_out`: a ``*.policy.hcl`` rule whose
``error_message`` names each version it refuses is one warning with every version, not one
warning per version (as the explanation says it once: issue #84 §2)."""

from __future__ import annotations

from datetime import datetime

from tests.world.memory import MemoryContext, universe_from_index
from tofu_solve.command.views.warnings import policy_warnings
from tofu_solve.config.policy import policy_of_files
from tofu_solve.solver.resolve import solve
from tofu_solve.solver.verdicts import kept_out

RULE = ('module_policy "*" "below_3" {\n  enforce {\n'
        '    condition = core::semverconstraint(meta.version, "< 3.0.0")\n'
        '    error_message = "${meta.version} is not tested yet"\n  }\n}\n')


def one_call_under_the_rule(tmp_path, versions: tuple[str, ...]) -> tuple[dict, object]:
    """A universe whose root calls ``acme/net/aws`` (``versions``) as ``m``, ``">= 1.0.0"``,
    and a policy of :data:`RULE` (in ``v.policy.hcl``)."""
    index = {"target": "1.12.6", "providers": {},
             "modules": {"acme/net/aws": {v: {"calls": [], "providers": []} for v in versions}},
             "root": {"calls": [{"name": "m", "source": "acme/net/aws", "version": ">= 1.0.0", "file": "main.tf",
                                 "line": 1, "version_line": 3}], "providers": []}}
    (tmp_path / "v.policy.hcl").write_text(RULE)
    return index, policy_of_files([tmp_path / "v.policy.hcl"], lambda p: p.name, {}, "registry.opentofu.org",
                                  datetime.now)


def test_a_rule_naming_each_version_is_one_warning_with_every_version(tmp_path):
    index, policy = one_call_under_the_rule(tmp_path, ("1.0.0", "2.0.0", "3.0.0", "3.1.0", "4.0.0"))
    u = universe_from_index(index)
    ctx = MemoryContext(u, policy=policy)
    try:
        res = solve(u.root, ctx)
        assert res.modules["m"].version_text == "2.0.0"
        said = policy_warnings(kept_out(ctx, res), res, lambda subject: True)
        verbose = policy_warnings(kept_out(ctx, res), res, lambda subject: True, verbose=True)
    finally:
        ctx.close()
    assert len(said) == 1, said
    assert said[0] == ('module_policy "*" "below_3" (v.policy.hcl:1) held back m at 2.0.0 (kept out: 3 newer, '
                       "the newest 4.0.0): 4.0.0 is not tested yet (the message names each version; shown for "
                       "4.0.0)."), said[0]
    assert "not 4.0.0, 3.1.0, 3.0.0" in verbose[0]


def test_the_cooldown_is_one_warning_for_every_version_it_kept_out_each_with_its_dates():
    """The cooldown's warning, by the same vocabulary: one reason (the cooldown as cited),
    one warning, the youngest version first with the day it clears."""
    from tofu_solve.command.views.warnings import cooldown_warnings
    from tofu_solve.lockfile.entries import LockFile
    from tofu_solve.solver.lock_terms import LockTerms
    from tofu_solve.solver.release_cooldown import Cooldown
    from tofu_solve.solver.resolve import root_requirements

    day, now = 86400.0, 1_000 * 86400.0
    index = {"target": "1.12.6", "providers": {},
             "modules": {"acme/net/aws": {v: {"calls": [], "providers": []} for v in ("1.0.0", "1.1.0", "1.2.0")}},
             "root": {"calls": [{"name": "m", "source": "acme/net/aws", "version": "~> 1.0"}], "providers": []}}
    u = universe_from_index(index)
    ctx = MemoryContext(u)
    try:
        res = solve(u.root, ctx)
        (req,) = root_requirements(u.root, ctx)
        cands = {c.version_text: c for c in ctx.module_candidates(req)}
    finally:
        ctx.close()
    cool = Cooldown(7 * day, LockTerms.holding(LockFile()), clock=lambda: now)
    for version, age in (("1.2.0", 1), ("1.1.0", 3)):
        assert cool.module(cands[version], req, lambda age=age: now - age * day) is not None
    [warning] = cooldown_warnings(cool, res, lambda subject: True)
    assert warning.summary == "Versions held back by the cooldown"
    assert warning.startswith(f"{cool.label} held back m at {res.modules['m'].version_text} (kept out: 2 newer, "
                              "the newest 1.2.0, discovered "), warning
    assert cooldown_warnings(cool, res, lambda subject: False) == []  # where the lock holds it: nothing changed
