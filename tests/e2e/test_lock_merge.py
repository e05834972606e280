"""Lock merge conflicts resolved by solving (issue #60 §2), end to end: two real inits make
the two sides of a merge (as two branches, each with its pull request, leave them), real
git writes the conflicted lock file (``git merge-file``, with and without diff3 hunks), and
``tofu-solve init`` reads both sides, solves, writes a lock without markers and lists how
each conflicted block was resolved; ``-lockfile=readonly`` and ``check`` refuse the file,
naming the blocks and ``tofu-solve init``."""

from __future__ import annotations

import subprocess

import pytest

from tests.e2e.conftest import write_root
from tofu_solve.lockfile import parse_lock_text

AWS = "registry.opentofu.org/hashicorp/aws"


def _vpc(version: str) -> str:
    return f'module "vpc" {{\n  source  = "terraform-aws-modules/vpc/aws"\n  version = "{version}"\n}}\n'


def _side(tofu_solve, dir, main_tf, *args) -> str:
    root = write_root(dir, main_tf)
    r = tofu_solve(root, "init", "-handover=false", *args)
    assert r.code == 0, r.err
    return (root / ".terraform.lock.hcl").read_text()


def _conflicted(dir, base: str, ours: str, theirs: str, diff3: bool) -> str:
    dir.mkdir(parents=True, exist_ok=True)
    for name, text in (("ours", ours), ("base", base), ("theirs", theirs)):
        (dir / name).write_text(text)
    r = subprocess.run(["git", "merge-file", "-p", *(["--diff3"] if diff3 else []), "-L", "HEAD", "-L", "base",
                        "-L", "renovate/vpc-6.x", "ours", "base", "theirs"], cwd=dir, capture_output=True, text=True)
    assert r.returncode > 0 and "<<<<<<< HEAD" in r.stdout
    return r.stdout


@pytest.mark.parametrize("diff3", [False, True])
def test_two_versions_of_a_module_are_solved_and_the_resolution_listed(isolated, tofu_solve, diff3):
    base = _side(tofu_solve, isolated / "base", _vpc("6.4.0"))
    ours = _side(tofu_solve, isolated / "ours", _vpc("6.5.1"))
    theirs = _side(tofu_solve, isolated / "theirs", _vpc("6.6.0"))
    root = write_root(isolated / "root", _vpc("~> 6.0"))  # main.tf as merged: both versions admitted
    lock_path = root / ".terraform.lock.hcl"
    lock_path.write_text(_conflicted(isolated / "merge", base, ours, theirs, diff3))
    conflicted = lock_path.read_text()
    for args, who in ((("check",), "tofu-solve check"),
                      (("init", "-lockfile=readonly", "-handover=false"), "tofu-solve init -lockfile=readonly")):
        r = tofu_solve(root, *args)
        assert r.code == 1 and "Error: Lock file has merge conflicts" in r.err, r.err
        said = " ".join(r.err.split())
        assert 'module "vpc": 6.5.1 / 6.6.0' in said and f"{who} does not resolve them; tofu-solve init does" in said
        assert lock_path.read_text() == conflicted
    r = tofu_solve(root, "init", "-handover=false")
    assert r.code == 0, r.err
    text = lock_path.read_text()
    assert "<<<<<<<" not in text and "=======" not in text and ">>>>>>>" not in text
    locks = parse_lock_text(text)[0]
    assert locks.modules["vpc"].version == "6.6.0"
    assert locks.modules["vpc"].hashes == parse_lock_text(theirs)[0].modules["vpc"].hashes  # that side's, verified
    said = " ".join((r.out + r.err).split())
    assert "tofu-solve read both sides, kept every block they agree on and solved the rest" in said
    assert ('module "vpc": ours 6.5.1, theirs 6.6.0 -> 6.6.0 (two versions: the solve starts from the newer; it fits '
            "the rest of the selection)") in said
    assert tofu_solve(root, "check").code == 0


