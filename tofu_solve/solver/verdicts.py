"""What the selection means beyond the versions (split from ``command/init.py`` in issue #71
§2): the ``*.policy.hcl`` rules it fails without being kept out (advisory, overridden), the
deprecations of the versions selected, and an override recorded where the lock changes.
"""

from __future__ import annotations

from dataclasses import replace

from ..config.policy import PolicyFailure, Subject
from ..lockfile import LockChange
from ..remote.lifecycle import Deprecation
from .context import Context
from .locks import policy_notices
from .model import Kind
from .resolve import Resolution


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


def with_overrides(changes: list[LockChange], notices: list[tuple[str, str, PolicyFailure]]) -> list[LockChange]:
    """``changes`` with each new version a ``-policy-override`` let through saying so in its
    reason (issue #62 §2: an override is recorded where the lock changes)."""
    let: dict[tuple[str, str | None], list[str]] = {}
    for subject, version, f in notices:
        if f.overridden:
            let.setdefault((subject, version), []).append(f.rule.label)
    if not let:
        return changes
    return [replace(c, reason=f"{c.reason}; " * bool(c.reason) + "allowed by -policy-override="
                    f"{','.join(let[(c.path, c.new)])}") if (c.path, c.new) in let else c for c in changes]
