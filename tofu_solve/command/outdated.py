"""``tofu-solve outdated``: what could move, and what holds each module call and provider back.

For every module call and provider it reports four versions and a reason:

* ``locked``: what ``.terraform.lock.hcl`` holds (None when not locked);
* ``can_move_to``: what ``tofu-solve init -upgrade=NAME`` lands for it, every other lock
  kept (issue #81 §6: the column a user acts on is what the command it names does; found by
  the same solve ``init`` runs, :func:`_landed`). Where the whole ``-upgrade`` (a solve without
  the lock) reaches further, ``with_others_to`` is that version and ``upgrade_with`` the
  other names ``-upgrade=`` must name too for it (proven by a solve), or None when only the
  whole ``-upgrade`` is known to reach it;
* ``newest_allowed``: the newest version the call's own constraint allows (for a
  provider: that every constraint on it in the upgraded solution allows);
* ``newest``: the newest release published;
* ``held_by``: what stops the next step up: ``"lock"`` (``-upgrade=NAME`` takes
  ``can_move_to``), ``"cooldown"`` (the newest allowed version is younger than
  ``-min-age``), ``"provider"``/``"opentofu"``/``"module"`` (a newer allowed version
  needs a provider version, an OpenTofu release or a nested call the rest of the solution
  excludes), ``"constraint"`` (the call's own or the provider constraints exclude
  ``newest``), or ``None`` (at the newest release);
* ``newer``: each release newer than ``can_move_to`` with its age in seconds (None when the
  source does not tell), newest first, and whether the cooldown holds it back;
* ``why``: when ``held_by`` is a reason a version is kept out (a policy, a revocation, the
  cooldown...), its kind in the one vocabulary of :mod:`tofu_solve.solver.kept_out`
  (``"policy"``, ``"cooldown"``...), else None; ``reason`` then says it once for every
  version it keeps out, with their range (issue #83 §3).

It reads the network (registry listings, git tags and the metadata of the versions
considered) but writes nothing: no lock, no install, no state.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Literal

from .._lazy import load
from ..addrs.immutable import immutable_address, pinned_reference
from ..addrs.redact import redact
from ..config.policy import Policy, Subject, load_policy, package_address
from ..config.tree import ModuleTree
from ..config.variables import collect_input_values
from ..errors import TofuSolveError
from ..explain import solve
from ..explain.holdback import HoldBack, analyse, module_hold_backs, provider_hold_backs, said_of
from ..lockfile import LOCK_FILE_NAME, read_lock_file
from ..settings import Settings
from ..solver.context import SolveOptions
from ..solver.lock_terms import LockTerms
from ..solver.locks import policy_denial
from ..solver.model import Kind
from ..solver.wiring import build_context
from ..terragrunt.unit import read_root_tree
from ..versions.cooldown import format_day, given_min_age
from ..versions.hashicorp_go_version import GoVersion
from ..versions.target import TargetVersion, configured_client, target_version
from ..workdir.install import package_changed
from .arguments.report_flags import CheckArguments, OutdatedArguments
from .views.human import line_progress
from .views.report_views import OutdatedView


@dataclass
class Outdated:
    """One row: a module call (``kind="module"``, ``name`` its call path) or a provider
    (``kind="provider"``, ``name`` its address). See the module docstring for the fields."""

    kind: Literal["module", "provider"]
    name: str
    locked: str | None
    can_move_to: str | None
    newest_allowed: str | None
    newest: str | None
    held_by: str | None
    reason: str
    newer: list = field(default_factory=list)  # [{"version", "age_seconds", "cooldown"}], newest first
    command: str | None = None  # a command proven to move the lock (issue #47 §3), or None
    with_others_to: str | None = None  # what the whole -upgrade reaches, beyond -upgrade=NAME (issue #81 §6)
    upgrade_with: list[str] | None = None  # the other names -upgrade= must name for with_others_to
    with_others_command: str | None = None  # the command that reaches with_others_to
    why: str | None = None  # when held_by is a reason a version is kept out, its kind (issue #83 §3: Why's value)

    @property
    def can_move(self) -> bool:
        return self.locked is not None and self.can_move_to is not None and self.locked != self.can_move_to

    @property
    def downgrade(self) -> bool:
        """Whether the move is to an older version than the locked one (issue #70 §4: a
        deprecated, revoked or denied lock moves down when nothing newer fits)."""
        if not self.can_move or self.locked is None or self.can_move_to is None:
            return False
        try:
            return GoVersion.compare(GoVersion.parse(self.can_move_to.lstrip("v")),
                                     GoVersion.parse(self.locked.lstrip("v"))) < 0
        except TofuSolveError:
            return False

    @property
    def moves_with_others(self) -> bool:
        """Whether it moves further only when other locks move too (``with_others_to``)."""
        return self.with_others_to is not None and self.with_others_to != self.can_move_to

    def as_data(self) -> dict:
        return {**asdict(self), "can_move": self.can_move, "downgrade": self.downgrade}


def outdated(root: Path, settings: Settings, vars: tuple = (), target: TargetVersion | None = None,
             shared: bool = False, progress=None, display_prefix: str = "",
             min_age: float | None = None, policy: Policy | None = None) -> list[Outdated]:
    """Rows for every module call and provider of the root at ``root`` (module calls first,
    by call path; then providers, by address); ``display_prefix`` before the root's file
    names, as ``-recursive`` names them.

    Raises: the errors of ``init`` (configuration, network, and ResolutionError when even
    ``-upgrade`` finds no consistent set of versions).
    """
    root = Path(root)
    target = target or target_version(None, root)
    tree = read_root_tree(root, settings.environ, inputs=collect_input_values(root, settings.environ, vars),
                          product=target.product, display_prefix=display_prefix)
    locks = read_lock_file(root / LOCK_FILE_NAME)
    if not target.terraform:
        locks.upgrade_from_predecessor()
    options = SolveOptions(target, upgrade=True, shared=shared, min_age=min_age or 0.0, policy=policy)
    ctx = build_context(options, locks, settings, progress, cooldown_from_cli_config=min_age is None).context
    try:
        res = solve(tree, ctx, root)
        rows = [_denied(_cooled(_module_row(path, cand, res, ctx, locks), ctx, _module_newer(path, cand, res, ctx)),
                        lambda v, cand=cand: policy_denial(policy, Kind.MODULE, cand.package, v,
                                                           _subject(cand, ctx)))
                for path, cand in res.modules.items()]
        rows += [_module_gone(path, lock) for path, lock in sorted(locks.modules.items()) if path not in res.modules]
        rows += [_denied(_cooled(_provider_row(addr, cand, res, ctx, locks), ctx, _provider_newer(addr, cand, ctx)),
                         lambda v, addr=addr: policy_denial(policy, Kind.PROVIDER, addr, v))
                 for addr, cand in res.providers.items()]
    finally:
        ctx.close()
    held = _locked_hold_backs(tree, root, locks, replace(options, upgrade=False), settings, min_age)
    rows = [_held_by(row, held.get(row.name)) for row in rows]
    return _as_init_lands(rows, tree, root, locks, options, settings, min_age, target)


def _upgrade_name(row: Outdated, target: TargetVersion) -> str:
    """The NAME ``-upgrade=`` takes for ``row``: its call path, or the provider's short name."""
    return target.product.short(row.name) if row.kind == "provider" else row.name


