"""The release cooldown's policy (tofu_solve/solver/cooldown.py), on its own: a fixed clock,
versions from an in-memory universe, a lock file built in memory."""

from __future__ import annotations

from tests.world.memory import MemoryContext, universe_from_index
from tofu_solve.addrs.provider import parse_provider_source
from tofu_solve.lockfile.entries import LockFile, ModuleLock, ProviderLock
from tofu_solve.solver.lock_terms import LockTerms
from tofu_solve.solver.release_cooldown import Cooldown
from tofu_solve.solver.resolve import root_requirements
from tofu_solve.versions.constraints import provider_constraint

DAY = 86400.0
NOW = 1_000 * DAY


def _universe(version: str):
    index = {"target": "1.10.0", "providers": {},
             "modules": {"acme/net/aws": {v: {"calls": [], "providers": []} for v in ("1.0.0", "1.1.0", "1.2.0")}},
             "root": {"calls": [{"name": "net", "source": "acme/net/aws", "version": version}]}}
    u = universe_from_index(index)
    ctx = MemoryContext(u)
    (req,) = root_requirements(u.root, ctx)
    cands = {c.version_text: c for c in ctx.module_candidates(req)}
    ctx.close()
    return req, cands


def test_a_young_version_is_held_back_an_old_one_passes_and_both_are_recorded():
    req, cands = _universe("~> 1.0")
    cool = Cooldown(7 * DAY, LockTerms.holding(LockFile()), clock=lambda: NOW)
    held = cool.module(cands["1.2.0"], req, lambda: NOW - 2 * DAY)
    assert held is not None and held.version == "1.2.0" and round(held.age / DAY) == 2
    assert cool.module(cands["1.1.0"], req, lambda: NOW - 30 * DAY) is None
    assert list(cool.held_back) == [("net", "1.2.0")] and not cool.young_pins


def test_the_locked_version_and_an_exact_pin_are_exempt():
    req, cands = _universe("~> 1.0")
    locks = LockFile(modules={"net": ModuleLock("net", "1.2.0", "acme/net/aws", "~> 1.0", (), "", False)})
    cool = Cooldown(7 * DAY, LockTerms.holding(locks), clock=lambda: NOW)
    asked: list[str] = []
    assert cool.module(cands["1.2.0"], req, lambda: asked.append("1.2.0") or NOW) is None
    assert asked == []  # the lock's version is exempt before its age is even asked
    pinned, pinned_cands = _universe("1.1.0")
    cool = Cooldown(7 * DAY, LockTerms.holding(LockFile()), clock=lambda: NOW)
    assert cool.module(pinned_cands["1.1.0"], pinned, lambda: NOW - DAY) is None
    assert list(cool.young_pins) == [("net", "1.1.0")] and not cool.held_back


def test_an_unknown_release_time_counts_as_old_enough_and_is_counted_once_when_final():
    req, cands = _universe("~> 1.0")
    cool = Cooldown(7 * DAY, LockTerms.holding(LockFile()), clock=lambda: NOW)
    assert cool.module(cands["1.2.0"], req, lambda: None, final=False) is None
    assert cool.unknown == 0  # asked before the package was read: it may still tell
    assert cool.module(cands["1.2.0"], req, lambda: None) is None
    assert cool.module(cands["1.2.0"], req, lambda: None) is None
    assert cool.unknown == 1
    assert Cooldown(0, LockTerms.holding(LockFile())).module(cands["1.2.0"], req, lambda: NOW) is None  # no cooldown


def test_providers_the_same_rules():
    aws = parse_provider_source("hashicorp/aws")
    locks = LockFile(providers={str(aws): ProviderLock(aws, "6.0.0", ">= 5.0", ())})
    cool = Cooldown(7 * DAY, LockTerms.holding(locks), clock=lambda: NOW)
    any_aws = [provider_constraint(">= 5.0")]
    assert cool.provider(str(aws), "6.1.0", any_aws, lambda: NOW - DAY) is not None
    assert cool.provider(str(aws), "6.0.0", any_aws, lambda: NOW - DAY) is None  # locked
    assert cool.provider(str(aws), "6.2.0", [provider_constraint("6.2.0")], lambda: NOW - DAY) is None  # pinned
    assert cool.provider(str(aws), "5.9.0", any_aws, lambda: None) is None  # unknown: old enough
    assert set(cool.held_back) == {(str(aws), "6.1.0")} and set(cool.young_pins) == {(str(aws), "6.2.0")}


class _Lifecycle:
    """What a registry tells of its versions' lives, in memory: provider release times."""

    def __init__(self, provider_times: dict[str, float]):
        self.provider_times = provider_times

    def release_times(self, kind: str, address: str) -> dict[str, float]:
        return dict(self.provider_times) if kind == "provider" else {}

    def revocations(self, package) -> dict:
        return {}

    def deprecations(self, package) -> dict:
        return {}


def test_the_search_holds_young_module_and_provider_versions_back():
    """The cooldown where the search applies it (issue #71 §1): a module version and a
    provider version released a day ago are passed over under a week's cooldown, for the
    newest that is old enough; without the cooldown the newest are taken."""
    import dataclasses
    from types import SimpleNamespace

    from tofu_solve.solver.resolve import solve

    aws = {"name": "aws", "source": "hashicorp/aws", "version": ">= 5.0", "file": "versions.tf", "line": 3}
    index = {"target": "1.10.0", "providers": {"hashicorp/aws": ["5.0.0", "5.1.0"]},
             "modules": {"acme/net/aws": {v: {"calls": [], "providers": [aws]} for v in ("1.0.0", "1.1.0", "1.2.0")}},
             "root": {"calls": [{"name": "net", "source": "acme/net/aws", "version": "~> 1.0", "file": "main.tf",
                                 "line": 1}], "providers": [aws]}}
    module_times = {"1.0.0": NOW - 90 * DAY, "1.1.0": NOW - 30 * DAY, "1.2.0": NOW - DAY}
    for min_age, want in ((7 * DAY, ("1.1.0", "5.0.0")), (0.0, ("1.2.0", "5.1.0"))):
        u = universe_from_index(index)
        ctx = MemoryContext(u)
        ctx.options = dataclasses.replace(ctx.options, min_age=min_age)
        ctx.run.cooldown = Cooldown(min_age, LockTerms.holding(LockFile()), clock=lambda: NOW)
        ctx.run.client = SimpleNamespace(lifecycle=_Lifecycle({"5.0.0": NOW - 30 * DAY, "5.1.0": NOW - DAY}))
        ctx.run.index.release_time = lambda cand: module_times.get(cand.version_text)
        try:
            res = solve(u.root, ctx)
            got = (res.modules["net"].version_text, str(res.providers["registry.opentofu.org/hashicorp/aws"].version))
        finally:
            ctx.close()
        assert got == want, (min_age, got)
