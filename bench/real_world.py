"""The fixture world with real module contents: the same registry answers, versions and tags,
but the git repositories of the named packages are the real ones (every file of every tag).

The fixture world's repositories hold only each version's module calls, ``required_providers``
and ``required_version`` (a few hundred bytes), so the cost of reading HCL does not show there.
Real repositories, such as the search tool's ``fetch`` brings them (bare git directories named
``<owner>+<name>/repo``, with their tags), are cloned into a copy of the world (``git clone
--bare``, hard links, the world's own repositories untouched), in place of the generated ones;
the others are linked as they are. Nothing of the real repositories is kept in this project.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import replace
from pathlib import Path

from tofu_solve.world import World, build_world, default_world_dir
from tofu_solve.world.roots import assembled_roots, example_roots


def repo_name(git_dir: Path) -> str:
    """``owner/name`` of a fetched repository (``.../<owner>+<name>/repo``), or of a bare
    directory named ``<name>.git`` under ``<owner>/``."""
    git_dir = git_dir.resolve()
    if "+" in git_dir.parent.name:
        return git_dir.parent.name.replace("+", "/", 1)
    return f"{git_dir.parent.name}/{git_dir.name.removesuffix('.git')}"


def bench_world(shared_default: Path, real_content: list[Path], scratch: Path) -> tuple[World, dict]:
    """The world a benchmark runs on: the fixture world built from the corpus
    (``$TOFU_SOLVE_SHARED/corpus``, else ``shared_default/corpus``), or with ``real_content``
    its copy under ``scratch/world`` serving those real repositories (written to disk before
    anything is timed); and every root the corpus names (example roots and assembled pairs),
    by name."""
    corpus = Path(os.environ.get("TOFU_SOLVE_SHARED", shared_default)) / "corpus"
    world = build_world(corpus, default_world_dir())
    if real_content:
        world, _ = real_content_world(world, real_content, scratch / "world")
        os.sync()
    return world, {r.name: r for r in example_roots(corpus) + assembled_roots(corpus)}


def real_content_world(world: World, mirrors: list[Path], out: Path) -> tuple[World, dict[str, int]]:
    """A copy of ``world`` under ``out`` whose repositories named by ``mirrors`` are the real
    ones. Returns the world and, for each real repository, how many of the tags the
    registry's index names it lacks (a version whose tag is missing fails to install)."""
    real = {repo_name(m): m for m in mirrors}
    if out.exists():
        shutil.rmtree(out)
    git = out / "git"
    missing: dict[str, int] = {}
    tags_wanted: dict[str, set[str]] = {}
    for entry in world.modules.values():
        tags_wanted.setdefault(entry["repo"], set()).update(entry["versions"].values())
    for repo_dir in sorted(world.git_dir.glob("*/*.git")):
        repo = f"{repo_dir.parent.name}/{repo_dir.name.removesuffix('.git')}"
        target = git / repo_dir.parent.name / repo_dir.name
        target.parent.mkdir(parents=True, exist_ok=True)
        if repo not in real:
            target.symlink_to(repo_dir)
            continue
        subprocess.run(["git", "clone", "-q", "--bare", str(real[repo]), str(target)], check=True)
        have = set(subprocess.run(["git", "--git-dir", str(target), "tag"], capture_output=True, text=True,
                                  check=True).stdout.split())
        missing[repo] = len(tags_wanted.get(repo, set()) - have)
    unknown = set(real) - {f"{d.parent.name}/{d.name.removesuffix('.git')}" for d in world.git_dir.glob("*/*.git")}
    if unknown:
        raise SystemExit(f"not a repository of the fixture world: {', '.join(sorted(unknown))}")
    return replace(world, root=out, git_dir=git), missing
