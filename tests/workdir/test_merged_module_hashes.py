"""A lock merge keeps only the hashes this run verified (issue #67 §5), for a module block:
:func:`tofu_solve.workdir.verify.hashes_kept`, which :func:`~tofu_solve.workdir.verify.verify_packages`
asks for every block it verified (held end to end by ``tests/e2e/test_lock_merge.py``)."""

from __future__ import annotations

from tofu_solve.lockfile.entries import ModuleLock
from tofu_solve.workdir.verify import hashes_kept

OURS, THEIRS, OTHER = "h1:" + "A" * 43 + "=", "h1:" + "B" * 43 + "=", "h1:" + "C" * 43 + "="


def _lock(*hashes: str) -> ModuleLock:
    return ModuleLock("vpc", "6.0.0", "registry.opentofu.org/terraform-aws-modules/vpc/aws", "~> 6.0", hashes, "",
                      False)


def test_a_block_a_merge_formed_keeps_only_the_hashes_verified_here():
    kept, gone = hashes_kept(_lock(OURS, THEIRS), [OURS], merged=True)
    assert kept == (OURS,) and gone == (THEIRS,)


def test_any_other_block_keeps_what_it_recorded_with_the_verified_ones_added():
    kept, gone = hashes_kept(_lock(OURS, OTHER), [OURS, THEIRS], merged=False)
    assert sorted(kept) == sorted([OURS, OTHER, THEIRS]) and gone == ()


def test_a_legacy_pin_among_the_hashes_is_never_kept_as_a_hash():
    kept, gone = hashes_kept(_lock(OURS, "git:0123456789abcdef0123456789abcdef01234567"), [OURS], merged=False)
    assert kept == (OURS,) and gone == ()
