"""Conflict explanations: what-if solves (:mod:`.whatif`) and the explanation built from
them (:mod:`.analysis`).

:func:`solve` is the solver with explanations: :func:`tofu_solve.solver.resolve.solve`,
whose :class:`~tofu_solve.solver.resolve.Unsatisfiable` (the bare facts of a proven clash)
becomes the :class:`~tofu_solve.errors.ResolutionError` a user sees, with every clashing
constraint, who imposed it, file and line, and suggestions checked by solving again.
"""

from __future__ import annotations

from pathlib import Path

from .._lazy import load
from ..config.tree import ModuleTree
from ..solver.context import Context
from ..solver.resolve import Resolution, Unsatisfiable
from ..solver.resolve import solve as _solve

__all__ = ["explain_impossible", "solve"]


def solve(tree: ModuleTree, ctx: Context, root: Path | None = None) -> Resolution:
    """Resolve ``tree`` (see :func:`tofu_solve.solver.resolve.solve`); a proven clash is
    explained.

    Raises:
        ResolutionError: no consistent choice exists (``explanation`` holds the clashes and
            the verified suggestions), or the round cap was reached.
        NoMatchingVersionError, NoVersionsError, NetworkError, RegistryError: as the solver.
    """
    try:
        return _solve(tree, ctx, root)
    except Unsatisfiable as e:
        raise explain_impossible(e.causes, ctx, e.tree, e.requirements, e.root) from None


def explain_impossible(causes, ctx: Context, tree: ModuleTree, root_reqs: list | None = None,
                       root: Path | None = None):
    """See :func:`tofu_solve.explain.analysis.explain_impossible` (imported only when a solve
    fails: a run that solves never pays for the what-if machinery)."""
    load("tofu_solve.explain.analysis")
    from .analysis import explain_impossible as explain

    return explain(causes, ctx, tree, root_reqs, root)
