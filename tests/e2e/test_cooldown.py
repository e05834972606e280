"""The release cooldown (issue #25): ``-min-age`` keeps versions younger than a duration out
of the solve, for git tags (their commit's date), registry modules and providers (the
registry's ``published_at``, which the fixture world serves from the corpus's dates).
Locked versions stay; exact pins are honoured with a warning; a constraint only young
versions meet is explained like any other conflict."""

from __future__ import annotations

import math
import time
from datetime import UTC, datetime

from tests.e2e.conftest import VPC6_EKS20, lock_versions, make_repo, write_root
from tofu_solve.versions.cooldown import format_day, format_duration
from tofu_solve.versions.hashicorp_go_version import GoVersion

DAY = 86400


def _note(released: float, min_age: float = 7 * DAY) -> str:
    """A held-back version's dates in the words of OpenTofu's module-cooldown RFC."""
    return f"discovered {format_day(released)}, clears cooldown {format_day(released + min_age)}"


def _git_module(tmp_path) -> tuple[str, str]:
    """(URL of a repository whose v1.1.0 is two days old, that version's note under 7d)."""
    now = int(time.time())  # a commit's date has whole seconds
    url = make_repo(tmp_path / "mod", [("v1.0.0", {"main.tf": "# one\n"}), ("v1.1.0", {"main.tf": "# two\n"})],
                    dates={"v1.0.0": now - 30 * DAY, "v1.1.0": now - 2 * DAY})
    return url, _note(now - 2 * DAY)


def _root(tmp_path, url, constraint):
    return write_root(tmp_path / "root", f'module "m" {{\n  source  = "git::{url}"\n  version = "{constraint}"\n}}\n')


def test_a_young_git_tag_is_not_a_candidate(tmp_path, tofu_solve, own_cache):
    url, young = _git_module(tmp_path)
    root = _root(tmp_path, url, "~> 1.0")
    r = tofu_solve(root, "init", "-min-age=7d", "-handover=false")
    assert r.code == 0, r.err
    assert lock_versions(r.lock) == {"m": "v1.0.0"}
    assert f'Warning: -min-age=7d held back m at v1.0.0 (kept out: v1.1.0, {young}).' in " ".join(r.out.split())
    # without the cooldown the newest is chosen
    r = tofu_solve(root, "init", "-upgrade", "-handover=false")
    assert r.code == 0 and lock_versions(r.lock) == {"m": "v1.1.0"}


def test_locked_versions_stay_and_the_environment_sets_the_cooldown(tmp_path, tofu_solve, own_cache, monkeypatch):
    url, _ = _git_module(tmp_path)
    root = _root(tmp_path, url, "~> 1.0")
    assert tofu_solve(root, "init", "-handover=false").code == 0  # locks v1.1.0
    monkeypatch.setenv("TOFU_SOLVE_MIN_AGE", "7d")
    r = tofu_solve(root, "init", "-handover=false")
    assert r.code == 0, r.err
    assert lock_versions(r.lock) == {"m": "v1.1.0"}  # a locked version stays
    # the cooldown never moves a call below what the lock file holds, -upgrade included
    for upgrade in ("-upgrade", "-upgrade=m"):
        r = tofu_solve(root, "init", upgrade, "-handover=false")
        assert r.code == 0 and lock_versions(r.lock) == {"m": "v1.1.0"}, r.err
    # chosen afresh (a new root, nothing locked): the cooldown applies
    fresh = write_root(tmp_path / "fresh", (root / "main.tf").read_text())
    r = tofu_solve(fresh, "init", "-handover=false")
    assert r.code == 0 and lock_versions(r.lock) == {"m": "v1.0.0"}, r.err
    # the flag wins over the environment
    r = tofu_solve(root, "init", "-upgrade", "-min-age=0", "-handover=false")
    assert r.code == 0 and lock_versions(r.lock) == {"m": "v1.1.0"}


def test_an_exact_pin_to_a_young_version_is_honoured_with_a_warning(tmp_path, tofu_solve, own_cache):
    url, young = _git_module(tmp_path)
    root = _root(tmp_path, url, "1.1.0")
    r = tofu_solve(root, "init", "-min-age=7d", "-handover=false")
    assert r.code == 0, r.err
    assert lock_versions(r.lock) == {"m": "v1.1.0"}
    assert f'Warning: module "m" is pinned exactly to v1.1.0, released 2 days ago ({young}), younger than -min-age=7d' \
        in " ".join(r.out.split())


