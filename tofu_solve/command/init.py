"""``tofu-solve init`` as a library call: read, solve, lock.

:func:`run_init` reads the root module and the lock file, finds a consistent version for
every remote module call, every provider and OpenTofu itself, and writes ``module`` blocks
into ``.terraform.lock.hcl`` (atomically, only when they change, never with
``lockfile="readonly"``). It returns what it did; printing is the CLI's job.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import sys
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

from .._lazy import load
from .._threads import join_within
from ..config import config_file_names
from ..config.cliconfig import load_cli_config
from ..config.policy import find_policies, load_policy
from ..config.tree import ModuleTree, RootSyntaxCheck, read_root_tree_checked
from ..config.variables import collect_input_values
from ..errors import (
    ConfigurationError,
    RepairWarning,
    TofuSolveError,
    WarningText,
)
from ..events import InRoot, PhaseDone, Progress, RootDone
from ..explain.typos import unknown_arguments
from ..lockfile import (
    LOCK_FILE_NAME,
    LockChange,
    LockFile,
    ModuleLock,
    write_lock_file,
)
from ..lockfile.entries import same_selection
from ..plugins import (
    current_platform,
    parse_platform,
)
from ..plugins.provider_locks import provider_change_reason
from ..remote.package_store.keys import ProviderKey
from ..remote.package_store.store import PackageStore
from ..remote.registry import RegistryClient
from ..settings import Settings
from ..solver.changes import module_same_version_change, moved_by_rule
from ..solver.context import SolveOptions
from ..solver.factory import display_package
from ..solver.lock_terms import LockTerms
from ..solver.resolve import Resolution
from ..solver.verdicts import selected_deprecations, selection_notices, with_overrides
from ..solver.wiring import Wiring, build_context
from ..store.cache import Cache
from ..terragrunt.pins import unit_pins, write_unit_pins
from ..terragrunt.unit import has_unit_file, unit_and_target
from ..versions.cooldown import (
    given_min_age,
)
from ..versions.target import Client, TargetVersion, configured_client, lock_product, target_version
from ..workdir import handover, stamp
from ..workdir.accept import AcceptedChecksums, accepted_reason
from ..workdir.client_config import offered_text, provider_mirror
from ..workdir.flags import rebased
from ..workdir.install import (
    data_dir,
    install,
)
from ..workdir.overrides import write_bridge
from ..workdir.solve_verify import InstallFlags, SolvedAndVerified, solve_and_verify
from ..workdir.solved import cited_from_root, write_state
from ..workdir.stamp import FULL_CHECK_VARIABLE, HASH_MEMO_FILE, HashMemo
from ..workdir.starting_locks import StartingLocks, read_starting_locks
from ..workdir.store_sync import (
    open_run_store,
    push_verified_modules,
)
from .arguments.init_flags import InitArguments
from .monorepo import (
    cross_root_report,
    display_prefix,
    passed_over_policies,
    read_shared_inputs,
    relative_name,
    run_each,
    select_roots,
)
from .views.init_view import (
    HandedOver,
    InitViews,
    RootsSummary,
    module_locks_text,
    summarize,
    unchanged_text,
)
from .views.lock_view import policy_data, readonly_refusal
from .views.store_view import report_data, store_warnings
from .views.warnings import (
    InitWarnings,
    blocked_upgrade_warning,
    blocks_restored_warning,
    bridge_outside_warning,
    bridge_unsupported_warning,
    cli_config_warnings,
    cooldown_warnings,
    copy_replaced_warnings,
    damaged_cache_warnings,
    deprecation_warnings,
    fenced_off_warning,
    merge_resolution_warning,
    not_handed_over_warning,
    package_moved_warnings,
    passed_over_policies_warning,
    policy_file_warnings,
    policy_notice_warnings,
    policy_warnings,
    tag_warnings,
    unknown_argument_warning,
    unpinned_warnings,
    unsigned_warnings,
)

log = logging.getLogger(__name__)  # TF_LOG=DEBUG: how long each phase of init took


@dataclass
class InitOptions:
    """Options of ``tofu-solve init``; see the user guide for each."""

    root: Path = Path(".")
    upgrade: bool = False
    upgrade_only: tuple[str, ...] = ()  # -upgrade=NAME,...: call paths or names, module packages, providers
    accept_checksum: tuple[str, ...] = ()  # -accept-checksum=NAME,...: new contents accepted at the locked version
    shared: bool = False
    lockfile: str = "update"  # or "readonly"
    tofu_version: str | None = None  # -tofu-version
    terraform_version: str | None = None  # -terraform-version
    client: Client | None = None  # the client found (configured_client): the target follows it
    plugin_cache: Path | None = None  # where to place provider packages for the client when the CLI
    # configuration names no plugin_cache_dir (the hand-over offers tofu-solve's own)
    max_rounds: int = 20000
    # the release cooldown in seconds (-min-age, TOFU_SOLVE_MIN_AGE), 0 for none; None: the CLI
    # configuration's tofu_solve_min_age, if any
    min_age: float | None = None
    workers: int = 48
    offline: bool = False
    install: bool = True
    platforms: tuple[str, ...] = ()  # target platforms for provider h1: hashes (default: this machine's)
    policy: str | None = None  # -policy as given (None: TOFU_SOLVE_POLICY, else the file found upward)
    policy_override: tuple[str, ...] = ()  # -policy-override: mandatory_overridable rules let through
    policy_input: tuple[str, ...] = ()  # -policy-input NAME=VALUE: *.policy.hcl input values
    vars: tuple[tuple[str, str], ...] = ()  # ("var", "NAME=VALUE") / ("var-file", "PATH"), in order
    display_prefix: str = ""  # prepended to the root's file names in citations (-recursive: "envs/prod/")
    verbose: bool = False  # -verbose: a rule's warning lists every version it kept out (issue #47 §5)
    package_store: str | None = None  # -package-store as given ("" turns it off; None: TOFU_SOLVE_PACKAGE_STORE)


@dataclass
class InitResult:
    """What ``init`` did. ``changes`` are module lock changes, ``provider_changes`` the
    provider blocks added, changed or removed (``provider_plan`` has every block)."""

    resolution: Resolution
    locks: LockFile
    changes: list[LockChange]
    lock_written: bool
    lock_path: Path
    provider_changes: list[LockChange] = field(default_factory=list)
    bridge_written: list[Path] = field(default_factory=list)
    network: dict[str, int] = field(default_factory=dict)
    manifest: Path | None = None
    verified: list[str] = field(default_factory=list)
    stats: dict[str, int] = field(default_factory=dict)
    target: TargetVersion | None = None  # the client and version solved for
    plugin_cache: Path | None = None  # where provider packages were placed for the client's init
    handover: str | None = None  # the client's init about to run (the command line), if any
    next_command: str | None = None  # else the command the user runs next
    policy: dict | None = None  # the policy applied (-json: its file and every version it denied), or None
    store: dict | None = None  # what the package store did (-json), or None without one (issue #49)
    deprecated: tuple = ()  # selected module versions their registry deprecates (-json; issue #62 §3)
    merge_conflicts: int = 0  # the lock file's merge-conflict hunks this run resolved (the file was rewritten)
    unit: bool = False  # the root is a Terragrunt unit (issue #73): Terragrunt's init runs next, not the client's
    unit_pins: tuple[Path, ...] = ()  # the unit's files written or removed: its terragrunt.hcl pin, its override file


def run_init(opts: InitOptions, settings: Settings,
             progress: Progress | None = None, *, registry: RegistryClient | None = None) -> InitResult:
    """Solve and lock the root module at ``opts.root``, in the environment ``settings``
    (:meth:`Settings.from_environ`); ``progress`` gets progress lines. ``registry``: the
    registry client the early start opened (:mod:`tofu_solve.command.early`), whose listings
    may be in flight; used when it was opened for this run's options.

    Raises:
        ConfigurationError, LockFileError, NoMatchingVersionError,
        NoVersionsError, ResolutionError, NetworkError, RegistryError: see the user guide.
        A syntax error in the root module comes before any other error.
    """
    checks: list[RootSyntaxCheck] = []
    notes: list[WarningText] = []  # warnings known before a failure, which may explain it
    stores: list[PackageStore] = []  # the run's package store, once opened
    try:
        return _init(opts, settings, progress, checks, notes, registry, stores)
    except TofuSolveError as e:
        for c in checks:
            c.raise_error()  # the root's own syntax error first, as tofu reports it
        e.warnings = (*notes, *e.warnings)
        for store in stores:  # what the store read and rejected before the failure stays counted (#68 §3)
            e.store = report_data(store.address, store.report)
        raise
    finally:
        for store in stores:
            store.pusher.discard()  # the provider zips it held for a lock that was not written


def _init(opts: InitOptions, settings: Settings, progress: Progress | None,
          checks: list[RootSyntaxCheck], notes: list[WarningText], registry: RegistryClient | None,
          stores: list[PackageStore]) -> InitResult:
    """The pipeline, one named step after another: read the root and the lock file, open the
    package store, solve and verify, warn, list the lock changes, install and write."""
    root = Path(opts.root)
    target = target_version(opts.tofu_version, root, terraform=opts.terraform_version, client=opts.client,
                            reads=settings.reads)
    # directory hashes remembered by size and time: an unchanged copy is not hashed again
    memo = HashMemo(data_dir(root, settings.data_dir) / HASH_MEMO_FILE,
                    trust=not settings.environ.get(FULL_CHECK_VARIABLE))
    unit, target = unit_and_target(root, opts.display_prefix, settings.environ, target, settings.reads.saw)
    tree = read_root_tree_checked(root, collect_input_values(root, settings.environ, opts.vars), target.product,
                                  opts.display_prefix, checks) if unit is None else \
        _read_unit(unit, opts, target, checks)
    read = read_starting_locks(root, settings, terraform=target.terraform, upgrade=opts.upgrade,
                               readonly=opts.lockfile == "readonly")
    policy = load_policy(root, opts.policy, settings.environ, target.product.registry_host, settings.reads,
                         opts.display_prefix, frozenset(opts.policy_override), inputs=opts.policy_input)
    options = SolveOptions(target, opts.upgrade, opts.shared, opts.max_rounds, opts.workers, opts.offline,
                           () if opts.upgrade else opts.upgrade_only, min_age=opts.min_age or 0.0, policy=policy)
    # whether each lock holds (issue #83 §2): the file as read is never rewritten before the solve
    terms = LockTerms.of(read.locks, tree, target.product, upgrade=opts.upgrade, upgrade_only=opts.upgrade_only)
    accept = AcceptedChecksums.of(opts.accept_checksum, read.locks, tree, target.product,
                                  upgrade=bool(opts.upgrade or opts.upgrade_only), readonly=opts.lockfile == "readonly")
    terms = terms.accepting(accept.modules, accept.providers)
    store = open_run_store(opts.package_store, settings, lambda: registry.cli_config if registry is not None
                           else load_cli_config(settings.environ), opts.offline, read.locks)
    stores.extend([store] if store is not None else [])
    wired = build_context(options, terms, settings, progress, cooldown_from_cli_config=opts.min_age is None,
                          client=registry, store=store)
    ctx, counter = wired.context, wired.counter
    notes.extend(cli_notes := cli_config_warnings(wired.client.cli_config.warnings))  # once (issue #83 §4)
    solved = solve_and_verify(tree, root, settings, wired, store, memo, progress, accept,
                              read.merged.unions if read.merged is not None else frozenset(),
                              flags=InstallFlags(opts.upgrade, opts.lockfile == "readonly", opts.offline,
                                                 opts.platforms, opts.plugin_cache, opts.workers))
    if policy is not None and opts.display_prefix:  # the record is the root's: its citations from the root
        solved.state_doc = cited_from_root(solved.state_doc, opts.display_prefix, root,
                                           find_policies(root, opts.policy, settings.environ))
    res = solved.res
    notices = selection_notices(ctx, res)  # computed once: the warnings, the lock changes and -json read it
    said = InitWarnings(first=_first_warnings(res, read, solved), cli_config=tuple(cli_notes),
                        solver=tuple(res.warnings), fenced_off=tuple(fenced_off_warning(f) for f in res.fenced_off),
                        after_solve=_run_warnings(wired, res, opts, solved, notices),
                        blocked=tuple(blocked_upgrade_warning(b, opts.upgrade_only) for b in res.blocked_upgrades))
    changes = with_overrides(_module_lock_changes(read.on_disk, solved, opts), notices, policy)
    plan = solved.plan
    provider_changes = [replace(c, reason=accept.provider_reason(c.label, read.locks, plan) or provider_change_reason(
        c, solved.reasons.get(c.label), read.locks.providers.get(c.label), plan.providers.get(c.label)))
        for c in plan.changes]
    new_locks = LockFile(plan.providers, dict(solved.new_modules))
    changes[:0] = _product_change(root, read, target)
    unit_edits = unit_pins(unit, new_locks.modules) if unit is not None else []
    if opts.lockfile == "readonly" and (changes or provider_changes or unit_edits):
        raise readonly_refusal(provider_changes + changes, res, unit_edits)
    checks[0].raise_error()  # nothing is written for a root with a syntax error
    if store is not None:  # what the lock file names, verified: pushed while the rest is written (issue #57)
        push_verified_modules(store, solved.selected)
        store.pusher.publish_providers({ProviderKey(p.address.host, p.address.namespace, p.address.type, p.version):
                                 p.hashes for p in new_locks.providers.values()})
    manifest, bridge_written, written, installed = _install_and_write(root, opts, settings, solved, new_locks,
                                                                      options, target, memo, progress, unit is not None)
    pins_written = write_unit_pins(unit_edits) if unit is not None else []
    store_data, stored = _finish_store(store) if store is not None else (None, [])
    res.warnings[:] = replace(said, installed=installed, stored=tuple(stored), unpinned=tuple(
        unpinned_warnings(unit, new_locks.modules) if unit is not None else ())).ordered()  # the one assignment
    stats = _run_stats(ctx, solved, memo)
    join_within(solved.asking, REPOSITORY_GRACE_SECONDS)  # the lock and the install are done: the SBOM's record
    return InitResult(resolution=res, locks=new_locks, changes=changes, lock_written=written, lock_path=read.path,
                      provider_changes=provider_changes, bridge_written=bridge_written, network=counter.snapshot(),
                      manifest=manifest, verified=solved.verified, stats=stats, target=target,
                      plugin_cache=solved.plugin_cache, policy=policy_data(policy, solved.kept_out, notices),
                      store=store_data, deprecated=tuple({"subject": p, "version": v, **d.as_data()}
                                                         for p, v, d in selected_deprecations(ctx, res)),
                      merge_conflicts=len(read.merged.hunks) if read.merged is not None and written else 0,
                      unit=unit is not None, unit_pins=tuple(pins_written))


def _read_unit(unit, opts: InitOptions, target: TargetVersion, checks: list[RootSyntaxCheck]) -> ModuleTree:
    """The root a Terragrunt unit stands for (:func:`tofu_solve.terragrunt.unit.unit_tree`)."""
    load("tofu_solve.terragrunt.unit")
    from ..terragrunt.unit import unit_tree

    tree = unit_tree(unit, target.product, opts.display_prefix)
    checks.append(RootSyntaxCheck(lambda: tree))
    return tree


def _product_change(root: Path, read: StartingLocks, target: TargetVersion) -> list[LockChange]:
    """The lock file's header as a lock change when the repository's product changed (a
    flag or a version file): a lock change like any other; [] otherwise."""
    written_for = lock_product(root) if read.path.exists() else None
    if written_for is None or written_for[0] is target.product:
        return []
    return [LockChange("header", LOCK_FILE_NAME, written_for[0].name, target.product.name,
                       f"solved for {target} ({target.origin})")]


def _finish_store(store: PackageStore) -> tuple[dict, list[WarningText]]:
    """Wait for the store's pushes (its grace period): what ``-json`` says of the store, and
    its warnings."""
    report = store.pusher.finish()
    return report_data(store.address, report), store_warnings(store.address, report)


def _run_stats(ctx, solved: SolvedAndVerified, memo: HashMemo) -> dict[str, int]:
    """The counters of ``init -json``'s ``stats`` (see the user guide)."""
    res = solved.res
    return {"packages_fetched": ctx.stats.packages_fetched, "trees_read": ctx.stats.trees_read,
            "tree_read_ms": round(ctx.stats.read_seconds * 1000),
            "trees_from_cache": ctx.stats.trees_from_cache, "sources_listed": ctx.sources_listed(),
            "provider_lock_ms": solved.provider_ms, "improve_fetches": ctx.stats.improve_fetches,
            "provider_versions_read_ahead": solved.read_ahead,
            "release_time_unknown": ctx.stats.release_time_unknown,
            "hashes_remembered": memo.hits,  # directories not hashed again: unchanged since hashed
            # the searches the solve made, by kind, and what its hypothetical ones fetched (issue #48 §4)
            **{f"searches_{k}" if k != "hypothetical_fetches" else k: v for k, v in res.searches.data().items()}}


