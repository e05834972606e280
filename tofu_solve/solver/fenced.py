"""A selected module version "fenced off by its own line": a newer release of the same
major.minor (its authors' later word on the same line) requires a provider range that excludes
the provider version selected, as eks 20.37.1 requires aws < 6.0.0 while 20.37.0 is selected
with aws 6.x. ``init`` warns about it (:func:`tofu_solve.solver.resolve.fenced_off_warnings`),
an explanation ranks a fix that lands there lower, and ``graph`` marks it; all three ask
:func:`fences`. Only metadata already read is consulted; nothing is fetched."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import TypeVar

from ..config.model import RequiredProvider
from ..config.tree import ModuleTree
from ..versions import apparentlymart_go_versions as gvs
from ..versions.hashicorp_go_version import GoVersion

T = TypeVar("T")


def same_line_newer(selected: GoVersion, versions: Iterable[tuple[GoVersion, T]]) -> list[T]:
    """The items whose version is newer than ``selected`` with the same major.minor, oldest
    first (a stable sort: equal versions keep their order)."""
    return [item for _, item in sorted(((v, item) for v, item in versions
                                        if v.compare(selected) > 0 and v.segments[:2] == selected.segments[:2]),
                                       key=lambda vi: vi[0])]


Chosen = gvs.Version | str  # a selected provider version, or its text


def fences(newer: Iterable[tuple[T, ModuleTree | None]],
           chosen: Callable[[str], Chosen | None]) -> Iterator[tuple[T, RequiredProvider, Chosen]]:
    """Each (newer release, its provider requirement, the chosen version it excludes), in the
    order of ``newer`` (each release's requirements in file order).

    Args:
        newer: (a newer release of the line, its module tree or None when not read).
        chosen: the selected version of a provider address (its text), None when none is
            selected; a go-versions version or its text.
    """
    for release, tree in newer:
        if tree is None:
            continue
        for _, r in tree.providers:
            version = chosen(str(r.address))
            if version is not None and r.constraint is not None and not r.constraint.allows(version):
                yield release, r, version
