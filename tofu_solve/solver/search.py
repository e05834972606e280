"""resolvelib's search, in time that grows with the tree, not with its square.

resolvelib's ``Resolution.resolve`` starts every round by asking, for every criterion,
whether the current pin still satisfies all of its requirements
(``_is_current_pin_satisfying``), and after every successful pin asks again for every
criterion that was satisfied. It then hands every unsatisfied identifier to the provider to
choose from. On a tree of 1,050 calls that is about 1.8 million pin checks and half a million
preference keys for one solve (issue #23): every round costs time in proportion to the
tree, and there is a round per selected call.

:class:`Search` runs the same search and keeps, from round to round, what cannot have
changed:

- **Which identifiers are unsatisfied.** Whether a pin satisfies its criterion depends only
  on the criterion (resolvelib builds a new ``Criterion`` whenever its requirements change,
  and never changes one in place) and the pin. A successful round changes the pin of the
  identifier it pinned and the criteria of the dependencies of the candidate it pinned,
  nothing else; only those are checked again. After a step back (states popped and patched)
  or when resolvelib strips information from every criterion, the set is computed afresh,
  as resolvelib does.
- **A requirement already checked.** A criterion that only gained requirements since its
  pin was last found to satisfy it has only the new ones checked (resolvelib appends to a
  copy of the list; the old list must be a prefix of the new one, object for object).
- **The pins in a plain dict.** resolvelib copies the pins every round, as an
  ``OrderedDict``; a ``dict`` keeps the same order and pops its last entry the same way,
  and copies in a fraction of the time.
- **The criteria a pin leaves alone.** resolvelib copies every criterion to add a
  candidate's dependencies, then copies them all back into the state; :class:`_Changes`
  holds only the changed ones over the state's, and the state takes only those.
- **What a provider's criterion asks.** A provider (OpenTofu provider) gains a requirement
  per module version that requires it; resolvelib hands the candidate provider all of them
  at every add. The search tells the candidate provider which criterion each new requirement
  extends (``adding_requirement``/``added_requirement``, when it has them), so that it can
  keep what the criterion asks and extend it by the one requirement.
- **The order of choice.** The provider's narrowing (:meth:`~.resolvelib_provider.TofuSolveProvider.search_order`)
  prefers identifiers named by the last conflict, then the least ``search_order`` key, a
  total order: a heap of unsatisfied identifiers by that key gives the same choice as a scan.

Everything else is resolvelib's own code, called as its loop calls it: pinning
(``_attempt_to_pin_criterion``), backjumping with optimistic backjumping and its rollback,
patching criteria, removing information, the reporter's calls, ``ResolutionImpossible`` and
``ResolutionTooDeep``. The rounds, the candidates tried, the backtracks and the results are
those of resolvelib's loop (``tests/solver/test_search.py`` compares event by event). The
loop names resolvelib's private members, whose shape is the same in every release that
``pyproject.toml`` admits (``resolvelib>=1.2.1,<1.3``; 1.2.0's own backjump fails with an
``IndexError`` on some impossible roots); every one of them, methods and attributes alike,
is checked when this module is imported, and when one is missing, or the provider has no
``search_order``, :class:`Search` is resolvelib's own ``Resolver``, unchanged. The solver tests run on both paths
(``pytest --resolvelib-loop=resolvelib`` forces resolvelib's own).
"""

from __future__ import annotations

import heapq
import operator
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, cast

from resolvelib import AbstractProvider, BaseReporter, Resolver
from resolvelib.resolvers import Criterion, Result
from resolvelib.resolvers import resolution as _resolution
from resolvelib.resolvers.exceptions import (
    RequirementsConflicted,
    ResolutionImpossible,
    ResolutionTooDeep,
)
from resolvelib.structs import State

from .._lazy import load

if TYPE_CHECKING:
    from .model import Candidate, Identity, Requirement

# Every private member of resolvelib's that the loop reads or calls: methods of
# ``Resolution``, the attributes its ``__init__`` sets, the fields of its ``State`` and
# ``Criterion`` values, and the module's ``_build_result``. ``pyproject.toml`` admits only
# the releases the loop is tested against (``resolvelib>=1.2.1,<1.3``); should one of these
# be missing all the same, :class:`Search` is resolvelib's own ``Resolver`` (``tests/solver/test_search.py`` runs both).
_USED = ("_push_new_state", "_add_to_criteria", "_get_updated_criteria", "_attempt_to_pin_criterion",
         "_backjump", "_extract_causes", "_remove_information_from_criteria", "_rollback_states",
         "_is_current_pin_satisfying")
