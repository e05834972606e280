"""Why a version is kept out: one closed vocabulary (issue #83 §3).

Every reason the search passes a module version over is a :class:`KeptOut`: what kind of
reason (:class:`Why`, a closed set), its words for one version, what versions sharing it
share (:attr:`KeptOut.rule`: a policy rule as cited, the cooldown's label, a refused
pattern), and where it is written. The solver's :class:`~.model.Unusable` marker carries
one; a policy's :class:`~tofu_solve.config.policy.Denial`, a registry's
:class:`~tofu_solve.remote.lifecycle.Revocation` and the cooldown's
:class:`~tofu_solve.versions.cooldown.HeldBack` are turned into one by :func:`of_refusal`
and :func:`of_held_back`.

:func:`merged` is the one place a reason shared by many versions is said once, with their
range (:meth:`Said.sentence`: the singular for one version, the plural for several), for
the explanations (text, ``-json`` and SARIF, which carry the explanation, and the language
server, which shows it), the warnings' and ``outdated``'s ranges.
(uv's ``UnavailableVersion`` is the model: one closed enum, each variant with its singular
and plural message, so that one report merges a reason across many versions.)
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from ..errors import SourceRange, TofuSolveError
from ..versions.hashicorp_go_version import GoVersion

if TYPE_CHECKING:
    from ..versions.cooldown import HeldBack


class Refusal(Protocol):
    """What :func:`of_refusal` reads of a :data:`~.run.Refusal` (a policy's denial or a
    registry's revocation; named here, not imported, as :mod:`.run` uses this module)."""

    @property
    def refused_by(self) -> str: ...

    @property
    def where(self) -> SourceRange | None: ...

    def refusal(self) -> str: ...

    def heading(self) -> str: ...


class Why(enum.Enum):
    """The kinds of reason a version is kept out (closed: a new kind is added here)."""

    POLICY = "policy"  # a deny block or a *.policy.hcl rule denies it
    REVOCATION = "revocation"  # its registry revoked it
    COOLDOWN = "cooldown"  # it is younger than the release cooldown
    REFUSED_SOURCE = "refused-source"  # it calls a module from a source the policy refuses
    REFUSED_CALL = "refused-call"  # it calls a module every version of which its constraint admits is refused
    MISSING_CALL = "missing-call"  # it calls a module that cannot be found
    UNLOADABLE = "unloadable"  # its package does not load (a syntax error, an unsupported block...)
    DEPRECATED = "deprecated"  # its registry deprecates it, and a version it does not is preferred (an order)

    @property
    def summary(self) -> str:
        """The summary of ``init``'s warning of the versions kept out for this kind of reason
        (``Versions denied by the policy``)."""
        return {Why.POLICY: "Versions denied by the policy", Why.REVOCATION: "Versions revoked by their registry",
                Why.COOLDOWN: "Versions held back by the cooldown"}.get(self, "Versions kept out")


@dataclass(frozen=True)
class KeptOut:
    """One reason a version is kept out.

    Attributes:
        why: its kind.
        text: its words for one version, as they follow "cannot be used: " (the policy's
            ``error_message`` may name the version).
        rule: what every version kept out for this reason shares (a policy rule as cited,
            the cooldown's label, a refused pattern): versions are merged by it; "" when the
            words themselves are what they share.
        where: where the reason is written (the rule's line, the call's line), or None.
    """

    why: Why
    text: str
    rule: str = ""
    where: SourceRange | None = None

    @property
    def key(self) -> tuple[Why, str]:
        """What merges versions: the kind and the rule (else the words)."""
        return self.why, self.rule or self.text

    def as_data(self) -> dict:
        """``-json``'s form: ``{"why", "reason", "rule", "file", "line"}``."""
        return {"why": self.why.value, "reason": self.text, "rule": self.rule or None,
                "file": self.where.file if self.where is not None else None,
                "line": self.where.line if self.where is not None else None}


def of_refusal(refusal: Refusal) -> KeptOut:
    """A policy's denial or a registry's revocation as a :class:`KeptOut`."""
    why = Why.REVOCATION if refusal.refused_by == "revocation" else Why.POLICY
    # a policy rule is what its versions share (its message may name each); a revocation's
    # heading names its version, so revocations are merged by their words
    return KeptOut(why, refusal.refusal(), refusal.heading() if why is Why.POLICY else "", refusal.where)


def of_held_back(held: HeldBack, label: str, released: str, where: SourceRange | None = None) -> KeptOut:
    """The release cooldown's hold on a version (``label``: the cooldown as cited,
    ``released``: when, as the reader's time reads it: ``2 days ago`` for this run, ``2 days
    before that init`` for a record read later)."""
    return KeptOut(Why.COOLDOWN, f"it is younger than {label}: released {released} ({held.note})", label, where)


def of_refused_source(call_name: str, source: str, refusal_words: str, where: SourceRange | None) -> KeptOut:
    """A version that calls module ``call_name`` from ``source``, which the policy refuses
    (``refusal_words``: the pattern or allow list that refuses it, with file and line, as
    :meth:`~tofu_solve.config.policy.Policy.refusal_words` says it); ``where``: the call."""
    return KeptOut(Why.REFUSED_SOURCE, f'it calls module "{call_name}" from {source}, which the policy refuses '
                   f"({refusal_words})", refusal_words, where)


def of_unloadable(summary: str, detail: str, where: SourceRange | None, called_at: SourceRange | None = None) \
        -> KeptOut:
    """A version whose package does not load: the error's summary and detail, where in the
    package (``where``), else the call that asks for it (``called_at``)."""
    if where is not None:
        return KeptOut(Why.UNLOADABLE, f"{summary}: {detail} ({where})", where=where)
    return KeptOut(Why.UNLOADABLE, f"{summary}: {detail}" + (f" (called at {called_at})" if called_at else ""),
                   where=called_at)


def of_deprecation(words: str) -> KeptOut:
    """A version its registry deprecates (``words``: the deprecation as said, its reason and
    link), passed over while a version it does not deprecate does as well (issue #62 §3)."""
    return KeptOut(Why.DEPRECATED, f"{words}; a version the registry does not deprecate is preferred")


def newest_first(versions: Sequence[str]) -> list[str]:
    """``versions`` (labels, ``v`` prefixes allowed) newest first by Go's version order; as
    given when any does not parse. The one newest-first order of the project."""
    parsed: list[tuple[GoVersion, str]] = []
    for v in versions:
        try:
            parsed.append((GoVersion.parse(v.removeprefix("v")), v))
        except TofuSolveError:
            return list(versions)
    return [v for _, v in sorted(parsed, key=lambda kv: kv[0], reverse=True)]


def version_range(versions: Sequence[str]) -> list[str]:
    """Versions (newest first) as shown: up to three listed, more as a range
    (``5.0.0 to 5.9.1``: oldest first)."""
    if len(versions) <= 3:
        return list(versions)
    return [f"{versions[-1]} to {versions[0]}"]


@dataclass(frozen=True)
class Said:
    """One reason, said once for every version it keeps out.

    Attributes:
        kept: the newest version's reason (its words are shown).
        versions: every version it keeps out, newest first.
        words: each version's own words, when they differ by version (else empty).
    """

    kept: KeptOut
    versions: tuple[str, ...]
    words: Mapping[str, str]

    def shown(self) -> str:
        """The reason's words: the newest version's, with a note when the words differ by
        version."""
        shown = self.kept.text
        if self.words:  # a policy's error_message may name the version; the cooldown's dates are each version's
            what = "the message names each version" if self.kept.why is Why.POLICY else "the details differ by version"
            shown += f" ({what}; shown for {self.versions[0]}, -json lists every one)"
        return shown

    def sentence(self) -> str:
        """The singular (``5.1.0: the policy denies it: ...``) or the plural (``5.0.0 to
        5.9.1: ...``, the newest one's words, with a note when the words name each
        version)."""
        return f"{', '.join(version_range(self.versions))}: {self.shown()}"

    def as_data(self) -> dict:
        """``-json``'s form: the reason's data and its versions."""
        return {**self.kept.as_data(), "versions": list(self.versions)}


def merged(by_version: Mapping[str, KeptOut]) -> list[Said]:
    """Version -> why it is kept out, said once per shared reason (:attr:`KeptOut.key`),
    in the order each reason is first met, its versions newest first."""
    groups: dict[tuple[Why, str], list[str]] = {}
    for version, kept in by_version.items():
        groups.setdefault(kept.key, []).append(version)
    out = []
    for versions in groups.values():
        ordered = newest_first(list(dict.fromkeys(versions)))
        texts = {by_version[v].text for v in ordered}
        out.append(Said(by_version[ordered[0]], tuple(ordered),
                        {v: by_version[v].text for v in ordered} if len(texts) > 1 else {}))
    return out


__all__ = ["KeptOut", "Said", "Why", "merged", "newest_first", "of_deprecation", "of_held_back", "of_refusal",
           "of_refused_source", "of_unloadable", "version_range"]
