"""``tofu-solve demo``: the whole product on real dependency shapes, offline.

Builds (or reuses) the fixture world from ``../shared/corpus``, starts its registry and git
daemon on 127.0.0.1, and runs ``init`` on three bundled roots: one newest-per-call
resolves, one only a joint solver resolves, one that is impossible (with its explanation);
then ``why`` and ``graph`` on the second. Every step's output is kept in the results folder;
the servers are stopped at the end. With ``-serve`` (:func:`serve_demo`) the world stays up
for your own roots until interrupted, and the line that points tofu-solve and the real
client at it is printed.
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import shlex
import shutil
import signal
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Mapping
from datetime import datetime
from importlib import resources
from pathlib import Path

from .._lazy import load
from ..config.tree import read_module_tree
from ..errors import ConfigurationError, TofuSolveError
from ..lockfile import LockFile
from ..lockfile.replacefile import write_atomic
from ..settings import Settings
from ..solver.baseline import newest_per_call
from ..solver.context import SolveOptions
from ..solver.wiring import build_context
from ..versions.target import target_version
from ..world import build_world, default_world_dir, running_world
from ..world.corpus import bundled_corpus


def find_corpus(explicit: str | None, from_env: str | None = None, cache_dir: Path | None = None) -> Path:
    """The corpus directory: ``--corpus`` (``explicit``), else ``$TOFU_SOLVE_CORPUS``
    (``from_env``), else ``../shared/corpus`` from the current directory or beside this
    source tree (not from a frozen executable: it has no source tree), else the corpus the
    package carries, unpacked into ``cache_dir`` (an
    installed package run anywhere). A directory named explicitly (flag or variable) must
    hold the corpus: it is never silently replaced by another.

    Raises:
        ConfigurationError: the named directory holds no corpus, or none was found.
        CacheError: the package's corpus cannot be unpacked into ``cache_dir``.
    """
    for named, how in ((explicit, "--corpus"), (from_env, "TOFU_SOLVE_CORPUS")):
        if named:
            if (Path(named) / "modules.json").is_file():
                return Path(named).resolve()
            raise ConfigurationError("Corpus not found",
                                     f"{how} names {named}, which holds no corpus (modules.json, providers.json).")
    beside = [] if getattr(sys, "frozen", False) else [Path(__file__).resolve().parents[3] / "shared" / "corpus"]
    for c in (Path.cwd() / ".." / "shared" / "corpus", Path.cwd() / "shared" / "corpus", *beside):
        if (c / "modules.json").is_file():
            return c.resolve()
    if cache_dir is not None:
        try:
            return bundled_corpus(cache_dir)
        except FileNotFoundError:
            pass  # a build without package data: said below
    raise ConfigurationError("Corpus not found",
                             "tofu-solve demo needs the real-data corpus (modules.json, providers.json), which this "
                             "installation does not carry: pass --corpus DIR or run it from the repository with "
                             "../shared beside it.")


RunCli = Callable[[list[str], Mapping[str, str]], int]
"""The command line itself (:func:`tofu_solve.cli.main`), handed to the demo by the CLI."""


def _run(run_cli: RunCli, args: list[str], environ: Mapping[str, str]) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        code = run_cli(args, environ)
    return code, out.getvalue()


def _baseline(root: Path, settings: Settings) -> str:
    ctx = build_context(SolveOptions(target_version(None)), LockFile(), settings, None).context
    try:
        b = newest_per_call(read_module_tree(root, confine=False), ctx)
    except TofuSolveError as e:
        return f"newest-per-call (tofu init's algorithm) fails: {e.summary}"
    finally:
        ctx.close()
    picks = ", ".join(f"{k} {v}" for k, v in sorted(b.modules.items()))
    if b.ok:
        return f"newest-per-call (tofu init's algorithm) resolves: {picks}"
    return f"newest-per-call (tofu init's algorithm) FAILS: {b.failure} (it picked {picks})"


def run_demo(output: Path | None, corpus: str | None, out, settings: Settings, run_cli: RunCli) -> int:
    """Run the demo, printing to ``out``; returns 0 when every step behaved as expected.
    Each step runs the command line (``run_cli``) in ``settings``' environment, pointed at
    the fixture world."""
    corpus_dir = find_corpus(corpus, settings.corpus, settings.cache_dir)
    output = Path(output or "tofu-solve-demo").resolve()
    output.mkdir(parents=True, exist_ok=True)
    print(f"tofu-solve demo: results go to {output}", file=out)
    world_dir = default_world_dir()
    print(f"Fixture world (git repositories and registry indexes, built once and reused): {world_dir} "
          "(TOFU_SOLVE_WORLD_DIR moves it)", file=out)
    world = build_world(corpus_dir, world_dir)
    n_versions = sum(len(m["versions"]) for m in world.modules.values())
    print(f"Fixture world: {len(world.modules)} modules, {n_versions} versions, from {corpus_dir}", file=out)
    print(f"Download cache of the demo's runs: {output / 'cache'}", file=out)
    roots_src = resources.files("tofu_solve").joinpath("data/demo")
    ok = True
    with tempfile.TemporaryDirectory(prefix="tofu-solve-demo-") as tmp, running_world(world, Path(tmp)) as rw:
        print(f"Registry at {rw.registry.url}, git daemon at {rw.git.url} (stopped at the end)\n", file=out)
        environ = {**settings.environ, **rw.env(output / "cache")}
        # The demo solves for the newest OpenTofu whatever client this machine has, and runs
        # no client: its results are the same everywhere (the hand-over is shown as the
        # command to run next).
        tofu = f"-tofu-version={target_version(None).version}"
        for name, expect in (("1-resolvable", 0), ("2-needs-solver", 0), ("3-impossible", 1)):
            root = output / name
            if root.exists():
                shutil.rmtree(root)
            root.mkdir()
            (root / "main.tf").write_text(roots_src.joinpath(name, "main.tf").read_text())
            print(f"== {name}", file=out)
            base = _baseline(root, Settings.from_environ(environ))
            print(f"   {base}", file=out)
            code, text = _run(run_cli, ["init", f"-chdir={root}", tofu, "-handover=false"], environ)
            (root / "init.txt").write_text(text)
            print(f"$ tofu-solve init -chdir={root.name}", file=out)
            print(_indent(text), file=out)
            if code != expect:
                ok = False
                print(f"   (unexpected exit status {code})", file=out)
            if name == "2-needs-solver" and code == 0:
                for what in ("eks", "hashicorp/aws"):
                    c, t = _run(run_cli, ["why", what, f"-chdir={root}"], environ)
                    (root / f"why-{what.replace('/', '_')}.txt").write_text(t)
                    print(f"$ tofu-solve why {what}", file=out)
                    print(_indent(t), file=out)
                    ok &= c == 0
                c, t = _run(run_cli, ["graph", "--dot", f"-chdir={root}", f"--output={root / 'graph.dot'}"],
                            environ)
                c2, _ = _run(run_cli, ["graph", "--json", f"-chdir={root}", f"--output={root / 'graph.json'}"],
                             environ)
                ok &= c == 0 and c2 == 0
                print(f"$ tofu-solve graph --dot  ->  {root / 'graph.dot'} (and graph.json)\n", file=out)
                c, t = _run(run_cli, ["check", f"-chdir={root}", tofu], environ)
                (root / "check.txt").write_text(t)
                print("$ tofu-solve check   (offline: is what is installed what is locked?)", file=out)
                print(_indent(t), file=out)
                ok &= c == 0
                ok &= _cooldown_step(root, world, run_cli, environ, tofu, out)
    print(f"Servers stopped. Results (init output, lock files, .terraform/modules, why, graph, check) are in "
          f"{output}",
          file=out)
    return 0 if ok else 1


def _cooldown_step(root: Path, world, run_cli: RunCli, environ: Mapping[str, str], tofu: str, out) -> bool:
    """The release cooldown (issue #25) on the solved root: a cooldown one day longer than
    the age of the youngest module release the solve took (the registry serves the corpus's
    release dates as published_at) holds that release back when the same configuration is
    solved afresh, in a directory of its own (a locked version would stay). True when it
    does."""
    load("tofu_solve.lockfile")
    from ..lockfile import read_lock_file
    load("tofu_solve.versions.cooldown")
    from ..versions.cooldown import format_age

    dated = []
    for path, lock in read_lock_file(root / ".terraform.lock.hcl").modules.items():
        package = lock.source.split("/", 1)[1] if lock.source.count("/") == 3 else lock.source
        released = world.module_dates.get(package, {}).get(lock.version)
        if released:
            dated.append((datetime.fromisoformat(released.replace("Z", "+00:00")).timestamp(), path, lock.version))
    if not dated:
        return True
    when, path, version = max(dated)
    days = math.ceil((time.time() - when) / 86400) + 1
    fresh = root.parent / f"{root.name}-cooldown"
    if fresh.exists():
        shutil.rmtree(fresh)
    fresh.mkdir()
    (fresh / "main.tf").write_text((root / "main.tf").read_text())
    print(f"== {fresh.name}: the same configuration, solved afresh with a release cooldown ({path} {version} "
          f"was released {format_age(time.time() - when)} ago)", file=out)
    c, t = _run(run_cli, ["init", f"-chdir={fresh}", tofu, "-handover=false", f"-min-age={days}d"], environ)
    (fresh / "init.txt").write_text(t)
    print(f"$ tofu-solve init -chdir={fresh.name} -min-age={days}d", file=out)
    print(_indent(t), file=out)
    held = c == 0 and f"-min-age={days}d held back" in t
    c, t = _run(run_cli, ["why", path, f"-chdir={fresh}"], environ)
    (fresh / f"why-{path}.txt").write_text(t)
    print(f"$ tofu-solve why {path}", file=out)
    print(_indent(t), file=out)
    # why names the cooldown in the one vocabulary's words for it (issue #83 §3)
    return held and c == 0 and f"it is younger than -min-age={days}d" in t


def _indent(text: str) -> str:
    return "\n".join(("   " + line) if line else "" for line in text.rstrip().splitlines()) + "\n"


GIT_EXAMPLES = ("terraform-aws-modules/vpc/aws", "terraform-aws-modules/eks/aws", "cloudposse/label/null")


def _git_addresses(world, git_url: str | None, output: Path) -> tuple[str, Path | None]:
    """The lines ``demo -serve`` prints about the world's git repositories (issue #50 §5: a few
    addresses, each with its newest tag) and a ready root (``roots/4-git-version``) that
    calls one of them with a ``version`` constraint, which tofu-solve selects among its
    tags; ("", None) without a git daemon."""
    if not git_url:
        return "", None
    shown = [m for m in GIT_EXAMPLES if m in world.modules] or sorted(world.modules)[:3]

    def newest(address: str) -> str:
        released = [v for v in world.modules[address]["versions"] if "-" not in v]
        return max(released, key=lambda v: [int(x) if x.isdigit() else 0 for x in v.split(".")[:3]])
    lines = [f"  git::{git_url}{world.modules[a]['repo']}.git   ({a}; tags up to "
             f"{world.modules[a]['versions'][newest(a)]})" for a in shown]
    first, top = world.modules[shown[0]], newest(shown[0])
    root = output / "roots" / "4-git-version"
    root.mkdir(parents=True, exist_ok=True)
    (root / "main.tf").write_text(f'module "{shown[0].split("/")[1]}" {{\n'
                                  f'  source  = "git::{git_url}{first["repo"]}.git"\n'
                                  f'  version = "~> {top.split(".")[0]}.0"\n}}\n')
    return ("Its git repositories, e.g. (a git source may take a version constraint with tofu-solve, which "
            "selects among the tags):\n" + "\n".join(lines) + "\n\n"), root


PORTS_FILE = "world-ports.json"
"""Where ``demo -serve`` keeps the ports it listened on, in its -output folder."""


def serve_ports(output: Path, port: int | None) -> tuple[int, int]:
    """The (registry, git daemon) ports for ``demo -serve``: ``port`` and ``port + 1`` when
    given; else the ports the last ``-serve`` in ``output`` recorded (every git ``source``
    and lock ``package`` it handed out embeds the git daemon's port, so a restart that keeps
    them lets a team stop and start the origins: issue #68 §4); else (0, 0), any free ones.

    Raises: ConfigurationError for a port outside 1-65534."""
    if port is not None:
        if not 0 < port < 65535:
            raise ConfigurationError("Invalid -port", f"-port={port}: a port from 1 to 65534 (the git daemon "
                                     "takes the next one).")
        return port, port + 1
    try:
        recorded = json.loads((output / PORTS_FILE).read_text())
        return int(recorded["registry"]), int(recorded["git"])
    except (OSError, ValueError, KeyError, TypeError):
        return 0, 0


def serve_demo(output: Path | None, corpus: str | None, out, settings: Settings,
               stop: threading.Event | None = None, port: int | None = None) -> int:
    """Keep the fixture world running for your own roots (``demo -serve``, issue #37): build
    (or reuse) it, start its registry and git daemon on 127.0.0.1, write the CLI
    configuration that points tofu-solve and the real client at them
    (``OUTPUT/tofu-solve-world.tfrc``) and an environment file (``OUTPUT/world.env``), copy
    the bundled roots into ``OUTPUT/roots``, print how to use them, and wait until
    interrupted (Ctrl-C, SIGTERM) or ``stop`` is set; then stop the servers. Returns 0.

    Raises:
        ConfigurationError, CacheError: no corpus (see :func:`find_corpus`).
        TofuSolveError: the world cannot be built (git missing).
    """
    corpus_dir = find_corpus(corpus, settings.corpus, settings.cache_dir)
    output = Path(output or "tofu-solve-demo").resolve()
    output.mkdir(parents=True, exist_ok=True)
    world = build_world(corpus_dir, default_world_dir())
    roots_src = resources.files("tofu_solve").joinpath("data/demo")
    for name in ("1-resolvable", "2-needs-solver", "3-impossible"):
        (output / "roots" / name).mkdir(parents=True, exist_ok=True)
        (output / "roots" / name / "main.tf").write_text(roots_src.joinpath(name, "main.tf").read_text())
    stop = stop or threading.Event()
    previous = {}
    if threading.current_thread() is threading.main_thread():
        # Ctrl-C and SIGTERM end the wait (SIGINT too where a shell started it ignoring SIGINT)
        for sig in (signal.SIGINT, signal.SIGTERM):
            previous[sig] = signal.signal(sig, lambda *_: stop.set())
    ports = serve_ports(output, port)
    try:
        with running_world(world, output, ports=ports) as rw:
            write_atomic(output / PORTS_FILE, json.dumps(
                {"registry": rw.registry.port, "git": rw.git.port if rw.git else 0}).encode())
            env_file = output / "world.env"
            env_file.write_text(f"export TF_CLI_CONFIG_FILE={shlex.quote(str(rw.cli_config))}\n")
            n_versions = sum(len(m["versions"]) for m in world.modules.values())
            packages = ", ".join(sorted(world.modules)[:4])
            git_lines, git_root = _git_addresses(world, rw.git.url if rw.git else None, output)
            print(f"tofu-solve demo -serve: the fixture world is running ({len(world.modules)} module packages, "
                  f"{n_versions} versions, {len(world.providers)} providers; from {corpus_dir}).\n"
                  f"Registry at {rw.registry.url} (registry.opentofu.org and registry.terraform.io), git daemon "
                  f"at {rw.git.url if rw.git else '(none)'}.\n\n"
                  f"{git_lines}"
                  "In another shell, point tofu-solve and tofu or terraform at it (the CLI configuration sends "
                  "registry.opentofu.org and registry.terraform.io to this registry):\n\n"
                  f"  export TF_CLI_CONFIG_FILE={shlex.quote(str(rw.cli_config))}\n\n"
                  f"(also in {env_file}: . {shlex.quote(str(env_file))})\n\n"
                  f"then run tofu-solve on your own roots that call its modules ({packages}, ...), or on the "
                  f"bundled ones:\n\n  tofu-solve init -chdir={shlex.quote(str(output / 'roots' / '2-needs-solver'))}"
                  + (f"\n  tofu-solve init -chdir={shlex.quote(str(git_root))}   # a git source with a version"
                     if git_root else "") +
                  "\n\nCtrl-C stops the servers.", file=out, flush=True)
            while not stop.wait(1.0):
                pass
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    print("Servers stopped.", file=out, flush=True)
    return 0


def run(args, settings: Settings, run_cli: RunCli) -> int:
    """The command: ``args`` as the parser left them; ``run_cli`` runs each step."""
    if args.serve:
        return serve_demo(args.output, args.corpus, sys.stdout, settings, port=args.port)
    if args.port is not None:
        raise ConfigurationError("Invalid -port", "-port goes with -serve.")
    return run_demo(args.output, args.corpus, sys.stdout, settings, run_cli)