def _first_warnings(res: Resolution, read: StartingLocks, solved: SolvedAndVerified) -> tuple[WarningText, ...]:
    """What the lock file as read needed, said before anything else: how each merge-conflict
    hunk was resolved, then the module blocks restored from the last init's record."""
    kept = sorted(p for p in read.lost if p in solved.new_modules
                  and solved.new_modules[p].version == read.lost[p].version)
    merged = (merge_resolution_warning(read.merged, res, solved.reasons, solved.dropped),) \
        if read.merged is not None else ()
    return merged + ((blocks_restored_warning(kept),) if kept else ())


def _run_warnings(wired: Wiring, res: Resolution, opts: InitOptions, solved: SolvedAndVerified,
                  notices: list) -> tuple[WarningText, ...]:
    """The warnings of the solve's outcome, in the order they are shown; ``notices``: the
    selection's advisory and overridden failures
    (:func:`~tofu_solve.solver.verdicts.selection_notices`, computed once by the caller)."""
    out: list[WarningText] = []
    ctx = wired.context
    wired.remotes.join_background()
    out.extend(tag_warnings(wired.remotes.moved, wired.remotes.deleted))
    changed = lambda subject: moved_by_rule(ctx, res, subject)  # noqa: E731
    if ctx.options.min_age:
        out.extend(cooldown_warnings(ctx.cooldown, res, changed, opts.verbose))
    out.extend(policy_warnings(solved.kept_out, res, changed, opts.verbose))
    out.extend(policy_notice_warnings(notices, res, ctx.options.policy))
    if ctx.options.policy is not None:
        out.extend(policy_file_warnings(ctx.options.policy))
    out.extend(deprecation_warnings(selected_deprecations(ctx, res)))
    out.extend(unknown_argument_warning(u) for u in unknown_arguments(res.root_tree, {
        p: (display_package(res.modules[p].source), res.modules[p].version_text, t)
        for p, t in solved.trees.items() if p in res.modules}))
    out.extend(unsigned_warnings(solved.plan.unsigned))
    out.extend(damaged_cache_warnings(wired.cache.discarded))
    out.extend(package_moved_warnings(solved.moves, opts.lockfile == "readonly"))
    return tuple(out)


