"""Why each lock moved: the reason ``init`` prints beside every lock change (issue #34).

A lock moves for one of these reasons, each with the place that caused it:

* the user edited the call (``constraint edited to "~> 21.0" (main.tf:19)``, ``source
  edited``), or a module version the call now sits in changed it (``required by eks
  21.19.0: "~> 4.0" (…)``);
* a new call or provider (``new module call (main.tf:30)``, ``called by eks 21.19.0``);
* the user asked for it (``-upgrade``, ``-upgrade=NAME``);
* the team's policy now denies the locked version (``denied by deny "module" "…"
  (tofu-solve-policy.hcl:19): reason``, issue #47);
* keeping it admits no solution, so the conservative update released it
  (:mod:`.conservative`): what in the new selection excludes the locked version
  (``eks 21.19.0 requires ">= 6.0" (versions.tf:10)``);
* its call or provider is no longer in the configuration.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from ..config.tree import ModuleTree
from ..lockfile import LockFile
from ..versions import apparentlymart_go_versions as gvs
from .lock_terms import Released, Standing
from .locks import locked_for, provider_lock_applies
from .model import ROOT, Identity, ModuleCandidate, ModuleRequirement, Origin, ProviderCandidate, ProviderRequirement
from .run import Refusal
from .verdicts import kept_out

if TYPE_CHECKING:
    from ..lockfile import ModuleLock, ProviderLock
    from .context import Context
    from .resolve import Resolution


def _by(origin: Origin) -> str:
    """The module version that imposed a requirement, as the reasons name it (``eks
    21.19.0``), or the root module."""
    if origin.call_path == ROOT:
        return "the root module"
    return f"{origin.call_path} {origin.version}" if origin.version else origin.call_path


def _at(origin: Origin) -> str:
    return origin.cite()


def denied_reason(rule: Refusal) -> str:
    """A lock the policy denies, as the change list gives its reason (issue #47):
    ``denied by deny "module" "…" (tofu-solve-policy.hcl:19): reason (link)``."""
    return f"denied by {rule.cite()}"


def lock_change_reasons(res: Resolution, ctx: Context, recorded: LockFile,
                        kept: Mapping[tuple[str, str], Refusal] | None = None) -> dict[str, str]:
    """Subject (module call path or provider address) -> why its lock changed, for every
    subject whose lock ``res`` adds, moves or removes against ``recorded`` (the lock file
    as read, with any module blocks restored from the last init's record). ``kept``: what a
    rule kept out of the selection (:func:`.verdicts.kept_out`; made here when not given)."""
    if kept is None:
        kept = kept_out(ctx, res)
    out: dict[str, str] = {}
    short = ctx.options.target.product.short
    terms = ctx.terms  # the one answer to "does this lock hold?" (issue #83 §2), and its words
    for path in sorted(set(recorded.modules) | set(res.modules)):
        old, cand = recorded.modules.get(path), res.modules.get(path)
        if cand is not None and old is not None and old.version == cand.version_text:
            continue
        out[path] = _module_reason(path, old, cand, res, ctx, terms.standing(Identity.module(path)), kept)
    for addr in sorted(set(recorded.providers) | set(res.providers)):
        old_p, new_p = recorded.providers.get(addr), res.providers.get(addr)
        if new_p is not None and old_p is not None and old_p.version == str(new_p.version):
            moved = constraints_reason(old_p.constraints, res.provider_requirements.get(addr, []))
            if moved:
                out[addr] = moved
            continue
        out[addr] = _provider_reason(addr, old_p, new_p, res, ctx, terms.standing(Identity.provider(addr)), short,
                                     kept)
    return out


def constraints_reason(old: str, reqs: list[ProviderRequirement]) -> str:
    """Why a provider block's ``constraints`` moved while its version stayed (issue #59 §2):
    each constraint now required that the block did not record, with what requires it
    (``">= 6.0.0" required by vpc 6.5.1 (terraform-aws-modules/vpc/aws 6.5.1: versions.tf:7)``),
    and each it recorded that nothing requires any more; "" when they did not move. The
    parts are those of the canonical string the lock records (``VersionConstraintsString``)."""
    def parts(text: str) -> list[str]:
        return [p.strip() for p in text.split(",") if p.strip()]
    new = [(p, r) for r in reqs if r.constraint is not None for p in parts(gvs.canonical_string(r.constraint.spec))]
    before = parts(old)
    added: dict[str, list[ProviderRequirement]] = {}
    for p, r in new:
        if p not in before:
            added.setdefault(p, []).append(r)
    gone = [p for p in dict.fromkeys(before) if p not in {q for q, _ in new}]
    said = [f'"{p}" required by {_by(rs[0].origin)} ({_at(rs[0].origin)})' for p, rs in added.items()]
    said += [f'"{p}" no longer required' for p in gone]
    return "; ".join(said)


def _module_reason(path: str, old: ModuleLock | None, cand: ModuleCandidate | None, res: Resolution, ctx: Context,
                   standing: Standing, kept: Mapping[tuple[str, str], Refusal]) -> str:
    req = res.module_requirements.get(path)
    if cand is None or req is None:
        parent = path.rsplit(".", 1)[0] if "." in path else None
        if parent is not None and parent in res.modules:
            return f"{parent} {res.modules[parent].version_text} does not call it"
        return "no longer called by the configuration"
    nested = req.origin.call_path != ROOT
    if old is None:
        return f"called by {_by(req.origin)} ({_at(req.origin)})" if nested else f"new module call ({req.call.where})"
    if standing.released is Released.UPGRADE:
        return standing.why_not()
    rule = kept.get((path, old.version)) if locked_for(old, req.call) else None
    if rule is not None:  # issue #47: a policy change is a lock change, whatever else freed it
        return denied_reason(rule)
    if standing.released is Released.NAMED:
        return standing.why_not()
    if not locked_for(old, req.call):
        return f"source changed in {_by(req.origin)} ({_at(req.origin)})" if nested else \
            f"source edited ({req.call.where})"
    if ctx.locked_candidate(req) is None:  # the constraint no longer admits the locked version
        text = req.constraint.text if req.constraint is not None else ""
        where = req.call.version_where or req.call.where
        if nested:
            return f'required by {_by(req.origin)}: "{text}" ({req.origin.package} {req.origin.version}: {where})' \
                if req.origin.package else f'required by {_by(req.origin)}: "{text}" ({where})'
        return f'constraint edited to "{text}" ({where})'
    return _released_module_reason(path, old.version, req, res, ctx)


def _released_module_reason(path: str, locked: str, req: ModuleRequirement, res: Resolution, ctx: Context) -> str:
    """What in the new selection the locked version of ``path`` cannot meet."""
    cand = ctx.locked_candidate(req)
    tree = None
    if cand is not None:
        try:
            tree = ctx.tree(cand)
        except Exception:
            tree = None
    if isinstance(tree, ModuleTree):
        for _, p in tree.providers:
            addr = str(p.address)
            chosen = res.providers.get(addr)
            if chosen is not None and p.constraint is not None and not gvs.meets(p.constraint.spec, chosen.version):
                return (f'its locked {locked} requires {p.address.for_display} "{p.constraint.text}" ({p.where}), '
                        f"which the selected {chosen.version} does not meet")
        for _, c in tree.core:
            if c.counts_for(ctx.options.target.triple, ctx.options.target.terraform) \
                    and not c.constraint.allows(res.tofu.version):
                return f'its locked {locked} requires {res.product.name} "{c.constraint.text}" ({c.where})'
    return f"keeping {locked} admits no consistent set of versions"


def _provider_reason(addr: str, old: ProviderLock | None, new: ProviderCandidate | None, res: Resolution, ctx: Context,
                     standing: Standing, short: Callable[[str], str],
                     kept: Mapping[tuple[str, str], Refusal]) -> str:
    reqs: list[ProviderRequirement] = res.provider_requirements.get(addr, [])
    if new is None:
        return "no longer required by the configuration"
    if old is None:
        first = next((r for r in reqs), None)
        return f"required by {_by(first.origin)} ({_at(first.origin)})" if first is not None else "new provider"
    if standing.released is Released.UPGRADE:
        return standing.why_not()
    rule = kept.get((addr, old.version))
    if rule is not None:
        return denied_reason(rule)
    if standing.released is Released.NAMED:
        return standing.why_not()
    root_reqs = [r for r in reqs if r.origin.version is None]
    if not provider_lock_applies(addr, old.version, root_reqs):
        edited = next(r for r in root_reqs if r.constraint is not None
                      and not gvs.meets(r.constraint.spec, gvs.Version.parse(old.version)))
        return f'constraint edited to "{edited.text}" ({edited.origin.where})'
    try:
        locked = gvs.Version.parse(old.version)
    except Exception:
        return "its locked version does not parse"
    for r in reqs:
        if r.constraint is not None and not gvs.meets(r.constraint.spec, locked):
            return f'{_by(r.origin)} requires "{r.text}" ({_at(r.origin)})'
    return f"keeping {old.version} admits no consistent set of versions"


def module_same_version_change(old: ModuleLock, new: ModuleLock) -> str:
    """What changed in a module block whose version stays (issue #50 §5: named, not "source
    or hashes recorded"): the constraint, the source, the package, the hashes."""
    parts = []
    if old.constraints != new.constraints:
        parts.append(f'constraint "{old.constraints}" -> "{new.constraints}" recorded')
    if old.source != new.source:
        parts.append(f"source {old.source} -> {new.source}")
    if old.package != new.package:
        parts.append("package recorded" if not old.package else "package changed")
    if set(old.hashes) != set(new.hashes):
        parts.append("hashes recorded")
    return ", ".join(parts)


def moved_by_rule(ctx: Context, res: Resolution, subject: str) -> bool:
    """Whether a rule could have changed ``subject``'s selection this run: it is not the
    version its lock holds (issue #47 §5: nothing is warned about where a rule changed
    nothing; a lock the rule moved is listed among the lock changes)."""
    if subject in res.modules:
        req = res.module_requirements.get(subject)
        return req is None or ctx.locked_candidate(req) != res.modules[subject]
    lock = ctx.locks.providers.get(subject)
    return ctx.options.upgrade or lock is None or subject not in res.providers or \
        lock.version != str(res.providers[subject].version)


__all__ = ["denied_reason", "lock_change_reasons", "module_same_version_change", "moved_by_rule"]
