"""Issue #83 §2: one answer to "does this lock hold?" (:class:`LockTerms`), held against the
behaviour it replaced on generated lock files and flags.

Before it, ``init`` rewrote the lock before the solve (``without_targets`` for
``-upgrade=NAME``, then ``AcceptedChecksums.unpinned`` for ``-accept-checksum``), the solver
asked ``-upgrade`` on its own (``module_lock_entry``, ``locked_subjects``,
``provider_lock_denial``) and compared the two files for what ``-upgrade=NAME`` freed
(``freed_by_upgrade``). ``_today`` below transcribes those functions as they were at
ff9e06f; the properties say the terms answer every subject as they did.
"""

from __future__ import annotations

from dataclasses import replace
from types import SimpleNamespace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tofu_solve.addrs.product import OPENTOFU
from tofu_solve.addrs.provider import parse_provider_source
from tofu_solve.errors import ConfigurationError
from tofu_solve.lockfile import LockFile, ModuleLock
from tofu_solve.lockfile.entries import ProviderLock
from tofu_solve.lockfile.named import named_locks
from tofu_solve.solver.lock_terms import LockTerms, Released
from tofu_solve.solver.model import Identity
from tofu_solve.workdir.accept import AcceptedChecksums

CALLS = ["vpc", "eks", "eks.kms", "eks.kms.key", "eks.node", "rds", "rds.kms"]
PACKAGES = ["terraform-aws-modules/vpc/aws", "terraform-aws-modules/eks/aws", "terraform-aws-modules/kms/aws"]
PROVIDERS = ["hashicorp/aws", "hashicorp/tls", "hashicorp/random"]
NO_TREE = SimpleNamespace(remote_calls=(), providers=())  # every NAME drawn names a lock entry


@st.composite
def lock_files(draw) -> LockFile:
    paths = draw(st.sets(st.sampled_from(CALLS), max_size=len(CALLS)))
    modules = {p: ModuleLock(p, draw(st.sampled_from(["1.0.0", "2.1.0"])), draw(st.sampled_from(PACKAGES)), "",
                             ("h1:" + p,), "git::https://h/r.git?ref=" + "a" * 40 if p.startswith("e") else "", False)
               for p in sorted(paths)}
    providers = {}
    for short in sorted(draw(st.sets(st.sampled_from(PROVIDERS)))):
        addr = parse_provider_source(short)
        providers[str(addr)] = ProviderLock(addr, "5.0.0", "", ("h1:p",))
    return LockFile(providers, modules)


def _names(draw, locks: LockFile) -> tuple[str, ...]:
    """NAMEs that each name something of ``locks``: call paths, call names, packages, providers."""
    options = sorted(set(locks.modules) | {p.rsplit(".", 1)[-1] for p in locks.modules}
                     | {m.source for m in locks.modules.values()} | {OPENTOFU.short(a) for a in locks.providers})
    if not options:
        return ()
    return tuple(draw(st.lists(st.sampled_from(options), max_size=3, unique=True)))


def _today(recorded: LockFile, upgrade: bool, upgrade_only: tuple[str, ...], accepted: AcceptedChecksums):
    """The behaviour before issue #83 §2, transcribed: (the locks the solve kept, the
    provider listings asked again, whether a subject's lock held, what -upgrade=NAME freed,
    the lock the verification compared with)."""
    solve_locks, again = recorded, frozenset[str]()
    if upgrade_only and not upgrade:  # lockfile.named.without_targets
        named_modules, named_providers = named_locks(recorded, NO_TREE, upgrade_only, OPENTOFU, "-upgrade")
        gone = {p for paths in named_modules.values() for p in paths}
        modules = {p: m for p, m in recorded.modules.items()
                   if p not in gone and not any(p.startswith(g + ".") for g in gone)}
        again = frozenset(a for addrs in named_providers.values() for a in addrs)
        solve_locks = LockFile({a: p for a, p in recorded.providers.items() if a not in again}, modules)
    if accepted.modules:  # AcceptedChecksums.unpinned
        solve_locks = solve_locks.with_modules({p: replace(m, hashes=(), package="") if p in accepted.modules else m
                                                for p, m in solve_locks.modules.items()})

    def held(subject: Identity) -> bool:  # module_lock_entry / locked_subjects / provider_lock_denial
        table = solve_locks.modules if subject.kind.name == "MODULE" else solve_locks.providers
        return not upgrade and subject.name in table
    freed = frozenset({Identity.module(p) for p in recorded.modules if p not in solve_locks.modules}
                      | {Identity.provider(a) for a in recorded.providers if a not in solve_locks.providers})
    verified = recorded.with_modules({p: (recorded.modules[p] if p in accepted.modules else m)
                                      for p, m in solve_locks.modules.items()})
    return solve_locks, again, held, freed, verified