def _module_lock_changes(on_disk: dict[str, ModuleLock], solved: SolvedAndVerified,
                         opts: InitOptions) -> list[LockChange]:
    """Each module block added, changed or removed, against the file as it was, with why."""
    changes = []
    for path in sorted(set(on_disk) | set(solved.new_modules)):
        old, new = on_disk.get(path), solved.new_modules.get(path)
        if old is not None and new is not None and same_selection(old, new):
            continue  # an entry written before package pins is completed, not changed
        reason = solved.reasons.get(path, "")
        if path in solved.accepted:
            reason = accepted_reason(*solved.accepted[path])
        if not reason and path in solved.moves and opts.lockfile != "readonly":
            reason = f"package moved to {solved.moves[path][1]} (the same identity)"
        if not reason and old is not None and new is not None and old.version == new.version:
            reason = module_same_version_change(old, new)
        changes.append(LockChange("module", path, old.version if old else None, new.version if new else None,
                                  reason))
    return changes


def _install_and_write(root: Path, opts: InitOptions, settings: Settings, solved: SolvedAndVerified,
                       new_locks: LockFile, options: SolveOptions, target: TargetVersion, memo: HashMemo,
                       progress: Progress | None, unit: bool = False
                       ) -> tuple[Path | None, list[Path], bool, tuple[WarningText, ...]]:
    """Install first, lock last: an interrupted init leaves the old lock file in place.
    Returns (modules.json written or None, override files written, whether the lock file was
    written, the warnings of the install: copies replaced, override files not written).
    Raises TofuSolveError ("Failed to write the lock file")."""
    res, selected = solved.res, solved.selected
    replaced: list[str] = []
    started = time.monotonic()
    manifest = install(root, settings, selected, res.root_tree, solved.trees, reinstall=opts.upgrade,
                       replaced=replaced, memo=memo) if opts.install else None
    if opts.install:
        memo.save()
        log.debug("%d modules installed in %.2f s", len(selected), time.monotonic() - started)
    if progress and opts.install:
        progress(PhaseDone("install", len(selected)))
    bridge = write_bridge(root, data_dir(root, settings.data_dir) / "modules", res, selected, solved.trees,
                          {p: m.source for p, m in solved.new_modules.items()}, options.target, opts.install, unit)
    said = (*copy_replaced_warnings(replaced, os.path.relpath(data_dir(root, settings.data_dir), root)),
            *(bridge_outside_warning(d) for d in bridge.outside),  # never written to: outside the root
            *((bridge_unsupported_warning(bridge.unsupported),) if bridge.unsupported else ()))
    bridge_written = bridge.written
    written = False
    if opts.lockfile != "readonly":
        lock_path = root / LOCK_FILE_NAME
        try:
            written = write_lock_file(lock_path, new_locks, target.product.lock_header)
        except OSError as e:
            raise TofuSolveError("Failed to write the lock file",
                                 f"{lock_path} could not be written ({e.strerror}); it was left unchanged.") from None
    if opts.install:
        write_state(root, settings, solved.state_doc)
    return manifest, bridge_written, written, said


