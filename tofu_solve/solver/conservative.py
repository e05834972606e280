"""The conservative update: the fewest locks that must move (issue #34).

Holding a lock is a constraint, and holding more locks never makes a configuration easier to
solve. So the smallest set of locks to *release* is a minimum hitting set of the *cores*:
sets of locks that admit no solution when all of them are held. :func:`minimal_release`
finds it the way implicit-hitting-set MaxSAT solvers do:

1. take a minimum hitting set ``R`` of the cores found so far (none at first: ``R`` is empty);
2. if holding every lock but ``R`` admits a solution, ``R`` is optimal (every feasible
   release hits every core, and ``R`` is the smallest that does);
3. else shrink the held set to a core (QuickXplain: the smallest part of it that still admits
   no solution, found by halving) and go back to 1.

Each question is a search of its own (``feasible``), so the number of questions is bounded
(:func:`check_budget`: fewer on larger trees, a count so that every machine gives the same
lock); past the bound the release known to work (``upper``, what a search that holds
nothing moved) is the answer. A search cut off by its round cap counts as "no
solution": a core found that way may be too large, which can only make the answer larger,
never wrong, since an answer is always one a search found feasible.
"""

from __future__ import annotations

import itertools
import logging
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from math import comb
from typing import Any, TypeVar

from .model import Identity

log = logging.getLogger(__name__)

#: A subject of the minimisation: an :class:`~.model.Identity` in the solver (issue #48 §1);
#: text in the algorithm's own tests. Both are hashable and ordered.
S = TypeVar("S", str, Identity)

MAX_CHECKS = 200  # feasibility searches one minimisation may make
MAX_COMBINATIONS = 20000  # hitting sets of one size examined exactly before a greedy answer


@dataclass
class Feasibility:
    """Whether holding a set of locks admits a solution, each held set searched at most once
    (issue #48 §4): a held set known infeasible (the held search that failed) is never
    searched again, and a solution found for one (holding nothing, or the release the
    minimisation settles on) is the answer, not searched a second and third time.

    Attributes:
        search: the search holding exactly the given subjects: its solution, or None (no
            solution within its round cap or fetch budget).
        known: held set -> its solution, or None when it admits none, answered without a
            search.
        searches: how many searches were made (the ones ``known`` answered not counted).
    """

    search: Callable[[frozenset[Identity]], Any]  # a resolvelib result, or None
    known: dict[frozenset[Identity], Any] = field(default_factory=dict)
    searches: int = 0

    def __call__(self, held: frozenset[Identity]) -> bool:
        return self.result(held) is not None

    def result(self, held: frozenset[Identity]) -> Any:
        """The solution holding ``held``, searched once."""
        if held not in self.known:
            self.searches += 1
            self.known[held] = self.search(held)
        return self.known[held]


def fewest_to_release(subjects: frozenset[Identity], feasibility: Feasibility, upper: frozenset[Identity],
                      max_checks: int = MAX_CHECKS,
                      known: Iterable[frozenset[Identity]] = ()) -> tuple[frozenset[Identity], Any]:
    """The conservative update's sequence as one function over a search (issue #48 §4): the
    fewest of ``subjects`` to release (:func:`minimal_release`) and the solution holding the
    rest, from ``feasibility``'s memo when a search already found it (None only when no
    search did: the caller searches once more). ``-upgrade=NAME``'s question and the solve's
    both go through it.

    ``feasibility.known`` should hold what is already known: ``subjects`` -> None when the
    held search failed, the empty set and ``subjects - upper`` -> the solution holding
    nothing (it keeps every lock outside ``upper``)."""
    release = minimal_release(subjects, feasibility, upper, max_checks, known)
    return release, feasibility.known.get(subjects - release)


