"""A lock file with Git merge-conflict markers read as its sides (issue #60 §2):
``tofu_solve.lockfile.merge_conflict``. The conflicted texts are made by real git
(``git merge-file``, with and without ``--diff3``) from two lock files, as a merge of two
branches leaves them."""

from __future__ import annotations

import subprocess

import pytest

from tofu_solve.errors import LockFileError
from tofu_solve.lockfile import LockFileErrors, parse_lock_text, read_lock_file
from tofu_solve.lockfile.merge_conflict import has_conflict_markers, merge_sides, split_sides
from tofu_solve.lockfile.read import read_conflicted_lock_file

H1_A = "h1:" + "A" * 43 + "="
H1_B = "h1:" + "B" * 43 + "="
H1_C = "h1:" + "C" * 43 + "="
ZH = "zh:" + "0" * 64


def _module(version: str, h1: str, path: str = "vpc") -> str:
    return (f'module "{path}" {{\n  version     = "{version}"\n  source      = "registry.opentofu.org/'
            f'terraform-aws-modules/vpc/aws"\n  constraints = "~> 6.0"\n  hashes = [\n    "{h1}",\n  ]\n}}\n')


def _provider(version: str, *hashes: str) -> str:
    listed = "".join(f'    "{h}",\n' for h in sorted(hashes))
    return (f'provider "registry.opentofu.org/hashicorp/aws" {{\n  version     = "{version}"\n'
            f'  constraints = "~> 5.0"\n  hashes = [\n{listed}  ]\n}}\n')


def _merged(tmp_path, base: str, ours: str, theirs: str, diff3: bool = False) -> str:
    for name, text in (("ours", ours), ("base", base), ("theirs", theirs)):
        (tmp_path / name).write_text(text)
    r = subprocess.run(["git", "merge-file", "-p", *(["--diff3"] if diff3 else []), "-L", "HEAD", "-L", "base",
                        "-L", "renovate/vpc", "ours", "base", "theirs"], cwd=tmp_path, capture_output=True,
                       text=True)
    assert r.returncode > 0, "git merged it cleanly: no conflict to read"
    return r.stdout


@pytest.mark.parametrize("diff3", [False, True])
def test_two_versions_start_from_the_newer_and_agreed_blocks_are_kept(tmp_path, diff3):
    kms = _module("3.1.1", H1_C, "kms")
    base = _module("6.4.0", H1_C) + "\n" + kms
    text = _merged(tmp_path, base, _module("6.5.1", H1_A) + "\n" + kms, _module("6.6.0", H1_B) + "\n" + kms, diff3)
    assert has_conflict_markers(text)
    sides = split_sides(text, ".terraform.lock.hcl")
    assert (sides.base is not None) == diff3 and sides.hunks
    merged = merge_sides(text, ".terraform.lock.hcl", parse_lock_text, LockFileErrors)
    assert merged.locks.modules["vpc"].version == "6.6.0" and merged.locks.modules["vpc"].hashes == (H1_B,)
    assert merged.locks.modules["kms"].version == "3.1.1"  # the sides agree: kept
    [c] = merged.conflicts
    assert (c.kind, c.name, c.ours, c.theirs, c.start) == ("module", "vpc", "6.5.1", "6.6.0", "6.6.0")
    assert c.base == ("6.4.0" if diff3 else None)


def test_one_version_with_other_platforms_is_the_union_of_the_hashes(tmp_path):
    text = _merged(tmp_path, _provider("5.100.0", ZH), _provider("5.100.0", ZH, H1_A), _provider("5.100.0", ZH, H1_B))
    merged = merge_sides(text, ".terraform.lock.hcl", parse_lock_text, LockFileErrors)
    [p] = merged.locks.providers.values()
    assert p.version == "5.100.0" and set(p.hashes) == {ZH, H1_A, H1_B}
    assert merged.conflicts[0].how == "one version; the sides differ in hashes (the union of both sides)"


def test_a_block_removed_on_one_side_and_unchanged_on_the_other_goes(tmp_path):
    vpc, kms = _module("6.5.1", H1_A), _module("3.1.1", H1_C, "kms")
    text = _merged(tmp_path, vpc + "\n" + kms, vpc + "\n" + _module("3.1.1", H1_C, "kms2"), vpc + "\n",
                   diff3=True)
    merged = merge_sides(text, ".terraform.lock.hcl", parse_lock_text, LockFileErrors)
    assert "kms" not in merged.locks.modules and "kms2" in merged.locks.modules


def test_readers_that_do_not_resolve_refuse_naming_the_blocks(tmp_path):
    text = _merged(tmp_path, _module("6.4.0", H1_C), _module("6.5.1", H1_A), _module("6.6.0", H1_B))
    path = tmp_path / ".terraform.lock.hcl"
    path.write_text(text)
    with pytest.raises(LockFileError) as e:
        read_lock_file(path, refused_by="tofu-solve check")
    assert e.value.summary == "Lock file has merge conflicts"
    assert 'module "vpc": 6.5.1 / 6.6.0' in e.value.detail and "tofu-solve check does not resolve" in e.value.detail
    assert e.value.where.line == next(n for n, x in enumerate(text.splitlines(), 1) if x.startswith("<<<<<<<"))
    assert read_conflicted_lock_file(path) is not None
    path.write_text(_module("6.5.1", H1_A))
    assert read_conflicted_lock_file(path) is None


def test_an_unclosed_hunk_is_an_error_at_its_line():
    text = _module("6.5.1", H1_A) + "<<<<<<< HEAD\n" + _module("6.6.0", H1_B, "kms")
    with pytest.raises(LockFileError) as e:
        split_sides(text, ".terraform.lock.hcl")
    assert e.value.summary == "Unclosed merge conflict" and e.value.where.line == 9
