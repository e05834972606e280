"""The lock rules the solver keeps, on in-memory universes (issue #58 §3: each fails a test
outside ``tests/e2e/`` when switched off): a lock the policy denies moves to the nearest
allowed version, recorded as the policy's doing; a provider lock that an edited constraint
excludes is free, as a module lock whose constraint was edited is: the newest version the
edit admits, where the nearest would be another (the lock does not apply)."""

from __future__ import annotations

from tests.solver.oracle import Selection
from tests.solver.test_oracle import _locks_of
from tests.world.memory import MemoryContext, universe_from_index
from tofu_solve.config.policy import read_policy
from tofu_solve.remote.lifecycle import Revocation
from tofu_solve.solver.changes import lock_change_reasons
from tofu_solve.solver.resolve import solve
from tofu_solve.solver.verdicts import kept_out

AWS = "registry.opentofu.org/hashicorp/aws"


def _index(root_aws: str | None = None, aws: tuple[str, ...] = ("1.0.0", "2.0.0")) -> dict:
    versions = ("1.0.0", "1.1.0", "2.0.0", "2.1.0", "3.0.0", "4.0.0")
    provider = {"name": "aws", "source": "hashicorp/aws", "file": "versions.tf", "line": 3}
    return {"target": "1.12.6", "providers": {"hashicorp/aws": list(aws)},
            "modules": {"acme/net/aws": {v: {"calls": [], "providers": []} for v in versions}},
            "root": {"calls": [{"name": "m", "source": "acme/net/aws", "version": ">= 1.0.0", "file": "main.tf",
                                "line": 1, "version_line": 3}],
                     "providers": [dict(provider, **({"version": root_aws} if root_aws else {}))]}}


def test_a_lock_the_policy_denies_moves_to_the_nearest_allowed_version(tmp_path):
    index = _index()
    locks, _, _ = _locks_of(index, Selection((("m", "2.0.0"),), ((AWS, "2.0.0"),)))
    policy_file = tmp_path / "tofu-solve-policy.hcl"
    policy_file.write_text('deny "module" "acme/net/aws" {\n  versions = "2.0.0"\n  reason   = "broken"\n}\n')
    u = universe_from_index(index)
    ctx = MemoryContext(u, locks=locks, policy=read_policy(policy_file))
    try:
        res = solve(u.root, ctx)
        assert res.modules["m"].version_text == "2.1.0"  # nearest the denied lock, not the newest (4.0.0)
        assert ("m", "2.0.0") in kept_out(ctx, res)  # the denial, recorded after the search for the warnings
        reasons = lock_change_reasons(res, ctx, locks)
        assert reasons["m"].startswith('denied by deny "module"') and "broken" in reasons["m"], reasons
    finally:
        ctx.close()
    # without the policy, the lock holds
    ctx = MemoryContext(u, locks=locks)
    try:
        assert solve(u.root, ctx).modules["m"].version_text == "2.0.0"
    finally:
        ctx.close()


def test_a_provider_lock_an_edit_excludes_is_free_and_lands_on_the_newest_it_admits():
    aws = ("1.0.0", "2.0.0", "2.5.0", "3.0.0", "4.0.0")
    before = _index(aws=aws)
    locks, _, _ = _locks_of(before, Selection((("m", "2.0.0"),), ((AWS, "2.0.0"),)))
    after = _index(">= 2.1.0", aws)
    u = universe_from_index(after)
    ctx = MemoryContext(u, locks=locks)
    try:
        res = solve(u.root, ctx)
        # the lock no longer applies: the newest ">= 2.1.0" admits, not 2.5.0, the nearest to the lock (which
        # every provider lock made to apply would give)
        assert str(res.providers[AWS].version) == "4.0.0"
        assert res.modules["m"].version_text == "2.0.0"  # the module lock, untouched by the edit, holds
    finally:
        ctx.close()


def test_the_nearest_listed_version_to_a_deleted_lock():
    """Issue #62 §3: a locked version deleted from the registry's index names the listed
    version nearest it (the newer of two as near) as the fix; nothing listed, nothing named."""
    from tofu_solve.solver.locks import nearest_listed
    from tofu_solve.versions.hashicorp_go_version import GoVersion

    listed = [GoVersion.parse(v) for v in ("6.4.0", "6.5.0", "6.6.0")]
    assert nearest_listed("6.5.1", listed).string == "6.6.0"  # between two: the newer
    assert nearest_listed("6.9.0", listed).string == "6.6.0"  # above them all: the newest
    assert nearest_listed("6.0.0", listed).string == "6.4.0"  # below them all: the oldest
    assert nearest_listed("6.5.1", []) is None and nearest_listed("not a version", listed) is None