@st.composite
def runs(draw):
    recorded = draw(lock_files())
    upgrade = draw(st.booleans())
    upgrade_only = _names(draw, recorded) if draw(st.booleans()) else ()
    accept = () if upgrade or upgrade_only else _names(draw, recorded)
    return recorded, upgrade, upgrade_only, accept


@settings(max_examples=300, deadline=None, derandomize=True)
@given(runs())
def test_the_terms_answer_every_subject_as_the_rewritten_lock_did(run):
    recorded, upgrade, upgrade_only, accept_names = run
    accepted = AcceptedChecksums.of(accept_names, recorded, NO_TREE, OPENTOFU)
    terms = LockTerms.of(recorded, NO_TREE, OPENTOFU, upgrade=upgrade, upgrade_only=upgrade_only).accepting(
        accepted.modules, accepted.providers)
    kept, again, held, freed, verified = _today(recorded, upgrade, upgrade_only, accepted)
    assert terms.kept == kept
    assert terms.relisted_providers == again
    assert terms.freed == freed
    assert terms.verified_against() == verified
    assert terms.recorded is recorded  # the file as read is never rewritten
    subjects = [Identity.module(p) for p in [*CALLS, "absent"]] + [
        Identity.provider(str(parse_provider_source(s))) for s in PROVIDERS]
    for subject in subjects:
        standing = terms.standing(subject)
        assert standing.holds == held(subject), (subject, standing)
        table = recorded.modules if subject.kind.name == "MODULE" else recorded.providers
        if subject.name not in table:
            assert standing.released is Released.NOT_LOCKED
        elif upgrade:
            assert standing.released is Released.UPGRADE and standing.why_not() == "-upgrade"
        elif subject in freed:
            # the NAME that freed it: it names the subject or the call it is inside
            assert standing.released is Released.NAMED and standing.named_by in upgrade_only
            assert standing.why_not() == f"-upgrade={standing.named_by}"
        else:
            assert standing.holds and standing.accepted == (subject.name in accepted.modules
                                                            or subject.name in accepted.providers)


def test_a_name_frees_the_calls_inside_the_call_it_names_and_says_which_name():
    """``cargo update -p``: ``-upgrade=eks`` frees eks and everything inside it, nothing else;
    each freed subject says the NAME."""
    recorded = LockFile({}, {p: ModuleLock(p, "1.0.0", PACKAGES[0], "", ("h1:x",), "", False)
                             for p in ["eks", "eks.kms", "eksa", "vpc"]})
    terms = LockTerms.of(recorded, NO_TREE, OPENTOFU, upgrade_only=("eks",))
    assert {p for p in recorded.modules if not terms.standing(Identity.module(p)).holds} == {"eks", "eks.kms"}
    assert terms.standing(Identity.module("eks.kms")).named_by == "eks"
    assert set(terms.kept.modules) == {"eksa", "vpc"}


def test_a_what_if_view_frees_what_it_does_not_keep_and_releasing_frees_inner_calls():
    recorded = LockFile({}, {p: ModuleLock(p, "1.0.0", PACKAGES[0], "", ("h1:x",), "", False)
                             for p in ["eks", "eks.kms", "vpc"]})
    terms = LockTerms.holding(recorded)
    what_if = terms.releasing([Identity.module("eks")])
    assert set(what_if.kept.modules) == {"vpc"}
    assert what_if.standing(Identity.module("eks.kms")).released is Released.WHAT_IF
    assert what_if.standing(Identity.module("vpc")).holds
    assert what_if.recorded is recorded


def test_an_unknown_name_is_refused_before_anything_is_solved():
    with pytest.raises(ConfigurationError, match="Unknown name in -upgrade"):
        LockTerms.of(LockFile(), NO_TREE, OPENTOFU, upgrade_only=("nothing",))


def test_a_provider_the_names_free_has_its_kept_listing_asked_again(tmp_path):
    """``-upgrade=hashicorp/aws``: the registry client the solve opens lists aws again
    rather than answering from what an earlier run kept; nothing else is asked again."""
    from tofu_solve.settings import Settings
    from tofu_solve.solver.context import SolveOptions
    from tofu_solve.solver.wiring import build_context
    from tofu_solve.versions.target import target_version

    aws, tls = parse_provider_source("hashicorp/aws"), parse_provider_source("hashicorp/tls")
    recorded = LockFile({str(aws): ProviderLock(aws, "5.0.0", "", ()), str(tls): ProviderLock(tls, "4.0.0", "", ())})
    terms = LockTerms.of(recorded, NO_TREE, OPENTOFU, upgrade_only=("hashicorp/aws",))
    settings_ = Settings.from_environ({"HOME": str(tmp_path), "TOFU_SOLVE_CACHE_DIR": str(tmp_path / "cache")})
    wired = build_context(SolveOptions(target_version("1.10.0"), offline=True), terms, settings_, None)
    try:
        assert wired.client.refresh_only == frozenset({str(aws)})
        assert wired.context.terms is terms and wired.context.recorded_locks is recorded
    finally:
        wired.context.close()