REPOSITORY_GRACE_SECONDS = 2.0
"""After the run's work is done, how long it lets unanswered repository questions finish."""


def open_views(ns, settings: Settings) -> InitViews:
    """The views this run speaks to (the error boundary reports a failure to them too)."""
    return InitViews(ns.chdir, bool(ns.json), getattr(ns, "json_into", None), bool(ns.no_color), settings.no_color,
                     quiet=bool(getattr(ns, "quiet", False)), sarif=getattr(ns, "format", "text") == "sarif",
                     annotations=settings.environ.get("GITHUB_ACTIONS") == "true", cwd=os.getcwd(),
                     markdown=_report_heading(ns) if getattr(ns, "format", "text") == "markdown" else None,
                     environ=settings.environ)


def _report_heading(ns) -> str:
    """The command a ``-format=markdown`` report names: ``tofu-solve init`` with the flags
    that change what it says (``-lockfile=readonly``, ``-upgrade``, ``-recursive``)."""
    words = ["tofu-solve init"]
    if getattr(ns, "lockfile", None) == "readonly":
        words.append("-lockfile=readonly")
    if getattr(ns, "upgrade", False):
        words.append("-upgrade" if ns.upgrade is True else f"-upgrade={ns.upgrade}")
    if getattr(ns, "recursive", False):
        words.append("-recursive")
    return " ".join(words)