def test_a_constraint_only_young_versions_meet_is_explained(tmp_path, tofu_solve, own_cache):
    url, young = _git_module(tmp_path)
    root = _root(tmp_path, url, ">= 1.1.0")
    r = tofu_solve(root, "init", "-min-age=7d", "-handover=false")
    assert r.code == 1
    text = " ".join(r.err.split())
    assert "v1.1.0" in text and f"younger than -min-age=7d: released 2 days ago ({young})" in text, r.err
    assert "main.tf:3" in text  # the constraint that only a young version meets, cited
    assert not (root / ".terraform.lock.hcl").exists()


def test_an_invalid_duration_is_an_error(tmp_path, tofu_solve, own_cache):
    url, _ = _git_module(tmp_path)
    root = _root(tmp_path, url, "~> 1.0")
    r = tofu_solve(root, "init", "-min-age=7 days", "-handover=false")
    assert r.code == 1 and "Error: Invalid duration" in r.err and '"7d"' in r.err


def _age_limit_hours(released: str) -> int:
    """An -min-age in hours under which a version released at ``released`` (RFC 3339) is
    young, by at least an hour."""
    age = time.time() - datetime.fromisoformat(released.replace("Z", "+00:00")).timestamp()
    return math.ceil(age / 3600) + 1


def test_registry_modules_and_providers_wait_out_the_cooldown(tmp_path, tofu_solve, own_cache, world):
    """The registry's ``published_at``: with a cooldown just longer than the age of vpc's
    newest 6.x release, that release is held back and an older one is chosen; the same
    limit holds back hashicorp/aws releases younger than it. Expectations follow from the
    world's dates, not from the calendar."""
    dates = world.module_dates["terraform-aws-modules/vpc/aws"]
    six = sorted((GoVersion.parse(v), v) for v in dates if v.startswith("6.") and "-" not in v)
    newest = six[-1][1]
    hours = _age_limit_hours(dates[newest])
    young = {v for v, d in dates.items() if time.time() - datetime.fromisoformat(d.replace("Z", "+00:00"))
             .timestamp() < hours * 3600}
    root = write_root(tmp_path / "root", VPC6_EKS20)
    r = tofu_solve(root, "init", f"-min-age={hours}h", "-handover=false", "-json", "-verbose")
    assert r.code == 0, r.err
    got = lock_versions(r.lock)
    assert got["vpc"] not in young and got["vpc"].startswith("6."), got
    result = r.json()
    assert result["stats"]["release_time_unknown"] == 0  # every module version the registry listed had a date
    aws = next(p for p in result["providers"] if p["address"].endswith("hashicorp/aws"))
    aws_dates = world.provider_dates["hashicorp/aws"]
    young_aws = {v for v, d in aws_dates.items()
                 if time.time() - datetime.fromisoformat(d.replace("Z", "+00:00")).timestamp() < hours * 3600}
    assert young_aws and aws["version"] not in young_aws  # (a version without a date counts as old enough)
    # the exact stage knows the cooldown for a provider the root does not declare (issue #58 §1.2):
    # it does not prefer a young version the search cannot take, so the selection is proven best
    assert result["selection"]["optimal"] is True, result["selection"]
    held = [w for w in result["warnings"] if w["summary"] == "Versions held back by the cooldown"]
    released = datetime.fromisoformat(dates[newest].replace("Z", "+00:00")).timestamp()
    assert any(f"{newest}, {_note(released, hours * 3600)}" in w["detail"] for w in held), result["warnings"]