_USED_ATTRIBUTES = ("_p", "_r", "_states", "_save_states", "_optimistic_backjumping_ratio")
_STATE_FIELDS = ("mapping", "criteria", "backtrack_causes")
_CRITERION_MEMBERS = ("information", "iter_requirement", "incompatibilities")


def _has_members() -> bool:
    """Whether this resolvelib has every private member the loop uses, attributes too (a
    probe ``Resolution`` is built to see them: its ``__init__`` only stores)."""
    load("resolvelib.structs")
    from resolvelib.structs import IteratorMapping  # noqa: F401  (the loop's _Changes goes through it)

    if not all(hasattr(_resolution.Resolution, m) for m in _USED) or not hasattr(_resolution, "_build_result"):
        return False
    if not isinstance(getattr(_resolution.Resolution, "state", None), property):
        return False
    criterion: Any = getattr(_resolution, "Criterion", None)
    try:
        probe_criterion = criterion([], [], [])  # public fields, set by __init__
    except Exception:
        return False
    if not all(hasattr(probe_criterion, m) for m in _CRITERION_MEMBERS):
        return False
    if not all(f in getattr(State, "_fields", ()) for f in _STATE_FIELDS):
        return False
    try:
        probe: Any = _resolution.Resolution(cast(Any, None), cast(Any, None))
    except Exception:
        return False
    return all(hasattr(probe, a) for a in _USED_ATTRIBUTES)


_HAS_MEMBERS = _has_members()


class _Unsatisfied:
    """The unsatisfied identifiers of one state, with a heap by the provider's order key
    (lazy deletion: an entry whose identifier is no longer in ``names`` is dropped when met)."""

    __slots__ = ("heap", "names", "order")

    def __init__(self, names: set[Identity], order: Callable[[Identity], Any]) -> None:
        self.names = names
        self.order = order
        self.heap = [(order(n), n) for n in names]
        heapq.heapify(self.heap)

    def add(self, name: Identity) -> None:
        if name not in self.names:
            self.names.add(name)
            heapq.heappush(self.heap, (self.order(name), name))

    def first(self) -> Identity:
        heap, names = self.heap, self.names
        while heap[0][1] not in names:
            heapq.heappop(heap)
        return heap[0][1]


class _Changes(dict):
    """The criteria as a candidate's dependencies change them: a ``dict`` of the changed
    criteria that answers the others from ``base`` (left as it is). What resolvelib does
    with it: ``get``, ``[]``, ``in`` while adding (through ``IteratorMapping``), then
    ``state.criteria.update(changes)``, which copies only the changed ones, in the order
    they were added (as from a full copy: a criterion already there keeps its place)."""

    __slots__ = ("base",)

    def __init__(self, base: dict) -> None:
        super().__init__()
        self.base = base

    def __missing__(self, key: Identity) -> Criterion:
        return self.base[key]

    def get(self, key: Any, default: Any = None) -> Any:
        if dict.__contains__(self, key):
            return dict.__getitem__(self, key)
        return self.base.get(key, default)

    def __contains__(self, key: object) -> bool:
        return dict.__contains__(self, key) or key in self.base

    def __bool__(self) -> bool:
        return bool(self.base) or dict.__len__(self) > 0


