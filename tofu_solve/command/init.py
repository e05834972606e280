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
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from .._lazy import load
from .._threads import join_within, worker_pool
from ..config import config_file_names
from ..config.cliconfig import load_cli_config
from ..config.policy import PolicyFailure, Subject, find_policies, load_policy
from ..config.tree import ModuleTree, RootSyntaxCheck, read_module_tree
from ..config.variables import collect_input_values
from ..errors import (
    ConfigurationError,
    LockFileWouldChange,
    RepairWarning,
    SourceRange,
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
    read_lock_file,
    write_lock_file,
)
from ..lockfile.entries import ProviderLock, same_selection
from ..lockfile.merge_conflict import MergedLock, conflicted_error
from ..lockfile.named import without_targets
from ..lockfile.read import read_conflicted_lock_file
from ..plugins import (
    ProviderLockPlan,
    ProviderPackages,
    current_platform,
    parse_platform,
    plan_provider_locks,
)
from ..plugins.provider_locks import same_version_change
from ..plugins.provider_readahead import ProviderReadAhead
from ..providers import Package
from ..remote.lifecycle import Deprecation
from ..remote.package_store.address import store_setting
from ..remote.package_store.keys import ProviderKey
from ..remote.package_store.store import PackageStore, open_store
from ..remote.provider_sources import ProviderSources
from ..remote.registry import RegistryClient, ask_provider_repositories
from ..settings import Settings
from ..solver.changes import lock_change_reasons, module_same_version_change, moved_by_rule
from ..solver.context import SolveOptions
from ..solver.factory import display_package
from ..solver.locks import policy_notices, refuse_against_policy
from ..solver.model import Kind, ModuleCandidate
from ..solver.resolve import Resolution
from ..solver.wiring import Wiring, build_context
from ..terragrunt.pins import unit_pins, write_unit_pins
from ..terragrunt.unit import has_unit_file, unit_and_target
from ..versions.cooldown import (
    given_min_age,
)
from ..versions.target import Client, TargetVersion, configured_client, lock_product, target_version
from ..workdir import handover, overrides, stamp
from ..workdir.accept import AcceptedChecksums, accepted_reason
from ..workdir.client_config import offered_text, provider_mirror
from ..workdir.install import (
    data_dir,
    install,
)
from ..workdir.overrides import refuse_unloadable
from ..workdir.solved import recorded_module_locks, snapshot, write_state
from ..workdir.stamp import FULL_CHECK_VARIABLE, HASH_MEMO_FILE, HashMemo
from ..workdir.store_sync import expect_locked_packages, push_verified_modules, solve_listing_from_store, store_listing
from ..workdir.verify import AcceptedChecksum, hash_diagnosis, verify_packages
from .arguments.init_flags import InitArguments
from .monorepo import (
    cross_root_report,
    display_prefix,
    read_shared_inputs,
    relative_name,
    run_each,
    walk_roots,
)
from .views.init_view import (
    HandedOver,
    InitViews,
    RootsSummary,
    describe_change,
    module_locks_text,
    summarize,
    unchanged_text,
)
from .views.store_view import report_data, store_warnings
from .views.warnings import (
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
    tree = _read_root(root, opts, settings, target, checks) if unit is None else \
        _read_unit(unit, opts, target, checks)
    read = _read_locks(root, opts, settings, target)
    policy = load_policy(root, opts.policy, settings.environ, target.product.registry_host, settings.reads,
                         opts.display_prefix, frozenset(opts.policy_override), inputs=opts.policy_input)
    options = SolveOptions(target, opts.upgrade, opts.shared, opts.max_rounds, opts.workers, opts.offline,
                           () if opts.upgrade else opts.upgrade_only, min_age=opts.min_age or 0.0, policy=policy)
    solve_locks, providers_again = read.locks, frozenset[str]()
    if opts.upgrade_only and not opts.upgrade:
        solve_locks, providers_again = without_targets(read.locks, tree, opts.upgrade_only, target.product)
    accept = AcceptedChecksums.of(opts.accept_checksum, read.locks, tree, target.product,
                                  upgrade=bool(opts.upgrade or opts.upgrade_only), readonly=opts.lockfile == "readonly")
    solve_locks = accept.unpinned(solve_locks)
    store = _open_store(opts, settings, registry, read.locks)
    stores.extend([store] if store is not None else [])
    wired = build_context(options, solve_locks, settings, progress, recorded_locks=read.locks,
                          refresh_only=providers_again, cooldown_from_cli_config=opts.min_age is None,
                          client=registry, store=store)
    ctx, counter = wired.context, wired.counter
    notes.extend(cli_config_warnings(wired.client.cli_config.warnings))
    solved = _solve_and_verify(tree, root, opts, settings, wired, read.locks, solve_locks, providers_again,
                               store, memo, progress, accept,
                               read.merged.unions if read.merged is not None else frozenset())
    if policy is not None and opts.display_prefix:  # the record is the root's: its citations from the root
        solved.state_doc = _cited_from_root(solved.state_doc, opts.display_prefix, root, opts, settings)
    res = solved.res
    res.warnings.extend(fenced_off_warning(f) for f in res.fenced_off)
    res.warnings[:0] = cli_config_warnings(wired.client.cli_config.warnings)
    res.warnings.extend(_run_warnings(wired, res, opts, read, solved))
    changes = _overridden(_module_lock_changes(read.on_disk, solved, opts), _policy_notices(ctx, res))
    plan = solved.plan
    plan.changes[:] = [replace(c, reason=accept.provider_reason(c.label, read.locks, plan) or _provider_change_reason(
                           c, solved.reasons.get(c.label), read.locks.providers.get(c.label),
                           plan.providers.get(c.label)))
                       for c in plan.changes]
    res.warnings.extend(blocked_upgrade_warning(b, opts.upgrade_only) for b in res.blocked_upgrades)
    new_locks = LockFile(plan.providers, dict(solved.new_modules))
    written_for = lock_product(root) if read.path.exists() else None
    if written_for is not None and written_for[0] is not target.product:
        # the repository's product changed (a flag or a version file): a lock change like any other
        changes.insert(0, LockChange("header", LOCK_FILE_NAME, written_for[0].name, target.product.name,
                                     f"solved for {target} ({target.origin})"))
    unit_edits = unit_pins(unit, new_locks.modules) if unit is not None else []
    if opts.lockfile == "readonly" and (changes or plan.changes or unit_edits):
        raise _refused(plan.changes + changes, res, unit_edits)
    checks[0].raise_error()  # nothing is written for a root with a syntax error
    if store is not None:  # what the lock file names, verified: pushed while the rest is written (issue #57)
        push_verified_modules(store, solved.selected)
        store.pusher.publish_providers({ProviderKey(p.address.host, p.address.namespace, p.address.type, p.version):
                                 p.hashes for p in new_locks.providers.values()})
    manifest, bridge_written, written = _install_and_write(root, opts, settings, solved, new_locks, options,
                                                           target, memo, progress, unit is not None)
    pins_written: list[Path] = []
    if unit is not None:
        pins_written = write_unit_pins(unit_edits)
        res.warnings.extend(unpinned_warnings(unit, new_locks.modules))
    store_data = None
    if store is not None:
        report = store.pusher.finish()
        res.warnings.extend(store_warnings(store.address, report))
        store_data = report_data(store.address, report)
    stats = {"packages_fetched": ctx.stats.packages_fetched, "trees_read": ctx.stats.trees_read,
             "tree_read_ms": round(ctx.stats.read_seconds * 1000),
             "trees_from_cache": ctx.stats.trees_from_cache, "sources_listed": ctx.sources_listed(),
             "provider_lock_ms": solved.provider_ms, "improve_fetches": ctx.stats.improve_fetches,
             "provider_versions_read_ahead": solved.read_ahead,
             "release_time_unknown": ctx.stats.release_time_unknown,
             "hashes_remembered": memo.hits,  # directories not hashed again: unchanged since hashed
             # the searches the solve made, by kind, and what its hypothetical ones fetched (issue #48 §4)
             **{f"searches_{k}" if k != "hypothetical_fetches" else k: v for k, v in res.searches.data().items()}}
    join_within(solved.asking, REPOSITORY_GRACE_SECONDS)  # the lock and the install are done: the SBOM's record
    return InitResult(res, new_locks, changes, written, read.path, plan.changes, bridge_written, counter.snapshot(),
                      manifest, solved.verified, stats, target, solved.plugin_cache, policy=_policy_data(ctx, res),
                      store=store_data, deprecated=tuple(
                          {"subject": p, "version": v, **d.as_data()} for p, v, d in _deprecated(ctx, res)),
                      merge_conflicts=len(read.merged.hunks) if read.merged is not None and written else 0,
                      unit=unit is not None, unit_pins=tuple(pins_written))


def _refused(changes: list[LockChange], res: Resolution, unit_edits: Sequence = ()) -> LockFileWouldChange:
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
    refused.changes = tuple((f'{c.block} "{c.label}"', describe_change(c).strip(), _change_where(c, res))
                            for c in changes) + tuple((e.path.name, f"would be {e.what}", e.where)
                                                      for e in unit_edits)
    return refused


def _change_where(c: LockChange, res: Resolution) -> SourceRange | None:
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


def _cited_from_root(doc: dict, display_prefix: str, root: Path, opts: InitOptions, settings: Settings) -> dict:
    """The state record of a root solved under ``-recursive`` with each policy file named as
    from the root (``why`` and ``graph`` run there read it), not as the recursive run's
    messages name it (after ``display_prefix``, from where that run was started; issue #59
    §3: one path convention, relative to where the command is run)."""
    import json

    renamed = {}
    for found in find_policies(root, opts.policy, settings.environ):
        own = os.path.relpath(found, root)
        shown = os.path.normpath(os.path.join(display_prefix, own))
        if own != shown:
            renamed[shown] = own
    if not renamed:
        return doc
    text = json.dumps(doc)
    for shown, own in renamed.items():
        text = text.replace(json.dumps(f"{shown}")[1:-1] + ":", json.dumps(own)[1:-1] + ":")
    out = json.loads(text)

    def files(node):
        if isinstance(node, dict):
            return {k: (renamed[v] if k == "file" and v in renamed else files(v)) for k, v in node.items()}
        if isinstance(node, list):
            return [files(v) for v in node]
        return node
    return files(out)


def _provider_change_reason(c: LockChange, why: str | None, old: ProviderLock | None,
                            new: ProviderLock | None) -> str:
    """A provider block's change with its reason: the version's reason, or, when the
    version stays, what changed in the block (its constraints, with what moved them, issue
    #59 §2; its hashes)."""
    if why is None:
        return c.reason
    if c.old == c.new and old is not None and new is not None:
        return same_version_change(old, new, why) or c.reason
    return why


def _read_unit(unit, opts: InitOptions, target: TargetVersion, checks: list[RootSyntaxCheck]) -> ModuleTree:
    """The root a Terragrunt unit stands for (:func:`tofu_solve.terragrunt.unit.unit_tree`)."""
    load("tofu_solve.terragrunt.unit")
    from ..terragrunt.unit import unit_tree

    tree = unit_tree(unit, target.product, opts.display_prefix)
    checks.append(RootSyntaxCheck(lambda: tree))
    return tree


def _read_root(root: Path, opts: InitOptions, settings: Settings, target: TargetVersion,
               checks: list[RootSyntaxCheck]) -> ModuleTree:
    """What the solve needs of the root now; every argument of the blocks it reads is parsed
    meanwhile, in the background (``checks``), and its syntax errors come first.

    Raises:
        ConfigurationError: the first error a whole read reports (an earlier file's syntax error).
    """
    inputs = collect_input_values(root, settings.environ, opts.vars)

    def read_root(strict: bool) -> ModuleTree:
        return read_module_tree(root, confine=False, strict=strict, inputs=inputs, product=target.product,
                                display_prefix=opts.display_prefix)
    try:
        tree = read_root(False)
    except ConfigurationError:
        read_root(True)  # the error a whole read reports first (an earlier file's syntax error)
        raise
    checks.append(RootSyntaxCheck(lambda: read_root(True)))
    return tree


@dataclass(frozen=True)
class _LocksRead:
    """The lock file as ``init`` starts from it.

    Attributes:
        path: ``.terraform.lock.hcl`` of the root.
        locks: what the solve honours: the file, Terraform's provider locks carried over to
            OpenTofu's registry, and module blocks the file lost restored.
        on_disk: the file's own module blocks (lock changes are reported against them).
        lost: module blocks the last init recorded that another tool dropped from the file.
        merged: the file had Git merge-conflict markers: how its sides were merged (the
            solve starts from ``merged.locks``), None otherwise (issue #60 §2).
    """

    path: Path
    locks: LockFile
    on_disk: dict[str, ModuleLock]
    lost: dict[str, ModuleLock]
    merged: MergedLock | None = None


def _read_locks(root: Path, opts: InitOptions, settings: Settings, target: TargetVersion) -> _LocksRead:
    """Read the lock file; one with merge-conflict markers from its two sides (issue #60
    §2). Raises LockFileError, and "Lock file has merge conflicts" under
    ``-lockfile=readonly``, which never resolves them."""
    path = root / LOCK_FILE_NAME
    merged = read_conflicted_lock_file(path)
    if merged is not None and opts.lockfile == "readonly":
        raise conflicted_error(LOCK_FILE_NAME, merged, "tofu-solve init -lockfile=readonly")
    locks = merged.locks if merged is not None else read_lock_file(path)
    if not target.terraform:
        # As tofu init reads a lock written by Terraform: registry.terraform.io/hashicorp/* locks
        # stand for registry.opentofu.org/hashicorp/* (versions kept, hashes not); the old blocks
        # then go, as the configuration no longer requires them (depsfile/locks.go).
        locks.upgrade_from_predecessor()
    lost = {} if opts.upgrade else {p: m for p, m in recorded_module_locks(root, settings).items()
                                    if p not in locks.modules}
    on_disk = locks.modules
    if lost:
        # Another tool rewrote the lock file without tofu-solve's module blocks: the selections
        # the last init recorded are kept as if locked, and written back.
        locks = locks.with_modules({**lost, **locks.modules})
    return _LocksRead(path, locks, on_disk, lost, merged)


def _open_store(opts: InitOptions, settings: Settings, registry: RegistryClient | None,
                locks: LockFile) -> PackageStore | None:
    """The package store of the run (issue #49), told what the lock file records; None
    without one. Raises ConfigurationError (an invalid address or CLI configuration)."""
    address = store_setting(opts.package_store, settings.environ)
    if address is None:
        return None
    cli_config = registry.cli_config if registry is not None else load_cli_config(settings.environ)
    store = open_store(address, settings.environ, settings.limits, offline=opts.offline,
                       configured=cli_config.oci_credentials)
    if store is not None:
        expect_locked_packages(store, locks)
    return store


@dataclass
class _Solved:
    """What the solve and the verification gave ``init``.

    Attributes:
        res: the resolution.
        selected: call path -> (candidate, package, new lock), verified.
        trees: the module trees installed copies are written from.
        verified: call paths whose package matched the lock.
        plan: the provider lock blocks.
        new_modules: call path -> new module lock.
        state_doc: the record ``why`` and ``graph`` read (``.terraform/tofu-solve.json``).
        reasons: subject -> why its lock changed.
        moves: call path -> (locked, found) package locations of the same identity.
        provider_ms: milliseconds the provider locks took, beside the verification.
        read_ahead: provider versions read ahead during the solve.
        plugin_cache: where provider packages were placed for the client's init.
    """

    res: Resolution
    selected: dict[str, tuple[ModuleCandidate, Package, ModuleLock]]
    trees: dict
    verified: list[str]
    plan: ProviderLockPlan
    new_modules: dict[str, ModuleLock]
    state_doc: dict
    reasons: dict[str, str]
    moves: dict[str, tuple[str, str]]
    provider_ms: int
    read_ahead: int
    plugin_cache: Path | None
    accepted: dict[str, tuple[AcceptedChecksum, str]] = field(default_factory=dict)  # path -> (it, its NAME)
    dropped: dict[str, tuple[str, ...]] = field(default_factory=dict)  # a merged block's unverified hashes (#67 §5)
    asking: tuple = ()  # the threads asking providers' repositories for the SBOM (never on the critical path)


def _solve_and_verify(tree: ModuleTree, root: Path, opts: InitOptions, settings: Settings, wired: Wiring,
                      locks: LockFile, solve_locks: LockFile, providers_again: frozenset[str],
                      store: PackageStore | None, memo: HashMemo, progress: Progress | None,
                      accept: AcceptedChecksums | None = None, merged: frozenset[str] = frozenset()) -> _Solved:
    """Solve; then verify the module packages against the lock while the provider lock
    blocks are planned (both are network round trips that do not depend on each other); push
    what was verified to the package store. The context is closed at the end."""
    ctx = wired.context
    packages = _provider_packages(wired, opts)
    platforms = tuple(dict.fromkeys(opts.platforms)) or (current_platform(),)
    # The solver's likely provider picks are read ahead while it runs (issue #13).
    ahead = ProviderReadAhead(packages, platforms, {} if opts.upgrade else {
        a: p.version for a, p in solve_locks.providers.items() if a not in providers_again})
    moves: dict[str, tuple[str, str]] = {}  # locked packages found at another location (issue #34)
    try:
        started = time.monotonic()
        listing = store_listing(ctx, store, solve_locks, bool(opts.upgrade or opts.offline), providers_again)
        res = solve_listing_from_store(tree, ctx, ahead, root, listing)
        log.debug("modules solved in %.2f s: %d module calls, %d packages fetched, %d trees read",
                  time.monotonic() - started, len(res.modules), ctx.stats.packages_fetched, ctx.stats.trees_read)
        refuse_unloadable(res, ctx.options.target)
        accept = accept or AcceptedChecksums()
        accept.refuse_moves(res, locks)
        if progress:
            progress(PhaseDone("modules", len(res.modules), ctx.stats.packages_fetched))
        # each provider's source repository, for the SBOM (issue #60 §3): asked beside the
        # downloads and never waited for (issue #72 §1: nothing the lock does not need is on
        # the critical path); what has not answered when the run ends is asked by the next one
        asking = _ask_repositories(wired.client, res)
        with worker_pool(1, "tofu-solve-provider-locks") as one:
            started = time.monotonic()
            # against the lock file as it was: targeted providers are rebuilt, changes reported truly
            planned = one.submit(_provider_plan, res, locks, packages, platforms, opts, providers_again,
                                 frozenset(accept.providers), merged)
            accepted: list[AcceptedChecksum] = []
            dropped: dict[str, tuple[str, ...]] = {}
            selected, trees, verified = verify_packages(res, locks.with_modules(
                {p: (locks.modules[p] if p in accept.modules else m) for p, m in solve_locks.modules.items()}),
                wired, opts.upgrade, opts.lockfile == "readonly", moves, memo, hash_diagnosis(root, settings, memo),
                frozenset(accept.modules), accepted, merged, dropped, recorded=locks)
            log.debug("module packages verified in %.2f s", time.monotonic() - started)
            plan = planned.result()
            provider_ms = round((time.monotonic() - started) * 1000)
            log.debug("provider locks planned in %.2f s", provider_ms / 1000)
        if progress:
            progress(PhaseDone("providers", len(plan.providers)))
        new_modules = {p: lock for p, (_, _, lock) in selected.items()}
        refuse_against_policy(ctx.options.policy, new_modules, plan.unsigned)
        state_doc = snapshot(res, ctx, locks.with_modules(new_modules))
        reasons = lock_change_reasons(res, ctx, locks)
    finally:
        ahead.close()
        ctx.close()
    return _Solved(res, selected, trees, verified, plan, new_modules, state_doc, reasons, moves, provider_ms,
                   sum(len(v) for v in ahead.guesses().values()), packages.plugin_cache_dir,
                   {a.path: (a, accept.modules[a.path]) for a in accepted if a.changed}, {**dropped, **plan.dropped},
                   asking)


def _policy_data(ctx, res: Resolution) -> dict | None:
    """The policy as ``init -json`` gives it: its files, the overrides, every version it (or
    a registry's revocation) kept out this run, and the selection's advisory and overridden
    failures; None without a policy."""
    policy = ctx.options.policy
    if policy is None:
        return None
    return {"file": policy.file, "files": list(policy.files), "overrides": sorted(policy.overrides),
            "denied": [{"subject": s, "version": v, "rule": r.as_data()} for (s, v), r in sorted(ctx.refused.items())],
            "notices": [{"subject": s, "version": v, "rule": f.as_data()} for s, v, f in _policy_notices(ctx, res)]}


def _policy_notices(ctx, res: Resolution) -> list[tuple[str, str, PolicyFailure]]:
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


def _deprecated(ctx, res: Resolution) -> list[tuple[str, str, Deprecation]]:
    """The selected module versions their registry deprecates (issue #62 §3: a warning
    when selected or locked), as (call path, version, deprecation)."""
    return [(path, cand.version_text, d) for path, cand in sorted(res.modules.items())
            if (d := ctx.deprecation(cand)) is not None]


def _run_warnings(wired: Wiring, res: Resolution, opts: InitOptions, read: _LocksRead,
                  solved: _Solved) -> list[WarningText]:
    """The warnings of the run after the solve, in the order they are shown (restored module
    blocks come first)."""
    out: list[WarningText] = []
    kept = sorted(p for p in read.lost if p in solved.new_modules
                  and solved.new_modules[p].version == read.lost[p].version)
    if kept:
        res.warnings.insert(0, blocks_restored_warning(kept))
    if read.merged is not None:  # the lock file had merge conflicts: how each was resolved comes first
        res.warnings.insert(0, merge_resolution_warning(read.merged, res, solved.reasons, solved.dropped))
    ctx = wired.context
    wired.remotes.join_background()
    out.extend(tag_warnings(wired.remotes.moved, wired.remotes.deleted))
    changed = lambda subject: moved_by_rule(ctx, res, subject)  # noqa: E731
    if ctx.options.min_age:
        out.extend(cooldown_warnings(ctx.cooldown, res, changed, opts.verbose))
    out.extend(policy_warnings(ctx.refused, res, changed, opts.verbose))
    out.extend(policy_notice_warnings(_policy_notices(ctx, res), res))
    if ctx.options.policy is not None:
        out.extend(policy_file_warnings(ctx.options.policy))
    out.extend(deprecation_warnings(_deprecated(ctx, res)))
    out.extend(unknown_argument_warning(u) for u in unknown_arguments(res.root_tree, {
        p: (display_package(res.modules[p].source), res.modules[p].version_text, t)
        for p, t in solved.trees.items() if p in res.modules}))
    out.extend(unsigned_warnings(solved.plan.unsigned))
    out.extend(damaged_cache_warnings(wired.cache.discarded))
    out.extend(package_moved_warnings(solved.moves, opts.lockfile == "readonly"))
    return out


def _overridden(changes: list[LockChange], notices: list[tuple[str, str, PolicyFailure]]) -> list[LockChange]:
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


def _module_lock_changes(on_disk: dict[str, ModuleLock], solved: _Solved, opts: InitOptions) -> list[LockChange]:
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


def _install_and_write(root: Path, opts: InitOptions, settings: Settings, solved: _Solved, new_locks: LockFile,
                       options: SolveOptions, target: TargetVersion, memo: HashMemo,
                       progress: Progress | None, unit: bool = False) -> tuple[Path | None, list[Path], bool]:
    """Install first, lock last: an interrupted init leaves the old lock file in place.
    Returns (modules.json written or None, override files written, whether the lock file was
    written). Raises TofuSolveError ("Failed to write the lock file")."""
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
    res.warnings.extend(copy_replaced_warnings(replaced, os.path.relpath(data_dir(root, settings.data_dir), root)))
    bridge_written = _write_bridge(root, settings, res, selected, solved.trees, solved.new_modules, options,
                                   opts.install, unit)
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
    return manifest, bridge_written, written


def _write_bridge(root: Path, settings: Settings, res: Resolution, selected: dict, trees: dict,
                  new_modules: dict[str, ModuleLock], options: SolveOptions, installed: bool,
                  unit: bool = False) -> list[Path]:
    """Write (or remove) the override bridge for git/OCI calls with ``version``
    (:mod:`tofu_solve.workdir.overrides`); warn instead when the target OpenTofu predates 1.10.
    For a Terragrunt ``unit``, only the installed copies get one: the unit's own
    ``tofu_solve_override.tf`` is its pins (:mod:`tofu_solve.terragrunt.pins`)."""
    modules_dir = data_dir(root, settings.data_dir) / "modules"
    copies = {}
    if installed:
        for path, tree in trees.items():
            _, pkg, _ = selected[path]
            copies[path] = (tree, modules_dir / path, pkg.subdir)
    wanted = overrides.wanted_files(root, ModuleTree() if unit else res.root_tree, copies,
                                    {p: m.source for p, m in new_modules.items()})
    wanted, outside = overrides.split_outside(wanted, root)
    res.warnings.extend(bridge_outside_warning(d) for d in outside)  # never written to: outside the root
    if wanted and not overrides.bridge_supported(options.target):
        res.warnings.append(bridge_unsupported_warning(str(options.target.version)))
        return []
    if unit:  # the unit's own override file is not the bridge's
        managed = overrides.existing(modules_dir) if modules_dir.is_dir() else []
    else:
        managed = overrides.existing(root, modules_dir) if modules_dir.is_dir() else overrides.existing(root)
    return overrides.apply(wanted, managed)


def _provider_packages(wired: Wiring, opts: InitOptions) -> ProviderPackages:
    """Where this run's provider packages come from (one object, so that what was read
    ahead during the solve is found by the plan after it)."""
    ctx, fetcher, client = wired.context, wired.fetcher, wired.client
    return ProviderPackages(client, fetcher, fetcher.cache, wired.counter,
                            client.cli_config.plugin_cache_dir or opts.plugin_cache,
                            offline=opts.offline,
                            sources=ctx.provider_source if isinstance(ctx.provider_source, ProviderSources) else None,
                            store=fetcher.store)


REPOSITORY_GRACE_SECONDS = 2.0
"""After the run's work is done, how long it lets unanswered repository questions finish."""


def _ask_repositories(client: RegistryClient | None, res: Resolution) -> tuple:
    """The selected providers' repositories asked for the SBOM, off the critical path
    (:func:`tofu_solve.remote.registry.ask_provider_repositories`; issue #72 §1): the threads."""
    if client is None:
        return ()
    return ask_provider_repositories(client, [pick.address for pick in res.providers.values()])


def _provider_plan(res: Resolution, locks: LockFile, packages: ProviderPackages, platforms: tuple[str, ...],
                   opts: InitOptions, refresh: frozenset[str] = frozenset(),
                   accept: frozenset[str] = frozenset(), merged: frozenset[str] = frozenset()) -> ProviderLockPlan:
    """The provider blocks ``tofu init`` would write for this solution (see
    :mod:`tofu_solve.plugins.provider_locks`)."""
    selected = {a: (c.address, str(c.version)) for a, c in res.providers.items()}
    return plan_provider_locks(selected, res.provider_requirements, locks, packages, platforms, opts.workers,
                               refresh, accept, merged)


def open_views(ns, settings: Settings) -> InitViews:
    """The views this run speaks to (the error boundary reports a failure to them too)."""
    return InitViews(ns.chdir, bool(ns.json), getattr(ns, "json_into", None), bool(ns.no_color), settings.no_color,
                     quiet=bool(getattr(ns, "quiet", False)), sarif=getattr(ns, "format", "text") == "sarif",
                     annotations=settings.environ.get("GITHUB_ACTIONS") == "true", cwd=os.getcwd())


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
        result = run_init(opts, settings, progress=views.progress,
                          registry=early.registry if early is not None else None)
    h = _handover_for(args, opts, result, settings, Path(args.chdir))
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
                or any(isinstance(w, RepairWarning) for w in result.resolution.warnings))


