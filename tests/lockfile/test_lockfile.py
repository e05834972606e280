"""The lock file: OpenTofu's load/save vectors, module blocks, atomic and refusing writes."""

import os
import stat

import pytest

from tests.conftest import VECTORS
from tofu_solve.addrs.provider import parse_provider_source
from tofu_solve.errors import LockFileError
from tofu_solve.lockfile import (
    LockFile,
    ModuleLock,
    ProviderLock,
    format_lock_file,
    parse_lock_text,
    read_lock_file,
    write_lock_file,
)
from tofu_solve.versions import provider_constraint

LF = VECTORS["lockfiles"]


@pytest.mark.parametrize("case", LF["load"], ids=lambda c: c["file"])
def test_load_vectors(case):
    locks, diags = parse_lock_text(case["content"], case["file"])
    errors = {str(d.line): d.summary for d in diags if d.severity == "error"}
    assert errors == case["expected_errors_by_line"]
    assert not case["expect_ok"] or not errors
    assertions = case.get("assertions", {})
    if "provider_count" in assertions:
        assert len(locks.providers) == assertions["provider_count"]
    for addr, want in assertions.get("providers", {}).items():
        got = locks.providers[addr]
        assert (got.version, got.constraints, list(got.hashes)) == (
            want["version"], want["constraints_canonical"], want["hashes"])


@pytest.mark.parametrize("case", LF["load_absent"], ids=lambda c: c["path_kind"])
def test_load_absent(case, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "testdata").mkdir()
    with pytest.raises(LockFileError) as e:
        read_lock_file(case["path"], missing_ok=False)
    assert f"{e.value.summary}: {e.value.detail}" == case["expected_error"]


def test_missing_file_is_empty_by_default(tmp_path):
    assert read_lock_file(tmp_path / ".terraform.lock.hcl") == LockFile()


def _locks_from_save_case(case):
    lf = LockFile()
    for p in case["providers"]:
        addr = parse_provider_source(p["addr"])
        canonical = provider_constraint(p["constraints"]).canonical if p["constraints"] else ""
        lf.providers[str(addr)] = ProviderLock(addr, p["version"], canonical, tuple(sorted(set(p["hashes"] or []))))
    return lf


def test_save_vector_byte_exact():
    case = LF["save"][0]
    assert format_lock_file(_locks_from_save_case(case)) == case["expected_text"]


@pytest.mark.parametrize("case", LF["save"][1:], ids=lambda c: c["id"])
def test_saved_texts_round_trip(case):
    text = case.get("expected_text") or case["expected_text_trimmed"] + "\n"
    locks, diags = parse_lock_text(text)
    assert not [d for d in diags if d.severity == "error"]
    # formatted fresh (not from the raw text) it must come out identical
    fresh = LockFile({k: ProviderLock(v.address, v.version, v.constraints, v.hashes) for k, v in locks.providers.items()})
    assert format_lock_file(fresh).strip() == text.strip()


def test_module_blocks_written_before_providers_and_read_back(tmp_path):
    """Module blocks first, then the provider blocks exactly as tofu writes them (so that a
    tool that reads a provider block as "from its line to the next provider line", as
    Renovate does, never takes a module block for part of one)."""
    case = LF["save"][0]
    locks = _locks_from_save_case(case)
    locks.modules["vpc.nested"] = ModuleLock("vpc.nested", "2.1.0", "registry.opentofu.org/a/b/aws", "~> 2.0",
                                            ("zh:" + "a" * 64, "h1:abc="))
    locks.modules["eks"] = ModuleLock("eks", "20.37.0", "registry.opentofu.org/terraform-aws-modules/eks/aws")
    text = format_lock_file(locks)
    header, providers = case["expected_text"].split("\n\n", 1)  # tofu's two comment lines, then its blocks
    assert text == header + "\n" + (
        '\nmodule "eks" {\n'
        '  version = "20.37.0"\n'
        '  source  = "registry.opentofu.org/terraform-aws-modules/eks/aws"\n'
        "}\n"
        '\nmodule "vpc.nested" {\n'
        '  version     = "2.1.0"\n'
        '  source      = "registry.opentofu.org/a/b/aws"\n'
        '  constraints = "~> 2.0"\n'
        "  hashes = [\n"
        '    "h1:abc=",\n'
        f'    "zh:{"a" * 64}",\n'
        "  ]\n"
        "}\n") + "\n" + providers
    back, diags = parse_lock_text(text)
    assert not diags
    assert back.modules == locks.modules


