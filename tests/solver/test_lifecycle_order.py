"""Issue #62 §3: the one order a call's versions are offered in, with what the registry says
of them: deprecated versions after every other (taken only when no other gives an equally
good selection), a locked deprecated version still first (its lock applies), and versions
the policy or the registry refuses passed over (:func:`tofu_solve.solver.locks.preferred_order`)."""

from __future__ import annotations

from types import SimpleNamespace

from tofu_solve.addrs.module_source import parse_source
from tofu_solve.providers import AvailableVersion
from tofu_solve.solver.locks import preferred_order
from tofu_solve.solver.model import ModuleCandidate
from tofu_solve.versions.hashicorp_go_version import GoVersion

SOURCE = parse_source("terraform-aws-modules/vpc/aws")
REQ = SimpleNamespace(versioned=True)


def cands(*versions: str) -> list[ModuleCandidate]:
    return [ModuleCandidate("vpc", SOURCE, AvailableVersion(v, GoVersion.parse(v)), str(SOURCE)) for v in versions]


def order(listed, locked=None, anchor=None, denied=None, deprecated=()):
    out = preferred_order(REQ, listed, locked, anchor, denied, 0,  # type: ignore[arg-type]
                          lambda c: c.version_text in deprecated)
    return [c.version_text for c in out]


def test_deprecated_versions_come_after_every_other_newest_first():
    listed = cands("6.6.0", "6.5.1", "6.5.0", "6.4.0")
    assert order(listed) == ["6.6.0", "6.5.1", "6.5.0", "6.4.0"]
    assert order(listed, deprecated={"6.6.0", "6.5.0"}) == ["6.5.1", "6.4.0", "6.6.0", "6.5.0"]


def test_a_locked_deprecated_version_stays_first():
    listed = cands("6.6.0", "6.5.1", "6.5.0")
    locked = listed[2]
    assert order(listed, locked, locked, deprecated={"6.5.0"}) == ["6.5.0", "6.5.1", "6.6.0"]


def test_a_lock_that_must_move_moves_to_the_nearest_not_deprecated():
    listed = cands("6.6.0", "6.5.1", "6.5.0", "6.4.0")
    anchor = listed[2]  # the policy denies the locked 6.5.0: it moves as little as it can
    denied = lambda c: "denied" if c.version_text == "6.5.0" else None  # noqa: E731
    assert order(listed, None, anchor, denied) == ["6.5.1", "6.4.0", "6.6.0"]
    assert order(listed, None, anchor, denied, deprecated={"6.5.1"}) == ["6.4.0", "6.6.0", "6.5.1"]


def test_refused_versions_are_passed_over_unless_nothing_else_is_left():
    listed = cands("6.6.0", "6.5.1")
    refuse_all = lambda c: "revoked"  # noqa: E731
    assert order(listed, denied=lambda c: "revoked" if c.version_text == "6.6.0" else None) == ["6.5.1"]
    assert order(listed, denied=refuse_all) == ["6.6.0", "6.5.1"]  # kept, so the conflict names why
