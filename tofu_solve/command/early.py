"""The early start of ``init`` (issue #36 §3): the requests a cold init makes first are sent
before the rest of the program is imported.

A cold ``init`` spends its first few hundred milliseconds importing the solver, the
explanations, the views and the libraries behind them; the registry listings of the root's
calls cannot start until then. :func:`start` runs first, while the command's own module is
not yet imported: it asks for the client's version in a thread (``tofu version`` or
``terraform version``, a process of its own), imports the HTTP library, reads the root module
as :func:`~tofu_solve.command.init.run_init` will, and starts, each in a daemon thread, the
listings the solve would start first (:func:`tofu_solve.solver.resolve.precheck`): the
registry versions of every root call that is not locked, and of every provider the root
requires (unless a ``provider_installation`` block may send them elsewhere). The rest is
imported while those requests are on the wire.

Nothing here decides anything. The solve asks the same :class:`RegistryClient` for the same
listings, and gets the answer (or the error) of the request already in flight; the client's
version is the one :func:`~tofu_solve.versions.target.configured_client` gives, its error
raised where ``init`` asked before. The early start stands aside (returns only the client's
version) where it could send a request the run would not: ``-offline``, ``-recursive``,
``-upgrade=NAME``, a policy in force (which may refuse a source), or a root that fails to read
(``run_init`` reports why, in its usual order).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from concurrent.futures import Future
from pathlib import Path
from typing import TYPE_CHECKING

from .._lazy import load
from .._threads import NOTHING, start_thread
from ..settings import Settings
from .arguments.init_flags import InitArguments

if TYPE_CHECKING:
    from ..remote.registry import RegistryClient
    from ..versions.target import Client

log = logging.getLogger(__name__)


class EarlyStart:
    """What :func:`start` began: the client's version (asked in a thread) and, when the
    early start went ahead, the registry client whose listings are in flight.

    Attributes:
        registry: the registry client for ``build_context`` (None when the early start
            stood aside).
        listings: how many listings were started.
    """

    def __init__(self, probe: Future, registry: RegistryClient | None = None, listings: int = 0):
        self._probe = probe
        self.registry = registry
        self.listings = listings

    def client(self) -> Client | None:
        """The client ``init`` follows and hands over to, as
        :func:`~tofu_solve.versions.target.configured_client` gave it.

        Raises:
            ConfigurationError: as ``configured_client`` (``-tf-path`` names no client...).
        """
        return self._probe.result()


def _in_thread(fn: Callable, *args) -> Future:
    """``fn(*args)`` in a daemon thread (a process exiting on an error never waits for it)."""
    done: Future = Future()

    def work():
        try:
            done.set_result(fn(*args))
        except BaseException as e:  # handed to whoever reads the result
            done.set_exception(e)
    start_thread(work, "tofu-solve-early", needs=NOTHING)  # what a listing imports goes through the guard
    return done


def _quietly(fn: Callable, *args) -> None:
    """A listing started ahead of need: its answer or error is kept by the client for the solve."""
    try:
        fn(*args)
    except Exception as e:  # the solve meets the same error where it asks, and reports it there
        log.debug("early listing failed (the solve reports it): %s", e)


def start_for(ns, settings: Settings) -> EarlyStart | None:
    """:func:`start` for the parser's namespace of an ``init`` run; None when its arguments
    do not read (``init`` reports why, as before)."""
    try:
        args = InitArguments.from_namespace(ns)
    except Exception:  # the command's own reading of its arguments says what is wrong
        return None
    return start(args, settings)


def start(args: InitArguments, settings: Settings) -> EarlyStart:
    """Start a cold init's first requests; see the module docstring. Never raises for what
    the run itself reports: every failure here is left for ``run_init`` to meet again."""
    load("tofu_solve.versions.target")
    from ..versions.target import configured_client

    named = not args.handover and bool(args.tofu_version or args.terraform_version)
    probe = _in_thread(configured_client, settings, args.tf_path, named)
    if args.offline or args.recursive or args.upgrade_only:
        return EarlyStart(probe)
    try:
        return _start_listings(args, settings, probe)
    except Exception as e:  # a broken root, lock, CLI configuration...: init says so in its own order
        log.debug("early start stood aside: %s", e)
        return EarlyStart(probe)


def _start_listings(args: InitArguments, settings: Settings, probe: Future) -> EarlyStart:
    load("tofu_solve.addrs.module_source")
    from ..addrs.module_source import RegistrySource
    load("tofu_solve.config.policy")
    from ..config.policy import find_policy
    load("tofu_solve.remote.package_store.address")
    from ..remote.package_store.address import store_setting
    load("tofu_solve.remote.registry")
    from ..remote.registry import open_client

    root = Path(args.chdir)
    if find_policy(root, args.policy, settings.environ, settings.reads) is not None:
        return EarlyStart(probe)  # a policy may refuse a source: no request before it is read
    registry = open_client(settings, upgrade=args.upgrade)
    load("tofu_solve.config.tree")
    from ..config.tree import read_module_tree
    load("tofu_solve.config.variables")
    from ..config.variables import collect_input_values
    load("tofu_solve.lockfile.read")
    from ..lockfile.read import LOCK_FILE_NAME, read_lock_file
    load("tofu_solve.versions.target")
    from ..versions.target import decided_product, target_version
    load("tofu_solve.workdir.solved")
    from ..workdir.solved import recorded_module_locks

    # the product names the registry of unqualified sources; the client (a process of its own) is
    # waited for only when nothing else decides it (issue #72 §2)
    product = decided_product(args.tofu_version, root, terraform=args.terraform_version, reads=settings.reads) \
        or target_version(args.tofu_version, root, terraform=args.terraform_version, client=probe.result(),
                          reads=settings.reads).product
    inputs = collect_input_values(root, settings.environ, args.vars)
    tree = read_module_tree(root, confine=False, strict=False, inputs=inputs, product=product)
    lock_file = read_lock_file(root / LOCK_FILE_NAME)
    locked = set() if args.upgrade else set(lock_file.modules) | set(recorded_module_locks(root, settings))
    packages = list(dict.fromkeys(
        rc.call.source.package for rc in tree.remote_calls
        if isinstance(rc.call.source, RegistrySource) and ".".join(rc.rel_path) not in locked))
    # a provider_installation block may send them to a mirror: the registry is asked only
    # when it is the one place they come from (as ProviderSources decides)
    providers = [] if registry.cli_config.provider_installation is not None else \
        list(dict.fromkeys(rp.address for _, rp in tree.providers if not rp.address.is_builtin))
    # (oras is not imported ahead for the store: its client needs it only for a registry that
    # asks for authentication, and the import costs up to 0.9 s of CPU; issue #57 §5)
    if store_setting(args.package_store, settings.environ) is not None and not args.upgrade:
        # the package store lists the locked providers (init.store_listing)
        providers = [a for a in providers if str(a) not in lock_file.providers]
    if packages:  # module listings go to the network; provider listings may come from the cache,
        # and a locked root's warm re-init imports no network library
        registry.session.headers  # noqa: B018 -- the HTTP library is imported here, not in the threads
    for package in packages:
        _in_thread(_quietly, registry.module_versions, package)
    for address in providers:
        _in_thread(_quietly, registry.provider_versions, address)
    log.debug("early start: %d module and %d provider listings started", len(packages), len(providers))
    return EarlyStart(probe, registry, len(packages) + len(providers))