def run(ns, settings: Settings, views: InitViews) -> int | stamp.Finished:
    """The command: ``ns`` as the parser left it, read once into :class:`InitArguments`.
    A run the next identical one may answer from the stamp returns what the stamp keeps."""
    args = InitArguments.from_namespace(ns)
    early = getattr(ns, "early_start", None)  # started by the CLI before this module was imported
    client = early.client() if early is not None else configured_client(
        settings, args.tf_path, named=not args.handover and bool(args.tofu_version or args.terraform_version))
    opts = InitOptions(root=Path(args.chdir), upgrade=args.upgrade, upgrade_only=args.upgrade_only,
                       accept_checksum=args.accept_checksum, shared=args.shared,
                       lockfile=args.lockfile, tofu_version=args.tofu_version,
                       terraform_version=args.terraform_version, client=client,
                       plugin_cache=settings.cache_dir / "plugins" if client is not None and args.handover else None,
                       max_rounds=args.max_rounds, offline=args.offline,
                       min_age=given_min_age(args.min_age, settings.min_age),
                       platforms=tuple(parse_platform(p) for p in args.platforms), vars=args.vars,
                       policy=args.policy, policy_override=args.policy_override, verbose=args.verbose,
                       policy_input=args.policy_input,
                       package_store=args.package_store)
    if args.recursive:
        if args.accept_checksum:  # a NAME is one root's lock entry: accepted where it was reviewed
            raise ConfigurationError("Incompatible flags", "-accept-checksum accepts one root's packages: run it in "
                                     "that root (tofu-solve -chdir=DIR init -accept-checksum=NAME), not -recursive.")
        return _run_recursive(args, opts, views, settings)
    if not any(config_file_names(args.chdir)) and not has_unit_file(Path(args.chdir)):
        views.empty_directory()  # as tofu init does in a directory without configuration: write nothing
        return 0
    views.initializing_modules()
    with views.working():
        try:
            result = run_init(opts, settings, progress=views.progress,
                              registry=early.registry if early is not None else None)
        except TofuSolveError as e:
            raise each_refusal(e) if args.verbose else e from None
    follows = _handover_for(args, opts, result, settings, Path(args.chdir))
    result, h = follows.applied_to(result), follows.handover
    summary = summarize(result, opts.lockfile == "readonly", args.chdir)
    views.summary(summary)
    code = _hand_over(h, views, bool(result.locks.modules)) if h is not None else 0
    if not _warm(args, result, h):
        return code
    record = None  # the next run may answer from the stamp (workdir/stamp.py)
    if h is not None:
        added = {k: v for k, v in h.environ.items() if settings.environ.get(k) != v and k != "CHECKPOINT_DISABLE"}
        record = stamp.handover_record(
            h.argv, args.passed_on, added,
            {"path": h.client.path, "product": h.client.product.command, "version": str(h.client.version),
             "origin": h.client.origin},
            f" ({h.client.product.name} {h.client.version}, {h.client.origin})...",
            module_locks_text(h.client.product.name, LOCK_FILE_NAME) if result.locks.modules
            else "", h.mirror)
    return stamp.Finished(code, unchanged_text(summary), record)


