"""Reading real module HCL: the whole-file parse against reading a module as the solve reads
it (``tofu_solve.config``: the pre-scan finds the blocks the solve reads, the body scan their
arguments, and only the arguments the solve evaluates are parsed), on real repositories and
their tags.

    python3 bench/real_hcl.py GIT_DIR [GIT_DIR...] [--every N] [--big FILE...] [--generate-big FILE]

For every N-th tag of each repository (bare git directories, such as the search tool's
``fetch`` brings), every directory holding ``.tf``/``.tofu`` files is read three ways and
timed: every file parsed whole (python-hcl2's grammar, what tofu-solve did before issue #22);
as a module package (``load_module_dir(strict=False)``: what the solver does with each
version it reads); as the user's root module (``strict=True``: every argument of the blocks
the solve reads parsed, so that their syntax errors are reported). Separately, untimed,
every file is compared: with every argument read, the blocks the solve reads must equal the
whole-file parse's (type, labels, lines, offsets, every argument with its expression text,
line and meaning, nested blocks alike), and the blocks it skips must have the same type,
labels, line and offsets. Files the whole-file parse refuses are counted apart. Prints the
totals; ``--big`` files are also timed with their peak memory, in a child process. Nothing
here is asserted as a timing: it is a measurement.
"""

from __future__ import annotations

import argparse
import io
import resource
import subprocess
import sys
import tarfile
import tempfile
import time
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from lark import Tree  # noqa: E402

from tofu_solve.config import hcl  # noqa: E402
from tofu_solve.config.loader import load_module_dir  # noqa: E402
from tofu_solve.config.read_hcl import _wanted  # noqa: E402
from tofu_solve.errors import TofuSolveError  # noqa: E402


def _tree(t) -> str:
    if isinstance(t, Tree):
        kids = [_tree(c) for c in t.children if not (isinstance(c, Tree) and c.data == "new_line_or_comment")]
        return f"{t.data}({', '.join(kids)})"
    return repr(t)


def meaning(expr) -> tuple:
    try:
        return ("literal", repr(expr.literal()), sorted((k, e.line) for k, e in (expr.object_items() or {}).items()))
    except hcl.NotLiteral:
        return ("tree", _tree(expr.tree), expr.traversal(), expr.template_parts())


def shape(item) -> tuple:
    if isinstance(item, hcl.Block):
        return ("block", item.type, tuple(item.labels), item.line, item.start, item.end,
                tuple(shape(i) for i in item.body.items))
    return ("attr", item.name, item.line, item.expr.text, item.expr.line, meaning(item.expr))


def files_at(git_dir: Path, tag: str) -> dict[str, str]:
    data = subprocess.run(["git", "--git-dir", str(git_dir), "archive", "--format=tar", tag], capture_output=True,
                          check=True).stdout
    out = {}
    with tarfile.open(fileobj=io.BytesIO(data)) as tf:
        for m in tf:
            if m.isfile() and m.name.endswith((".tf", ".tofu")):
                try:
                    out[m.name] = tf.extractfile(m).read().decode("utf-8")
                except UnicodeDecodeError:
                    pass
    return out


def compare(text: str, name: str, totals: dict) -> None:
    """Untimed: the blocks read on demand against the whole-file parse."""
    totals["files"] += 1
    totals["bytes"] += len(text)
    try:
        whole = hcl.parse(text, name)
    except TofuSolveError:
        whole = None
    try:
        part = hcl.parse_blocks(text, name, _wanted)
        hcl.force(part)
    except TofuSolveError:
        part = None
    if whole is None:
        totals["refused_whole"] += 1
        if part is not None:
            totals["read_by_scan_only"] += 1
        return
    if part is None:
        totals["differ"] += 1
        totals["examples"].append(f"{name}: the pre-scan path refused a file the whole parse reads")
        return
    if len(whole.items) != len(part.items):
        totals["differ"] += 1
        totals["examples"].append(f"{name}: {len(whole.items)} items against {len(part.items)}")
        return
    for w, p in zip(whole.items, part.items, strict=False):
        if isinstance(p, hcl.Block) and not isinstance(p.body, hcl.LazyBody) and not p.body.items \
                and isinstance(w, hcl.Block) and w.body.items:
            same = (w.type, w.labels, w.line, w.start, w.end) == (p.type, p.labels, p.line, p.start, p.end)
            totals["skipped_blocks"] += 1
        else:
            same = shape(w) == shape(p)
            totals["read_blocks"] += 1
        if not same:
            totals["differ"] += 1
            totals["examples"].append(f"{name}: line {w.line} differs")
            return


