"""What the selection means beyond the versions (split from ``command/init.py`` in issue #71
§2): what a rule kept out of its calls and providers (:func:`kept_out`), the ``*.policy.hcl``
rules it fails without being kept out (advisory, overridden), the deprecations of the
versions selected, and an override recorded where the lock changes.
"""

from __future__ import annotations

from dataclasses import replace

from ..config.policy import Policy, PolicyFailure, Subject
from ..lockfile import LockChange
from ..remote.lifecycle import Deprecation
from ..versions import apparentlymart_go_versions as gvs
from .context import Context
from .locks import locked_for, policy_denial, policy_notices
from .model import Kind
from .resolve import Resolution
from .run import Refusal


def selection_notices(ctx: Context, res: Resolution) -> list[tuple[str, str, PolicyFailure]]:
    """The ``*.policy.hcl`` rules the selection fails without being kept out: advisory, or
    overridden (:func:`~tofu_solve.solver.locks.policy_notices`), as (subject, version, failure)."""
    policy = ctx.options.policy
    if policy is None or not policy.hcl_rules:
        return []
    out = []
    for path, cand in sorted(res.modules.items()):
        req = ctx.calls.get(path)
        call = Subject.of_call(path, req.call.source_text if req is not None else str(cand.source))
        out += [(path, cand.version_text, f) for f in
                policy_notices(policy, Kind.MODULE, cand.package, cand.version_text, call)]
    for addr, p in sorted(res.providers.items()):
        out += [(addr, str(p.version), f) for f in policy_notices(policy, Kind.PROVIDER, addr, str(p.version))]
    return out


def selected_deprecations(ctx: Context, res: Resolution) -> list[tuple[str, str, Deprecation]]:
    """The selected module versions their registry deprecates (issue #62 §3: a warning
    when selected or locked), as (call path, version, deprecation)."""
    return [(path, cand.version_text, d) for path, cand in sorted(res.modules.items())
            if (d := ctx.deprecation(cand)) is not None]


def with_overrides(changes: list[LockChange], notices: list[tuple[str, str, PolicyFailure]],
                   policy: Policy | None = None) -> list[LockChange]:
    """``changes`` with each new version an override let through saying so in its reason
    (issue #62 §2: an override is recorded where the lock changes): ``-policy-override``, or
    the override committed for it in ``policy`` (its file and line, issue #84 §4)."""
    let: dict[tuple[str, str | None], list[str]] = {}
    for subject, version, f in notices:
        if f.overridden:
            committed = policy.committed_override(f.rule.label) if policy is not None else None
            let.setdefault((subject, version), []).append(
                f"the override of {f.rule.label} committed at {committed.where}" if committed is not None
                else f"-policy-override={f.rule.label}")
    if not let:
        return changes
    return [replace(c, reason=f"{c.reason}; " * bool(c.reason) + "allowed by "
                    f"{', '.join(let[(c.path, c.new)])}") if (c.path, c.new) in let else c for c in changes]


def kept_out(ctx: Context, res: Resolution) -> dict[tuple[str, str], Refusal]:
    """What a rule kept out of the selection's subjects, (subject, version) -> the rule (a
    policy denial or a registry's revocation): for each module call, every version its
    listing offered (and its recorded lock's version, where the lock is for the call's
    source) that :meth:`.Context.lock_denial` refuses; for each provider, every version that
    meets all its constraints, and its recorded lock's version, that the policy denies (a
    policy change is a lock change, whatever else would move it: issue #47). The search asks the same checks, and
    answers; this record is made once, after it, from what the run already listed (no
    request), so that it does not depend on the order the search went in (issue #71 §2:
    the factory answers, the run records). Read by the lock changes' reasons, the policy's
    warnings and ``-json``'s ``policy.denied``."""
    out: dict[tuple[str, str], Refusal] = {}
    policy = ctx.options.policy
    for path, req in sorted(res.module_requirements.items()):
        cands = list(ctx.listed(req) or ())
        recorded = ctx.recorded_locks.modules.get(path)
        anchor = ctx.lock_anchor(req)
        if anchor is not None and recorded is not None and locked_for(recorded, req.call) \
                and all(c.version_text != anchor.version_text for c in cands):
            cands.append(anchor)
        for c in cands:
            rule = ctx.lock_denial(c)
            if rule is not None:
                out[(path, c.version_text)] = rule
    if policy is None or not policy.decides_versions:
        return out
    for addr, reqs in sorted(res.provider_requirements.items()):
        if not reqs:
            continue
        specs = [r.constraint.spec for r in reqs if r.constraint is not None]
        versions: dict[str, gvs.Version | str] = {str(v): v for v in ctx.provider_versions(reqs[0].address)
                                       if all(gvs.meets(s, v) for s in specs)}
        locked = ctx.recorded_locks.providers.get(addr)
        if locked is not None and not ctx.options.upgrade:  # a denied lock, whatever else would move it
            versions.setdefault(locked.version, locked.version)
        for text, v in versions.items():
            rule = policy_denial(policy, Kind.PROVIDER, addr, v)
            if rule is not None:
                out[(addr, text)] = rule
    return out