def _warm(args: InitArguments, result: InitResult, h: handover.Handover | None) -> bool:
    """Whether this run changed nothing and asked the network nothing, in text mode without
    -upgrade: its summary is what the next run would print. A hand-over with passed-on flags
    counts too: the stamp keeps it without them (issue #47 §2; :func:`stamp.handover_record`)."""
    return not (args.json or args.json_into or args.format != "text" or (args.handover and h is None)
                or result.unit  # a Terragrunt unit may read any environment variable (get_env): no stamp
                or args.upgrade or args.upgrade_only or args.accept_checksum or args.recursive
                or result.changes or result.provider_changes or result.lock_written or result.bridge_written
                or any(result.network.values())
                or any(isinstance(w, RepairWarning) for w in result.resolution.warnings)
                # a committed override ends on a date, which no file's change tells the stamp (issue #84 §4)
                or bool((result.policy or {}).get("committed_overrides")))


@dataclass(frozen=True)
class HandoverPlan:
    """What follows ``init`` (:func:`_handover_for`): the client's init to run, else the
    command the user runs next, and a warning when the client found is not the target.

    Attributes:
        handover: the client's init to run, or None.
        next_command: the command to run next when nothing is handed over, or None.
        warning: why nothing is handed over to the client found, or None.
    """

    handover: handover.Handover | None = None
    next_command: str | None = None
    warning: WarningText | None = None

    def applied_to(self, result: InitResult) -> InitResult:
        """``result`` with what follows it: a new result (nothing is written into the one
        the conductor made, issue #83 §4), its warnings the conductor's, then this plan's."""
        warnings = [*result.resolution.warnings, self.warning] if self.warning is not None \
            else result.resolution.warnings
        return dataclasses.replace(result, handover=self.handover.command_line if self.handover is not None else None,
                                   next_command=self.next_command,
                                   resolution=dataclasses.replace(result.resolution, warnings=warnings))