def test_a_young_provider_release_is_held_back(tmp_path, tofu_solve, own_cache, world):
    """Provider versions wait out the cooldown too: hashicorp/aws's newest release, dated by
    the registry's ``published_at``, is held back (and named in a warning); an exact
    provider pin to it is honoured."""
    dates = world.provider_dates["hashicorp/aws"]
    newest = max((v for v in world.providers["hashicorp/aws"] if "-" not in v), key=GoVersion.parse)
    hours = _age_limit_hours(dates[newest])
    tf = ('terraform {\n  required_providers {\n    aws = {\n      source  = "hashicorp/aws"\n'
          '      version = "CONSTRAINT"\n    }\n  }\n}\n')
    root = write_root(tmp_path / "root", tf.replace("CONSTRAINT", ">= 6.0"))
    r = tofu_solve(root, "init", f"-min-age={hours}h", "-handover=false", "-json")
    assert r.code == 0, r.err
    result = r.json()
    chosen = next(p["version"] for p in result["providers"] if p["address"].endswith("hashicorp/aws"))
    assert chosen != newest
    assert all(len(w["detail"]) <= 240 for w in result["warnings"]), result["warnings"]  # two lines at most
    assert any(f"hashicorp/aws at {chosen}" in w["detail"] and newest in w["detail"]
               for w in result["warnings"]), result["warnings"]
    r = tofu_solve(root, "why", "hashicorp/aws")  # names the cooldown, newest held-back version first
    assert r.code == 0, r.err
    held = r.out.split("held back by the release cooldown:", 1)
    limit = format_duration(hours * 3600)
    # said once, its versions newest first (issue #83 §3): one version, or a list or range ending at the newest
    first = held[1].lstrip().splitlines()[0] if len(held) == 2 else ""
    assert first.startswith("- ") and f": it is younger than -min-age={limit}: released " in first, r.out
    versions = first[2:].split(": it is younger", 1)[0]
    assert versions == newest or versions.startswith(f"{newest}, ") or versions.endswith(f" to {newest}"), r.out
    root2 = write_root(tmp_path / "root2", tf.replace("CONSTRAINT", f"= {newest}"))
    r = tofu_solve(root2, "init", f"-min-age={hours}h", "-handover=false", "-json")
    assert r.code == 0, r.err
    result = r.json()
    assert next(p["version"] for p in result["providers"] if p["address"].endswith("hashicorp/aws")) == newest
    assert any("pinned exactly" in w["detail"] for w in result["warnings"])


def test_outdated_and_why_name_the_cooldown(tmp_path, tofu_solve, own_cache):
    """``outdated`` gives each newer version's age and says when the cooldown is what holds
    a call back; ``why`` names the cooldown for the version it kept out."""
    import json
    url, young = _git_module(tmp_path)
    root = _root(tmp_path, url, "~> 1.0")
    assert tofu_solve(root, "init", "-min-age=7d", "-handover=false").code == 0
    r = tofu_solve(root, "why", "m")
    assert r.code == 0, r.err
    text = " ".join(r.out.split())
    assert "v1.1.0" in text and "it is younger than -min-age=7d: released 2 days" in text, r.out
    r = tofu_solve(root, "outdated", "-min-age=7d", "-json")
    row = next(x for x in json.loads(r.out)["items"] if x["name"] == "m")
    assert row["held_by"] == "cooldown" and row["can_move_to"] == "v1.0.0", row
    # the one held-back analysis's words, as why says them (issue #58 §2)
    assert "it is younger than -min-age=7d: released 2 days" in row["reason"] and young in row["reason"]
    assert [(n["version"], n["cooldown"]) for n in row["newer"]] == [("v1.1.0", True)]
    assert 2 * DAY - 600 < row["newer"][0]["age_seconds"] < 2 * DAY + 600
    r = tofu_solve(root, "outdated", "-min-age=7d")
    assert "1.1.0 (2 days)" in r.out and "cooldown: it is younger than -min-age=7d" in r.out  # ages in the table
    r = tofu_solve(root, "outdated", "-json")  # without a cooldown, v1.1.0 is what -upgrade takes
    row = next(x for x in json.loads(r.out)["items"] if x["name"] == "m")
    assert row["can_move_to"] == "v1.1.0" and row["newer"] == []


def test_the_cli_configuration_sets_the_cooldown_below_the_environment(tmp_path, tofu_solve, own_cache, running,
                                                                      monkeypatch):
    """``tofu_solve_min_age`` in the CLI configuration (which tofu ignores, as it ignores every
    attribute it does not know) applies when neither -min-age nor TOFU_SOLVE_MIN_AGE is
    given; TOFU_SOLVE_MIN_AGE wins over it, -min-age over both. A bad value names the file
    and line."""
    url, _ = _git_module(tmp_path)
    root = _root(tmp_path, url, "~> 1.0")
    rc = tmp_path / "rc.tfrc"
    rc.write_text(running.cli_config.read_text() + '\ntofu_solve_min_age = "7d"\n')
    monkeypatch.setenv("TF_CLI_CONFIG_FILE", str(rc))
    r = tofu_solve(root, "init", "-handover=false")
    assert r.code == 0 and lock_versions(r.lock) == {"m": "v1.0.0"}, r.err
    monkeypatch.setenv("TOFU_SOLVE_MIN_AGE", "0")
    r = tofu_solve(root, "init", "-upgrade", "-handover=false")
    assert r.code == 0 and lock_versions(r.lock) == {"m": "v1.1.0"}, r.err
    monkeypatch.delenv("TOFU_SOLVE_MIN_AGE")
    r = tofu_solve(root, "init", "-upgrade", "-min-age=0", "-handover=false")
    assert r.code == 0 and lock_versions(r.lock) == {"m": "v1.1.0"}, r.err
    rc.write_text(running.cli_config.read_text() + '\ntofu_solve_min_age = "a week"\n')
    r = tofu_solve(root, "init", "-upgrade", "-handover=false")
    line = rc.read_text().splitlines().index('tofu_solve_min_age = "a week"') + 1
    assert r.code == 1 and "Error: Invalid duration" in r.err and f"{rc} line {line}" in r.err, r.err


