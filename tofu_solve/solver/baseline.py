"""OpenTofu's own algorithm, for comparison: newest-per-call, greedy, no backtracking.

Each module call takes the newest version its constraint allows (OpenTofu's registry pick,
:func:`~tofu_solve.versions.version_pick.list_module_versions`), top-down; then each provider
takes the newest version every constraint allows, and OpenTofu's version constraints are
checked. This is what ``tofu init`` would install; it fails where a joint solver may not.
Used by the benchmarks, the demo and tests ("tofu-solve agrees with tofu init whenever
tofu init succeeds").
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..config.tree import ModuleTree
from ..errors import TofuSolveError
from ..versions import apparentlymart_go_versions as gvs
from .context import Context
from .factory import requirements_of_tree
from .model import ModuleCandidate, ModuleRequirement, ProviderRequirement
from .resolve import root_requirements


@dataclass
class BaselineResult:
    """What newest-per-call selection gives.

    Attributes:
        ok: every provider and OpenTofu constraint is met.
        modules: call path -> version text.
        providers: provider address -> version (None when no version meets every constraint).
        failure: why it fails (human text), "" when ok.
    """

    ok: bool
    modules: dict[str, str] = field(default_factory=dict)
    providers: dict[str, str | None] = field(default_factory=dict)
    failure: str = ""


def newest_per_call(tree: ModuleTree, ctx: Context) -> BaselineResult:
    """Run OpenTofu's greedy selection over the tree. Network errors propagate."""
    res = BaselineResult(ok=True)
    queue = list(root_requirements(tree, ctx))
    provider_reqs: dict[str, list[ProviderRequirement]] = {}
    core = []
    while queue:
        r = queue.pop(0)
        if isinstance(r, ProviderRequirement):
            provider_reqs.setdefault(str(r.address), []).append(r)
            continue
        if not isinstance(r, ModuleRequirement):
            core.append(r)
            continue
        try:
            cands = list(ctx.module_candidates(r))
        except TofuSolveError as e:
            return BaselineResult(False, res.modules, {}, f'module "{r.call_path}": {e.summary}')
        if r.versioned and cands and cands[0].version:
            # newest first, ignoring locks: what tofu init -upgrade would pick
            cands = [c for _, c in sorted(((c.version, c) for c in cands if c.version is not None),
                                          key=lambda vc: vc[0], reverse=True)]
        if not cands:
            return BaselineResult(False, res.modules, {}, f'module "{r.call_path}": no version matches')
        pick: ModuleCandidate = cands[0]
        res.modules[r.call_path] = pick.version_text
        t = ctx.tree(pick)
        if not isinstance(t, ModuleTree):
            return BaselineResult(False, res.modules, {}, f'module "{r.call_path}" {pick.version_text}: {t.summary}')
        nested = requirements_of_tree(t, r.call_path, pick.version_text, None, ctx)
        ctx.note_calls(nested)
        queue.extend(nested)
    for addr, reqs in sorted(provider_reqs.items()):
        spec = tuple(s for q in reqs if q.constraint for s in q.constraint.spec)
        versions = [v for v in reversed(ctx.provider_versions(reqs[0].address)) if gvs.meets(spec, v)]
        res.providers[addr] = str(versions[0]) if versions else None
        if not versions and res.ok:
            res.ok = False
            texts = "; ".join(f'"{q.text}" ({q.origin.call_path or "root"})' for q in reqs if q.text)
            res.failure = f"no version of {addr} meets {texts}"
    target = ctx.options.target.version
    for c in core:
        if not c.constraint.allows(target) and res.ok:
            res.ok = False
            res.failure = f'{ctx.options.target} does not meet "{c.text}" ({c.origin.call_path or "root"})'
    return res
