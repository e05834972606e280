"""The candidate factory: what the search is offered and what a candidate requires.

pip's resolver has its ``Factory`` beside a thin ``PipProvider``; here
:class:`CandidateFactory` owns reading (listings, module trees, read-ahead), ordering (a
subject's candidates in the one order the search, the improvement pass, the exact stage and
the explanations' what-if searches all use: :meth:`CandidateFactory.module_order`,
:meth:`CandidateFactory.provider_order`, :func:`position`) and requirements (a module
version's, with the policy's and the release cooldown's verdicts as :class:`Unusable`
markers). :class:`~.resolvelib_provider.TofuSolveProvider` keeps only resolvelib's callbacks over it.
"""

from __future__ import annotations

import itertools
import operator
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace

from ..addrs.module_source import ModuleSource, OciSource, RegistrySource, RemoteSource
from ..addrs.provider import ProviderAddress
from ..addrs.redact import redact
from ..config.tree import ModuleTree
from ..errors import ConfigurationError, ModuleNotFound, SourceRange, TofuSolveError
from ..versions import apparentlymart_go_versions as gvs
from ..versions.constraints import ProviderConstraint
from ..versions.cooldown import HeldBack, format_age
from . import readahead
from .context import Context
from .kept_out import KeptOut, Why, of_held_back, of_refusal, of_refused_source, of_unloadable
from .locks import Holds, nearest_provider_versions, policy_denial, provider_lock_denial
from .model import (
    ROOT,
    Candidate,
    CoreRequirement,
    Identity,
    Kind,
    ModuleCandidate,
    ModuleRequirement,
    Origin,
    PackageCandidate,
    PackagePin,
    ProviderCandidate,
    ProviderRequirement,
    TofuCandidate,
    Unusable,
)
from .run import Refusal

_TEXT = operator.attrgetter("text")


def display_package(source: ModuleSource) -> str:
    """A module package as people name it in output: the registry address, else the source
    address redacted (credentials never reach a line of output or a file)."""
    return source.package.for_display if isinstance(source, RegistrySource) else redact(str(source))


def requirements_of_tree(tree: ModuleTree, call_path: str, version: str | None, package: str | None,
                         ctx: Context, *, modules: bool = True) -> list:
    """The requirements a module tree imposes when installed at ``call_path`` (``ROOT``
    for the root module). ``modules=False``: only its provider and OpenTofu requirements
    (the dead-end pass, which looks at nested calls only with ``-module-versions=shared``).
    Reads ``ctx`` only for the target version; a caller that adopts the calls records them
    (:meth:`Context.note_calls`)."""
    out: list = []
    prefix = f"{call_path}." if call_path else ""
    for rc in tree.remote_calls if modules else ():
        child = prefix + ".".join(rc.rel_path)
        origin = Origin(".".join((call_path,) + rc.local_path) if rc.local_path and call_path else
                        (".".join(rc.local_path) if rc.local_path else call_path), version, rc.call.constraint_where,
                        package)
        out.append(ModuleRequirement(child, rc.call, origin, str(rc.call.source)))
    for path, p in tree.providers:
        if p.address.is_builtin:
            continue  # built into OpenTofu: nothing to select, install or lock
        imposed = ".".join(([call_path] if call_path else []) + list(path))
        origin = Origin(imposed, version, p.where, package)
        text = p.constraint.text if p.constraint else ""
        out.append(ProviderRequirement(p.address, p.constraint, origin, text, f"{imposed}@{p.where}", p.via))
    for path, c in tree.core:
        if not c.counts_for(ctx.options.target.triple, ctx.options.target.terraform):
            continue
        imposed = ".".join(([call_path] if call_path else []) + list(path))
        origin = Origin(imposed, version, c.where, package)
        out.append(CoreRequirement(c.constraint, origin, c.kind, c.constraint.text, f"{imposed}@{c.where}"))
    return out


MAX_CALL_DEPTH = 64


def module_identity(source: ModuleSource) -> str:
    """What makes two calls the same module for cycle detection: the package without
    any ref, tag or digest, plus the subdirectory."""
    if isinstance(source, RegistrySource):
        return f"{source.package}//{source.subdir}"
    if isinstance(source, OciSource):
        return f"oci://{source.registry}/{source.repository}//{source.subdir}"
    if isinstance(source, RemoteSource):
        return f"{source.package.split('?', 1)[0]}//{source.subdir}"
    return str(source)