def _handover_for(args: InitArguments, opts: InitOptions, result: InitResult, settings: Settings,
                  root: Path) -> HandoverPlan:
    """What follows ``result``: the client's init to run, else the command to run next, with
    a warning when the client found is not the target (see :class:`HandoverPlan`)."""
    flags = rebased(args.passed_on, args.chdir, str(root))  # the client runs in root
    target, client = result.target, opts.client
    if result.unit:  # Terragrunt runs the client in its working copy, from the unit's pins
        return HandoverPlan(next_command=handover.terragrunt_next_command(args.recursive))
    warning = None
    if args.handover and client is not None and target is not None and client.product is not target.product:
        warning = not_handed_over_warning(target, client)
        client = None
    if client is None or not args.handover or target is None:
        return HandoverPlan(next_command=handover.next_command(target, flags) if target is not None else None,
                            warning=warning)
    own = result.plugin_cache is not None and result.plugin_cache == opts.plugin_cache
    # no colour from the client where tofu-solve shows none: -no-color, NO_COLOR, or not a terminal
    plain = bool(args.no_color) or settings.no_color or not _is_terminal(sys.stdout)
    # the packages tofu-solve verified, offered so that the client's init needs no registry for them
    mirror = provider_mirror({a: lock.version for a, lock in result.locks.providers.items()}, result.plugin_cache,
                             current_platform(), {a: tuple(lock.hashes) for a, lock in result.locks.providers.items()},
                             Cache(settings.cache_dir))
    return HandoverPlan(handover.plan(client, root, flags, settings.environ, result.plugin_cache, own,
                                      json=bool(args.json), no_color=plain and not args.json, mirror=mirror))


