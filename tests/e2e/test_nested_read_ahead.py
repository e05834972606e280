"""The trees of nested calls are read ahead of the search (Prefetcher.nested, issue
#23): reading eks 20.x starts reading the kms version its nested call takes, so that a walk
down eks costs one round trip per version, not two. Until the search asks for it, such a
tree counts as never read: not known to the dead-end pass, paid for from a fetch budget when
asked for, and not written to the metadata cache; so solves and explanations are those of a
run that never read it ahead (real registry and git daemon)."""

from __future__ import annotations

import time

from tests.e2e.conftest import write_root


def test_a_nested_calls_tree_is_read_ahead_and_counts_only_once_asked_for(running, tmp_path):
    from tofu_solve.config.tree import read_module_tree
    from tofu_solve.lockfile import LockFile
    from tofu_solve.settings import Settings
    from tofu_solve.solver.context import SolveOptions
    from tofu_solve.solver.factory import requirements_of_tree
    from tofu_solve.solver.model import ModuleRequirement
    from tofu_solve.solver.resolve import root_requirements
    from tofu_solve.solver.wiring import build_context
    from tofu_solve.versions.target import target_version

    root = write_root(tmp_path / "root", 'module "eks" {\n  source  = "terraform-aws-modules/eks/aws"\n'
                                         '  version = "20.37.0"\n}\n')
    ctx = build_context(SolveOptions(target_version("1.10.0")), LockFile(),
                           Settings.from_environ(running.env(tmp_path / "cache")), None).context
    try:
        eks = next(r for r in root_requirements(read_module_tree(root, confine=False), ctx)
                   if isinstance(r, ModuleRequirement))
        eks_20 = ctx.module_candidates(eks)[0]
        tree = ctx.tree(eks_20)  # asked for: its nested kms call's first version is read ahead
        kms = next(r for r in requirements_of_tree(tree, "eks", eks_20.version_text, None, ctx)
                   if isinstance(r, ModuleRequirement) and r.call_path == "eks.kms")
        kms_first = ctx.module_candidates(kms)[0]
        assert kms_first.version_text == "2.1.0"
        key = ctx.tree_key(kms_first)
        deadline = time.monotonic() + 60
        while not ctx.run.memo.done(("tree",) + key) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert ctx.run.memo.done(("tree",) + key)  # read ahead, without being asked for
        read = ctx.stats.trees_read
        assert not ctx.tree_known(kms_first)  # ... yet it counts as not read
        assert ctx.metadata.get(*key) is None  # ... and is not in the metadata cache

        budgeted = ctx.view(fetch_budget=1)
        assert not isinstance(budgeted.tree(kms_first), Exception)
        assert budgeted.fetch_budget == 0 and ctx.stats.improve_fetches == 1  # paid as a tree never read
        assert ctx.stats.trees_read == read  # but not read again
        assert ctx.tree_known(kms_first) and ctx.metadata.get(*key) is not None
        budgeted.tree(kms_first)  # known now: free
        assert budgeted.fetch_budget == 0
    finally:
        ctx.close()