def _landed(tree: ModuleTree, root: Path, locks, options: SolveOptions, settings: Settings, min_age: float | None,
            names: tuple[str, ...], product) -> dict[str, str] | None:
    """What ``tofu-solve init -upgrade=NAMES`` selects: call path or provider address ->
    version, from the solve ``init`` runs with the same locks left out
    (the same :class:`~tofu_solve.solver.lock_terms.LockTerms`) and every other lock kept;
    None when that solve fails (``init`` would say why)."""
    try:
        terms = LockTerms.of(locks, tree, product, upgrade_only=names)
    except TofuSolveError:
        return None
    ctx = build_context(replace(options, upgrade=False, upgrade_targets=names), terms, settings, None,
                        cooldown_from_cli_config=min_age is None).context
    try:
        res = solve(tree, ctx, root)
        return {**{p: c.version_text for p, c in res.modules.items()},
                **{a: str(c.version) for a, c in res.providers.items()}}
    except TofuSolveError:
        return None
    finally:
        ctx.close()


def _as_init_lands(rows: list[Outdated], tree: ModuleTree, root: Path, locks, options: SolveOptions,
                   settings: Settings, min_age: float | None, target: TargetVersion) -> list[Outdated]:
    """``rows`` whose ``can_move_to`` is what ``init -upgrade=NAME`` lands (issue #81 §6:
    one truth for the column and the command it names). A row the whole ``-upgrade`` moves
    further keeps that version as ``with_others_to``, with the other names that reach it
    when a solve proves they do (every row the whole ``-upgrade`` moves, named together)."""
    moving = [r for r in rows if r.can_move]
    for row in moving:
        name = _upgrade_name(row, target)
        alone = _landed(tree, root, locks, options, settings, min_age, (name,), target.product)
        landed = alone.get(row.name) if alone is not None else None
        if landed == row.can_move_to:
            row.command = f"tofu-solve init -upgrade={name}"
            continue
        full = row.can_move_to
        row.can_move_to = landed if landed is not None else row.locked
        row.command = f"tofu-solve init -upgrade={name}" if row.can_move else None
        row.with_others_to = full
        others = [_upgrade_name(r, target) for r in moving if r is not row]
        together = _landed(tree, root, locks, options, settings, min_age, (name, *others), target.product) \
            if others else None
        row.upgrade_with = others if together is not None and together.get(row.name) == full else None
        step = (f"tofu-solve init -upgrade={name} lands {row.can_move_to}" if row.can_move
                else f"tofu-solve init -upgrade={name} keeps {row.locked}")
        row.with_others_command = (f"tofu-solve init -upgrade={','.join([name, *row.upgrade_with])}"
                                   if row.upgrade_with is not None else "tofu-solve init -upgrade")
        row.held_by = "lock"  # this lock with others: what moves it is naming them too
        row.reason = f"{step}; {full} needs other locks to move too: {row.with_others_command}"
    return rows


