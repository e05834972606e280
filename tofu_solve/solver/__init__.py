"""The solver: one version per module call (or package), per provider, and the OpenTofu
version, chosen with resolvelib, moving as few locks as a solution allows.

The front door (issue #51 §3): :func:`build_context` wires a :class:`Context` from the
command's settings and :class:`SolveOptions`; :func:`solve` returns a :class:`Resolution`
or raises :class:`Unsatisfiable` (the facts :mod:`tofu_solve.explain` turns into the error a
user reads); :func:`lock_change_reasons` says why each lock moved. Another search (the
what-if solves) uses :class:`TofuSolveProvider` through its public hooks
(``module_order``, ``lenient_providers``; :data:`ModuleOrder`), never its private methods;
a stage that measures a selection asks :class:`CandidateFactory` for the one order.

Reading order, outside in:

1. :mod:`.model`: requirements, candidates and their :class:`Identity` (what resolvelib
   keys a subject by).
2. :mod:`.resolve`: the orchestration: root requirements, the held search, the
   conservative update (:mod:`.conservative`, :mod:`.locks`, over the searches of
   :mod:`.hypothetical`), the improvement pass (:mod:`.improve`), the exact optimiser
   (:mod:`.optimum`), what ``-upgrade=NAME`` could not move (:mod:`.upgrades`).
3. :mod:`.resolvelib_provider`: resolvelib's callbacks only, over :mod:`.factory` (the candidate
   factory: reading, the one order of each subject, a candidate's position in it, and a
   module version's requirements with the policy's and the cooldown's verdicts);
   :mod:`.search`, resolvelib's loop kept incremental; :mod:`.reporter`, what the loop counts.
4. :mod:`.context` (a :mod:`.run` and a scope), :mod:`.index`, :mod:`.network`,
   :mod:`.wiring`: what the search asks of the outside world, memoised, and read ahead
   (:mod:`.prefetch`, within :mod:`.readahead`'s counts).
5. The passes around the search: :mod:`.propagate` (dead ends found before the search),
   :mod:`.fenced`, :mod:`.release_cooldown`, :mod:`.changes`, :mod:`.baseline` (``tofu init``'s own
   greedy choice, for comparison).

The names below are imported from their modules when first used (PEP 562), so importing
one part of the solver does not import all of it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import exports

if TYPE_CHECKING:
    from .changes import lock_change_reasons
    from .context import Context, SolveOptions
    from .factory import CandidateFactory, ModuleOrder
    from .model import Identity
    from .resolve import Resolution, Unsatisfiable, solve
    from .resolvelib_provider import TofuSolveProvider
    from .wiring import build_context

__getattr__ = exports(__name__, globals(), {
    "build_context": ".wiring", "lock_change_reasons": ".changes", "Context": ".context", "SolveOptions": ".context",
    "Identity": ".model", "CandidateFactory": ".factory", "ModuleOrder": ".factory",
    "TofuSolveProvider": ".resolvelib_provider", "Resolution": ".resolve",
    "Unsatisfiable": ".resolve", "solve": ".resolve",
})

__all__ = [
    "CandidateFactory",
    "Context",
    "Identity",
    "ModuleOrder",
    "Resolution",
    "SolveOptions",
    "TofuSolveProvider",
    "Unsatisfiable",
    "build_context",
    "lock_change_reasons",
    "solve",
]