def min_hitting_set(cores: Sequence[frozenset[S]], prefer: frozenset[S] = frozenset()) -> frozenset[S]:
    """A smallest set that meets every core (the empty set for no cores). Of equally small
    sets, the one with the most members in ``prefer``, then the first in sorted order (a
    deterministic answer). Exact while a size has at most :data:`MAX_COMBINATIONS`
    candidates; greedy (most cores met first) beyond."""
    if not cores:
        return frozenset()
    if any(not c for c in cores):
        raise ValueError("an empty core cannot be met")
    elements = sorted(set().union(*cores))
    for k in range(1, len(elements) + 1):
        if comb(len(elements), k) > MAX_COMBINATIONS:
            break
        hits = [frozenset(s) for s in itertools.combinations(elements, k)
                if all(c.intersection(s) for c in cores)]
        if hits:
            return min(hits, key=lambda s: (-len(s & prefer), sorted(s)))
    chosen: set[S] = set()
    left = list(cores)
    while left:
        best = max(elements, key=lambda e: (sum(e in c for c in left), e in prefer, e))
        chosen.add(best)
        left = [c for c in left if best not in c]
    return frozenset(chosen)


def minimal_release(subjects: frozenset[S], feasible: Callable[[frozenset[S]], bool],
                    upper: frozenset[S], max_checks: int = MAX_CHECKS,
                    known: Iterable[frozenset[S]] = ()) -> frozenset[S]:
    """The fewest of ``subjects`` to release so that holding the others admits a solution.

    Args:
        subjects: the locks that apply (:func:`~.locks.locked_subjects`).
        feasible: whether holding exactly the given subjects admits a solution (a search).
        upper: a release known to work (the subjects a solution holding nothing moved).
        max_checks: feasibility searches allowed before ``upper`` is the answer.
        known: cores known without a search (a lock whose version the dead-end pass proved
            dead cannot be held, whatever else is: a core of one).

    Returns:
        A release of the smallest size (at most ``len(upper)``).
    """
    cores: list[frozenset[S]] = [c for c in known if c and c <= subjects]
    checks = 0

    def ask(held: frozenset[S]) -> bool:
        nonlocal checks
        checks += 1
        return feasible(held)

    while True:
        release = min_hitting_set(cores, upper)
        if len(release) >= len(upper):
            return upper
        if checks >= max_checks:
            log.debug("lock minimisation stopped after %d searches: %d locks move", checks, len(upper))
            return upper
        held = subjects - release
        if ask(held):
            log.debug("lock minimisation: %d searches, %d cores, releasing %s", checks, len(cores), sorted(release))
            return release
        core = _shrink(held, ask, upper, lambda: checks < max_checks)
        if not core:  # holding nothing failed too (a round cap): keep what is known to work
            return upper
        cores.append(core)


def _shrink(held: frozenset[S], ask: Callable[[frozenset[S]], bool], upper: frozenset[S],
            budget_left: Callable[[], bool]) -> frozenset[S]:
    """A core inside ``held`` (which admits no solution), by QuickXplain (Junker, 2004): split
    the candidates in two, look for the core's part in the second half with the first held,
    then for its part in the first half with that held: O(k log(n/k)) questions for a core of
    k locks among n, where deletion asks n. The subjects a solution holding nothing kept
    (the least likely to be in the core) are split off first. Out of budget, what is left
    unsplit counts whole: still a core (holding more never helps), just not minimal."""
    order = _deletion_order(held, upper)

    def qx(background: frozenset[S], changed: bool, candidates: list[S]) -> list[S]:
        if changed and not ask(background):
            return []  # the background alone admits no solution: nothing of these is needed
        if len(candidates) <= 1 or not budget_left():
            return candidates
        half = len(candidates) // 2
        first, second = candidates[:half], candidates[half:]
        in_second = qx(background | frozenset(first), bool(first), second)
        in_first = qx(background | frozenset(in_second), bool(in_second), first)
        return in_first + in_second

    return frozenset(qx(frozenset(), False, order))


def _deletion_order(held: Iterable[S], upper: frozenset[S]) -> list[S]:
    return sorted(held, key=lambda s: (s in upper, s))


def check_budget(calls: int) -> int:
    """The feasibility searches one minimisation may ask on a tree of ``calls`` module calls:
    :data:`MAX_CHECKS`, fewer on trees so large that a search takes a good part of a second
    (at most about :data:`CALL_SEARCHES` calls searched in all), never fewer than 8. A count,
    not a time: the same lock on every machine."""
    return max(8, min(MAX_CHECKS, CALL_SEARCHES // max(1, calls)))


CALL_SEARCHES = 20000


__all__ = ["MAX_CHECKS", "Feasibility", "check_budget", "fewest_to_release", "min_hitting_set", "minimal_release"]