def result_trees(r) -> tuple[int, int]:
    """(module trees read from packages, read from the metadata cache) of an ``init -json``."""
    stats = r.json()["stats"]
    return stats["trees_read"], stats["trees_from_cache"]


def test_a_registry_without_release_times_dates_a_version_by_its_commit(tmp_path, tofu_solve, own_cache, running):
    """A registry whose version list has no ``published_at`` (the protocol defines none): a
    version's age is the date of the commit its download location resolved to, known once
    read; the same on a run that finds the version's requirements in the metadata cache."""
    now = time.time()
    repo = make_repo(tmp_path / "repos" / "dated", [("v1.0.0", {"main.tf": "# one\n"}),
                                                    ("v1.1.0", {"main.tf": "# two\n"})],
                     dates={"v1.0.0": now - 30 * DAY, "v1.1.0": now - 2 * DAY})
    running.registry.extra["acme/dated/aws"] = {"versions": {"1.0.0": f"git::{repo}?ref=v1.0.0",
                                                             "1.1.0": f"git::{repo}?ref=v1.1.0"}}
    try:
        for n in range(2):  # a cold cache, then one that knows both versions' requirements
            root = write_root(tmp_path / f"root{n}",
                              'module "d" {\n  source  = "acme/dated/aws"\n  version = "~> 1.0"\n}\n')
            r = tofu_solve(root, "init", "-min-age=7d", "-handover=false", "-json")
            assert r.code == 0, r.err
            assert result_trees(r) == (2, 0) if n == 0 else result_trees(r)[1] == 2
            assert lock_versions(r.lock) == {"d": "1.0.0"}
            result = r.json()
            assert result["stats"]["release_time_unknown"] == 0
            assert any(f"1.1.0, {_note(int(now) - 2 * DAY)}" in w["detail"] for w in result["warnings"]), \
                result["warnings"]
    finally:
        running.registry.extra.pop("acme/dated/aws", None)


def _module_installation(running, tmp_path, direct: str):
    rc = tmp_path / "rc.tfrc"
    rc.write_text(running.cli_config.read_text() + f"\nmodule_installation {{\n  direct {{\n{direct}\n  }}\n}}\n")
    line = rc.read_text().splitlines().index("  direct {") + 1
    return rc, f"{rc} line {line}"


def test_opentofus_module_installation_block_sets_the_cooldown(tmp_path, tofu_solve, own_cache, running, monkeypatch):
    """OpenTofu's own syntax (the module-cooldown RFC, opentofu/opentofu PR #4444): a
    ``module_installation { direct { cooldown_period } }`` block holds back what is younger,
    naming the block; ``include`` limits it to what it names (registry modules: a git source
    is then not covered); ``-min-age`` wins over it."""
    url, young = _git_module(tmp_path)
    root = _root(tmp_path, url, "~> 1.0")
    rc, where = _module_installation(running, tmp_path, '    cooldown_period = "7d"')
    monkeypatch.setenv("TF_CLI_CONFIG_FILE", str(rc))
    r = tofu_solve(root, "init", "-handover=false")
    assert r.code == 0 and lock_versions(r.lock) == {"m": "v1.0.0"}, r.err
    assert f"cooldown_period=7d ({where}) held back m at v1.0.0 (kept out: v1.1.0, {young})" \
        in " ".join(r.out.split()), r.out
    r = tofu_solve(root, "init", "-upgrade", "-min-age=0", "-handover=false")
    assert r.code == 0 and lock_versions(r.lock) == {"m": "v1.1.0"}, r.err
    rc, _ = _module_installation(running, tmp_path, '    cooldown_period = "7d"\n'
                                                    '    include = ["registry.opentofu.org/*/*/*"]')
    fresh = write_root(tmp_path / "fresh", (root / "main.tf").read_text())
    r = tofu_solve(fresh, "init", "-handover=false")
    assert r.code == 0 and lock_versions(r.lock) == {"m": "v1.1.0"}, r.err  # a git source: not included


