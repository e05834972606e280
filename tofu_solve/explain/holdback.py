"""Why a newer version is not selected: the one held-back analysis (issue #47 §3).

``init`` computes it once, beside the selection it locks, and keeps it in the state it
writes (:mod:`tofu_solve.workdir.solved`); ``why``, ``graph`` and ``outdated`` show what it
says, and ``init``'s own warnings come from it, so that every command gives one reason for
one held-back version. For each module call and provider, every version newer than the one
selected that its constraints allow is given one :class:`HoldBack`, the first of these that
applies, in this order:

1. ``revoked``: its registry revoked it (the revocation's message; issue #62 §3);
   ``policy``: the team's policy denies the version (the rule, its file and line);
   ``deprecated``: its registry deprecates it, and a version it does not is preferred;
2. ``cooldown``: the release cooldown keeps it out (the day it clears);
3. ``provider`` / ``opentofu`` / ``module`` / ``constraint``: it needs something the rest of
   the selection excludes: a provider range (the other constraint it clashes with, or the
   selected version it excludes), an OpenTofu release, a nested call's version, or (for a
   provider) a constraint of the configuration or a module version (each with file and line);
4. ``lock``: it fits the rest of the selection, and the lock file holds the call at its
   version: ``tofu-solve init -upgrade=NAME`` lands it;
5. ``objective``: it fits, and nothing holds it but the solve's objective (fewest versions
   skipped in total); ``unknown``: its contents were never read, so nothing can be said.

A command is given (:attr:`HoldBack.command`) only when it is proven to land a newer
version: the selection with that version in place of the selected one, and nothing else
moved but what the command frees, meets every constraint (a constructive proof; nothing is
searched or fetched). Only what the run already read is consulted.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from ..addrs.redact import redact
from ..config.tree import ModuleTree
from ..errors import ConfigurationError, SourceRange, TofuSolveError
from ..solver.context import Context
from ..solver.kept_out import (
    KeptOut,
    Why,
    merged,
    of_deprecation,
    of_held_back,
    of_refusal,
    of_refused_source,
    of_unloadable,
    version_range,
)
from ..solver.locks import policy_denial
from ..solver.model import Kind, ModuleCandidate, ProviderRequirement
from ..versions import apparentlymart_go_versions as gvs
from ..versions.cooldown import format_age

KINDS = ("revoked", "policy", "deprecated", "cooldown", "provider", "opentofu", "module", "constraint", "lock",
         "objective", "unknown")
SHOWN = 25  # newer versions analysed per call or provider, newest first


# the hold-back kind of each reason a version is kept out (issue #83 §3: those reasons are
# worded once, by :mod:`tofu_solve.solver.kept_out`, and carried here as they are)
KIND_OF: Mapping[Why, str] = {Why.POLICY: "policy", Why.REVOCATION: "revoked", Why.COOLDOWN: "cooldown",
                              Why.REFUSED_SOURCE: "policy", Why.REFUSED_CALL: "policy", Why.MISSING_CALL: "module",
                              Why.UNLOADABLE: "module", Why.DEPRECATED: "deprecated"}


@dataclass(frozen=True)
class HoldBack:
    """Why one newer version of a module call or provider is not the one selected.

    Attributes:
        version: the newer version, as its source names it.
        kind: one of :data:`KINDS` (see the module docstring).
        reason: one line for people, citing file and line where there is one.
        file, line: where the rule or constraint that holds it back is written (None: nowhere,
            as for the lock or the cooldown).
        command: a command proven to land a newer version (``tofu-solve init -upgrade=vpc``),
            or None.
        why: when the version is kept out (a policy, a revocation, the cooldown, a refused
            source, an unloadable package, a deprecation), the :class:`~tofu_solve.solver.kept_out.Why`
            value, and ``reason`` is that reason's words; else None (a clash, the lock, the
            objective).
        rule: what the versions kept out for one reason share (:attr:`KeptOut.rule`), or None.
    """

    version: str
    kind: str
    reason: str
    file: str | None = None
    line: int | None = None
    command: str | None = None
    why: str | None = None
    rule: str | None = None

    @classmethod
    def of(cls, version: str, kept: KeptOut) -> HoldBack:
        """``version`` kept out for ``kept``: its kind, words, rule and place as the one
        vocabulary says them."""
        file, line = _where(kept.where)
        return cls(version, KIND_OF[kept.why], kept.text, file, line, why=kept.why.value, rule=kept.rule or None)

    def kept_out(self) -> KeptOut | None:
        """The reason this version is kept out, when it is one (see :attr:`why`)."""
        if self.why is None:
            return None
        where = SourceRange(self.file, self.line) if self.file is not None and self.line is not None else None
        return KeptOut(Why(self.why), self.reason, self.rule or "", where)

    def as_data(self) -> dict[str, Any]:
        """As the state file and ``-json`` carry it."""
        return asdict(self)

    @classmethod
    def from_data(cls, data: object) -> HoldBack | None:
        """A hold-back read back from the state file, or None when ``data`` is not one (the
        state file is only a record: a damaged entry is dropped, never trusted)."""
        if not isinstance(data, Mapping):
            return None
        version, kind, reason = data.get("version"), data.get("kind"), data.get("reason")
        file, line, command = data.get("file"), data.get("line"), data.get("command")
        why, rule = data.get("why"), data.get("rule")
        if not (isinstance(version, str) and kind in KINDS and isinstance(reason, str)):
            return None
        return cls(version, str(kind), reason, file if isinstance(file, str) else None,
                   line if isinstance(line, int) and not isinstance(line, bool) else None,
                   command if isinstance(command, str) and command.startswith("tofu-solve ") else None,
                   why if why in _WHYS else None, rule if isinstance(rule, str) and why in _WHYS else None)


_WHYS = frozenset(w.value for w in Why)


@dataclass(frozen=True)
class HeldSaid:
    """One reason said once for the newer versions it holds back.

    Attributes:
        versions: the versions, newest first.
        kind: the reason's kind (:data:`KINDS`).
        reason: its words (the newest version's, with a note when they differ by version).
        why: the reason's kind in the one vocabulary (:attr:`HoldBack.why`) when the versions
            are kept out for it, else None (a clash, the lock, the objective).
    """

    versions: tuple[str, ...]
    kind: str
    reason: str
    why: str | None = None

    @property
    def kept(self) -> bool:
        """Whether the versions are kept out for the reason."""
        return self.why is not None

    def versions_words(self) -> str:
        """The versions as shown: up to three listed, more as a range (``5.0.0 to 5.9.1``)."""
        return ", ".join(version_range(self.versions))

    def sentence(self) -> str:
        """The reason, after the versions it keeps out when there are several (``5.1.0 to
        5.9.0: the policy denies it: ...``): what a row about one version says (a run held
        by the lock or the objective already says so of all of them)."""
        return f"{self.versions_words()}: {self.reason}" if self.kept and len(self.versions) > 1 else self.reason


def said(newer: Sequence[HoldBack]) -> list[HeldSaid]:
    """``newer`` (newest first) said once per reason (issue #83 §3): the versions kept out for
    one reason (:attr:`HoldBack.why`) are merged by what they share, wherever they fall
    (:func:`~tofu_solve.solver.kept_out.merged`, the one place that merges them), the others by
    runs of consecutive versions with one reason; in the order each is first met. The one
    rendering ``why``, ``outdated`` and the language server give a list of hold-backs."""
    kept = {h.version: k for h in newer if (k := h.kept_out()) is not None}
    by_key = {s.kept.key: s for s in merged(kept)}
    out: list[HeldSaid] = []
    keys_said: set[tuple[Why, str]] = set()
    in_run = False  # whether out[-1] is a run of versions not kept out
    for h in newer:
        k = kept.get(h.version)
        if k is not None:
            if k.key not in keys_said:
                keys_said.add(k.key)
                out.append(HeldSaid(by_key[k.key].versions, h.kind, by_key[k.key].shown(), k.why.value))
            in_run = False
        elif in_run and out[-1].kind == h.kind and out[-1].reason == h.reason:
            out[-1] = HeldSaid((*out[-1].versions, h.version), h.kind, h.reason)
        else:
            out.append(HeldSaid((h.version,), h.kind, h.reason))
            in_run = True
    return out


def said_of(newer: Sequence[HoldBack], version: str) -> HeldSaid | None:
    """What :func:`said` says of ``version`` (with the other versions held back for its
    reason), or None when ``newer`` does not hold it."""
    return next((s for s in said(newer) if version in s.versions), None)


def cooldown_reason(ctx: Context, held) -> str:
    """A version the release cooldown kept out (a :class:`~tofu_solve.versions.cooldown.HeldBack`),
    as a record read after the init words it (:func:`~tofu_solve.solver.kept_out.of_held_back`):
    ``it is younger than -min-age=7d: released 2 days before that init (discovered
    2026-08-04, clears cooldown 2026-08-11)``."""
    return _cooled(ctx, held).text


def _cooled(ctx: Context, held) -> KeptOut:
    return of_held_back(held, ctx.cooldown.label, f"{format_age(held.age)} before that init")


def _in(v: ModuleCandidate, where) -> str:
    """``where`` inside ``v``'s package, package and version first, as every citation reads
    (issue #24): ``terraform-aws-modules/eks/aws 20.37.2: versions.tf:7``."""
    src = v.source
    package = getattr(src, "package", None)
    shown = package.for_display if package is not None and hasattr(package, "for_display") else redact(str(src))
    return f"{shown} {v.version_text}: {where}"


def _where(where) -> tuple[str | None, int | None]:
    return (where.file, where.line) if where is not None else (None, None)


def module_hold_backs(res, ctx: Context, path: str) -> list[HoldBack]:
    """The hold-back of each version of call ``path`` newer than its selection that its
    constraint allows (by this run's listing, else one an earlier run cached), newest
    first, at most :data:`SHOWN`; empty when the call is unversioned or nothing is listed.

    ``res``: the :class:`~tofu_solve.solver.resolve.Resolution`; ``ctx``: the context it was
    solved in (never asked to fetch)."""
    cand = res.modules.get(path)
    req = res.module_requirements.get(path)
    if cand is None or req is None or cand.version is None or not req.versioned:
        return []
    listed = ctx.known_candidates(req)
    if not listed:
        return []
    newer = [c for _, c in sorted(((c.version, c) for c in listed
                                   if c.version is not None and c.version.compare(cand.version) > 0),
                                  key=lambda vc: vc[0], reverse=True)][:SHOWN]
    locked = ctx.locked_candidate(req)
    held = locked is not None and locked.version_text == cand.version_text
    out = [_module_hold_back(res, ctx, path, v, held) for v in newer]
    fitting = next((h for h in out if h.command is not None), None)
    if fitting is not None:  # -upgrade=NAME takes the newest that fits: every version the lock holds says so
        out = [HoldBack(h.version, h.kind, f"held by the lock at {cand.version_text}: tofu-solve init "
                        f"-upgrade={path} takes the newest that fits ({fitting.version}), every other lock kept",
                        command=fitting.command) if h.kind == "lock" else h for h in out]
    return out


def _module_hold_back(res, ctx: Context, path: str, v: ModuleCandidate, held: bool) -> HoldBack:
    rule = ctx.lock_denial(v)
    if rule is not None:  # a revocation or the policy
        return HoldBack.of(v.version_text, of_refusal(rule))
    deprecated = ctx.deprecation(v)
    if deprecated is not None:  # issue #62 §3: taken only when no other version does as well
        return HoldBack.of(v.version_text, of_deprecation(deprecated.words()))
    cooled = ctx.cooldown.held_back.get((path, v.version_text))
    if cooled is not None:
        return HoldBack.of(v.version_text, _cooled(ctx, cooled))
    tree = ctx.known_tree(v)
    if tree is None:
        if held:
            return HoldBack(v.version_text, "lock", f"held by the lock at {res.modules[path].version_text}; not read "
                            "yet, so whether it fits the rest of the selection is not known (tofu-solve outdated "
                            "reads it)")
        return HoldBack(v.version_text, "unknown", "not examined by the solve (its contents were never read)")
    if isinstance(tree, ConfigurationError):
        call = ctx.calls.get(path)
        return HoldBack.of(v.version_text, of_unloadable(tree.summary, tree.detail, tree.where,
                                                         call.call.where if call is not None else None))
    clash = _module_clash(res, ctx, path, v, tree)
    if isinstance(clash, HoldBack):
        return clash
    if held:
        if clash is None:  # proven to fit: -upgrade=NAME lands it (or a newer one)
            return HoldBack(v.version_text, "lock", "", command=f"tofu-solve init -upgrade={path}")
        return HoldBack(v.version_text, "lock", f"held by the lock at {res.modules[path].version_text}; {clash}")
    return HoldBack(v.version_text, "objective", "taking it would have gone back further elsewhere (tofu-solve "
                    "minimizes versions skipped in total)")


def _module_clash(res, ctx: Context, path: str, v: ModuleCandidate, tree: ModuleTree) -> HoldBack | str | None:
    """What in the rest of the selection ``v``'s requirements cannot meet (a HoldBack);
    None when ``v`` in place of the selected version (its nested calls at their selected
    versions) meets every constraint, which proves ``-upgrade=path`` lands a newer version;
    or, when neither can be said without a search (``v`` calls a module otherwise than the
    selection has it), why not."""
    inside = (path, path + ".")
    for _, r in tree.providers:
        addr = str(r.address)
        chosen = res.providers.get(addr)
        if r.constraint is None or chosen is None:
            continue
        others = [o for o in res.provider_requirements.get(addr, [])
                  if o.constraint is not None and not (o.origin.call_path == path
                                                       or o.origin.call_path.startswith(inside[1]))]
        try:
            versions = ctx.provider_versions(r.address)
        except TofuSolveError:
            versions = []
        needs = f'{v.version_text} needs {r.address.for_display} "{r.constraint.text}" ({_in(v, r.where)})'
        for o in others:
            both = r.constraint.spec + o.constraint.spec
            if versions and not any(not x.prerelease and gvs.meets(both, x) for x in versions):
                who = "the root module" if not o.origin.call_path else \
                    f'module "{o.origin.call_path}" {o.origin.version}'
                return HoldBack(v.version_text, "provider",
                                f'{needs}, and {who} needs "{o.constraint.text}" ({o.origin.cite()})', *_where(r.where))
        if not r.constraint.allows(chosen.version):
            return HoldBack(v.version_text, "provider", f"{needs}, which excludes the selected {chosen.version}",
                            *_where(r.where))
    target = ctx.options.target
    for _, c in tree.core:
        if c.counts_for(target.triple, target.terraform) and not c.constraint.allows(res.tofu.version):
            needs = f'{v.version_text} needs {target.product.name} "{c.constraint.text}" ({_in(v, c.where)})'
            return HoldBack(v.version_text, "opentofu", f"{needs}; this is solved for {res.tofu.version}",
                            *_where(c.where))
    policy = ctx.options.policy
    for rc in tree.remote_calls:
        child = f"{path}." + ".".join(rc.rel_path)
        if policy is not None and (refusal := policy.source_refusal(rc.call.source)) is not None:
            return HoldBack.of(v.version_text, of_refused_source(rc.call.name, refusal[1],
                                                                 policy.refusal_words(refusal[0]), rc.call.where))
        selected = res.modules.get(child)
        sreq = res.module_requirements.get(child)
        if selected is None or sreq is None or str(sreq.call.source) != str(rc.call.source):
            return (f"{v.version_text} calls {rc.call.name} otherwise than {res.modules[path].version_text} does, "
                    f"so tofu-solve init -upgrade={path} may or may not land it (tofu-solve outdated tries)")
        if rc.call.version is not None and selected.version is not None \
                and not rc.call.version.allows(selected.version):
            calls = f'{v.version_text} calls {rc.call.name} with "{rc.call.version.text}" ({_in(v, rc.call.where)})'
            return HoldBack(v.version_text, "module", f"{calls}, which excludes the selected {selected.version_text}",
                            *_where(rc.call.where))
    return None


def provider_hold_backs(res, ctx: Context, addr: str) -> list[HoldBack]:
    """The hold-back of each released version of provider ``addr`` newer than its
    selection, newest first, at most :data:`SHOWN` and the next release after the selected
    one (the provider's listing as this run read it, or an earlier run cached it)."""
    cand = res.providers.get(addr)
    if cand is None:
        return []
    try:
        versions = ctx.provider_versions(cand.address)
    except TofuSolveError:
        return []
    later = [v for v in reversed(versions) if not v.prerelease and v.compare(cand.version) > 0]
    newer = later[:SHOWN] + later[-1:] if len(later) > SHOWN else later  # the next release, always
    reqs: list[ProviderRequirement] = res.provider_requirements.get(addr, [])
    lock = ctx.locks.providers.get(addr)
    held = lock is not None and lock.version == str(cand.version)
    short = res.product.short(addr)
    policy = ctx.options.policy
    out = []
    fitting: str | None = None
    for v in newer:
        text = str(v)
        rule = policy_denial(policy, Kind.PROVIDER, addr, v)
        cooled = ctx.cooldown.held_back.get((addr, text))
        binding = [r for r in reqs if r.constraint is not None and not r.constraint.allows(v)]
        if rule is not None:
            out.append(HoldBack.of(text, of_refusal(rule)))
        elif cooled is not None:
            out.append(HoldBack.of(text, _cooled(ctx, cooled)))
        elif binding:
            r = binding[0]
            who = "the root module" if not r.origin.call_path else f'module "{r.origin.call_path}" {r.origin.version}'
            out.append(HoldBack(text, "constraint" if not r.origin.call_path else "module",
                                f'excluded by "{r.text}" ({who}, {r.origin.cite()})', *_where(r.origin.where)))
        elif held:
            fitting = fitting or text  # every constraint admits it: -upgrade=NAME lands it
            out.append(HoldBack(text, "lock", "", command=f"tofu-solve init -upgrade={short}"))
        else:
            out.append(HoldBack(text, "objective", "every constraint admits it, but it was not selected"))
    return [HoldBack(h.version, h.kind, f"held by the lock at {cand.version}: tofu-solve init -upgrade={short} takes "
                     f"the newest that fits ({fitting}), every other lock kept", command=h.command)
            if h.kind == "lock" else h for h in out]


def analyse(res, ctx: Context) -> tuple[dict[str, list[HoldBack]], dict[str, list[HoldBack]]]:
    """Every module call's and provider's hold-backs: (call path -> list, provider address
    -> list), each list newest first (see :func:`module_hold_backs`)."""
    return ({p: module_hold_backs(res, ctx, p) for p in res.modules},
            {a: provider_hold_backs(res, ctx, a) for a in res.providers})


__all__ = ["KINDS", "KIND_OF", "HeldSaid", "HoldBack", "analyse", "cooldown_reason", "module_hold_backs",
           "provider_hold_backs", "said", "said_of"]
