"""What one solve's context is made of (issue #51 §1): its options (:class:`SolveOptions`),
what every part of the run shares (:class:`Run`: the clients and index, the memo of what was
read, the read-ahead, the statistics, the cooldown's and the policy's records) and what one
search has of its own (:class:`Scope`). :class:`~.context.Context` answers the resolver's
questions from them."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from ..addrs.provider import ProviderAddress
from ..config.cliconfig import ModuleInstallation
from ..config.policy import Denial, Policy
from ..events import Progress
from ..providers.base import ProviderVersionSource
from ..remote.flight import SingleFlight
from ..remote.lifecycle import Revocation
from ..remote.registry import RegistryClient
from ..store.metadata import MetadataStore
from ..versions.target import TargetVersion
from .index import ModuleIndex, Stats
from .lock_terms import LockTerms
from .model import ModuleRequirement
from .prefetch import Prefetcher
from .release_cooldown import Cooldown

Refusal = Denial | Revocation
"""Why a version may not be selected: a policy's ``deny`` block or failing rule
(``refused_by == "policy"``), or its registry's revocation (``refused_by == "revocation"``;
issue #62); each answers ``cite()``, ``heading()``, ``refusal()``, ``where``, ``reason``,
``link`` and ``as_data()``; ``kind`` is what it refuses (``module`` or ``provider``)."""


@dataclass(frozen=True)
class SolveOptions:
    """How to solve.

    Attributes:
        upgrade: ignore locked versions (``-upgrade``).
        upgrade_targets: the names ``-upgrade=NAME,...`` gave (their locks are already
            left out of the context's); advice that names an ``-upgrade=`` keeps them.
        shared: one version per module package (``-module-versions=shared``).
        target: the OpenTofu version solved for.
        max_rounds: resolvelib round cap.
        workers: size of the network thread pool.
    """

    target: TargetVersion
    upgrade: bool = False
    shared: bool = False
    max_rounds: int = 20000
    workers: int = 8
    offline: bool = False
    upgrade_targets: tuple[str, ...] = ()  # -upgrade=NAME,...: what the user let move (for advice)
    min_age: float = 0.0  # the release cooldown, seconds (issue #25); 0: none
    # what the cooldown covers when the CLI configuration's module_installation set it (its
    # modules, by include/exclude); None: every module and provider (-min-age and the like)
    cooldown_scope: ModuleInstallation | None = None
    policy: Policy | None = None  # the team's module policy (issue #39): refused sources, denied versions
    cooldown_label: str | None = None  # who set the cooldown, when not -min-age or the CLI configuration


class StoreView(Protocol):
    """What the solver asks of the package store: the run's
    :class:`~tofu_solve.remote.package_store.ledger.StoreLedger`."""

    def expects_package(self, package: str) -> bool:
        """Whether the lock's ``h1:`` for the immutable ``package`` lets the store serve it."""

    def served_package(self, package: str) -> bool:
        """Whether the store served ``package`` this run, verified."""


@dataclass
class Scope:
    """What one search, or one part of a run, has of its own (issue #51 §1: a view is the
    run's context with another scope, never a copy): the locks it honours; how many module
    versions not yet known it may still fetch (None: no limit; the improvement pass, the
    exact optimiser and the hypothetical searches set one); who is told the solver's likely
    provider picks, so that their packages can be read ahead
    (:mod:`tofu_solve.plugins.provider_readahead`; None: nobody); and the calls it has seen (call
    path -> latest requirement: what explanations, holds and the cooldown look calls up in),
    the run's own unless a view asks for its own record."""

    terms: LockTerms
    fetch_budget: int | None = None
    likely_provider: Callable[[ProviderAddress, str], None] | None = None
    calls: dict[str, ModuleRequirement] = field(default_factory=dict)


class Run:
    """What every view of one run shares: the clients and the index, the options, the
    memo of what was read (listings, trees, candidates, matching versions, the dead-end
    pass's effects), the read-ahead bookkeeping, the pool, the statistics and the records
    of the cooldown and the policy. Arguments as :class:`Context`'s.

    Raises:
        TypeError: neither a provider source nor a client is given.
    """

    def __init__(self, options: SolveOptions, terms: LockTerms, index: ModuleIndex, metadata: MetadataStore | None,
                 *, client: RegistryClient | None, stats: Stats | None, progress: Progress | None,
                 provider_source: ProviderVersionSource | None, store: StoreView | None, prefetch: bool):
        # the package store (issue #49): a locked package it serves, verified against the
        # lock's h1:, is as trusted as one in the cache, and its source is not listed
        self.store = store
        self.options = options
        # whether each lock holds (issue #83 §2); its ``recorded`` is the lock file as read, with
        # the entries -upgrade=NAME frees: what the configuration was locked with (explanations
        # compare against it)
        self.terms = terms
        self.recorded_locks = terms.recorded
        self.index = index
        self.client = client
        # where provider versions are listed (the CLI config's methods); the registry client alone
        # when no other source is given
        source = provider_source if provider_source is not None else client
        if source is None:
            raise TypeError("a context needs a provider source or a registry client")
        self.provider_source: ProviderVersionSource = source
        self.metadata = metadata
        self.stats = stats if stats is not None else Stats()
        self.progress: Progress = progress or (lambda msg: None)
        self.lock = threading.Lock()
        self.memo = SingleFlight(remember_errors=True)  # listings and trees, once per run
        self.candidates: dict[tuple, list] = {}  # module_candidates, memoized (see there)
        self.matching: dict[tuple, tuple] = {}  # (labels listed, constraint) -> versions selected
        # The release cooldown (issue #25): its policy, and what it held back and let through.
        self.cooldown = Cooldown(options.min_age, terms, scope=options.cooldown_scope,
                                 label=options.cooldown_label)
        # each module candidate's refusal (revocation or policy), once per policy object (issue #62:
        # resolvelib asks of every candidate on every round)
        self.refusals: dict[tuple, Refusal | None] = {}
        # The dead-end pass's view of each tree read: id -> (tree, effects)
        # (tofu_solve.solver.propagate._tree_effects).
        self.tree_effects: dict[int, tuple] = {}
        # Trees of nested calls read ahead of the search (Prefetcher.nested): until something
        # asks for one it counts as not read (tree_known, fetch budgets) and is not written to
        # the metadata cache, so the solve and its explanations are those of a run that never
        # read it; memo key -> its value once read ("unsaved" until asked for).
        self.speculative: set[tuple] = set()
        self.unsaved: dict[tuple, object] = {}
        # what is read ahead, on its pool (an in-memory index is given none)
        self.prefetcher = Prefetcher(self.memo, self.lock, self.speculative, options.workers) if prefetch else None
        self.relisted: set[str] = set()  # provider addresses listed afresh (provider_lock_listed)


__all__ = ["Run", "Scope", "SolveOptions", "StoreView"]