def test_the_registrys_discovered_time_and_exclude(tmp_path, tofu_solve, own_cache, running, monkeypatch):
    """A registry version is dated by the OpenTofu registry's ``discovered`` (registry PR
    #4113), ahead of ``published_at``, as the RFC dates it; an ``exclude`` pattern takes a
    package out of the cooldown."""
    now = int(time.time())

    def rfc3339(t: float) -> str:
        return datetime.fromtimestamp(t, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    repo = make_repo(tmp_path / "repos" / "found", [("v1.0.0", {"main.tf": "# one\n"}),
                                                    ("v1.1.0", {"main.tf": "# two\n"})],
                     dates={"v1.0.0": now - 30 * DAY, "v1.1.0": now - 30 * DAY})
    running.registry.extra["acme/found/aws"] = {
        "versions": {"1.0.0": f"git::{repo}?ref=v1.0.0", "1.1.0": f"git::{repo}?ref=v1.1.0"},
        "dates": {"1.0.0": rfc3339(now - 30 * DAY), "1.1.0": rfc3339(now - 30 * DAY)},  # published long ago
        "discovered": {"1.0.0": rfc3339(now - 30 * DAY), "1.1.0": rfc3339(now - 2 * DAY)}}  # seen two days ago
    try:
        tf = 'module "f" {\n  source  = "acme/found/aws"\n  version = "~> 1.0"\n}\n'
        rc, where = _module_installation(running, tmp_path, '    cooldown_period = "7d"')
        monkeypatch.setenv("TF_CLI_CONFIG_FILE", str(rc))
        root = write_root(tmp_path / "root", tf)
        r = tofu_solve(root, "init", "-handover=false", "-json")
        assert r.code == 0, r.err
        assert lock_versions(r.lock) == {"f": "1.0.0"}
        detail = " ".join(w["detail"] for w in r.json()["warnings"])
        assert f"cooldown_period=7d ({where}) held back f at 1.0.0 (kept out: 1.1.0, {_note(now - 2 * DAY)})" \
            in detail, detail
        rc, _ = _module_installation(running, tmp_path, '    cooldown_period = "7d"\n    exclude = ["acme/*/*"]')
        r = tofu_solve(root, "init", "-upgrade", "-handover=false")
        assert r.code == 0 and lock_versions(r.lock) == {"f": "1.1.0"}, r.err
    finally:
        running.registry.extra.pop("acme/found/aws", None)


def test_module_installation_leaves_providers_alone(tmp_path, tofu_solve, own_cache, running, world, monkeypatch):
    """The RFC's block is about modules: a cooldown_period under which hashicorp/aws's newest
    release is young holds it back as -min-age (test_a_young_provider_release_is_held_back),
    but not as module_installation."""
    dates = world.provider_dates["hashicorp/aws"]
    newest = max((v for v in world.providers["hashicorp/aws"] if "-" not in v), key=GoVersion.parse)
    hours = _age_limit_hours(dates[newest])
    root = write_root(tmp_path / "root", 'terraform {\n  required_providers {\n    aws = {\n'
                                         '      source  = "hashicorp/aws"\n      version = ">= 6.0"\n    }\n  }\n}\n')
    rc, _ = _module_installation(running, tmp_path, f'    cooldown_period = "{hours}h"')
    monkeypatch.setenv("TF_CLI_CONFIG_FILE", str(rc))
    r = tofu_solve(root, "init", "-handover=false", "-json")
    assert r.code == 0, r.err
    assert next(p["version"] for p in r.json()["providers"] if p["address"].endswith("hashicorp/aws")) == newest
    fresh = write_root(tmp_path / "fresh", (root / "main.tf").read_text())  # nothing locked: the flag holds it back
    r = tofu_solve(fresh, "init", f"-min-age={hours}h", "-handover=false", "-json")
    assert r.code == 0, r.err
    assert next(p["version"] for p in r.json()["providers"] if p["address"].endswith("hashicorp/aws")) != newest