def _locked_hold_backs(tree: ModuleTree, root: Path, locks, options: SolveOptions, settings: Settings,
                       min_age: float | None) -> dict[str, list[HoldBack]]:
    """What holds each call and provider back in the selection ``init`` makes under the lock
    (call path or provider address -> its hold-backs, newest first): the one analysis
    ``why`` and ``graph`` show (:mod:`tofu_solve.explain.holdback`, issue #47 §3), over what
    the upgraded solve just read. Empty when the lock admits no selection (``init`` would
    say why)."""
    ctx = build_context(options, locks, settings, None, cooldown_from_cli_config=min_age is None).context
    try:
        res = solve(tree, ctx, root)
        modules, providers = analyse(res, ctx)
        return {**modules, **providers}
    except TofuSolveError:
        return {}
    finally:
        ctx.close()


def _held_by(row: Outdated, held: list[HoldBack] | None) -> Outdated:
    """``row`` held back by what the one analysis says holds its newest allowed version back,
    when it says anything of it."""
    first = said_of(held or (), row.newest_allowed) if row.newest_allowed is not None else None
    if first is not None and row.locked is not None and row.newest_allowed != row.locked:
        # said once for the versions it holds, in the one vocabulary (issue #83 §3)
        row.held_by, row.reason, row.why = first.kind, first.sentence(), first.why
    # -upgrade=NAME is named only where the analysis proved it lands a newer version
    row.command = next((h.command for h in held or () if h.command is not None), None)
    return row


def _module_newer(path: str, cand, res, ctx) -> list[tuple[str, float | None]]:
    """(version, release time) of each version the call's constraint allows that is newer
    than the selection, newest first."""
    req = res.module_requirements.get(path)
    if req is None or not req.versioned or cand.version is None:
        return []
    try:
        allowed = ctx.module_candidates(req)
    except TofuSolveError:
        return []
    return [(c.version_text, ctx.index.release_time(c)) for c in allowed
            if c.version is not None and c.version.compare(cand.version) > 0]


def _provider_newer(addr: str, cand, ctx) -> list[tuple[str, float | None]]:
    """(version, release time) of each released provider version newer than the selection."""
    try:
        versions = _released(ctx.provider_versions(cand.address))
    except TofuSolveError:
        return []
    times = ctx.client.lifecycle.release_times("provider", addr) if ctx.client is not None else {}
    return [(str(v), times.get(str(v))) for v in reversed(versions) if v.compare(cand.version) > 0]


def _cooled(row: Outdated, ctx, newer: list[tuple[str, float | None]]) -> Outdated:
    """``row`` with the ages of the releases newer than its selection and which of them the
    release cooldown held back (issue #25; the cooldown's own record). What holds the row
    back is the held-back analysis's to say (:func:`_blocker`), not this mark's."""
    now = time.time()
    for version, released in newer:
        held = ctx.cooldown.held_back.get((row.name, version))
        row.newer.append({"version": version, "age_seconds": None if released is None else round(now - released),
                          "cooldown": held is not None,
                          **({"discovered": format_day(held.released), "clears_cooldown": format_day(held.clears)}
                             if held is not None else {})})
    return row


def _subject(cand, ctx) -> Subject:
    """The call a module candidate serves, as ``module_policy`` rules bind it (issue #62)."""
    req = ctx.calls.get(cand.call_path)
    return Subject.of_call(cand.call_path, req.call.source_text if req is not None else str(cand.source))