def check_remote_cycle(req: ModuleRequirement, calls: Mapping[str, ModuleRequirement]) -> None:
    """Refuse a remote call that reaches a module already on its own chain of calls (A
    calls B calls A), and chains deeper than :data:`MAX_CALL_DEPTH`: either would grow
    the call path for ever. Local cycles are refused the same way while a package's tree
    is read (:func:`tofu_solve.config.tree.read_module_tree`).

    Raises:
        ConfigurationError: "Module call cycle" naming the chain, at the closing call's
            file and line.
    """
    parts = req.call_path.split(".")
    if len(parts) > MAX_CALL_DEPTH:
        raise ConfigurationError(
            "Module call chain too deep",
            f'Module "{req.call_path}" is nested {len(parts)} calls deep; tofu-solve stops at {MAX_CALL_DEPTH}.',
            req.call.where)
    ident = module_identity(req.call.source)
    chain = [calls[p] for p in (".".join(parts[:i]) for i in range(1, len(parts))) if p in calls]
    for i, anc in enumerate(chain):
        if module_identity(anc.call.source) == ident:
            steps = " -> ".join(f'module "{c.call_path}" ({display_package(c.call.source)})'
                                for c in chain[i:] + [req])
            raise ConfigurationError(
                "Module call cycle",
                f"Remote module calls form a cycle: {steps}. A module cannot call itself, directly or "
                "through other modules.", req.call.where)


@dataclass(frozen=True)
class Summary:
    """What a provider's requirements ask, as far as its matches go: the set of their
    texts (``""`` for none; the key of the matches) and their distinct constraints by text,
    in the order first met."""

    texts: frozenset
    constraints: dict

    @staticmethod
    def of(reqs: Iterable[ProviderRequirement]) -> Summary:
        reqs = list(reqs)
        return Summary(frozenset(map(_TEXT, reqs)),
                        {r.constraint.text: r.constraint for r in reqs if r.constraint is not None})

    def plus(self, req: ProviderRequirement) -> Summary:
        known = req.text in self.texts
        if known and (req.constraint is None or req.constraint.text in self.constraints):
            return self
        constraints = self.constraints
        if req.constraint is not None and req.constraint.text not in constraints:
            constraints = {**constraints, req.constraint.text: req.constraint}
        return Summary(self.texts if known else self.texts | {req.text}, constraints)


NO_REQUIREMENTS = Summary(frozenset(), {})


def cited_source(req: ModuleRequirement) -> SourceRange | None:
    """Where a failure to reach a call's source is cited: its ``source`` line; inside a
    package, named with the package and version first, as every citation reads (issue #24;
    issue #50 §5: never a bare line number that reads as the user's own file)."""
    at = req.call.source_at
    if at is None or req.origin.call_path == ROOT or not req.origin.package:
        return at
    return replace(at, file=f"{req.origin.package} {req.origin.version}: {at.file}")


#: A call's candidates in the order a search should try them, or None for the solver's own
#: order (:class:`CandidateFactory`'s ``module_order`` hook).
ModuleOrder = Callable[[ModuleRequirement], "list[ModuleCandidate] | None"]



def position(order: Sequence[Candidate], version: str) -> int:
    """Where the version whose text is ``version`` stands in ``order`` (0: first), or
    ``len(order)`` when it is not there: how many candidates a selection skipped, the unit
    of the objective's terms 2 and 3 (:mod:`.optimum`) and of the improvement pass's lag."""
    for i, c in enumerate(order):
        text = c.version_text if isinstance(c, ModuleCandidate) else str(getattr(c, "version", ""))
        if text == version:
            return i
    return len(order)


