"""What-if solving over the constraints the user owns: minimal clash sets and verified fixes.

When resolution is impossible, the constraints that matter to a user are the ones they can
edit: the ``version`` of a module call, a ``required_providers`` entry, a
``required_version`` in the root module or in a local module inside it. Each of those is a
:class:`Lever`. Everything else (constraints inside published module versions) changes only
by choosing another version of the call that carries it.

This module re-runs the resolver with some levers (:mod:`.levers`) relaxed or rewritten
(:mod:`tofu_solve.versions.rewrite`):

* :meth:`WhatIf.minimal_clash` shrinks a set of levers that cannot hold together to a
  minimal one (a deletion filter: a lever stays only if relaxing it makes the rest
  solvable), so the explanation names every constraint that takes part and no other;
* :meth:`WhatIf.suggestions` searches sets of levers that meet every clash found (fewest
  levers first, finding more clashes as it goes), turns each working relaxation into edits
  of the constraint strings as written, and keeps a suggestion only when solving again
  with exactly those edits succeeds.

A relaxed module call tries the versions its old constraint admitted first, then the
others nearest first (counted in releases), so that the version found is the smallest move.
Every attempt is bounded in resolution rounds and in module versions fetched; an attempt
that runs out of either counts as "unknown", never as an answer.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import logging
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from resolvelib import BaseReporter
from resolvelib.resolvers import ResolutionImpossible, ResolutionTooDeep

from ..config.tree import ModuleTree
from ..errors import TofuSolveError
from ..lockfile import LockFile
from ..solver import readahead
from ..solver.context import Context, FetchBudgetExceeded
from ..solver.fenced import fences, same_line_newer
from ..solver.kept_out import KeptOut
from ..solver.locks import nearest_first
from ..solver.model import (
    ROOT,
    Identity,
    Kind,
    ModuleCandidate,
    ModuleRequirement,
)
from ..solver.propagate import Pruning, propagate
from ..solver.reporter import Interrupted, SearchReporter
from ..solver.resolvelib_provider import TofuSolveProvider
from ..solver.search import Search
from ..versions import apparentlymart_go_versions as gvs
from ..versions.constraints import (
    module_constraint,
    module_constraint_allows,
    provider_constraint,
    provider_constraint_allows,
)
from ..versions.hashicorp_go_version import GoVersion
from ..versions.rewrite import rewrite_constraint
from .levers import Lever, levers_of, locked_as

ATTEMPT_ROUNDS = 1500  # resolution rounds one what-if attempt may take
FETCH_BUDGET = 64  # module versions all attempts together may fetch beyond those already known
FETCH_PER_ATTEMPT = 24  # ... and one attempt alone
MAX_ATTEMPTS = 60  # what-if solves per explanation
# module versions the verification of a fix's first wording (the one that keeps the style of
# the old constraint, ``~> 18.0``) may fetch when the shared budget is spent: a line walked
# back release by release costs more reads than an exact pin, and a fix is what the user reads
VERIFY_BUDGET = 48
MAX_EDITS = 3  # levers one suggestion may change
MAX_SUGGESTIONS = 4
KEEPS = {"the providers": frozenset({Kind.MODULE}), "the modules": frozenset({Kind.PROVIDER, Kind.OPENTOFU})}
"""Alternatives by what they leave untouched: name -> the lever kinds such a fix may edit."""

_ANY = ">= 0.0.0"

log = logging.getLogger(__name__)
ATTEMPT_BACKTRACKS = 100  # an attempt that goes back this often stops to look for dead ends



@dataclass
class Outcome:
    """The result of one what-if solve: ``status`` is ``"solved"``, ``"impossible"`` or
    ``"unknown"`` (a bound was reached); ``mapping`` (identifier -> candidate) when solved,
    ``causes`` (resolvelib's) when impossible."""

    status: str
    mapping: dict = field(default_factory=dict)
    causes: list = field(default_factory=list)
    pruning: Pruning | None = None


@dataclass(frozen=True)
class Edit:
    """Replace ``old`` by ``new`` on ``line`` of ``file`` (relative to the root module): the
    one edit type of the explanation and the language server (issue #71 §2). ``lever``:
    the constraint it moves, as the what-if solve knew it; None for an edit read back from
    the explanation's JSON (:meth:`from_data`), which carries what an editor applies."""

    file: str
    line: int
    old: str
    new: str
    lever: Lever | None = field(default=None, compare=False, repr=False)

    @classmethod
    def from_data(cls, data: dict) -> Edit:
        """An edit of the explanation's ``-json`` (``{file, line, old, new}``)."""
        return cls(data["file"], data["line"], data["old"], data["new"])


@dataclass
class Suggestion:
    """A verified fix: applying every edit makes the configuration solvable.

    Attributes:
        edits: the edits, in lever order.
        selected: what the verifying solve selected for each edited lever (name -> version).
        move: how far the edits move, in releases (smaller is a smaller change).
        upgrade: names to pass to ``-upgrade=`` because the lock holds them.
    """

    edits: list[Edit]
    selected: dict[str, str]
    move: int
    upgrade: list[str] = field(default_factory=list)
    caveats: list[str] = field(default_factory=list)  # what the next init would warn about (ranked lower)

    def summary(self) -> str:
        parts = [f'"{e.old}" to "{e.new}" at {e.file}:{e.line}' for e in self.edits]
        picks = ", ".join(f"{_short(n)} {v}" for n, v in self.selected.items())
        text = "change " + " and ".join(parts) + (f": {picks} would be selected" if picks else "")
        if self.upgrade:
            text += f" (then run tofu-solve init -upgrade={','.join(self.upgrade)})"
        notes = list(self.caveats) + [
            f'it changes {_short(lv.name)}\'s "{lv.text}", which you edited since the lock file was written '
            f'(it recorded "{lv.locked_as}")' for lv in self.undoes]
        if notes:
            text += f"; but {'; '.join(notes)}"
        return text + "."

    @property
    def undoes(self) -> list[Lever]:
        """The levers this fix edits that the user changed since the lock was written: a fix
        that starts by undoing what the user just did ranks after every other (issue #24)."""
        return [e.lever for e in self.edits if e.lever is not None and e.lever.locked_as is not None]

    def rank(self) -> tuple:
        """Fixes that undo the user's own edit last, then those the next init would warn
        about, then fewest edits, then smallest move."""
        return (bool(self.undoes), bool(self.caveats), len(self.edits), self.move,
                [e.line or 0 for e in self.edits])

    def as_dict(self) -> dict:
        return {"summary": self.summary(), "caveats": list(self.caveats),
                "undoes_edit": [lv.name for lv in self.undoes],
                "edits": [{"file": e.file, "line": e.line, "old": e.old, "new": e.new} for e in self.edits]}


def _short(name: str) -> str:
    return name.removeprefix("registry.opentofu.org/")


# --------------------------------------------------------------------------- the what-if resolver


def _search_relaxed(reqs: list, view: Context, nearest: dict[str, str]) -> Outcome:
    """One what-if search over ``reqs`` on ``view``: the dead ends known first (an empty
    call: impossible at once), then a search offering the relaxed calls' versions nearest
    their constraint, which stops to look for dead ends again once it keeps going back.

    Raises:
        ResolutionImpossible, ResolutionTooDeep, FetchBudgetExceeded, TofuSolveError.
    """
    pruning = propagate(reqs, view, fetch=False)
    if pruning.empty:
        return Outcome("impossible", pruning=pruning)
    pruned = {k: set(v) for k, v in pruning.dead.items()}
    looked: list[Pruning] = []

    def look_again() -> bool:
        # what the search has read since may prove a dead end now; when it
        # proves nothing new, the search goes on where it stood
        found = propagate(reqs, view, fetch=False)
        looked.append(found)
        return bool(found.empty) or {k: set(v) for k, v in found.dead.items()} != pruned

    try:
        result = Search(_nearest_first(view, nearest, pruned),
                        SearchReporter(ATTEMPT_BACKTRACKS, on_interrupt=look_again)).resolve(
            reqs, max_rounds=ATTEMPT_ROUNDS)
    except Interrupted:
        pruning = looked[0]
        if pruning.empty:
            raise ResolutionImpossible([]) from None
        pruned = {k: set(v) for k, v in pruning.dead.items()}
        result = Search(_nearest_first(view, nearest, pruned), BaseReporter()).resolve(
            reqs, max_rounds=ATTEMPT_ROUNDS)
    return Outcome("solved", mapping=dict(result.mapping))


def _nearest_first(ctx: Context, nearest: dict[str, str], pruned: dict | None = None) -> TofuSolveProvider:
    """The solver's provider, except that a relaxed module call (``nearest``: call path ->
    the version it had) tries the versions nearest that one first (:func:`nearest_order`),
    read ahead within the budget from the first candidate on (the versions the old
    constraint admitted are the ones that clashed, so a relaxed call has in effect gone
    back already); and a provider that cannot be listed (gone from its registry) rules out
    the module versions that require it, not the whole what-if (an old line of a relaxed
    call may need one). Through the provider's public hooks."""
    def order(call: ModuleRequirement) -> list[ModuleCandidate] | None:
        old = nearest.get(call.call_path)
        return None if old is None else nearest_order(ctx.module_candidates(call), old)

    provider = TofuSolveProvider(ctx, pruned, module_order=order, lenient_providers=True, spend_budget_at_once=True)
    return provider


def _line(c: ModuleCandidate) -> tuple:
    """The release line of a candidate: its major version (major.minor below 1.0, where a
    minor release may break), as a constraint like ``~> 6.0`` or ``~> 0.25.0`` selects."""
    seg = c.version.segments if c.version is not None else ()
    major = seg[0] if seg else 0
    return (major,) if major else tuple(seg[:2])


def nearest_order(cands: list[ModuleCandidate], old: str) -> list[ModuleCandidate]:
    """``cands`` (newest first) reordered for a relaxed call: those ``old`` admits first,
    newest first; then the other releases of their lines (major version; major.minor below
    1.0) by distance; then the newest and the oldest release of every other line, nearest
    line first (eks ``~> 21.0`` against a kms pin: 20.37.2, 20.0.0, 19.21.0, 19.0.0, ...),
    so that one wave of reads reaches a line that works however far it is, and a line whose
    early releases work though its newest does not (a dependency added mid-line) comes
    before a farther line (issue #24: eks 18.0.0, which calls no kms, before eks 15.x); then
    every other release by distance in releases from the nearest admitted one (newer first
    on a tie, as :func:`~tofu_solve.solver.locks.nearest_first` breaks every tie)."""
    inside = [i for i, c in enumerate(cands) if c.version is not None and module_constraint_allows(old, c.version_text)]
    if not inside:
        return cands
    lines_inside = {_line(cands[i]) for i in inside}
    newest: dict[tuple, int] = {}
    oldest: dict[tuple, int] = {}
    for i, c in enumerate(cands):
        if c.version is not None and _line(c) not in lines_inside:
            newest.setdefault(_line(c), i)  # newest first: the first seen is the line's newest
            oldest[_line(c)] = i  # and the last seen its oldest
    head_at = set(newest.values()) | set(oldest.values())
    tiers: list[list[int]] = [[], [], []]  # the rest of the admitted lines; each other line's ends; the rest
    for i, c in enumerate(cands):
        if i not in inside:
            tiers[0 if c.version is not None and _line(c) in lines_inside else 1 if i in head_at else 2].append(i)
    rank = lambda i: len(cands) - i  # noqa: E731  (ascending with the version: cands are newest first)
    out = [cands[i] for i in inside]
    for tier in tiers:  # each nearest the admitted releases first (the one "nearest", newer on a tie)
        out += [cands[i] for i in nearest_first(tier, rank, [rank(j) for j in inside])]
    return out


def _hitting_sets(parts: list[list[Lever]], size: int) -> Iterator[frozenset[int]]:
    """The sets of ``size`` lever indexes that meet every one of ``parts`` (each clash, or its
    levers of the kinds a search may edit), in index order: the one hitting-set enumeration
    both searches of :class:`WhatIf` walk, fewest edits first."""
    universe = sorted({lv.index for p in parts for lv in p})
    for combo in itertools.combinations(universe, size):
        hs = frozenset(combo)
        if all(hs & {lv.index for lv in p} for p in parts):
            yield hs


class WhatIf:
    """Re-solve the root with some of its levers relaxed or rewritten.

    Args:
        ctx: the solve's context (its caches are shared; its locks are not changed).
        root_reqs: the root requirements as built for the failed solve.
        root: the root module directory (to find the line that holds each constraint).
    """

    def __init__(self, ctx: Context, root_reqs: list, root: Path | None):
        self.ctx = ctx
        self.reqs = root_reqs
        self.levers = [dataclasses.replace(lv, locked_as=locked_as(lv, ctx.recorded_locks))
                       for lv in levers_of(root_reqs, root)]
        self.attempts = 0
        self.budget = FETCH_BUDGET
        self.exhausted = False  # a bound was reached at least once
        self._seen: dict[tuple, Outcome] = {}
        self.unusable: dict[Identity, dict[str, KeptOut]] = {}  # an UNUSABLE identity -> version -> why

    # ------------------------------------------------------------------ one attempt

    def attempt(self, relaxed: frozenset = frozenset(), changed: dict | None = None, unlock: bool = False,
                again: bool = False, allowance: int = 0) -> Outcome:
        """Solve with the levers in ``relaxed`` (indexes) free and those in ``changed``
        (index -> constraint text) rewritten; ``unlock``: as with ``-upgrade`` (no lock
        holds any version); ``again``: a second try of an attempt that ran out of its
        per-attempt fetch budget, with all the budget left (what the first try fetched is
        known by then), or ``allowance`` when that is more. Memoized."""
        changed = changed or {}
        key = (relaxed, tuple(sorted(changed.items())), unlock, again)
        if key in self._seen:
            return self._seen[key]
        if self.attempts >= MAX_ATTEMPTS:
            self.exhausted = True
            return Outcome("unknown")
        self.attempts += 1
        t0 = time.monotonic()
        ctx = self.ctx
        reqs, nearest, locks = self._relaxed(relaxed, changed, unlock)
        budget = max(self.budget, allowance) if again else min(self.budget, FETCH_PER_ATTEMPT)
        view = ctx.view(locks=locks, fetch_budget=budget, likely_provider=ctx.likely_provider, own_calls=True)
        try:
            out = _search_relaxed(reqs, view, nearest)
        except ResolutionImpossible as e:
            out = Outcome("impossible", causes=list(e.causes))
        except (ResolutionTooDeep, FetchBudgetExceeded):
            self.exhausted = True
            out = Outcome("unknown")
        except TofuSolveError as e:
            log.debug("what-if attempt unknown: %s: %s: %s", type(e).__name__, e.summary, e.detail[:200])
            out = Outcome("unknown")
        finally:
            self.budget = max(0, self.budget - (budget - (view.fetch_budget or 0)))
        self._seen[key] = out
        log.debug("what-if #%d: relaxed=%s changed=%s -> %s (%.2f s, budget %d)", self.attempts, sorted(relaxed),
                  changed, out.status, time.monotonic() - t0, self.budget)
        return out

    def _relaxed(self, relaxed: frozenset, changed: dict, unlock: bool) -> tuple[list, dict[str, str], LockFile]:
        """The root requirements with the levers in ``relaxed`` free and those in ``changed``
        rewritten, the module calls relaxed (name -> its constraint, whose versions come
        nearest first), and the locks (none with ``unlock``; a changed lever's lock dropped)."""
        by_index = {lv.index: lv for lv in self.levers}
        reqs, nearest = [], {}
        locks = LockFile() if unlock else LockFile(dict(self.ctx.locks.providers), dict(self.ctx.locks.modules))
        for i, r in enumerate(self.reqs):
            lv = by_index.get(i)
            if lv is None or (i not in relaxed and i not in changed):
                reqs.append(r)
                continue
            new = changed.get(i)
            if lv.kind is Kind.MODULE:
                text = new if new is not None else _ANY
                if new is None:
                    nearest[lv.name] = lv.text
                call = dataclasses.replace(r.call, version=module_constraint(text))
                reqs.append(dataclasses.replace(r, call=call))
                locks.modules.pop(lv.name, None)
            elif lv.kind is Kind.PROVIDER:
                pc = provider_constraint(new) if new is not None else None
                reqs.append(dataclasses.replace(r, constraint=pc, text=new or ""))
                locks.providers.pop(lv.name, None)
            elif new is not None:
                reqs.append(dataclasses.replace(r, constraint=module_constraint(new), text=new))
        return reqs, nearest, locks

    # ------------------------------------------------------------------ clashes

    def held_by_lock(self) -> list[str] | None:
        """When the lock makes the configuration impossible but ``-upgrade`` would solve it:
        the locked module calls and providers the unlocked solution moves (for
        ``-upgrade=``). None otherwise."""
        if self.ctx.options.upgrade or not (self.ctx.locks.modules or self.ctx.locks.providers):
            return None
        out = self.attempt(unlock=True)
        if out.status != "solved":
            return None
        moved = []
        for path, lock in self.ctx.locks.modules.items():
            req = self.ctx.calls.get(path)
            if req is None or self.ctx.locked_candidate(req) is None:
                continue  # the lock does not hold this call now (its constraint was edited)
            c = out.mapping.get(Identity.module(path))
            if c is not None and c.version_text != lock.version:
                moved.append(path)
        for addr, plock in self.ctx.locks.providers.items():
            c = out.mapping.get(Identity.provider(addr))
            if c is not None and str(c.version) != plock.version:
                moved.append(self.ctx.options.target.product.short(addr))
        return moved or None

    def minimal_clash(self, among: list[Lever], also_relaxed: frozenset = frozenset()) -> list[Lever] | None:
        """A minimal subset of ``among`` that cannot hold together while every other lever is
        relaxed (``also_relaxed`` always is). None when even all of ``among`` together are
        solvable or a bound was reached before that was known."""
        everything = frozenset(lv.index for lv in self.levers)
        keep = list(among)
        first = self.attempt(everything - {lv.index for lv in keep} | also_relaxed)
        if first.status != "impossible":
            return None
        for lv in list(among):
            trial = [k for k in keep if k is not lv]
            out = self.attempt(everything - {k.index for k in trial} | also_relaxed)
            if out.status == "impossible":
                keep = trial
        return keep


    # ------------------------------------------------------------------ suggestions

    def suggestions(self, clashes: list[list[Lever]]) -> tuple[list[Suggestion], list[list[Lever]]]:
        """Verified suggestions, fewest edits then smallest move first, and every clash
        found on the way (``clashes`` grows when relaxing a set of levers reveals another)."""
        clashes = [c for c in clashes if c]
        found: list[tuple[frozenset, Outcome]] = []
        tried: set[frozenset] = set()
        size = 1
        first_size = None  # the fewest edits that work; one size more is still looked at
        while size <= MAX_EDITS and len(found) < MAX_SUGGESTIONS and (first_size is None or size <= first_size + 1):
            progress = True
            while progress:
                progress = False
                for hs in _hitting_sets(clashes, size):
                    if hs in tried:
                        continue
                    tried.add(hs)
                    if any(prev <= hs for prev, _ in found):
                        continue  # a working subset exists: this set is not a smaller move
                    out = self.attempt(hs)
                    if out.status == "solved":
                        found.append((hs, out))
                        first_size = first_size or size
                    elif out.status == "impossible":
                        more = self._another_clash(hs, clashes)
                        if more is not None:
                            clashes.append(more)
                            progress = True
                            break
                    if self.exhausted and self.attempts >= MAX_ATTEMPTS:
                        break
            size += 1
        verified = []
        for hs, out in found:
            s = self._verify(hs, out)
            if s is not None:
                verified.append(s)
        verified.sort(key=Suggestion.rank)
        return verified[:MAX_SUGGESTIONS], clashes

    def _another_clash(self, relaxed: frozenset, clashes: list[list[Lever]]) -> list[Lever] | None:
        """A minimal clash among the levers outside ``relaxed`` (which did not solve) that is
        not one of ``clashes`` yet, or None."""
        more = self.minimal_clash([lv for lv in self.levers if lv.index not in relaxed], relaxed)
        if more and all({lv.index for lv in more} != {lv.index for lv in c} for c in clashes):
            return more
        return None

    def keeping(self, kinds: frozenset, clashes: list[list[Lever]], found: list[Suggestion]) -> Suggestion | None:
        """The best verified suggestion that edits only levers of ``kinds`` (``{Kind.MODULE}``:
        it keeps the providers and OpenTofu; ``{Kind.PROVIDER, Kind.OPENTOFU}``: it keeps the
        modules), or None (issue #24: alternatives by what they keep). One of ``found``
        when it qualifies; else a search like :meth:`suggestions` over those levers only,
        fewest edits then smallest move, each relaxed call walking from the nearest line of
        its old constraint, and every clash met on the way taken into account. Shares the
        what-if bounds with the rest of the explanation."""
        for s in found:
            if all(e.lever is not None and e.lever.kind in kinds for e in s.edits):
                return s
        parts = [[lv for lv in c if lv.kind in kinds] for c in clashes if c]
        best: Suggestion | None = None
        size = 1
        while size <= MAX_EDITS and best is None:
            if not parts or any(not p for p in parts):
                return None  # a clash among the other kind alone: nothing of this kind resolves it
            restart = False
            for hs in _hitting_sets(parts, size):
                out = self.attempt(hs)
                if out.status == "unknown" and self.budget > 0 and self.attempts < MAX_ATTEMPTS:
                    # moving several calls to older lines walks further than one attempt may
                    # fetch on a cold cache: try once more with what the first try learned
                    out = self.attempt(hs, again=True)
                if out.status == "solved":
                    verified = self._verify(hs, out)
                    if verified is not None and (best is None or (bool(verified.undoes), bool(verified.caveats),
                                                                  verified.move) <
                                                 (bool(best.undoes), bool(best.caveats), best.move)):
                        best = verified
                elif out.status == "impossible":
                    more = self._another_clash(hs, clashes)
                    if more is not None:
                        clashes.append(more)
                        parts.append([lv for lv in more if lv.kind in kinds])
                        restart = True
                        break
                if self.exhausted and self.attempts >= MAX_ATTEMPTS:
                    return best
            if not restart:
                size += 1
        return best

    def _verify(self, hs: frozenset, out: Outcome) -> Suggestion | None:
        """Edits for a working relaxation, checked by solving again with exactly them."""
        levers = [lv for lv in self.levers if lv.index in hs]
        options = []
        for lv in levers:
            picked = self._picked(lv, out.mapping)
            if picked is None:
                return None
            allows = module_constraint_allows if lv.kind in (Kind.MODULE, Kind.OPENTOFU) else provider_constraint_allows

            def admits(text: str, version: object, allows: Callable[[str, str], bool] = allows) -> bool:
                return allows(text, str(version))
            texts = [t for t in rewrite_constraint(lv.text, picked, admits) if t != lv.text]
            options.append((lv, picked, texts[:3]))
        for n, combo in enumerate(itertools.product(*[[(lv, p, t) for t in texts] for lv, p, texts in options])):
            changed = {lv.index: t for lv, _, t in combo}
            if n == 0:
                # the first wording (the old constraint's style) walks its line back release
                # by release when the newest fails: read those releases at once, and give it a
                # read allowance of its own
                self._read_ahead_newer(combo)
                check = self.attempt(frozenset(), changed, again=True, allowance=VERIFY_BUDGET)
            else:
                check = self.attempt(frozenset(), changed)
                if check.status == "unknown" and self.attempts < MAX_ATTEMPTS and self.budget > 0:
                    # may take more reads than one attempt allows on a cold cache: once more
                    # with what it learned
                    check = self.attempt(frozenset(), changed, again=True)
            if check.status != "solved":
                continue
            edits = [Edit(lv.file or "?", lv.line or 0, lv.text, t, lv) for lv, _, t in combo]
            selected = {}
            move = 0
            # no -upgrade= to add: an edited constraint lands in one tofu-solve init, which moves
            # whatever locks the edit requires (issue #34)
            upgrade: list[str] = []
            for lv, _, _ in combo:
                v = self._picked(lv, check.mapping)
                if v is not None and lv.kind is not Kind.OPENTOFU:
                    selected[lv.name] = str(v)
                    move += self._move(lv, v)
            caveats = [note for lv, _, _ in combo if lv.kind is Kind.MODULE
                       for note in [self._fenced_off(lv, check.mapping)] if note]
            return Suggestion(edits, selected, move, upgrade, caveats)
        return None

    def _read_ahead_newer(self, combo) -> None:
        """Before the first wording of a fix is verified: the releases of each relaxed call
        that the new constraint admits above the version the fix picked are what the
        verifying solve walks back over (``~> 18.0`` from 18.31.2 down to the release that
        works); read the newest :data:`~tofu_solve.solver.readahead.VERIFY` of them in one parallel wave, where
        the walk starts, rather than one read-ahead window after another."""
        for lv, picked, text in combo:
            if lv.kind is not Kind.MODULE:
                continue
            r = self.reqs[lv.index]
            if self.ctx.listed(r) is None:
                continue  # never listed this run: nothing to read ahead without the network
            try:
                admitted = self.ctx.module_candidates(
                    dataclasses.replace(r, call=dataclasses.replace(r.call, version=module_constraint(text))))
            except TofuSolveError:
                continue
            newer = [c for c in admitted if c.version is not None and c.version.compare(picked) > 0]
            for c in newer[:readahead.VERIFY]:  # newest first, as the verifying solve walks
                self.ctx.prefetch_tree(c)

    def _fenced_off(self, lv: Lever, mapping: dict) -> str | None:
        """When the version a fix selects for ``lv``'s call is fenced off by its own line
        (a newer release of the same major.minor excludes a provider version the fix
        selects), what the next init would warn: such a fix ranks lower (issue #24). Only
        metadata already read; never fetches."""
        c = mapping.get(Identity.module(lv.name))
        if c is None or c.version is None:
            return None
        try:
            avail = self.ctx.available(self.reqs[lv.index])
        except TofuSolveError:
            return None
        newer = same_line_newer(c.version, ((a.version, a) for a in avail if a.version is not None))

        def known_tree(a) -> ModuleTree | None:
            tree = self.ctx.known_tree(ModuleCandidate(c.call_path, c.source, a, c.package))
            return tree if isinstance(tree, ModuleTree) else None

        def chosen(address: str):
            picked = mapping.get(Identity.provider(address))
            return picked.version if picked is not None else None
        for a, r, version in fences(((a, known_tree(a)) for a in newer), chosen):
            return (f"{lv.name} {c.version_text} is fenced off by its own line ({a.label} requires "
                    f'{r.address.for_display} "{r.constraint.text if r.constraint else ""}", which excludes {version})')
        return None

    def _picked(self, lv: Lever, mapping: dict):
        if lv.kind is Kind.MODULE:
            c = mapping.get(Identity.module(lv.name))
            return c.version if c is not None and c.version is not None else None
        if lv.kind is Kind.PROVIDER:
            c = mapping.get(Identity.provider(lv.name))
            return c.version if c is not None else None
        return self.ctx.options.target.version

    def _move(self, lv: Lever, version) -> int:
        """Releases between ``version`` and the nearest release the old constraint admits."""
        try:
            if lv.kind is Kind.MODULE:
                req = self.reqs[lv.index]
                labels = sorted((a.version for a in self.ctx.available(req) if a.version is not None),
                                key=functools.cmp_to_key(GoVersion.compare))
                texts = [v.string for v in labels]
                inside = [i for i, t in enumerate(texts) if module_constraint_allows(lv.text, t)]
                at = texts.index(str(version)) if str(version) in texts else None
            else:
                versions = self.ctx.provider_versions(self.reqs[lv.index].address)
                texts = [str(v) for v in versions]
                inside = [i for i, t in enumerate(texts) if provider_constraint_allows(lv.text, t)]
                at = texts.index(str(version)) if str(version) in texts else None
        except TofuSolveError:
            return 0
        if at is None or not inside:
            return 0
        return min(abs(at - i) for i in inside)


__all__ = [
    "ROOT",
    "Edit",
    "Lever",
    "Outcome",
    "Suggestion",
    "WhatIf",
    "gvs",
    "levers_of",
    "nearest_order",
    "rewrite_constraint",
]