def _denied(row: Outdated, denial) -> Outdated:
    """``row`` with each newer version the policy denies marked (``denied``: the rule cited;
    :func:`~tofu_solve.solver.locks.policy_denial`, issue #39)."""
    for n in row.newer:
        rule = denial(n["version"])
        n["denied"] = rule.cite() if rule is not None else None
    return row


def _module_gone(path: str, lock) -> Outdated:
    return Outdated("module", path, lock.version, None, None, None, None,
                    "no longer called: tofu-solve init removes its lock")


def _released(versions) -> list:
    return [v for v in versions if v is not None and not v.prerelease]


def _module_row(path: str, cand, res, ctx, locks) -> Outdated:
    req = res.module_requirements.get(path)
    lock = locks.modules.get(path)
    locked = lock.version if lock is not None else None
    to = cand.version_text
    if req is None or not req.versioned:
        return Outdated("module", path, locked, to, to, to, None, "pinned by its source address (no version)")
    try:
        allowed = ctx.module_candidates(req)
        listing = ctx.available(req)
        published = _released(a.version for a in listing)
    except TofuSolveError:
        allowed, published, listing = [], [], []
    _check_listed_package(path, lock, listing, req)
    newest_allowed = allowed[0].version_text if allowed else None
    newest = max(published, key=_key).string if published else None
    constraint = req.constraint.text if req.constraint else "any version"
    where = req.call.constraint_where  # one citation form (issue #34); inside a package, the package first
    if req.origin.call_path and req.origin.package:
        where = f"{req.origin.package} {req.origin.version}: {where}"
    if locked is not None and locked != to:
        row = Outdated("module", path, locked, to, newest_allowed, newest, "lock",
                       f"the lock holds {locked}; tofu-solve init -upgrade={path} selects {to}")
        if row.downgrade:  # never called an upgrade: what is wrong with the locked version
            why = _locked_trouble(path, req, lock, ctx)
            row.reason = (f"the lock holds {locked}{', which ' + why if why else ''}; tofu-solve init "
                          f"-upgrade={path} moves it down to {to}, the newest version that fits")
        return row
    if newest_allowed is not None and newest_allowed != to:
        kind, why, kept = _blocker(path, allowed[0], res, ctx)
        return Outdated("module", path, locked, to, newest_allowed, newest, kind, why, why=kept)
    if newest is not None and newest != to:
        return Outdated("module", path, locked, to, newest_allowed, newest, "constraint",
                        f'"{constraint}" ({where}) excludes {newest}')
    return Outdated("module", path, locked, to, newest_allowed, newest, None, "at the newest release")


def _locked_trouble(path: str, req, lock, ctx) -> str:
    """What its registry or the policy says of a locked module version that a move would
    leave for an older one: revoked, deprecated or denied (each with its reason); "" when
    nothing is said (the newer version no longer fits the constraints)."""
    try:
        revoked, deprecated = ctx.lifecycle(req.call.source)
    except TofuSolveError:
        revoked, deprecated = {}, {}
    label = lock.version
    if label in revoked:
        return f"its registry revoked ({revoked[label].message or 'no reason given'})"
    if label in deprecated:
        d = deprecated[label]
        return f"its registry deprecated ({d.reason or 'no reason given'}{', ' + d.link if d.link else ''})"
    policy = ctx.options.policy
    address = package_address(req.call.source)
    if policy is not None and address is not None:
        rule = policy_denial(policy, Kind.MODULE, address, label, Subject.of_call(path, req.call.source_text))
        if rule is not None:
            return f"the policy denies ({rule.cite()})"
    return ""


def _check_listed_package(path: str, lock, listing, req) -> None:
    """A git listing names the commit of each tag: when the locked tag now names another
    commit than the lock's ``package``, the tag was moved (issue #25).

    Raises:
        IntegrityError: :func:`~tofu_solve.workdir.install.package_changed`.
    """
    if lock is None or not lock.package:
        return
    pinned = pinned_reference(lock.package)
    for a in listing:
        if a.label == lock.version and a.commit and pinned and len(pinned) == len(a.commit) and a.commit != pinned:
            got = immutable_address(str(req.call.source), a.commit)
            raise package_changed(path, f"{redact(str(req.call.source))} {lock.version}", lock.package, got,
                                  LOCK_FILE_NAME)


def _key(v: GoVersion):
    import functools
    return functools.cmp_to_key(GoVersion.compare)(v)