class _RevokingContext(MemoryContext):
    """The in-memory registry with a revocation: the registry of HCP Terraform revoked
    ``acme/net/aws`` 2.0.0 (what :meth:`.Context.lifecycle` reads from its v2 API)."""

    def lifecycle(self, source):
        return {"2.0.0": Revocation(str(getattr(source, "package", source)), "2.0.0", "broken build")}, {}


def test_a_lock_the_policy_denies_or_its_registry_revoked_does_not_apply(tmp_path):
    """Issue #71 §1: "locked" means the lock applies; a policy denial or a revocation of the
    locked version takes that away at the context (``locked_candidate``: what the search
    offers first, what explanations and the exact stage call held) while the lock still
    anchors the move (``lock_anchor``: nearest to it)."""
    index = _index()
    locks, _, _ = _locks_of(index, Selection((("m", "2.0.0"),), ((AWS, "2.0.0"),)))
    policy_file = tmp_path / "tofu-solve-policy.hcl"
    policy_file.write_text('deny "module" "acme/net/aws" {\n  versions = "2.0.0"\n  reason   = "broken"\n}\n')
    u = universe_from_index(index)
    for ctx in (MemoryContext(u, locks=locks, policy=read_policy(policy_file)),
                _RevokingContext(u, locks=locks)):
        try:
            res = solve(u.root, ctx)
            req = res.module_requirements["m"]
            assert res.modules["m"].version_text == "2.1.0"  # moved, nearest the lock
            assert ctx.locked_candidate(req) is None  # the lock does not apply
            anchor = ctx.lock_anchor(req)
            assert anchor is not None and anchor.version_text == "2.0.0"  # but it is where the move starts
            assert ("m", "2.0.0") in kept_out(ctx, res)
        finally:
            ctx.close()
    ctx = MemoryContext(u, locks=locks)  # neither: the lock applies
    try:
        res = solve(u.root, ctx)
        locked = ctx.locked_candidate(res.module_requirements["m"])
        assert locked is not None and locked.version_text == "2.0.0" == res.modules["m"].version_text
    finally:
        ctx.close()


def test_a_provider_version_the_policy_denies_is_never_selected(tmp_path):
    """The policy where the search meets provider versions (issue #71 §1): the denied newest
    is passed over for the newest allowed, and recorded as kept out."""
    policy_file = tmp_path / "tofu-solve-policy.hcl"
    policy_file.write_text('deny "provider" "hashicorp/aws" {\n  versions = "2.0.0"\n  reason   = "broken"\n}\n')
    u = universe_from_index(_index())
    for policy, want in ((read_policy(policy_file), "1.0.0"), (None, "2.0.0")):
        ctx = MemoryContext(u, policy=policy)
        try:
            res = solve(u.root, ctx)
            assert str(res.providers[AWS].version) == want
            assert ((AWS, "2.0.0") in kept_out(ctx, res)) is (policy is not None)
        finally:
            ctx.close()


def test_a_lock_an_upgrade_name_frees_says_the_name_that_freed_it():
    """The change list asks the one answer (issue #83 §2, :meth:`LockTerms.standing`) and
    says its words: under ``-upgrade=m,n`` each call's change names its own NAME."""
    from tofu_solve.addrs.product import OPENTOFU
    from tofu_solve.solver.lock_terms import LockTerms

    index = _index()
    index["root"]["calls"].append(dict(index["root"]["calls"][0], name="n"))
    recorded, _, _ = _locks_of(index, Selection((("m", "1.0.0"), ("n", "1.1.0")), ((AWS, "1.0.0"),)))
    u = universe_from_index(index)
    terms = LockTerms.of(recorded, u.root, OPENTOFU, upgrade_only=("m", "n"))
    ctx = MemoryContext(u, locks=terms, upgrade_targets=("m", "n"))
    try:
        res = solve(u.root, ctx)
        reasons = lock_change_reasons(res, ctx, recorded)
    finally:
        ctx.close()
    assert (res.modules["m"].version_text, res.modules["n"].version_text) == ("4.0.0", "4.0.0")
    assert (reasons["m"], reasons["n"]) == ("-upgrade=m", "-upgrade=n"), reasons
    assert AWS not in reasons  # not named: its lock holds
