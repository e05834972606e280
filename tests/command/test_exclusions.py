"""Leaving roots out of ``-recursive`` (issue #81 §5): ``.tofu-solve-exclude`` files from the
repository's top down and ``-exclude-dir`` flags, as ``.gitignore`` patterns, the last match
deciding; a bad pattern is an error at its file and line; a file outside the repository is
not read."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tofu_solve.command.exclusions import EXCLUDE_FILE, read_exclusions
from tofu_solve.command.monorepo import each_root, select_roots
from tofu_solve.errors import ConfigurationError


def _tree(top: Path, roots: list[str]) -> Path:
    (top / ".git").mkdir(parents=True)
    for r in roots:
        (top / r).mkdir(parents=True, exist_ok=True)
        (top / r / "main.tf").write_text('terraform {}\n')
    return top


def test_a_committed_file_leaves_roots_out_with_its_line_and_reason(tmp_path):
    top = _tree(tmp_path / "repo", ["live/dev/app", "live/prod/app", "live/prod/db", "legacy/old", "legacy/keep"])
    (top / EXCLUDE_FILE).write_text("# reads the network unit's outputs\n# (Terragrunt resolves it)\n"
                                    "live/prod/app/\n\n**/legacy/\n!legacy/keep/\n")
    roots, left = select_roots(top)
    assert [os.path.relpath(r, top) for r in roots] == ["legacy/keep", "live/dev/app", "live/prod/db"]
    why = {os.path.relpath(r, top): w for r, w in left.items()}
    assert set(why) == {"live/prod/app", "legacy/old"}
    assert why["live/prod/app"].by == ".tofu-solve-exclude:3"
    assert why["live/prod/app"].reason == "reads the network unit's outputs (Terragrunt resolves it)"
    assert why["legacy/old"].by == ".tofu-solve-exclude:5" and why["legacy/old"].reason == ""  # a blank line ends it
    assert why["live/prod/app"].text() == ("left out by .tofu-solve-exclude:3: reads the network unit's outputs "
                                           "(Terragrunt resolves it)")


def test_files_from_the_top_down_then_the_flags_the_last_match_decides(tmp_path):
    top = _tree(tmp_path / "repo", ["live/a", "live/b", "live/c"])
    (top / EXCLUDE_FILE).write_text("live/a/\nlive/b/\n")  # relative to the top
    (top / "live" / EXCLUDE_FILE).write_text("!b/\n")  # relative to live/: brings b back
    base = top / "live"
    ex = read_exclusions(base, ("c",))
    assert ex.left_out(base / "a").by == "../.tofu-solve-exclude:1"  # named from where the run stands
    assert ex.left_out(base / "b") is None
    assert ex.left_out(base / "c").by == "-exclude-dir=c"
    assert read_exclusions(base, ("!a/",)).left_out(base / "a") is None  # a flag comes last


def test_outside_a_repository_only_the_runs_own_directory_is_read(tmp_path):
    (tmp_path / EXCLUDE_FILE).write_text("*\n")  # above the run, no repository: not read
    base = tmp_path / "work"
    (base / "a").mkdir(parents=True)
    assert read_exclusions(base).left_out(base / "a") is None
    (base / EXCLUDE_FILE).write_text("a/\n")
    assert read_exclusions(base).left_out(base / "a").by == ".tofu-solve-exclude:1"


def test_a_bad_pattern_is_an_error_at_its_line(tmp_path):
    top = _tree(tmp_path / "repo", ["a"])
    (top / EXCLUDE_FILE).write_text("# fine\na/\n!\n")
    with pytest.raises(ConfigurationError) as e:
        read_exclusions(top)
    assert e.value.summary == "Invalid exclude pattern"
    assert (e.value.where.file, e.value.where.line) == (".tofu-solve-exclude", 3)
    (top / EXCLUDE_FILE).unlink()
    with pytest.raises(ConfigurationError, match="-exclude-dir=!"):
        read_exclusions(top, ("!",))


def test_a_linked_file_outside_the_repository_is_refused(tmp_path):
    top = _tree(tmp_path / "repo", ["a"])
    outside = tmp_path / "secret"
    outside.write_text("TOKEN=abc\n")
    (top / EXCLUDE_FILE).symlink_to(outside)
    with pytest.raises(ConfigurationError) as e:
        read_exclusions(top)
    assert e.value.summary == "File outside the repository" and "TOKEN" not in e.value.render()


def test_each_root_never_runs_a_left_out_root_and_names_it_in_order(tmp_path):
    top = _tree(tmp_path / "repo", ["env2", "env10", "env1"])
    ran = []
    out = each_root(str(top), lambda root: ran.append(root.name) or root.name, exclude_dir=("env10",))
    assert sorted(ran) == ["env1", "env2"]
    assert [(n, o.ran, o.ok, o.value) for n, o in out] == [("env1", True, True, "env1"), ("env2", True, True, "env2"),
                                                          ("env10", False, True, None)]
    assert out[2][1].left_out.by == "-exclude-dir=env10"