def test_the_newer_side_that_does_not_fit_moves_to_the_other(isolated, tofu_solve):
    base = _side(tofu_solve, isolated / "base", _vpc("6.4.0"))
    ours = _side(tofu_solve, isolated / "ours", _vpc("6.5.1"))
    theirs = _side(tofu_solve, isolated / "theirs", _vpc("6.6.0"))
    root = write_root(isolated / "root", _vpc("~> 6.5.0"))  # the merged main.tf kept ours' line of the constraint
    (root / ".terraform.lock.hcl").write_text(_conflicted(isolated / "merge", base, ours, theirs, False))
    r = tofu_solve(root, "init", "-handover=false")
    assert r.code == 0, r.err
    assert parse_lock_text(r.lock)[0].modules["vpc"].version == "6.5.1"
    said = " ".join((r.out + r.err).split())
    assert ('module "vpc": ours 6.5.1, theirs 6.6.0 -> 6.5.1 (6.6.0 does not fit the rest of the selection; the '
            'other side\'s: constraint edited to "~> 6.5.0"') in said


def test_one_provider_version_from_two_platforms_is_the_union_verified(isolated, tofu_solve):
    tf = ('terraform {\n  required_providers {\n    aws = {\n      source  = "hashicorp/aws"\n'
          '      version = "~> 5.90"\n    }\n  }\n}\n')
    # OpenTofu before 1.12: each side locks the h1: of the platforms it downloaded (from 1.12 on, every
    # platform's h1: comes from the registry's packages field and the two sides agree: issue #82 §2)
    old = "-tofu-version=1.11.4"
    base = _side(tofu_solve, isolated / "base", tf, old)
    ours = _side(tofu_solve, isolated / "ours", tf, old, "-platform=linux_amd64", "-platform=linux_arm64")
    theirs = _side(tofu_solve, isolated / "theirs", tf, old, "-platform=linux_amd64", "-platform=darwin_arm64")
    root = write_root(isolated / "root", tf)
    (root / ".terraform.lock.hcl").write_text(_conflicted(isolated / "merge", base, ours, theirs, True))
    r = tofu_solve(root, "init", "-handover=false", old, "-platform=linux_amd64", "-platform=linux_arm64",
                   "-platform=darwin_arm64")
    assert r.code == 0, r.err
    got = parse_lock_text(r.lock)[0].providers[AWS]
    sides = [parse_lock_text(t)[0].providers[AWS] for t in (ours, theirs)]
    assert set(got.hashes) == set(sides[0].hashes) | set(sides[1].hashes)
    assert "one version; the sides differ in hashes (the union of both sides)" in " ".join(r.out.split())


def test_a_sides_hashes_this_run_cannot_verify_are_left_out_and_listed(isolated, tofu_solve):
    """Issue #67 §5: in a merge conflict, the other side adds a zh: absent from the provider's
    signed SHA256SUMS (as a backdoored package's would be) and another h1: to a module at the
    same version; the resolution keeps only what this run verified and names the rest."""
    tf = ('terraform {\n  required_providers {\n    aws = {\n      source  = "hashicorp/aws"\n'
          '      version = "~> 6.0"\n    }\n  }\n}\n') + _vpc("~> 6.0")
    base = _side(tofu_solve, isolated / "base", tf)
    forged_zh = "zh:" + "ab" * 32
    forged_h1 = "h1:" + "A" * 43 + "="

    def each_block(text: str, line: str) -> str:  # the line first in every hashes list
        return text.replace("  hashes = [\n", f"  hashes = [\n{line}\n")
    ours = each_block(base, "    # reviewed")
    theirs = base.replace("  hashes = [\n", f'  hashes = [\n    "{forged_h1}",\n', 1)  # the vpc block
    head, mark, rest = theirs.partition(f'provider "{AWS}" {{')
    theirs = head + mark + rest.replace("  hashes = [\n", f'  hashes = [\n    "{forged_zh}",\n', 1)
    root = write_root(isolated / "root", tf)
    conflicted = _conflicted(isolated / "merge", base, ours, theirs, False)
    assert conflicted.count("<<<<<<<") == 2  # both blocks conflict
    (root / ".terraform.lock.hcl").write_text(conflicted)
    r = tofu_solve(root, "init", "-handover=false")
    assert r.code == 0, r.err
    assert forged_zh not in r.lock and forged_h1 not in r.lock
    said = " ".join((r.out + r.err).split())
    assert f"could not verify left out: {forged_h1}" in said and f"could not verify left out: {forged_zh}" in said
    assert "<<<<<<<" not in r.lock


