"""How far ahead of need the solver reads module versions: the one read-ahead policy.

Reading a version's metadata means fetching its package (a shallow git fetch, an archive, an
OCI blob): round trips far more than bytes. Reading ahead overlaps them; reading too far
ahead fetches in vain. Every window the solver and its explanations open is decided here
(uv keeps the same decision in one ``should_prefetch``, ``batch_prefetch.rs``):

* a call's own candidates as the search walks back over them (:func:`window`);
* the older versions of each module call party to a conflict (:data:`CONFLICT`);
* a version's nested calls, read before the search asks (:data:`NESTED`);
* the newer versions a verified suggestion is checked against (:data:`VERIFY`).
"""

from __future__ import annotations

MAX_WINDOW = 32  # candidate versions of one call read ahead of need when the search goes back
FIRST_WINDOW = 16  # the window once a call goes back: most walks end within it
BUDGET_RESERVE = 8  # of a what-if attempt's fetch budget, kept for the calls of the versions read ahead
CONFLICT = 4  # older versions of each module call party to a conflict read ahead
NESTED = 16  # distinct (source, constraint) of a version's nested calls read ahead of the search
VERIFY = 16  # newer versions a suggestion is verified against, read at once before that solve


def window(back: int, budget: int | None, spend_budget_at_once: bool) -> int:
    """How many of a call's candidates to have in flight, from the one offered now.

    Args:
        back: versions of this call already tried and given up in this search.
        budget: module versions the search may still fetch (None: no limit).
        spend_budget_at_once: a what-if solve, where a call that goes back usually walks
            until the budget is spent: spend it in one parallel wave, not several.

    Returns:
        1 before the search goes back over the call (the newest usually works: nothing is
        fetched in vain); then :data:`FIRST_WINDOW`, growing with every step back up to
        :data:`MAX_WINDOW` (the fetches of one remote share a queue, so a window costs a
        few git fetches); gentler under a budget (the after-solve pass); with
        ``spend_budget_at_once``, the remaining budget but :data:`BUDGET_RESERVE` at once.
    """
    growth, first = (2, FIRST_WINDOW // 2) if budget is not None else (4, FIRST_WINDOW)
    ahead = 1 if back == 0 else min(MAX_WINDOW, max(first, growth * back))
    if back and budget is not None and spend_budget_at_once:
        ahead = max(ahead, min(MAX_WINDOW, budget - BUDGET_RESERVE))
    return ahead
