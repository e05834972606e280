"""Issue #83 §3 in the held-back analysis: a newer version kept out (a policy, a
revocation, the cooldown, a refused source, a package that does not load, a deprecation) is
held back for a :class:`~tofu_solve.solver.kept_out.KeptOut`, in its words, and ``why``,
``outdated`` and the language server say a reason shared by many versions once, with their
range (:func:`tofu_solve.explain.holdback.said`), as the explanations and the warnings do."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.command.test_kept_out_warnings import one_call_under_the_rule
from tests.solver.oracle import Selection
from tests.solver.test_oracle import _locks_of
from tests.world.memory import MemoryContext, universe_from_index
from tofu_solve.command.outdated import Outdated, _held_by
from tofu_solve.errors import SourceRange
from tofu_solve.explain.holdback import HoldBack, module_hold_backs, said, said_of
from tofu_solve.solver.kept_out import KeptOut, Why, of_held_back, of_refused_source
from tofu_solve.solver.resolve import solve
from tofu_solve.versions.cooldown import HeldBack

HEADING = 'module_policy "*" "below_3" (v.policy.hcl:1)'


def _hold_backs(tmp_path, versions: tuple[str, ...], locked: str | None = None) -> tuple[str, list[HoldBack]]:
    """Call ``m``'s selection and the one analysis's hold-backs, a rule whose message names
    each version it denies (every version from 3.0.0) in force."""
    index, policy = one_call_under_the_rule(tmp_path, versions)
    locks = _locks_of(index, Selection((("m", locked),), ()))[0] if locked else None
    u = universe_from_index(index)
    ctx = MemoryContext(u, locks=locks, policy=policy)
    try:
        res = solve(u.root, ctx)
        return res.modules["m"].version_text, module_hold_backs(res, ctx, "m")
    finally:
        ctx.close()


def test_versions_a_rule_keeps_out_are_held_back_in_its_words_and_said_once(tmp_path):
    selected, held = _hold_backs(tmp_path, ("1.0.0", "2.0.0", "3.0.0", "3.1.0", "4.0.0"))
    assert selected == "2.0.0"
    assert [(h.version, h.kind, h.why, h.rule) for h in held] == \
        [(v, "policy", "policy", HEADING) for v in ("4.0.0", "3.1.0", "3.0.0")]
    assert held[0].reason == f"the policy denies it: {HEADING}: 4.0.0 is not tested yet"
    assert (held[0].file, held[0].line) == ("v.policy.hcl", 1)
    [one] = said(held)
    assert one.versions == ("4.0.0", "3.1.0", "3.0.0") and one.kind == "policy"
    assert one.sentence() == (f"4.0.0, 3.1.0, 3.0.0: the policy denies it: {HEADING}: 4.0.0 is not tested yet "
                              "(the message names each version; shown for 4.0.0, -json lists every one)")


def test_a_rule_and_the_lock_are_two_reasons_in_the_order_met(tmp_path):
    selected, held = _hold_backs(tmp_path, ("1.0.0", "1.1.0", "1.2.0", "3.0.0", "3.1.0"), locked="1.0.0")
    assert selected == "1.0.0"
    out = said(held)
    assert [(s.versions, s.kind) for s in out] == [(("3.1.0", "3.0.0"), "policy"), (("1.2.0", "1.1.0"), "lock")]
    assert out[1].reason.startswith("held by the lock at 1.0.0: tofu-solve init -upgrade=m takes the newest that "
                                    "fits (1.2.0)")
    assert out[1].sentence() == out[1].reason  # the lock's words already speak of every version it holds


def test_outdated_says_the_reason_of_the_newest_allowed_once_for_every_version_it_holds(tmp_path):
    _, held = _hold_backs(tmp_path, ("1.0.0", "1.1.0", "3.0.0", "3.1.0", "3.2.0", "4.0.0"), locked="1.0.0")
    row = _held_by(Outdated("module", "m", "1.0.0", "1.1.0", "4.0.0", "4.0.0", None, ""), held)
    assert row.held_by == "policy" and row.reason.startswith(f"3.0.0 to 4.0.0: the policy denies it: {HEADING}: "
                                                             "4.0.0 is not tested yet"), row.reason
    assert row.command == "tofu-solve init -upgrade=m" and row.why == "policy"
    assert row.as_data()["why"] == "policy"


def test_a_hold_back_keeps_its_reason_through_the_state_file():
    kept = of_refused_source("kms", "git::https://example.com/kms.git", 'sources.deny "git::*" at p.hcl:4',
                             SourceRange("main.tf", 7))
    h = HoldBack.of("2.0.0", kept)
    assert (h.kind, h.why, h.file, h.line) == ("policy", "refused-source", "main.tf", 7)
    back = HoldBack.from_data(h.as_data())
    assert back == h and back is not None and back.kept_out() == kept
    assert HoldBack.from_data({**h.as_data(), "why": "made-up"}) == HoldBack(
        "2.0.0", "policy", kept.text, "main.tf", 7)  # a damaged record is not trusted


def test_the_cooldown_is_one_line_for_its_versions_whatever_their_dates():
    label = "-min-age=7d"
    held = [HoldBack.of(v, of_held_back(HeldBack("m", v, age * 86400.0, 0.0, 0.0), label,
                                        f"{age} days before that init"))
            for v, age in (("1.3.0", 1), ("1.2.0", 2), ("1.1.0", 3), ("1.0.1", 5))]
    [one] = said(held)
    assert one.versions_words() == "1.0.1 to 1.3.0" and one.kind == "cooldown"
    assert one.reason.startswith(f"it is younger than {label}: released 1 days before that init") and \
        "the details differ by version" in one.reason
    assert said_of(held, "1.1.0") == one and said_of(held, "9.9.9") is None


REASONS = st.sampled_from(["a", "b"])
KEPT = st.builds(lambda why, rule, text: KeptOut(why, text, rule), st.sampled_from([Why.POLICY, Why.COOLDOWN]),
                 st.sampled_from(["r1", "r2", ""]), REASONS)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.lists(st.one_of(KEPT, st.tuples(st.sampled_from(["lock", "objective"]), REASONS)), max_size=12))
def test_said_says_every_version_once_by_its_reason(draws):
    """Every version in exactly one line; a line's versions kept out for one reason (kind
    and rule), or consecutive, of one kind and words."""
    held = [HoldBack.of(f"{len(draws) - i}.0.0", d) if isinstance(d, KeptOut)
            else HoldBack(f"{len(draws) - i}.0.0", d[0], d[1]) for i, d in enumerate(draws)]
    out = said(held)
    assert sorted(v for s in out for v in s.versions) == sorted(h.version for h in held)
    position = {h.version: i for i, h in enumerate(held)}
    by_version = {h.version: h for h in held}
    for s in out:
        group = [by_version[v] for v in s.versions]
        kept = [h.kept_out() for h in group]
        if kept[0] is not None:
            assert all(k is not None and k.key == kept[0].key for k in kept)
        else:
            assert all(h.kind == s.kind and h.reason == s.reason for h in group)
            assert [position[v] for v in s.versions] == list(range(position[s.versions[0]],
                                                                   position[s.versions[0]] + len(group)))
    # in the order each reason is first met
    assert [position[s.versions[0]] for s in out] == sorted(position[s.versions[0]] for s in out)