def test_a_conflict_in_the_constraints_line_is_named_and_never_called_up_to_date(isolated, tofu_solve):
    """Issue #70 §4: both sides lock vpc 6.6.0 with its hashes, one side's call says "~> 6.0",
    the other's "~> 6.6": the resolution names the constraints, and after rewriting the file
    init does not say the lock file is up to date."""
    base = _side(tofu_solve, isolated / "base", _vpc("6.6.0"))
    ours = _side(tofu_solve, isolated / "ours", _vpc("~> 6.0"))
    theirs = _side(tofu_solve, isolated / "theirs", _vpc("~> 6.6"))
    root = write_root(isolated / "root", _vpc("~> 6.6"))  # the merged main.tf: theirs
    (root / ".terraform.lock.hcl").write_text(_conflicted(isolated / "merge", base, ours, theirs, False))
    r = tofu_solve(root, "init", "-handover=false")
    assert r.code == 0, r.err
    said = " ".join((r.out + r.err).split())
    assert ('module "vpc": ours 6.6.0, theirs 6.6.0 -> 6.6.0 (one version; the sides differ in constraints ("~> 6.0" '
            'and "~> 6.6": the configuration\'s are written)') in said, said
    assert "the hashes of both sides" not in said
    assert "The lock file is up to date." not in said
    assert "<<<<<<<" not in r.lock and 'constraints = "~> 6.6"' in r.lock


@pytest.mark.parametrize("call", ['source = "git::URL?ref=v1.0.0"', 'source  = "git::URL"\n  version = "1.0.0"'])
def test_a_merge_takes_neither_sides_commit_for_a_tag(isolated, tofu_solve, tmp_path, call):
    """Issue #80 §4: one side of a merge points a tag's package at another commit of the
    repository (a pull request's head, which this machine happens to hold already), with
    that commit's hashes. The merged lock takes neither side's commit: the package is what
    the tag names, checked against the hashes of the side that changed it, so the resolution
    is an integrity error and the other commit's code is never installed; a side that changed
    only the package resolves to the tag's commit."""
    import re as _re

    from tests.e2e.conftest import make_repo

    url = make_repo(tmp_path / "mod", [("v1.0.0", {"main.tf": "# one\n"}), ("v1.1.0", {"main.tf": "# two\n"})])
    tf = 'module "m" {\n  ' + call.replace("URL", url) + '\n}\n'
    base = _side(tofu_solve, isolated / "base", tf)
    elsewhere = _side(tofu_solve, isolated / "elsewhere", tf.replace("v1.0.0", "v1.1.0").replace('"1.0.0"', '"1.1.0"'))
    block = _re.compile(r"  hashes = \[\n.*?\n  package = \"[^\"]*\"\n", _re.S)
    tagged = _re.search(r"\?ref=([0-9a-f]{40})", base)[1]
    other = _re.search(r"\?ref=([0-9a-f]{40})", elsewhere)[1]
    ours = base.replace("  package = ", "  # reviewed\n  package = ", 1)  # beside theirs: a conflict
    for theirs, ok in ((base.replace(tagged, other), True),  # the package only
                       (block.sub(lambda _m: block.search(elsewhere)[0], base, count=1), False)):  # and its hashes
        root = write_root(isolated / f"root-{ok}", tf)
        (root / ".terraform.lock.hcl").write_text(_conflicted(isolated / f"merge-{ok}", base, ours, theirs, False))
        r = tofu_solve(root, "init", "-handover=false")
        assert (r.code == 0) is ok, r.out + r.err
        installed = root / ".terraform/modules/m/main.tf"
        assert not installed.exists() or installed.read_text() == "# one\n"
        if ok:
            assert tagged in r.lock and other not in r.lock
