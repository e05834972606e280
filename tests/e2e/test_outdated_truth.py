"""Issue #81 §6: ``outdated``'s CAN MOVE TO is what ``tofu-solve init -upgrade=NAME`` lands,
every other lock kept; where the whole ``-upgrade`` reaches further, the row says so and names
the command that reaches it. Held as a property over generated roots: for every row, the
version the column shows is the version the command lands, run for real afterwards."""

from __future__ import annotations

import shutil

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from tests.e2e.conftest import make_repo, write_root


def lock_versions(root) -> dict[str, str]:
    """Call path or provider address -> version, as the root's lock file holds them."""
    from tofu_solve.lockfile import parse_lock_text

    locks, _ = parse_lock_text((root / ".terraform.lock.hcl").read_text())
    return {**{p: m.version for p, m in locks.modules.items()}, **{a: p.version for a, p in locks.providers.items()}}


def _needs(constraint: str) -> dict[str, str]:
    return {"main.tf": 'terraform {\n  required_providers {\n    aws = {\n      source  = "hashicorp/aws"\n'
                       f'      version = "{constraint}"\n    }}\n  }}\n}}\n'}


def _root(aws: str, m: str) -> str:
    return (f'terraform {{\n  required_providers {{\n    aws = {{\n      source  = "hashicorp/aws"\n'
            f'      version = "{aws}"\n    }}\n  }}\n}}\n'
            f'module "m" {{\n  source  = "git::{m}"\n  version = "~> 1.0"\n}}\n')


def test_the_column_is_what_upgrade_name_lands_and_the_rest_is_named(tmp_path, tofu_solve, own_cache):
    """The issue's case: ``m`` v1.1.0 needs hashicorp/aws ">= 3.0" and the lock holds aws
    2.x. ``init -upgrade=m`` keeps aws, so it keeps m v1.0.0: the column says v1.0.0 (no
    move), and the row names ``-upgrade=m,hashicorp/aws``, which lands v1.1.0."""
    m = make_repo(tmp_path / "m", [("v1.0.0", _needs(">= 1.0")), ("v1.1.0", _needs(">= 3.0"))])
    root = write_root(tmp_path / "root", _root("< 3.0", m))
    assert tofu_solve(root, "init", "-handover=false").code == 0
    main = root / "main.tf"
    main.write_text(main.read_text().replace('"< 3.0"', '">= 1.0"'))
    assert tofu_solve(root, "init", "-handover=false").code == 0  # aws 2.x still allowed: the lock keeps it
    locked = lock_versions(root)
    assert locked["m"] == "v1.0.0"

    r = tofu_solve(root, "outdated", "-json")
    assert r.code == 2, r.err  # something can move, with others
    rows = {i["name"]: i for i in r.json()["items"]}
    row = rows["m"]
    assert row["can_move_to"] == "v1.0.0" and not row["can_move"], row
    assert row["with_others_to"] == "v1.1.0" and row["upgrade_with"] == ["hashicorp/aws"], row
    assert row["with_others_command"] == "tofu-solve init -upgrade=m,hashicorp/aws"
    assert row["command"] is None
    text = tofu_solve(root, "outdated")
    assert "m to v1.1.0 with tofu-solve init -upgrade=m,hashicorp/aws" in text.out, text.out
    assert "tofu-solve init -upgrade=m keeps v1.0.0" in text.out

    # what the column says is what the command does; what the row names reaches the rest
    scratch = tmp_path / "scratch"
    shutil.copytree(root, scratch)
    assert tofu_solve(scratch, "init", "-handover=false", "-upgrade=m").code == 0
    assert lock_versions(scratch)["m"] == row["can_move_to"]
    assert tofu_solve(root, "init", "-handover=false", "-upgrade=m,hashicorp/aws").code == 0
    assert lock_versions(root)["m"] == "v1.1.0"


@settings(max_examples=10, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(first_aws=st.sampled_from(["< 3.0", "< 4.0", ">= 1.0"]),
       later_aws=st.sampled_from([">= 1.0", ">= 3.0", "< 5.0"]),
       needs=st.lists(st.sampled_from([">= 1.0", ">= 3.0", ">= 4.0", "< 3.0"]), min_size=2, max_size=3))
@example(first_aws="< 3.0", later_aws=">= 1.0", needs=[">= 1.0", ">= 3.0"])  # the shape
@example(first_aws="< 4.0", later_aws=">= 1.0", needs=[">= 1.0", ">= 3.0", ">= 4.0"])  # a partial move
def test_every_rows_column_is_what_its_command_lands(tmp_path_factory, tofu_solve, own_cache, first_aws, later_aws,
                                                       needs):
    """The property, over generated roots: a module whose versions need various aws ranges,
    locked under one root constraint, then the constraint changed. For every module row
    outdated shows, ``init -upgrade=NAME`` (run for real on a copy) lands CAN MOVE TO, and
    the command named for ``with_others_to`` lands that."""
    tmp = tmp_path_factory.mktemp("prop")
    tags = [(f"v1.{i}.0", _needs(c)) for i, c in enumerate(needs)]
    m = make_repo(tmp / "m", tags)
    root = write_root(tmp / "root", _root(first_aws, m))
    if tofu_solve(root, "init", "-handover=false").code != 0:
        return  # no version fits the first constraint: nothing locked to ask about
    main = root / "main.tf"
    main.write_text(main.read_text().replace(f'"{first_aws}"', f'"{later_aws}"'))
    if tofu_solve(root, "init", "-handover=false").code != 0:
        return
    r = tofu_solve(root, "outdated", "-json")
    assert r.code in (0, 2), r.err
    for row in r.json()["items"]:
        name = row["name"] if row["kind"] == "module" else row["name"].split("/", 1)[1]
        copy = tmp / f"copy-{name.replace('/', '_')}"
        shutil.copytree(root, copy)
        assert tofu_solve(copy, "init", "-handover=false", f"-upgrade={name}").code == 0
        assert lock_versions(copy)[row["name"]] == row["can_move_to"], row
        if row["with_others_command"] and row["upgrade_with"] is not None:
            further = tmp / f"further-{name.replace('/', '_')}"
            shutil.copytree(root, further)
            names = row["with_others_command"].split("=", 1)[1]
            assert tofu_solve(further, "init", "-handover=false", f"-upgrade={names}").code == 0
            assert lock_versions(further)[row["name"]] == row["with_others_to"], row