class _IncrementalResolution(_resolution.Resolution):
    """resolvelib's ``Resolution`` with the per-round scans kept up to date instead of
    repeated (see the module)."""

    def __init__(self, provider: AbstractProvider, reporter: BaseReporter) -> None:
        super().__init__(provider, reporter)
        # the provider's own extension of resolvelib's protocol (search_order, and
        # adding_requirement / added_requirement when it has them): see the module
        self._ext: Any = provider
        self._pin_checks: dict = {}  # identifier -> (criterion, pin, satisfied)
        self._touched: dict | None = None  # identifier -> whether its criterion existed before
        self._known: tuple | None = None  # (state, _Unsatisfied) valid for exactly that state
        self._orders: dict = {}
        # the provider is told which criterion each find_matches extends (it keeps what a
        # provider's criterion asks, instead of reading all its requirements again)
        self._announce = hasattr(provider, "adding_requirement")

    def _order(self, name: Identity) -> Any:
        key = self._orders.get(name)
        if key is None:
            key = self._orders[name] = self._ext.search_order(name)
        return key

    # --- what changed in a round ---------------------------------------------------------

    def _get_updated_criteria(self, candidate: Candidate) -> dict[Identity, Criterion]:
        # resolvelib copies every criterion to add a candidate's dependencies, then copies
        # them all back into the state: only the changed ones are held, over the state's
        self._touched = {}  # only the last call's (the candidate pinned) is used
        criteria = _Changes(self.state.criteria)
        for requirement in self._p.get_dependencies(candidate=candidate):
            self._add_to_criteria(criteria, requirement, parent=candidate)
        return criteria

    def _add_to_criteria(self, criteria: dict[Identity, Criterion], requirement: Requirement,
                         parent: Candidate | None) -> None:
        name = self._p.identify(requirement_or_candidate=requirement)
        if self._announce:
            self._ext.adding_requirement(name, criteria.get(name), requirement)
            try:
                super()._add_to_criteria(criteria, requirement, parent)
            except BaseException:
                self._ext.added_requirement(name, None)  # not made (RequirementsConflicted)
                raise
            self._ext.added_requirement(name, criteria[name])
        else:
            super()._add_to_criteria(criteria, requirement, parent)
        if self._touched is not None:
            self._touched.setdefault(name, name in self.state.criteria)

    def _is_current_pin_satisfying(self, name: Identity, criterion: Criterion) -> bool:
        pin = self.state.mapping.get(name)
        if pin is None:
            return False
        seen = self._pin_checks.get(name)
        if seen is not None and seen[1] is pin:
            old = seen[0]
            if old is criterion:
                return seen[2]
            before: Any = old.information  # lists, as resolvelib's Criterion builds them
            now: Any = criterion.information
            n = len(before)
            if len(now) > n and all(map(operator.is_, before, now[:n])):
                # only requirements were added: the old answer stands for the old ones
                satisfied = seen[2] and all(self._p.is_satisfied_by(requirement=i.requirement, candidate=pin)
                                            for i in now[n:])
                self._pin_checks[name] = (criterion, pin, satisfied)
                return satisfied
        satisfied = all(self._p.is_satisfied_by(requirement=r, candidate=pin) for r in criterion.iter_requirement())
        self._pin_checks[name] = (criterion, pin, satisfied)  # holds both: an id is never reused
        return satisfied

    def _unsatisfied(self) -> _Unsatisfied:
        state = self.state
        if self._known is not None and self._known[0] is state:
            return self._known[1]
        names = {key for key, criterion in state.criteria.items()
                 if not self._is_current_pin_satisfying(key, criterion)}
        return _Unsatisfied(names, self._order)

    def _choose(self, unsatisfied: _Unsatisfied) -> Identity:
        causes = set()
        for c in self.state.backtrack_causes:
            causes.add(self._p.identify(requirement_or_candidate=c.requirement))
            if c.parent is not None:
                causes.add(self._p.identify(requirement_or_candidate=c.parent))
        named = [n for n in causes if n in unsatisfied.names]
        if named:
            return min(named, key=self._order)
        return unsatisfied.first()

    # --- the loop ----------------------------------------------------------------------

    def resolve(self, requirements: Iterable[Requirement], max_rounds: int) -> State:
        if self._states:
            raise RuntimeError("already resolved")
        self._r.starting()
        # a plain dict for the pins, not resolvelib's OrderedDict: the same order, the same
        # last-in-first-out popitem, and a copy (one per round) fifteen times cheaper
        self._states = [State(mapping={}, criteria={}, backtrack_causes=[])]
        for r in requirements:
            try:
                self._add_to_criteria(self.state.criteria, r, parent=None)
            except RequirementsConflicted as e:
                raise ResolutionImpossible(e.criterion.information) from e
        self._push_new_state()  # the root state: a sentinel to go back to (as resolvelib)

        self._optimistic_start: int | None = None
        self._optimistic_cutoff: int | None = None
        for round_index in range(max_rounds):
            self._r.starting_round(index=round_index)
            if self._optimistic_rollback(round_index, max_rounds):
                continue
            unsatisfied = self._unsatisfied()
            if not unsatisfied.names:
                self._r.ending(state=self.state)
                return self.state
            name = self._choose(unsatisfied)
            failure_criterion = self._attempt_to_pin_criterion(name)
            if failure_criterion:
                self._go_back(failure_criterion)
            else:
                self._pinned(name, unsatisfied)
            self._r.ending_round(index=round_index, state=self.state)

        raise ResolutionTooDeep(max_rounds)

    def _optimistic_rollback(self, round_index: int, max_rounds: int) -> bool:
        """resolvelib's optimistic backjumping, as its loop runs it: whether this round
        rolled the states back instead of pinning."""
        if not (self._optimistic_backjumping_ratio and self._save_states is not None):
            return False
        if self._optimistic_start is None:
            self._optimistic_start = round_index
            self._optimistic_cutoff = int((max_rounds - round_index) * self._optimistic_backjumping_ratio)
            if self._optimistic_cutoff <= 0:
                self._rollback_states()
                return True
        elif self._optimistic_cutoff is not None and \
                round_index - self._optimistic_start >= self._optimistic_cutoff:
            self._rollback_states()
            return True
        return False

    def _go_back(self, failure_criterion: Any) -> None:
        """The pin failed: backjump over the causes (resolvelib's order and outcomes).

        Raises:
            ResolutionImpossible: nothing left to go back to.
        """
        self._known = None
        causes = self._extract_causes(failure_criterion)
        self._r.resolving_conflicts(causes=causes)
        try:
            success = self._backjump(causes)
        except ResolutionImpossible:
            if self._optimistic_backjumping_ratio and self._save_states:
                failed_optimistic_backjumping = True
            else:
                raise
        else:
            failed_optimistic_backjumping = bool(
                not success and self._optimistic_backjumping_ratio and self._save_states)
        if failed_optimistic_backjumping and self._save_states:
            self._rollback_states()
        else:
            self.state.backtrack_causes[:] = causes
            if not success:
                raise ResolutionImpossible(self.state.backtrack_causes)

    def _pinned(self, name: Any, unsatisfied: Any) -> None:
        """``name`` was pinned: drop what no longer holds and keep the unsatisfied set
        current for the next round (only a criterion the pin touched can have changed)."""
        touched, self._touched = self._touched or {}, None
        criteria = self.state.criteria
        # satisfied before the pin and not now: only a criterion that changed can be
        newly_unsatisfied = {
            key for key, existed in touched.items()
            if existed and key not in unsatisfied.names
            and not self._is_current_pin_satisfying(key, criteria[key])}
        self._remove_information_from_criteria(criteria, newly_unsatisfied)
        self._push_new_state()
        if newly_unsatisfied:
            self._known = None  # every criterion was rebuilt
            return
        state = self.state
        for key in (name, *touched):
            if self._is_current_pin_satisfying(key, state.criteria[key]):
                unsatisfied.names.discard(key)
            else:
                unsatisfied.add(key)
        self._known = (state, unsatisfied)


class Search(Resolver):
    """resolvelib's ``Resolver``: same arguments, same results, same exceptions
    (``ResolutionImpossible``, ``ResolutionTooDeep`` and whatever the provider raises).

    The provider must offer ``search_order(identifier)`` (see the module) for the
    incremental loop; without it this is resolvelib's ``Resolver``."""

    def resolve(self, requirements: Iterable[Any], max_rounds: int = 100, **kwargs: Any) -> Result:
        if not (_HAS_MEMBERS and hasattr(self.provider, "search_order")):
            return super().resolve(requirements, max_rounds=max_rounds)
        state = _IncrementalResolution(self.provider, self.reporter).resolve(requirements, max_rounds=max_rounds)
        return _resolution._build_result(state)


def incremental() -> bool:
    """Whether :class:`Search` runs its own loop with this resolvelib (False: it is
    resolvelib's ``Resolver`` as it is)."""
    return _HAS_MEMBERS


__all__ = ["Search", "incremental"]