def _is_terminal(stream) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def _hand_over(h: handover.Handover, views: InitViews, module_locks: bool = False) -> int:
    """Run the client's init after what tofu-solve printed; its exit status is ``init``'s.
    ``module_locks``: the lock file holds module blocks, which the client warns about: say
    once, after it, that the warning is expected."""
    views.handing_over(h.command_line, h.client.product.name, str(h.client.version), h.client.origin,
                       offered_text(h.mirror, h.client.product.command) if h.mirror is not None else "")
    code = handover.run(h)
    if module_locks:
        views.module_locks_note(h.client.product.name, LOCK_FILE_NAME)
    return code


def _run_recursive(args: InitArguments, opts: InitOptions, views: InitViews, settings: Settings) -> int:
    """``init -recursive``: every root module under -chdir, in parallel over one cache."""
    base = Path(args.chdir)
    # what every root shares is read once: an error in it is said once, before any root (issue #59 §3)
    read_shared_inputs(base, settings, opts.policy, opts.tofu_version, opts.terraform_version, opts.policy_input)
    roots, left_out = select_roots(base, settings, args.exclude_dir)
    views.initializing_roots(len(roots), base)

    handovers: dict[Path, handover.Handover] = {}

    def one(root: Path):
        name = relative_name(root, base)
        try:
            result = run_init(dataclasses.replace(opts, root=root, display_prefix=display_prefix(root, base)),
                              settings, progress=lambda e: views.progress(InRoot(name, e)))
        except TofuSolveError as e:
            views.progress(RootDone(name, 0, e.summary))
            raise each_refusal(e) if args.verbose else e from None
        views.progress(RootDone(name, len(result.resolution.modules)))
        follows = _handover_for(args, opts, result, settings, root)
        if follows.handover is not None:
            handovers[root] = follows.handover
        return follows.applied_to(result)
    with views.working():
        outcomes = run_each(roots, one)
    report = cross_root_report(outcomes, base)
    passed = passed_over_policies(base, roots, opts.policy, settings)  # said once, never silently (issue #84 §1)
    notice = passed_over_policies_warning(passed, opts.policy or settings.environ.get("TOFU_SOLVE_POLICY")) \
        if passed else None
    quiet = views.human is not None and views.stream is None and not args.verbose  # text: a line per root
    if quiet:
        # each root's client init first, one at a time in the order of the roots, its output kept:
        # its result stands in the root's line, its output under the root only where it said more
        handed = {o.root: _hand_over_quietly(handovers[o.root]) for o in outcomes
                  if o.value is not None and o.root in handovers}
        summary = RootsSummary(outcomes, base, report, handed, verbose=False,
                               readonly=opts.lockfile == "readonly", left_out=left_out, passed_over=notice)
        views.roots_summary(summary)
        return 1 if summary.failed or any(ho.code for ho in handed.values()) else 0
    summary = RootsSummary(outcomes, base, report, verbose=args.verbose, readonly=opts.lockfile == "readonly",
                           left_out=left_out, passed_over=notice)
    views.roots_summary(summary)
    codes = []  # -verbose or -json: each client's whole output, under its root, one at a time
    for o in outcomes:
        h = handovers.get(o.root)
        if h is None or o.value is None:
            continue
        views.in_root(relative_name(o.root, base))
        codes.append(_hand_over(h, views, bool(o.value.locks.modules)))
    return 1 if summary.failed or any(codes) else 0


def each_refusal(e: TofuSolveError) -> TofuSolveError:
    """``-verbose``: a conflict whose module versions a rule refused, each with its own
    message, with every one listed after the explanation, one line each (issue #84 §2: the
    explanation says them once per rule); ``e`` itself otherwise."""
    subjects = ((getattr(e, "explanation", None) or {}).get("subjects")) or []
    listed = [f'  - module call {s["subject"].removeprefix("module call ")} {versions}: {reason}'
              for s in subjects if s.get("kind") == "unusable" and isinstance(s.get("reasons"), dict)
              for versions, reason in s["reasons"].items()]
    if len(listed) <= 1:
        return e
    return e.adding("Every version refused, one by one (-verbose):\n" + "\n".join(listed))


def _hand_over_quietly(h: handover.Handover) -> HandedOver:
    """The client's init for ``-recursive`` text output, its output kept (see :class:`HandedOver`)."""
    code, output, seconds = handover.run_captured(h)
    return HandedOver(h.client.product.name, h.command_line, str(h.client.version), h.client.origin, code, output,
                      seconds, code != 0 or handover.client_said_more(output))