def _handover_for(args: InitArguments, opts: InitOptions, result: InitResult, settings: Settings,
                  root: Path) -> handover.Handover | None:
    """The client's init to run after ``result``, or None (and ``result.next_command``, the
    command to run next, with a warning when the client found is not the target)."""
    flags = list(args.passed_on)
    target, client = result.target, opts.client
    if result.unit:  # Terragrunt runs the client in its working copy, from the unit's pins
        result.next_command = handover.terragrunt_next_command(args.recursive)
        return None
    if args.handover and client is not None and target is not None and client.product is not target.product:
        result.resolution.warnings.append(not_handed_over_warning(target, client))
        client = None
    if client is None or not args.handover or target is None:
        if target is not None:
            result.next_command = handover.next_command(target, flags)
        return None
    own = result.plugin_cache is not None and result.plugin_cache == opts.plugin_cache
    # no colour from the client where tofu-solve shows none: -no-color, NO_COLOR, or not a terminal
    plain = bool(args.no_color) or settings.no_color or not _is_terminal(sys.stdout)
    # the packages tofu-solve verified, offered so that the client's init needs no registry for them
    mirror = provider_mirror({a: lock.version for a, lock in result.locks.providers.items()}, result.plugin_cache,
                             current_platform())
    h = handover.plan(client, root, flags, settings.environ, result.plugin_cache, own,
                      json=bool(args.json), no_color=plain and not args.json, mirror=mirror)
    result.handover = h.command_line
    return h


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
    roots = walk_roots(base, settings)
    views.initializing_roots(len(roots), base)

    handovers: dict[Path, handover.Handover] = {}

    def one(root: Path):
        name = relative_name(root, base)
        try:
            result = run_init(dataclasses.replace(opts, root=root, display_prefix=display_prefix(root, base)),
                              settings, progress=lambda e: views.progress(InRoot(name, e)))
        except TofuSolveError as e:
            views.progress(RootDone(name, 0, e.summary))
            raise
        views.progress(RootDone(name, len(result.resolution.modules)))
        h = _handover_for(args, opts, result, settings, root)
        if h is not None:
            handovers[root] = h
        return result
    with views.working():
        outcomes = run_each(roots, one)
    report = cross_root_report(outcomes, base)
    quiet = views.human is not None and views.stream is None and not args.verbose  # text: a line per root
    if quiet:
        # each root's client init first, one at a time in the order of the roots, its output kept:
        # its result stands in the root's line, its output under the root only where it said more
        handed = {o.root: _hand_over_quietly(handovers[o.root]) for o in outcomes
                  if o.value is not None and o.root in handovers}
        summary = RootsSummary(outcomes, base, report, handed, verbose=False,
                               readonly=opts.lockfile == "readonly")
        views.roots_summary(summary)
        return 1 if summary.failed or any(ho.code for ho in handed.values()) else 0
    summary = RootsSummary(outcomes, base, report, verbose=args.verbose, readonly=opts.lockfile == "readonly")
    views.roots_summary(summary)
    codes = []  # -verbose or -json: each client's whole output, under its root, one at a time
    for o in outcomes:
        h = handovers.get(o.root)
        if h is None or o.value is None:
            continue
        views.in_root(relative_name(o.root, base))
        codes.append(_hand_over(h, views, bool(o.value.locks.modules)))
    return 1 if summary.failed or any(codes) else 0


def _hand_over_quietly(h: handover.Handover) -> HandedOver:
    """The client's init for ``-recursive`` text output, its output kept (see :class:`HandedOver`)."""
    code, output, seconds = handover.run_captured(h)
    return HandedOver(h.client.product.name, h.command_line, str(h.client.version), h.client.origin, code, output,
                      seconds, code != 0 or handover.client_said_more(output))