class CandidateFactory:
    """Builds the candidates a search is offered, in order, and the requirements each
    module version imposes, over one :class:`~.context.Context` (its listings, trees and
    provider versions). One factory per search; the orders it gives are the ones every
    other stage measures in."""

    def __init__(self, ctx: Context, pruned: Mapping[str, set[str]] | None = None, holds: Holds | None = None,
                 floors: Mapping[str, gvs.Version] | None = None, *, module_order: ModuleOrder | None = None,
                 lenient_providers: bool = False, provider_first: Mapping[str, gvs.Version] | None = None,
                 spend_budget_at_once: bool = False):
        """``pruned``: call path -> version texts known to be dead ends
        (:func:`~.propagate.propagate`); they are never offered. ``holds``: the locks this
        search keeps fixed and those it offers first (:class:`~.locks.Holds`); None is
        :meth:`~.locks.Holds.what_if` (nothing held, every lock offered first). ``floors``:
        provider address -> a version only newer ones than which are offered (whether a
        newer provider is possible, for ``-upgrade=NAME``).

        The hooks for other searches (the what-if solves of
        :mod:`tofu_solve.explain.whatif`; issue #51 §3): ``module_order`` gives, for a call,
        its candidates in the order to try them, or None for the solver's own order; a call
        it orders is offered no lock first and is read ahead from its first candidate on, as
        a call that has already gone back. ``lenient_providers``: when a provider's listing
        fails, it offers no version (ruling out what requires it) instead of failing the
        search. ``provider_first``: provider address -> a version offered first when it
        matches (the exact optimiser's answer, :mod:`.optimum`). ``spend_budget_at_once``:
        read-ahead spends the fetch budget at once (:func:`.readahead.window`)."""
        self.ctx = ctx
        self.provider_first = dict(provider_first or {})
        self.module_order_hook = module_order
        self.lenient_providers = lenient_providers
        self.pruned = pruned or {}
        self.holds = holds if holds is not None else Holds.what_if()
        self.floors = dict(floors or {})
        self.spend_budget_at_once = spend_budget_at_once
        self._ahead_done: set[tuple[str, str]] = set()  # conflict parties already read ahead of
        self._parties_done: dict[int, ModuleCandidate] = {}  # id -> party already read ahead of
        # (provider, constraint texts) -> the candidates meeting them all
        self._meeting: dict[tuple, list[ProviderCandidate]] = {}

    # ------------------------------------------------------------------ the one order of each subject

    def module_order(self, req: ModuleRequirement) -> list[ModuleCandidate]:
        """The call's candidates in the one order the search offers them
        (:meth:`.Context.preferred_candidates`: the locked version first when its lock
        applies, then nearest a lock that may move, else newest first), among those its
        constraint admits and the policy allows (dead ends included: the objective does not
        depend on them). What the improvement pass's lag, the objective's terms and the
        exact stage's universe are measured in.

        Raises:
            LockedVersionGone, NoVersionsError, network errors: as
                :meth:`.Context.preferred_candidates`.
        """
        return [c for c in self.ctx.preferred_candidates(req, self.denied_rule)
                if req.is_satisfied_by(c) and self.denied_rule(c) is None]

    def provider_order(self, address: ProviderAddress, summary: Summary, *,
                       cooled: bool = True) -> list[ProviderCandidate]:
        """The provider's versions that meet every constraint of ``summary`` (OpenTofu's
        ``MeetingConstraints`` of them all ANDed) and the policy allows, in the one order:
        nearest the locked version first when its lock applies or the policy denies it
        (:func:`~.locks.nearest_provider_versions`), else newest first. ``cooled``: the
        versions the release cooldown holds back left out (the locked version is exempt);
        the exact stage passes False and rules them out with the universe's own pins.

        Raises:
            RegistryError, NetworkError: the provider's versions cannot be listed.
        """
        key = str(address)
        out = self._meeting_all(address, summary)
        if self.ctx.options.policy is not None:  # denied versions are not candidates, locked or not (issue #39)
            out = [c for c in out if self.provider_denial(key, c.version) is None]
        locked = self._provider_lock(key)
        if locked is not None:  # may move: as little as it can
            out = nearest_provider_versions(out, self.ctx.provider_versions(address), locked)
        if cooled and self.ctx.options.min_age:  # the release cooldown (issue #25); the locked version is exempt
            constraints = list(summary.constraints.values())
            out = [c for c in out if self.provider_too_young(address, str(c.version), constraints) is None]
        return out

    def _provider_lock(self, key: str) -> str | None:
        """The provider's locked version when its lock applies to this search, or when the
        policy denies it (it no longer applies, but moves as little as one that must, issue
        #47); None with ``-upgrade`` or no lock."""
        lock = self.ctx.locks.providers.get(key)
        if lock is None or self.ctx.options.upgrade:
            return None
        if self.holds.applies(Identity.provider(key)) or provider_lock_denial(self.ctx, key) is not None:
            return lock.version
        return None

    # ------------------------------------------------------------------ matches, as the search asks them

    def matches(self, identifier: Identity, reqs: list, bad: set) -> Iterable[Candidate] | Callable[[], Iterator]:
        """The candidates of ``identifier`` meeting ``reqs`` and not in ``bad``, in order:
        a callable giving a fresh iterator for a module call (resolvelib's
        ``build_iter_view`` takes one), a list otherwise."""
        kind = identifier.kind
        if kind is Kind.MODULE:
            calls = [r for r in reqs if isinstance(r, ModuleRequirement)]
            return self.module_matches(calls[0], reqs, bad) if calls else []
        if kind is Kind.PACKAGE:  # a package's requirements are its pins
            versions = {r.version for r in reqs if isinstance(r, PackagePin)}
            if len(versions) != 1:
                return []
            pin = PackageCandidate(identifier.name, versions.pop())
            return [] if pin in bad else [pin]
        if kind is Kind.PROVIDER:  # a provider's requirements are its constraints
            provider_reqs = [r for r in reqs if isinstance(r, ProviderRequirement)]
            return self.provider_matches(provider_reqs[0].address, Summary.of(provider_reqs), bad)
        if kind is Kind.OPENTOFU:
            cand = TofuCandidate(self.ctx.options.target.version)
            return [cand] if cand not in bad and all(r.is_satisfied_by(cand) for r in reqs) else []
        return []  # unusable

    def module_matches(self, call: ModuleRequirement, reqs: list, bad: set) -> Callable[[], Iterator[ModuleCandidate]]:
        """Lazily: the locked version first, built from the lock without listing the source
        (a warm re-init needs no network); nothing else when the lock is held; else the
        call's :meth:`.Context.preferred_candidates` (nearest the locked version first when
        a lock applies, newest first when none does: :mod:`.locks`), each filtered as it is
        taken and read ahead of need."""
        dead = self.pruned.get(call.call_path, ())
        ok = lambda c: c not in bad and c.version_text not in dead and \
            all(r.is_satisfied_by(c) for r in reqs)  # noqa: E731
        ordered = self.module_order_hook(call) if self.module_order_hook is not None else None
        if ordered is not None:
            cands = [c for c in ordered if ok(c)]
            return lambda: self.reading_ahead(cands, max(1, len(bad)))

        def factory() -> Iterator[ModuleCandidate]:
            locked = self.ctx.locked_candidate(call)
            if locked is not None:
                if ok(locked):
                    yield locked  # a warm re-init stops here: no listing, no network
                if call.identifier in self.holds:
                    return
            try:
                cands = self.ctx.preferred_candidates(call, self.denied_rule)
            except TofuSolveError as e:  # a source that cannot be listed: at the call's source line
                raise e.at(cited_source(call)) from None
            # filtered as they are taken: resolvelib iterates a call's candidates afresh
            # whenever it asks whether any are left, and usually takes only the first
            usable = (c for c in cands if not (locked is not None and c.version_text == locked.version_text) and ok(c))
            yield from self.reading_ahead(usable, len(bad))
        return factory

    def provider_matches(self, address: ProviderAddress, summary: Summary, bad: set) -> list[ProviderCandidate]:
        """:meth:`provider_order`, less ``bad``: only the locked version when the lock is
        held; newer than the floor when one is set; the exact optimiser's version first
        when it gave one. With ``lenient_providers``, a listing that fails gives none."""
        try:
            return self._provider_matches(address, summary, bad)
        except TofuSolveError:
            if self.lenient_providers:
                return []
            raise

    def _provider_matches(self, address: ProviderAddress, summary: Summary, bad: set) -> list[ProviderCandidate]:
        key = str(address)
        locked = self._provider_lock(key)
        if locked is not None and Identity.provider(key) in self.holds:  # held: the locked version or nothing
            out = [c for c in self.provider_order(address, summary, cooled=False)
                   if c not in bad and str(c.version) == locked]
        else:
            out = [c for c in self.provider_order(address, summary) if c not in bad]
            floor = self.floors.get(key)
            if floor is not None:
                out = [c for c in out if c.version.compare(floor) > 0]
        first = self.provider_first.get(key)
        if first is not None:
            out = sorted(out, key=lambda c: c.version != first)  # stable: the rest keep their order
        if out and self.ctx.likely_provider is not None:
            self.ctx.likely_provider(address, str(out[0].version))  # its package can be read ahead
        return out

    def _meeting_all(self, address: ProviderAddress, summary: Summary) -> list[ProviderCandidate]:
        """Candidates of every version of ``address`` that meets all of ``summary``'s
        constraints, newest first (of equal versions the last listed first). Released
        versions are checked against each distinct constraint's cached member set;
        prereleases (which one constraint may request for all) against the whole AND.
        Memoized per set of constraint texts: the same set comes back on most rounds of a
        large tree."""
        memo_key = (str(address), summary.texts)
        hit = self._meeting.get(memo_key)
        if hit is not None:
            return hit
        constraints = list(summary.constraints.values())
        versions = self.ctx.provider_versions(address)
        allowed = [self.ctx.provider_allowed(address, c) for c in constraints]
        both = frozenset.intersection(*allowed) if allowed else None
        spec = tuple(s for c in constraints for s in c.spec)
        out = []
        for v in reversed(versions):
            if v.prerelease or v == gvs.UNSPECIFIED:
                if not gvs.meets(spec, v):
                    continue
            elif both is not None and v not in both:
                continue
            out.append(ProviderCandidate(address, v))
        self._meeting[memo_key] = out
        return out

    # ------------------------------------------------------------------ read-ahead

    def read_ahead_below_parties(self, information: Iterable, candidate: Candidate) -> None:
        """:meth:`read_ahead_below` each module version that imposed one of ``information``
        (a conflict's requirements), except the rejected ``candidate``. A provider's
        conflict names every module version that requires it, again at every rejection:
        a version already read below is passed over by identity, not compared again."""
        done = self._parties_done
        for info in information:
            parent = info.parent
            if parent is None or parent is candidate or done.get(id(parent)) is parent:
                continue
            if isinstance(parent, ModuleCandidate) and parent != candidate:
                self.read_ahead_below(parent)
                done[id(parent)] = parent  # holds it: its id is never reused meanwhile

    def read_ahead_below(self, cand: ModuleCandidate) -> None:
        """``cand`` is party to a conflict: the search may go back over its call next, or
        over the other party's. Read the next :data:`.readahead.CONFLICT` older versions of
        its call ahead of need, once per version, so that whichever call the search (or
        the after-solve pass) goes back over finds its metadata already there, fetched in
        parallel with the other's (issue #13). Uses only listings already known."""
        key = (cand.call_path, cand.version_text)
        if key in self._ahead_done or cand.version is None:
            return
        self._ahead_done.add(key)
        req = self.ctx.calls.get(cand.call_path)
        listed = self.ctx.listed(req) if req is not None else None
        if not listed or req is None:
            return
        dead = self.pruned.get(cand.call_path, ())
        older = [c for c in listed if c.version is not None and c.version.compare(cand.version) < 0
                 and c.version_text not in dead and req.is_satisfied_by(c)]
        for c in older[:readahead.CONFLICT]:
            self.ctx.prefetch_tree(c)

    def reading_ahead(self, usable: Iterable[ModuleCandidate], rejected: int) -> Iterator[ModuleCandidate]:
        """``usable`` in order, each candidate's metadata read ahead of need, in parallel,
        as far as :func:`.readahead.window` says (``rejected``: versions of this call already
        given up; under a fetch budget, read-ahead spends that budget, at once with
        :attr:`spend_budget_at_once`). ``usable`` is drawn only as far as the window reaches."""
        source = iter(usable)
        taken: list[ModuleCandidate] = []
        n = 0
        while True:
            ahead = readahead.window(n + rejected, self.ctx.fetch_budget, self.spend_budget_at_once)
            taken.extend(itertools.islice(source, max(0, n + ahead - len(taken))))
            if n >= len(taken):
                return
            for nxt in taken[n:n + ahead]:
                self.ctx.prefetch_tree(nxt)
            yield taken[n]
            n += 1

    # ------------------------------------------------------------------ a module version's requirements

    def dependencies(self, candidate: ModuleCandidate) -> list:
        """What ``candidate`` requires: its module's calls, providers and ``required_version``
        (:func:`requirements_of_tree`), its package pin with ``-module-versions=shared``; or
        one :class:`Unusable` marker when the policy denies it, the release cooldown holds
        it back, its contents do not load, it calls a source the policy refuses or a module
        the registry does not have.

        Raises:
            ConfigurationError: a call cycle (:func:`check_remote_cycle`).
            TofuSolveError: the package cannot be had, cited at the call's source line.
        """
        denied = self._denied(candidate)
        if denied is not None:
            return denied
        if isinstance(candidate.source, RegistrySource):
            # a registry's published_at tells the age before anything is fetched
            young = self._cooldown(candidate, final=False)
            if young is not None:
                return young
        try:
            tree = self.ctx.tree(candidate)
        except TofuSolveError as e:  # the package cannot be had (unreachable, endless redirects...):
            call = self.ctx.calls.get(candidate.call_path)  # cited at the call's source line (issue #34)
            raise e.at(cited_source(call) if call is not None else None) from None
        young = self._cooldown(candidate)  # a commit's or manifest's date, known once fetched
        if young is not None:
            return young
        if isinstance(tree, ConfigurationError):
            if tree.where is not None:  # inside the package
                return [Unusable(candidate.call_path, candidate.version_text,
                                 of_unloadable(tree.summary, tree.detail, tree.where))]
            call = self.ctx.calls.get(candidate.call_path)  # about the package as a whole: cite the call
            at = call.call.where if call is not None else None
            return [Unusable(candidate.call_path, candidate.version_text,
                             of_unloadable(tree.summary, tree.detail, None, at))]
        pkg_display = display_package(candidate.source)
        deps = requirements_of_tree(tree, candidate.call_path, candidate.version_text, pkg_display, self.ctx)
        self.ctx.note_calls(deps)
        for d in deps:
            if isinstance(d, ModuleRequirement):
                check_remote_cycle(d, self.ctx.calls)
        if self.ctx.options.shared:
            deps.append(PackagePin(candidate.package, candidate.available.label,
                                   Origin(candidate.call_path, candidate.version_text, None, pkg_display)))
        listed = []
        for d in deps:
            try:
                if isinstance(d, ModuleRequirement) and self.ctx.locked_candidate(d) is None:
                    self.ctx.prefetch_available(d)
                    listed.append(d)
                elif isinstance(d, ProviderRequirement):
                    self.ctx.prefetch_provider(d.address)
            except TofuSolveError:
                pass
        refused = self._refused_call(candidate, deps)
        if refused is not None:
            return refused
        missing = self._missing_call(listed)
        if missing is not None:
            d, gone = missing
            return [Unusable(candidate.call_path, candidate.version_text, KeptOut(
                Why.MISSING_CALL, f'it calls module "{d.call.name}" ({display_package(d.call.source)}), which '
                f"cannot be found: {gone.detail}", where=d.call.where))]
        return self._all_refused_call(candidate, listed) or deps

    def _all_refused_call(self, candidate: ModuleCandidate, calls: list[ModuleRequirement]) -> list | None:
        """An :class:`Unusable` marker when ``candidate`` calls a module every version of
        which its constraint admits is refused (by a ``module_policy``, which judges each
        version for the call it would serve, or by its registry's revocation; issue #62), so
        that the search passes this version over at once instead of trying each below it;
        None otherwise, and when no ``*.policy.hcl`` rule is in force (a ``deny`` block's
        package-wide verdict is met by the search as it is)."""
        policy = self.ctx.options.policy
        if policy is None or not policy.hcl_rules:
            return None
        for d in calls:
            try:
                cands = [c for c in self.ctx.module_candidates(d) if d.is_satisfied_by(c)]
            except TofuSolveError:
                continue
            refusals = [self.ctx.lock_denial(c) for c in cands]
            if cands and all(r is not None for r in refusals):
                first = refusals[0]
                assert first is not None
                return [Unusable(candidate.call_path, candidate.version_text, KeptOut(
                    Why.REFUSED_CALL, f'it calls module "{d.call.name}" ({display_package(d.call.source)}), every '
                    f"version of which its constraint admits is refused: {first.refusal()}", first.heading(),
                    d.call.where))]
        return None

    # ------------------------------------------------------------------ the policy's and the cooldown's verdicts

    def denied_rule(self, candidate: ModuleCandidate) -> Refusal | None:
        """The policy rule that denies ``candidate``'s version of its package (issue #39), or
        its registry's revocation; else None. The search's one denial check
        (:meth:`.Context.lock_denial`); it answers and records nothing: what was kept out
        is recorded once, after the search, by :func:`.verdicts.kept_out`."""
        return self.ctx.lock_denial(candidate)

    def _denied(self, candidate: ModuleCandidate) -> list | None:
        """An :class:`Unusable` marker when the policy denies ``candidate``, citing the rule."""
        rule = self.denied_rule(candidate)
        if rule is None:
            return None
        return [Unusable(candidate.call_path, candidate.version_text, of_refusal(rule))]

    def _refused_call(self, candidate: ModuleCandidate, deps: list) -> list | None:
        """An :class:`Unusable` marker when ``candidate`` calls a source the policy refuses
        (another version of it may not), citing the call and the pattern; else None."""
        policy = self.ctx.options.policy
        if policy is None:
            return None
        for d in deps:
            if isinstance(d, ModuleRequirement):
                refusal = policy.source_refusal(d.call.source)
                if refusal is not None:
                    return [Unusable(candidate.call_path, candidate.version_text, of_refused_source(
                        d.call.name, refusal[1], policy.refusal_words(refusal[0]), d.call.where))]
        return None

    def _cooldown(self, candidate: ModuleCandidate, final: bool = True) -> list | None:
        """An :class:`Unusable` marker when the release cooldown keeps ``candidate`` out
        (:meth:`_too_young`), citing the call's version constraint; else None."""
        held = self._too_young(candidate, final)
        if held is None:
            return None
        call = self.ctx.calls.get(candidate.call_path)
        at = (call.call.version_where or call.call.where) if call is not None else None
        return [Unusable(candidate.call_path, candidate.version_text,
                         of_held_back(held, self.ctx.cooldown.label, f"{format_age(held.age)} ago", at))]

    def provider_denial(self, address: str, version: gvs.Version) -> Refusal | None:
        """The policy rule that denies ``version`` of the provider, or None
        (:func:`~.locks.policy_denial`; recorded by :func:`.verdicts.kept_out`, not here)."""
        return policy_denial(self.ctx.options.policy, Kind.PROVIDER, address, version)

    def _too_young(self, cand: ModuleCandidate, final: bool = True) -> HeldBack | None:
        """``cand`` as held back when the release cooldown keeps it out
        (:meth:`.cooldown.Cooldown.module`), its release time asked of its source only when
        needed."""
        ctx = self.ctx
        held = ctx.cooldown.module(cand, ctx.calls.get(cand.call_path), lambda: ctx.index.release_time(cand), final)
        ctx.stats.release_time_unknown = ctx.cooldown.unknown
        return held

    def provider_too_young(self, address: ProviderAddress, version: str,
                           constraints: Iterable[ProviderConstraint]) -> HeldBack | None:
        """As :meth:`_too_young`, for a provider version (the registry's ``published_at``);
        an exact pin among ``constraints`` exempts it."""
        client = self.ctx.client
        if client is None:
            return None
        return self.ctx.cooldown.provider(str(address), version, constraints,
                                          lambda: client.lifecycle.release_times("provider", str(address)).get(version))

    def _missing_call(self, calls: list[ModuleRequirement]) -> tuple[ModuleRequirement, ModuleNotFound] | None:
        """The first of ``calls`` (whose listings are being read in parallel) whose source
        the registry definitely does not have (404), with that error; None when all exist
        or only fail otherwise (network failures stay errors, raised where the listing is
        needed). Such a candidate is passed over like one whose constraints clash."""
        for d in calls:
            try:
                self.ctx.available(d)
            except ModuleNotFound as e:
                return d, e
            except TofuSolveError:
                continue
        return None


__all__ = [
    "MAX_CALL_DEPTH",
    "NO_REQUIREMENTS",
    "CandidateFactory",
    "ModuleOrder",
    "Summary",
    "check_remote_cycle",
    "cited_source",
    "display_package",
    "module_identity",
    "position",
    "requirements_of_tree",
]