def timed_reads(files: dict[str, str], totals: dict) -> None:
    """Each directory of the release read three ways, timed (see the module's docstring)."""
    by_dir: dict[str, dict[str, str]] = defaultdict(dict)
    for name, text in files.items():
        d, _, base = name.rpartition("/")
        by_dir[d][base] = text
    with tempfile.TemporaryDirectory() as tmp:
        for d, members in by_dir.items():
            where = Path(tmp) / (d or "_root")
            where.mkdir(parents=True, exist_ok=True)
            for base, text in members.items():
                (where / base).write_text(text, encoding="utf-8")
            t0 = time.perf_counter()
            for base, text in members.items():
                try:
                    hcl.parse(text, base)
                except TofuSolveError:
                    pass
            t1 = time.perf_counter()
            outcomes = []
            for strict, key in ((False, "package_s"), (True, "root_s")):
                s0 = time.perf_counter()
                try:
                    load_module_dir(where, strict=strict)
                    outcomes.append("read")
                except TofuSolveError as e:
                    outcomes.append(e.summary)
                totals[key] += time.perf_counter() - s0
            totals["whole_s"] += t1 - t0
            totals["dirs"] += 1
            if outcomes[0] != "read":
                totals["dirs_refused"] += 1


def generate_big(path: Path, resources: int = 110_000) -> None:
    """A generated root as large as the ones issue #22 measured (25 MiB): a
    ``required_providers`` block, one module call and ``resources`` resource blocks."""
    parts = ['terraform {\n  required_providers {\n    aws = {\n      source = "hashicorp/aws"\n'
             '      version = ">= 5.0"\n    }\n  }\n}\n',
             'module "vpc" {\n  source = "terraform-aws-modules/vpc/aws"\n  version = "~> 6.0"\n}\n']
    parts += [f'resource "aws_instance" "r{i}" {{\n  ami = "ami-{i:08d}"\n  instance_type = "t3.micro"\n  tags = {{\n'
              f'    Name = "n{i}"\n    Team = "{"x" * 100}"\n  }}\n}}\n' for i in range(resources)]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(parts))


def big(path: Path) -> None:
    code = ("import sys, time, resource; sys.path.insert(0, %r)\n"  # noqa: UP031 (a program's text)
            "from tofu_solve.config import hcl\nfrom tofu_solve.config.read_hcl import _wanted\n"
            "t = open(%r).read(); s = time.perf_counter(); b = hcl.parse_blocks(t, 'big.tf', _wanted); hcl.force(b)\n"
            "print(f'{len(t) / 2**20:.1f} MiB: {time.perf_counter() - s:.2f} s, {len(b.items)} blocks, peak '"
            "f'{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024} MiB')") % (str(REPO), str(path))
    print(f"--big {path}: " + subprocess.run([sys.executable, "-c", code], capture_output=True, text=True).stdout.strip())


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("git_dirs", nargs="*", type=Path)
    ap.add_argument("--every", type=int, default=10, help="every N-th tag (default 10)")
    ap.add_argument("--big", nargs="*", type=Path, default=[], help="large files to time on their own")
    ap.add_argument("--generate-big", type=Path, metavar="FILE", help="first write the generated 25 MiB root there")
    args = ap.parse_args()
    if args.generate_big:
        generate_big(args.generate_big)
    hcl.lalr_parser()  # the grammar is built once, before any timing
    for git_dir in args.git_dirs:
        tags = subprocess.run(["git", "--git-dir", str(git_dir), "tag", "--sort=version:refname"], capture_output=True,
                              text=True, check=True).stdout.split()
        totals = {"files": 0, "bytes": 0, "whole_s": 0.0, "package_s": 0.0, "root_s": 0.0, "dirs": 0,
                  "dirs_refused": 0, "refused_whole": 0, "read_by_scan_only": 0, "differ": 0, "read_blocks": 0,
                  "skipped_blocks": 0, "examples": []}
        chosen = tags[::args.every] + ([tags[-1]] if tags and (len(tags) - 1) % args.every else [])
        for tag in chosen:
            files = files_at(git_dir, tag)
            timed_reads(files, totals)
            for name, text in files.items():
                compare(text, f"{tag}:{name}", totals)
        w, pk, rt = totals["whole_s"], totals["package_s"], totals["root_s"]
        print(f"{git_dir.parent.name}: {len(chosen)} of {len(tags)} tags, {totals['files']} files in "
              f"{totals['dirs']} directories, {totals['bytes'] / 2**20:.1f} MiB; whole-file parse {w:.2f} s; "
              f"read as a package {pk:.2f} s ({w / max(pk, 1e-9):.1f}x); as a root {rt:.2f} s "
              f"({w / max(rt, 1e-9):.1f}x); blocks read {totals['read_blocks']}, skipped {totals['skipped_blocks']}; "
              f"differ {totals['differ']}; refused by the whole parse {totals['refused_whole']} files (read by the "
              f"pre-scan path: {totals['read_by_scan_only']}); directories the package read refuses "
              f"{totals['dirs_refused']}")
        for e in totals["examples"][:5]:
            print("   ", e)
    for path in args.big:
        big(path)
    print(f"peak {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024} MiB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
