"""How ``init`` words and places what its lock changes mean (split from ``command/init.py``
in issue #71 §2): ``-lockfile=readonly``'s refusal with each change at the root line that
causes it (for SARIF and annotations), and the policy's part of ``-json``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ...config.policy import Policy, PolicyFailure
from ...errors import LockFileWouldChange, SourceRange
from ...lockfile import LOCK_FILE_NAME, LockChange
from ...solver.kept_out import of_refusal
from ...solver.resolve import Resolution
from ...solver.run import Refusal
from .init_view import describe_change


def readonly_refusal(changes: list[LockChange], res: Resolution, unit_edits: Sequence = ()) -> LockFileWouldChange:
    """``-lockfile=readonly``'s error for ``changes`` (and a Terragrunt unit's pins,
    ``unit_edits``: :class:`tofu_solve.terragrunt.pins.FileEdit`), each also kept as a
    finding at its line (:attr:`LockFileWouldChange.changes`, for ``-format=sarif`` and
    annotations)."""
    pins = [f"  - {e.path.name} would be {e.what}" for e in unit_edits]
    refused = LockFileWouldChange(
        "Lock file would change",
        f"The configuration no longer matches {LOCK_FILE_NAME}, and -lockfile=readonly forbids writing it. "
        + ("These locks would change:\n" + "\n".join(describe_change(c) for c in changes) if changes else
           "The unit's pins would change:") + ("\n" + "\n".join(pins) if pins else "")
        + "\n\nRun tofu-solve init (without -lockfile=readonly) to land the change, and commit "
        f"{LOCK_FILE_NAME}" + (" and the unit's pins." if pins else "."))
    refused.changes = tuple((f'{c.block} "{c.label}"', describe_change(c).strip(), change_where(c, res))
                            for c in changes) + tuple((e.path.name, f"would be {e.what}", e.where)
                                                      for e in unit_edits)
    return refused


def change_where(c: LockChange, res: Resolution) -> SourceRange | None:
    """Where a lock change is shown to code scanning: the line of the root module that
    causes it (issue #70 §1): a root module call's ``version`` (else ``source``) line, a
    provider's entry in the root's ``required_providers``; for a nested call, or a provider
    only modules require, the root module call it comes through. None (the lock file) when
    the root module writes nothing that leads to it."""
    def root_call(call_path: str) -> SourceRange | None:
        req = res.module_requirements.get(call_path.split(".")[0]) if call_path else None
        return req.call.constraint_where if req is not None and not req.origin.call_path else None

    if c.block == "module":
        req = res.module_requirements.get(c.label)
        if req is not None and not req.origin.call_path:
            return req.call.constraint_where
        return root_call(c.label)
    if c.block == "provider":
        reqs = res.provider_requirements.get(c.label, [])
        own = next((r.origin.where for r in reqs if not r.origin.call_path and r.origin.where is not None), None)
        return own or next((w for r in reqs if r.origin.call_path and (w := root_call(r.origin.call_path))), None)
    return None


def policy_data(policy: Policy | None, refused: Mapping[tuple[str, str], Refusal],
                notices: list[tuple[str, str, PolicyFailure]]) -> dict | None:
    """The policy as ``init -json`` gives it: its files, the overrides, every version it (or
    a registry's revocation) kept out this run (``refused``: the solver's record), and the
    selection's advisory and overridden failures (``notices``:
    :func:`~tofu_solve.solver.verdicts.selection_notices`); None without a policy."""
    if policy is None:
        return None
    return {"file": policy.file, "files": list(policy.files), "overrides": sorted(policy.overrides),
            "committed_overrides": [o.as_data() for o in policy.committed],
            # each with its kind in the one vocabulary of "kept out" (issue #83 §3: policy or revocation)
            "denied": [{"subject": s, "version": v, "why": of_refusal(r).why.value, "rule": r.as_data()}
                       for (s, v), r in sorted(refused.items())],
            "notices": [{"subject": s, "version": v, "rule": f.as_data()} for s, v, f in notices]}