def _blocker(path: str, cand, res, ctx) -> tuple[str, str, str | None]:
    """Why the newest allowed version ``cand`` of ``path`` is not in the upgraded solution:
    its contents are read (``outdated`` may fetch them), then the one held-back analysis
    ``init``, ``why`` and ``graph`` use says it (:func:`tofu_solve.explain.holdback.module_hold_backs`,
    issue #58: never a second rule of its own): (its kind, its words, the kept-out reason's
    kind or None)."""
    try:
        ctx.tree(cand)
    except TofuSolveError as e:
        return "module", f"{cand.version_text} could not be read: {e.summary}", None
    held = said_of(module_hold_backs(res, ctx, path), cand.version_text)
    if held is None or held.kind in ("objective", "unknown"):
        return "module", f"{cand.version_text} does not fit the rest of the solution (a nested call or a joint " \
                         "provider range)", None
    return held.kind, held.sentence(), held.why


def _provider_row(addr: str, cand, res, ctx, locks) -> Outdated:
    lock = locks.providers.get(addr)
    locked = lock.version if lock is not None else None
    to = str(cand.version)
    reqs = [r for r in res.provider_requirements.get(addr, []) if r.constraint is not None]
    try:
        versions = _released(ctx.provider_versions(cand.address))
    except TofuSolveError:
        versions = []
    allowed = [v for v in versions if all(r.constraint.allows(v) for r in reqs)]
    newest_allowed = str(allowed[-1]) if allowed else None
    newest = str(versions[-1]) if versions else None
    if locked is not None and locked != to:
        return Outdated("provider", addr, locked, to, newest_allowed, newest, "lock",
                        f"the lock holds {locked}; tofu-solve init -upgrade={cand.address.for_display} selects {to}")
    if newest_allowed is not None and newest_allowed != to:  # the one analysis says what holds it back
        held = said_of(provider_hold_backs(res, ctx, addr), newest_allowed)
        if held is not None and held.kind not in ("objective", "unknown"):
            return Outdated("provider", addr, locked, to, newest_allowed, newest, held.kind, held.sentence(),
                            why=held.why)
    if newest is not None and newest != to:
        binding = [r for r in reqs if not r.constraint.allows(versions[-1])]
        named = "; ".join(f'"{r.constraint.text}" ({"root" if not r.origin.call_path else r.origin.call_path}'
                          f"{' ' + r.origin.version if r.origin.version else ''}, {r.origin.cite()})"
                          for r in binding[:3])
        return Outdated("provider", addr, locked, to, newest_allowed, newest, "constraint",
                        f"{newest} is excluded by {named}" if named else f"{newest} is not selected")
    return Outdated("provider", addr, locked, to, newest_allowed, newest, None, "at the newest release")


__all__ = ["Outdated", "outdated"]


def _target(args: CheckArguments, root, client) -> TargetVersion:
    return target_version(args.tofu_version, Path(root), terraform=args.terraform_version, client=client)


def run(ns, settings: Settings) -> int:
    """The command: ``ns`` as the parser left it, read once into :class:`OutdatedArguments`."""
    args = OutdatedArguments.from_namespace(ns)
    if args.recursive:
        return _run_recursive(args, settings)
    client = configured_client(settings, args.tf_path, named=bool(args.tofu_version or args.terraform_version))
    target = _target(args, args.chdir, client)
    policy = load_policy(Path(args.chdir), args.policy, settings.environ, target.product.registry_host,
                         overrides=frozenset(args.policy_override), inputs=args.policy_input)
    progress = line_progress(args.json)
    rows = outdated(Path(args.chdir), settings, tuple(args.vars or ()), target,
                    args.shared, progress=progress,
                    min_age=given_min_age(args.min_age, settings.min_age), policy=policy)
    progress.close()  # nothing after the answer: a late download is not a line of it
    movable = [r for r in rows if r.can_move or r.moves_with_others]
    names = ",".join(_upgrade_name(r, target) for r in rows if r.can_move and r.command is not None)
    OutdatedView(args.json).result(rows, target.product, names)
    return 2 if movable else 0


def _run_recursive(args: OutdatedArguments, settings: Settings) -> int:
    load("tofu_solve.command.monorepo")
    from .monorepo import each_root_for_its_target, passed_over_notice  # only -recursive pays for the fan-out

    results = each_root_for_its_target(args, settings, lambda root, target, prefix, policy: outdated(
        root, settings, tuple(args.vars or ()), target, args.shared, display_prefix=prefix,
        min_age=given_min_age(args.min_age, settings.min_age), policy=policy))
    movable = any(o.ran and o.ok and any(r.can_move or r.moves_with_others for r in o.value) for _, o in results)
    failed = any(not o.ok for _, o in results)
    view = OutdatedView(args.json)
    view.notices = passed_over_notice(args, settings, results)
    view.roots(results)
    return 1 if failed else 2 if movable else 0