def test_untouched_provider_blocks_are_kept_as_written(tmp_path):
    original = ('# custom comment\n\nprovider "registry.opentofu.org/hashicorp/aws" {\n'
                '  version     = "5.0.0"   # pinned by ops\n  constraints = "~> 5.0"\n}\n')
    path = tmp_path / ".terraform.lock.hcl"
    path.write_text(original)
    locks = read_lock_file(path)
    locks.modules["vpc"] = ModuleLock("vpc", "6.6.0", "registry.opentofu.org/terraform-aws-modules/vpc/aws")
    assert write_lock_file(path, locks)
    text = path.read_text()
    assert '  version     = "5.0.0"   # pinned by ops\n' in text
    assert 'module "vpc" {' in text
    assert not write_lock_file(path, read_lock_file(path)), "unchanged content must not be rewritten"


def test_written_file_mode_and_atomicity(tmp_path):
    path = tmp_path / ".terraform.lock.hcl"
    write_lock_file(path, LockFile())
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o644
    assert [p.name for p in tmp_path.iterdir()] == [".terraform.lock.hcl"], "no temporary file left behind"


def test_malformed_lock_reports_line_and_is_not_overwritten(tmp_path):
    path = tmp_path / ".terraform.lock.hcl"
    bad = 'module "vpc" {\n  version = "1.0.0"\n  source = "x/y/z"\n}\n\nmodule "vpc" {\n  version = "1.0.0"\n  source = "x"\n}\n'
    path.write_text(bad)
    with pytest.raises(LockFileError) as e:
        read_lock_file(path)
    assert e.value.summary == "Duplicate module lock"
    assert e.value.where.line == 6 and e.value.where.file.endswith(".terraform.lock.hcl")
    assert path.read_text() == bad


def test_module_lock_without_version_is_an_archive_package():
    """An archive URL has no version: its lock has source and hashes only."""
    text = 'module "m" {\n  source = "https://h/m.zip"\n  hashes = [\n    "h1:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=",\n  ]\n}\n'
    locks, diags = parse_lock_text(text)
    assert diags == [] and locks.modules["m"].version == "" and locks.modules["m"].source == "https://h/m.zip"
    from tofu_solve.lockfile.write import format_module_lock
    assert format_module_lock(locks.modules["m"]) == text


C40 = "0123456789abcdef0123456789abcdef01234567"
D64 = "sha256:" + "ab" * 32


def test_package_and_floating_written_after_the_hashes_and_read_back():
    """Issue #25, in the layout of OpenTofu's draft module-installation RFC (PR #4071):
    ``package`` (or ``floating = true``) follows ``hashes``, a run of its own for hclwrite's
    alignment."""
    pinned = ModuleLock("vpc", "6.6.0", "registry.opentofu.org/terraform-aws-modules/vpc/aws", "~> 6.0",
                        ("h1:abc=",), f"git::https://example.com/vpc.git//modules/x?ref={C40}")
    floating = ModuleLock("m", "", "https://h/m.zip", "", ("h1:abc=",), "", True)
    from tofu_solve.lockfile.write import format_module_lock
    assert format_module_lock(pinned) == (
        'module "vpc" {\n'
        '  version     = "6.6.0"\n'
        '  source      = "registry.opentofu.org/terraform-aws-modules/vpc/aws"\n'
        '  constraints = "~> 6.0"\n'
        "  hashes = [\n"
        '    "h1:abc=",\n'
        "  ]\n"
        f'  package = "git::https://example.com/vpc.git//modules/x?ref={C40}"\n'
        "}\n")
    assert format_module_lock(floating).endswith('  ]\n  floating = true\n}\n')
    locks = LockFile(modules={"vpc": pinned, "m": floating})
    back, diags = parse_lock_text(format_lock_file(locks))
    assert not diags and back.modules == locks.modules


@pytest.mark.parametrize("package", [
    f"git::https://example.com/vpc.git?ref={C40}",
    f"git::https://example.com/vpc.git//sub?ref={C40}",
    f"oci://registry.example.com/modules/vpc?digest={D64}",
    "https://example.com/m.zip?checksum=sha256:" + "ab" * 32,
])
def test_immutable_packages_accepted(package):
    text = f'module "m" {{\n  version = "1.0.0"\n  source = "x/y/z"\n  package = "{package}"\n}}\n'
    locks, diags = parse_lock_text(text)
    assert diags == [] and locks.modules["m"].package == package


