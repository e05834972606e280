"""``tofu-solve lsp`` on a warm cache (issue #61 §5): how long from a changed ``version`` to
the diagnostics, and how much memory the server holds with many roots open.

    python3 bench/lsp_latency.py [--roots 20] [--edits 10] [--corpus DIR]
    python3 bench/lsp_latency.py --units 8 [--edits 10]      # Terragrunt units (issue #85 §4)

The fixture world is built from ``../shared/corpus`` and served on 127.0.0.1; the first
``--roots`` example roots that resolve are written and initialized once (locks and cache
warm, as an editor meets a repository someone has run ``init`` in). The server then runs as
a subprocess (``python -m tofu_solve lsp``) under pygls's own client: each root's file with a
versioned module call is opened (the first diagnostics timed), then its first ``version``
is changed ``--edits`` times, alternately to ``">= 0.0.0, <original>"`` and back, each change
timed until the diagnostics for that file are published again. Prints the medians and the
worst, and the server's peak resident memory (``VmHWM``) with every root open. A warm solve
reads nothing from the network, so loopback and a slow link give the same figures here.

With ``--units N``: a Terragrunt live repository (``root.hcl``, ``_envcommon/vpc.hcl`` with
``terraform-aws-modules/vpc/aws ~> 6.0``, ``live/uK/vpc/terragrunt.hcl`` for K < N, each
including both), every unit initialized once; then each unit's ``terragrunt.hcl`` is opened
(timed to its first diagnostics), and the shared include is opened and changed ``--edits``
times (its range made ``">= 0.0.0, ~> 6.0"`` and back), each change timed until the include's
diagnostics have been published for every unit that reads it (N publications).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

VERSION_LINE = re.compile(r'^(\s*version\s*=\s*")([^"]+)(".*)$')


def _versioned_file(root: Path) -> tuple[Path, int] | None:
    for f in sorted(root.glob("*.tf")):
        lines = f.read_text().splitlines()
        inside = False
        for i, line in enumerate(lines):
            if line.lstrip().startswith("module "):
                inside = True
            if inside and VERSION_LINE.match(line):
                return f, i
    return None


async def measure(roots: list[Path], env: dict, edits: int) -> dict:
    from lsprotocol import types
    from pygls.lsp.client import LanguageClient

    client = LanguageClient("tofu-solve-bench", "1")
    published: dict[str, asyncio.Event] = {}

    @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def on_diagnostics(params: types.PublishDiagnosticsParams) -> None:
        if params.uri in published:
            published[params.uri].set()

    await client.start_io(sys.executable, "-m", "tofu_solve", "lsp", env=env)
    await client.initialize_async(types.InitializeParams(capabilities=types.ClientCapabilities(),
                                                         root_uri=roots[0].parent.as_uri()))
    client.initialized(types.InitializedParams())
    opened, changed = [], []
    for root in roots:
        found = _versioned_file(root)
        if found is None:
            continue
        path, at = found
        uri = path.as_uri()
        text = path.read_text()
        published[uri] = asyncio.Event()
        t = time.perf_counter()
        client.text_document_did_open(types.DidOpenTextDocumentParams(
            types.TextDocumentItem(uri=uri, language_id="terraform", version=1, text=text)))
        await asyncio.wait_for(published[uri].wait(), 300)
        opened.append(time.perf_counter() - t)
        lines = text.splitlines(keepends=True)
        m = VERSION_LINE.match(lines[at].rstrip("\n"))
        assert m is not None
        for k in range(edits):
            new = lines[:]
            if k % 2 == 0:
                new[at] = f"{m.group(1)}>= 0.0.0, {m.group(2)}{m.group(3)}\n"
            published[uri].clear()
            t = time.perf_counter()
            client.text_document_did_change(types.DidChangeTextDocumentParams(
                types.VersionedTextDocumentIdentifier(uri=uri, version=k + 2),
                [types.TextDocumentContentChangeWholeDocument(text="".join(new))]))
            await asyncio.wait_for(published[uri].wait(), 300)
            changed.append(time.perf_counter() - t)
    pid = client._server.pid if getattr(client, "_server", None) is not None else None
    peak = _peak_rss(pid)
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()
    return {"opened": opened, "changed": changed, "peak_rss_mib": peak}


UNIT = ('include "root" {\n  path = find_in_parent_folders("root.hcl")\n}\ninclude "envcommon" {\n'
        '  path = "${dirname(find_in_parent_folders("root.hcl"))}/_envcommon/vpc.hcl"\n}\n')
ENVCOMMON = 'terraform {\n  source  = "tfr:///terraform-aws-modules/vpc/aws"\n  version = "RANGE"\n}\n'


def live_repo(base: Path, units: int) -> list[Path]:
    """The live repository of ``--units``: its unit directories."""
    import subprocess

    (base / "_envcommon").mkdir(parents=True)
    (base / "root.hcl").write_text("")
    (base / "_envcommon" / "vpc.hcl").write_text(ENVCOMMON.replace("RANGE", "~> 6.0"))
    out = []
    for k in range(units):
        d = base / "live" / f"u{k}" / "vpc"
        d.mkdir(parents=True)
        (d / "terragrunt.hcl").write_text(UNIT)
        out.append(d)
    subprocess.run(["git", "init", "-q", str(base)], check=True)
    return out


async def measure_units(repo: Path, units: list[Path], env: dict, edits: int) -> dict:
    """Open each unit, then edit the shared include (module docstring)."""
    from lsprotocol import types
    from pygls.lsp.client import LanguageClient

    client = LanguageClient("tofu-solve-bench", "1")
    counts: dict[str, int] = {}
    arrived = asyncio.Event()

    @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def on_diagnostics(params: types.PublishDiagnosticsParams) -> None:
        counts[params.uri] = counts.get(params.uri, 0) + 1
        arrived.set()

    async def until(uri: str, n: int) -> None:
        while counts.get(uri, 0) < n:
            arrived.clear()
            await asyncio.wait_for(arrived.wait(), 300)

    await client.start_io(sys.executable, "-m", "tofu_solve", "lsp", env=env)
    await client.initialize_async(types.InitializeParams(capabilities=types.ClientCapabilities(),
                                                         root_uri=repo.as_uri()))
    client.initialized(types.InitializedParams())
    opened, changed = [], []
    for unit in units:
        uri = (unit / "terragrunt.hcl").as_uri()
        t = time.perf_counter()
        client.text_document_did_open(types.DidOpenTextDocumentParams(
            types.TextDocumentItem(uri=uri, language_id="hcl", version=1, text=UNIT)))
        await until(uri, 1)
        opened.append(time.perf_counter() - t)
    include = repo / "_envcommon" / "vpc.hcl"
    uri = include.as_uri()
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        types.TextDocumentItem(uri=uri, language_id="hcl", version=1, text=include.read_text())))
    await until(uri, len(units))
    for k in range(edits):
        text = ENVCOMMON.replace("RANGE", ">= 0.0.0, ~> 6.0" if k % 2 == 0 else "~> 6.0")
        before = counts.get(uri, 0)
        t = time.perf_counter()
        client.text_document_did_change(types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(uri=uri, version=k + 2),
            [types.TextDocumentContentChangeWholeDocument(text=text)]))
        await until(uri, before + len(units))
        changed.append(time.perf_counter() - t)
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()
    return {"opened": opened, "changed": changed}


def _peak_rss(pid: int | None) -> float | None:
    if pid is None:
        return None
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--roots", type=int, default=20)
    ap.add_argument("--edits", type=int, default=10)
    ap.add_argument("--corpus", default=str(REPO.parent / "shared" / "corpus"))
    ap.add_argument("--units", type=int, default=0, help="measure Terragrunt units and a shared include instead")
    args = ap.parse_args()
    from tofu_solve.command.init import InitOptions, run_init
    from tofu_solve.settings import Settings
    from tofu_solve.world import build_world, default_world_dir, running_world
    from tofu_solve.world.roots import example_roots

    world = build_world(args.corpus, default_world_dir())
    with tempfile.TemporaryDirectory(prefix="tofu-solve-lsp-bench-") as tmp, running_world(world, Path(tmp)) as rw:
        work = Path(tmp)
        env = dict(os.environ, **rw.env(work / "cache"), PYTHONPATH=str(REPO))
        if args.units:
            units = live_repo(work / "live-repo", args.units)
            old = dict(os.environ)
            os.environ.update(env)
            try:
                for unit in units:
                    run_init(InitOptions(root=unit), Settings.from_environ(os.environ))
            finally:
                os.environ.clear()
                os.environ.update(old)
            got = asyncio.run(measure_units(work / "live-repo", units, env, args.edits))
            print(f"{len(units)} Terragrunt units reading one include, {len(got['changed'])} edits of it (warm cache)")
            print(f"open a unit -> diagnostics: median {statistics.median(got['opened']) * 1000:.0f} ms, "
                  f"worst {max(got['opened']) * 1000:.0f} ms")
            print(f"edit the shared include -> every unit's diagnostics: median "
                  f"{statistics.median(got['changed']) * 1000:.0f} ms, worst {max(got['changed']) * 1000:.0f} ms")
            return 0
        roots: list[Path] = []
        for k, r in enumerate(example_roots(args.corpus)):
            if len(roots) >= args.roots:
                break
            d = r.write(work / f"r{k}")
            old = dict(os.environ)
            os.environ.update(env)
            try:
                run_init(InitOptions(root=d), Settings.from_environ(os.environ))
            except Exception:
                continue  # a root that does not resolve is not what this measures
            finally:
                os.environ.clear()
                os.environ.update(old)
            if _versioned_file(d) is not None:
                roots.append(d)
        result = asyncio.run(measure(roots, env, args.edits))
    opened, changed = result["opened"], result["changed"]
    print(f"{len(opened)} roots, {len(changed)} edits (warm cache, server: python -m tofu_solve lsp)")
    print(f"open -> diagnostics: median {statistics.median(opened) * 1000:.0f} ms, worst {max(opened) * 1000:.0f} ms")
    print(f"edit -> diagnostics: median {statistics.median(changed) * 1000:.0f} ms, "
          f"90th percentile {sorted(changed)[int(0.9 * len(changed))] * 1000:.0f} ms, worst {max(changed) * 1000:.0f} ms")
    print(f"server peak resident memory with every root open: {result['peak_rss_mib']:.0f} MiB"
          if result["peak_rss_mib"] is not None else "server peak resident memory: unknown")
    return 0


if __name__ == "__main__":
    sys.exit(main())
