"""A selected module version "fenced off by its own line": a newer release of the same
major.minor (its authors' later word on the same line) requires a provider range that excludes
the provider version selected, as eks 20.37.1 requires aws < 6.0.0 while 20.37.0 is selected
with aws 6.x. A solve records each (:func:`fenced_off`, ``Resolution.fenced_off``) and ``init`` warns about it,
an explanation ranks a fix that lands there lower, and ``graph`` marks it; all three ask
:func:`fences`. Only metadata already read is consulted; nothing is fetched."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar

from ..config.module_dir import RequiredProvider
from ..config.tree import ModuleTree
from ..versions import apparentlymart_go_versions as gvs
from ..versions.hashicorp_go_version import GoVersion

if TYPE_CHECKING:
    from .context import Context
    from .model import ModuleCandidate, ModuleRequirement, ProviderCandidate

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


@dataclass(frozen=True)
class FencedOff:
    """A selected module version its own line fenced off: ``call`` is at ``selected``, but
    ``newer`` of the same major.minor requires ``requirement`` (a provider's constraint, with
    where it is written), which excludes the provider version ``chosen``."""

    call: str
    selected: str
    newer: str
    requirement: RequiredProvider
    chosen: str


def line_trees(cand: ModuleCandidate, req: ModuleRequirement, ctx: Context,
               listed: Iterable[ModuleCandidate] | None = None) -> list[tuple[ModuleCandidate, ModuleTree | None]]:
    """The releases of ``cand``'s own line newer than it (:func:`same_line_newer`, oldest
    first), each with its module tree when already read (None otherwise): ``listed``, or
    the call's known listing (this run's, or the one an earlier run cached). Never fetches."""
    if cand.version is None:
        return []
    cands = list(listed) if listed is not None else ctx.known_candidates(req)
    if not cands:
        return []
    newer = same_line_newer(cand.version, ((c.version, c) for c in cands if c.version is not None))
    return [(n, tree if isinstance(tree := ctx.known_tree(n), ModuleTree) else None) for n in newer]


def _selected(providers: Mapping[str, ProviderCandidate], only: str | None = None) -> Callable[[str], Chosen | None]:
    def chosen(address: str) -> Chosen | None:
        pick = providers.get(address) if only is None or address == only else None
        return pick.version if pick is not None else None
    return chosen


def fenced_off(modules: Mapping[str, ModuleCandidate], module_requirements: Mapping[str, ModuleRequirement],
               providers: Mapping[str, ProviderCandidate], ctx: Context) -> list[FencedOff]:
    """Each selected module version (call path -> candidate, with its requirement) whose own
    line later fenced off a selected provider version (address -> candidate): the first
    fence per call and provider, in order. Uses only metadata already known (this run's listing,
    or the one an earlier run cached); never fetches. Its length is the objective's
    "fenced off" term (:mod:`.optimum`)."""
    out: list[FencedOff] = []
    for path, cand in modules.items():
        req = module_requirements.get(path)
        if req is None:
            continue
        trees = line_trees(cand, req, ctx)
        if not trees:
            continue
        for prov_addr in providers:
            for n, r, version in fences(trees, _selected(providers, prov_addr)):
                out.append(FencedOff(path, cand.version_text, n.version_text, r, str(version)))
                break
    return out


def newest_fence(cand: ModuleCandidate, req: ModuleRequirement, providers: Mapping[str, ProviderCandidate],
                 ctx: Context) -> str | None:
    """The newest release of ``cand``'s own line whose provider constraint excludes a
    provider version selected (``providers``: address -> candidate), among those whose
    contents were read; None when there is none. What ``why`` and ``graph`` mark."""
    for n, _, _ in fences(reversed(line_trees(cand, req, ctx)), _selected(providers)):
        return n.version_text
    return None