@pytest.mark.parametrize("line,fragment", [
    ('package = "git::https://example.com/vpc.git?ref=v1.0.0"', "full commit id"),
    ('package = "git::https://example.com/vpc.git"', "full commit id"),
    ('package = "oci://registry.example.com/modules/vpc?tag=1.0.0"', "digest"),
    ('package = "https://example.com/m.zip"', "checksum"),
    ('package = "./local"', "local path"),
    (f'package = "git::https://user:hunter2@example.com/vpc.git?ref={C40}"', "credential"),
    ('package = "::"', "not a module package address"),
    ('floating = "yes"', "true or false"),
    (f'floating = true\n  package = "git::https://example.com/vpc.git?ref={C40}"', "either pinned or floating"),
])
def test_hostile_package_values_are_refused_with_their_line(line, fragment):
    text = f'module "m" {{\n  version = "1.0.0"\n  source = "x/y/z"\n  {line}\n}}\n'
    _, diags = parse_lock_text(text)
    assert len(diags) == 1 and fragment in diags[0].detail, diags
    assert diags[0].line in (4, 5)


def test_a_lock_written_before_package_pins_is_the_same_selection():
    """Issue #25: a lock entry without ``package`` (its commit among the hashes, as tofu-solve
    wrote them before) stays valid: the completed entry is the same selection, so
    ``-lockfile=readonly`` accepts it; a different package or hash is not."""
    from tofu_solve.lockfile.entries import same_selection
    old = ModuleLock("m", "v1.0.0", "git::https://example.com/m.git?ref=v1.0.0", "~> 1.0", ("h1:abc=", f"git:{C40}"))
    new = ModuleLock("m", "v1.0.0", old.source, "~> 1.0", ("h1:abc=",), f"git::https://example.com/m.git?ref={C40}")
    assert same_selection(old, new)
    assert not same_selection(new, ModuleLock("m", "v1.0.0", old.source, "~> 1.0", ("h1:abc=",),
                                              f"git::https://example.com/m.git?ref={'f' * 40}"))
    assert not same_selection(old, ModuleLock("m", "v1.0.0", old.source, "~> 1.0", ("h1:xyz=",), new.package))


def test_broken_hcl_lock_names_line(tmp_path):
    path = tmp_path / ".terraform.lock.hcl"
    path.write_text('provider "registry.opentofu.org/a/b" {\n  version = "1.0.0"\n')
    with pytest.raises(LockFileError) as e:
        read_lock_file(path)
    assert e.value.summary == "Unclosed configuration block" and e.value.where.line == 1  # the unclosed brace


@pytest.mark.parametrize("body,summary", [
    ('module "vpc" {\n  version = ""\n  source = "x"\n}\n', "Missing required argument"),
    ('module "vpc" {\n  version = "1"\n}\n', "Missing required argument"),
    ('module "../../victim" {\n  version = "1"\n  source = "x"\n}\n', "Invalid module lock address"),
    ('module "a.b." {\n  version = "1"\n  source = "x"\n}\n', "Invalid module lock address"),
    ('module "a b" {\n  version = "1"\n  source = "x"\n}\n', "Invalid module lock address"),
    ('module "vpc" {\n  version = "1"\n  source = "x"\n  hashes = []\n}\n', "Invalid module hash set"),
    ('module "vpc" {\n  version = "1"\n  source = "x"\n  extra = 1\n}\n', "Unsupported argument"),
])
def test_module_block_validation(body, summary):
    _, diags = parse_lock_text(body)
    assert [d.summary for d in diags] == [summary]


def test_upgrade_from_predecessor_input_parses():
    case = LF["upgrade_from_predecessor"][0]
    locks, diags = parse_lock_text(case["input"])
    assert not diags
    for addr, want in case["expected_locks"].items():
        if addr in locks.providers and want["hashes"]:
            assert locks.providers[addr].version == want["version"]
            assert list(locks.providers[addr].hashes) == want["hashes"]


@pytest.mark.parametrize("case", LF["contains_all"], ids=lambda c: c["id"])
def test_contains_all(case):
    addr = parse_provider_source("test/foo")
    original = ProviderLock(addr, "1.0.0", "", tuple(case["original"]))
    target = None if case["target"] is None else ProviderLock(addr, "1.0.0", "", tuple(case["target"]))
    assert original.contains_all(target) is case["original_contains_target"]
    if "target_contains_original" in case:
        assert target.contains_all(original) is case["target_contains_original"]


def test_upgrade_from_predecessor():
    case = LF["upgrade_from_predecessor"][0]
    locks, _ = parse_lock_text(case["input"])
    assert locks.upgrade_from_predecessor() == case["expected_changes"]
    got = {k: {"version": v.version, "constraints": v.constraints or None, "hashes": list(v.hashes)}
           for k, v in locks.providers.items()}
    assert got == case["expected_locks"]
