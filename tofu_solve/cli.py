"""The ``tofu-solve`` command line: a thin shell over the library.

Flags are accepted OpenTofu-style (``-chdir=DIR``, ``-json``) and GNU-style
(``--chdir DIR``, ``--json``). Exit status: 0 success, 1 a reported error, 2 a usage error.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import shlex
import sys
from collections.abc import Mapping, Sequence

from . import __version__
from .config import ModuleConfig, config_file_names, load_module_dir
from .errors import TofuSolveError
from .command.logs import configure as configure_logging
from .addrs.redact import redact


def _gnu_flags(argv: Sequence[str]) -> list[str]:
    """Rewrite OpenTofu-style ``-name[=value]`` flags as ``--name[=value]``."""
    out = []
    for a in argv:
        if a.startswith("-") and not a.startswith("--") and len(a.split("=", 1)[0]) > 2:
            out.append("-" + a)
        else:
            out.append(a)
    return out


def _config_as_data(cfg: ModuleConfig) -> dict:
    return {
        "dir": str(cfg.dir),
        "files": list(cfg.files),
        "module_calls": [
            {"name": c.name, "source": redact(str(c.source)), "source_kind": c.source.kind.value,
             "version": c.version.text if c.version else None,
             "file": c.where.file, "line": c.where.line,
             "count": c.has_count, "for_each": c.has_for_each}
            for c in cfg.module_calls
        ],
        "required_providers": [
            {"name": p.local_name, "source": str(p.address),
             "version": p.constraint.text if p.constraint else None,
             "file": p.where.file, "line": p.where.line, "legacy": p.legacy}
            for p in cfg.provider_requirements
        ],
        "opentofu_constraints": [
            {"constraint": r.constraint.text, "kind": r.kind, "file": r.where.file, "line": r.where.line,
             "tofu_file": r.tofu_file}
            for r in cfg.core_requirements
        ],
    }


def _print_config(cfg: ModuleConfig, out) -> None:
    print(f"Configuration in {cfg.dir} ({len(cfg.files)} files: {', '.join(cfg.files) or 'none'})", file=out)
    print("\nModule calls:", file=out)
    if not cfg.module_calls:
        print("  (none)", file=out)
    for c in cfg.module_calls:
        ver = f" {c.version.text}" if c.version else ""
        extra = " (count)" if c.has_count else " (for_each)" if c.has_for_each else ""
        shown = getattr(c.source, "for_display", redact(str(c.source)))
        print(f"  - {c.name}: {shown}{ver}{extra}  [{c.where}]", file=out)
    print("\nRequired providers:", file=out)
    if not cfg.provider_requirements:
        print("  (none)", file=out)
    for p in cfg.provider_requirements:
        ver = p.constraint.text if p.constraint else "(any version)"
        print(f"  - {p.local_name} = {p.address.for_display} {ver}  [{p.where}]", file=out)
    print("\nOpenTofu version constraints:", file=out)
    if not cfg.core_requirements:
        print("  (none)", file=out)
    for r in cfg.core_requirements:
        note = "" if r.kind == "compatible_with" or r.tofu_file else " (ignored by OpenTofu >= 1.12: not a .tofu file)"
        print(f"  - {r.kind} {r.constraint.text}  [{r.where}]{note}", file=out)


def cmd_inspect(args) -> int:
    from .config.variables import collect_input_values

    cfg = load_module_dir(args.chdir, inputs=collect_input_values(args.chdir, os.environ, tuple(args.vars or ())))
    if args.json:
        json.dump(_config_as_data(cfg), sys.stdout, indent=2)
        print()
    else:
        _print_config(cfg, sys.stdout)
    return 0


def _progress(args):
    if args.json:
        return lambda msg: None
    import threading
    lock = threading.Lock()

    def report(msg: str) -> None:
        with lock:
            sys.stderr.write(msg + "\n")
            sys.stderr.flush()
    return report


def _module_line(path, cand) -> str:
    src = cand.source
    shown = src.for_display if hasattr(src, "for_display") else redact(str(src))
    ver = f" {cand.version_text}" if cand.version_text else ""
    return f"- {path} in {shown}{ver}"


class _InitViews:
    """The views one ``init`` speaks to: people (unless ``-json``), the JSON-lines stream on
    standard output (``-json``) and/or into a file (``-json-into=FILE``)."""

    def __init__(self, args):
        from .command.views import HumanView, JsonStream, use_color

        self.human = None if args.json else HumanView(use_color(args.no_color))
        outs = []
        if args.json:
            outs.append(sys.stdout)
        self._into = None
        if getattr(args, "json_into", None):
            self._into = open(args.json_into, "w", encoding="utf-8")
            outs.append(self._into)
        from pathlib import Path
        self.stream = JsonStream(*outs, root=Path(args.chdir)) if outs else None
        if self.stream:
            self.stream.version()

    def progress(self, msg: str) -> None:
        if self.human:
            self.human.progress(msg)
        if self.stream:
            self.stream.log(msg)

    def error(self, e) -> None:
        if self.stream:
            self.stream.error(e)
        if self.human:
            self.human.error_text(e.render())

    def close(self) -> None:
        if self.human:
            self.human.stop_progress()
        if self._into is not None:
            self._into.close()


def cmd_init(args) -> int:
    from .command.init import InitOptions, run_init
    from .plugins import parse_platform

    targets = tuple(n.strip() for n in args.upgrade.split(",") if n.strip()) if isinstance(args.upgrade, str) else ()
    opts = InitOptions(root=args.chdir, upgrade=args.upgrade is True, upgrade_only=targets,
                       shared=args.module_versions == "shared",
                       lockfile=args.lockfile or "update", tofu_version=args.tofu_version,
                       max_rounds=args.max_rounds, offline=args.offline,
                       platforms=tuple(parse_platform(p) for p in args.platform or ()), vars=tuple(args.vars or ()))
    views = args.views = _InitViews(args)
    human, stream = views.human, views.stream
    if getattr(args, "recursive", False):
        return _init_recursive(args, opts, views)
    if not any(config_file_names(args.chdir)):
        # As tofu init does in a directory without configuration: say so, write nothing.
        message = ("tofu-solve initialized in an empty directory!\n\nThe directory has no OpenTofu configuration "
                   "files. You may begin working with OpenTofu immediately by creating OpenTofu configuration files.")
        if stream:
            stream.result("init", message.split("\n")[0], {"empty_directory": True, "modules": [], "providers": []})
        if human:
            human.success(message.split("\n")[0])
            human.line(message.split("\n", 1)[1])
        return 0
    if human:
        human.heading("Initializing modules...")
    if stream:
        stream.init_output("Initializing modules...", "initializing_modules_message")
    if human:
        with human:
            result = run_init(opts, progress=views.progress)
    else:
        result = run_init(opts, progress=views.progress)
    res = result.resolution
    lines: list[tuple[str, str | None]] = []  # (text, style)
    for path, cand in res.modules.items():
        lines.append((_module_line(path, cand), None))
        if path in result.verified:
            lines.append(("  Verified checksum matches lock file", None))
    if res.providers:
        lines.append(("", None))
        lines.append(("Initializing provider locks...", "bold"))
        for addr, cand in res.providers.items():
            lines.append((f"- {cand.address.for_display} {cand.version}", None))
    lines.append(("", None))
    lines.append((f"Solved for OpenTofu {res.tofu.version} ({res.target_origin}).", None))
    change_lines: list[str] = []
    if result.changes or result.provider_changes:
        verb = "would update" if opts.lockfile == "readonly" else "has updated"
        change_lines.append(f"tofu-solve {verb} the lock file {result.lock_path.name}:")
        for c in result.provider_changes + result.changes:
            what = f'{c.block} "{c.label}"'
            if c.kind == "added":
                change_lines.append(f"  + {what} {c.new or '(no version)'}")
            elif c.kind == "removed":
                change_lines.append(f"  - {what} (was {c.old or 'no version'})")
            elif c.old == c.new:
                recorded = "source or hashes" if c.block == "module" else "constraints or hashes"
                change_lines.append(f"  ~ {what} {c.new} ({recorded} recorded)")
            else:
                change_lines.append(f"  ~ {what} {c.old} -> {c.new}")
    else:
        change_lines.append("The lock file is up to date.")
    bridge = [f"tofu-solve wrote {os.path.relpath(p, args.chdir)}: tofu init (OpenTofu 1.10+) installs the locked "
              "tags of the git and OCI calls with a version constraint through it." for p in result.bridge_written]
    final = (f"tofu-solve has been successfully initialized: {len(res.modules)} module calls and "
             f"{len(result.locks.providers)} providers locked.")
    if stream:
        for text, _ in lines:
            if text.strip() and text != "Initializing provider locks...":
                stream.log(text.strip() if text.startswith("  ") else text)
            elif text == "Initializing provider locks...":
                stream.init_output(text, "initializing_provider_plugin_message")
        for w in res.warnings:
            stream.warning(w)
        for text in change_lines + bridge:
            stream.log(text)
        stream.result("init", final, init_result_as_data(result))
    if human:
        for text, style in lines:
            human.line(text, style)
        for w in res.warnings:
            human.warning(w)
        human.line()
        for text in change_lines:
            human.line(text)
        for text in bridge:
            human.line()
            human.line(text)
        human.line()
        human.success(final)
    return 0


def _init_recursive(args, opts, views) -> int:
    """``init -recursive``: every root module under -chdir, in parallel over one cache."""
    import dataclasses
    from pathlib import Path

    from .command.init import run_init
    from .command.monorepo import cross_root_report, find_roots, relative_name, run_each

    base = Path(args.chdir)
    roots = find_roots(base)
    human, stream = views.human, views.stream
    if human:
        human.heading(f"Initializing {len(roots)} root module{'s' if len(roots) != 1 else ''} (under {base})...")
    if stream:
        stream.init_output(f"Initializing {len(roots)} root modules", "initializing_root_modules_message")

    def one(root: Path):
        name = relative_name(root, base)
        result = run_init(dataclasses.replace(opts, root=root), progress=lambda m: views.progress(f"[{name}] {m}"))
        views.progress(f"[{name}] done: {len(result.resolution.modules)} module calls")
        return result
    if human:
        with human:
            outcomes = run_each(roots, one)
    else:
        outcomes = run_each(roots, one)
    report = cross_root_report(outcomes, base)
    rows = []
    for o in outcomes:
        name = relative_name(o.root, base)
        if o.ok:
            r = o.value
            lock = "up to date" if not (r.changes or r.provider_changes) else \
                f"updated ({len(r.changes) + len(r.provider_changes)} changes)"
            rows.append((name, "ok", str(len(r.resolution.modules)), str(len(r.locks.providers)), lock))
        else:
            rows.append((name, "error", "-", "-", o.error.summary))
    failed = [o for o in outcomes if not o.ok]
    if stream:
        for o in failed:
            stream.error(o.error)
        doc = {"roots": [{"root": relative_name(o.root, base), "ok": o.ok,
                          "result": init_result_as_data(o.value) if o.ok else None,
                          "error": o.error.to_dict() if o.error else None} for o in outcomes],
               "report": report.as_data()}
        stream.result("init", f"{len(outcomes) - len(failed)} of {len(outcomes)} root modules initialized", doc)
    if human:
        head = ("ROOT", "RESULT", "MODULES", "PROVIDERS", "LOCK FILE")
        widths = [max(len(r[i]) for r in [head] + rows) for i in range(4)]
        for r in [head] + rows:
            human.line("  ".join(c.ljust(widths[i]) for i, c in enumerate(r[:4])) + "  " + r[4])
        for o in failed:
            human.line()
            human.line(f"In {relative_name(o.root, base)}:", "bold")
            human.error_text(o.error.render())
        lines = report.lines()
        if lines:
            human.line()
            for line in lines:
                human.line(line)
        human.line()
        if failed:
            human.line(f"{len(failed)} of {len(outcomes)} root modules failed.", "bold red")
        else:
            human.success(f"tofu-solve has been successfully initialized: {len(outcomes)} root modules.")
    return 1 if failed else 0


def init_result_as_data(result) -> dict:
    from .command.views import warning_data

    res = result.resolution
    mods = []
    for path, cand in res.modules.items():
        req = res.module_requirements.get(path)
        mods.append({"path": path, "source": redact(str(cand.source)), "version": cand.version_text,
                     "constraint": req.constraint.text if req and req.constraint else None,
                     "file": req.call.where.file if req else None, "line": req.call.where.line if req else None,
                     "called_by": req.origin.call_path if req else None})
    return {
        "modules": mods,
        "providers": [{"address": a, "version": str(c.version),
                       "constraints": [r.text for r in res.provider_requirements.get(a, []) if r.text]}
                      for a, c in res.providers.items()],
        "opentofu": str(res.tofu.version),
        "warnings": [warning_data(w) for w in res.warnings],
        "lock_file": {"path": str(result.lock_path), "written": result.lock_written,
                      "changes": [{"path": c.path, "kind": c.kind, "old": c.old, "new": c.new}
                                  for c in result.changes],
                      "provider_changes": [{"address": c.label, "kind": c.kind, "old": c.old, "new": c.new}
                                           for c in result.provider_changes]},
        "network_operations": result.network,
        "stats": result.stats,
        "modules_json": str(result.manifest) if result.manifest else None,
        "verified": result.verified,
        "override_files_written": [str(p) for p in result.bridge_written],
    }


def _solved(args):
    from .store.cache import Cache, default_cache_dir
    from .workdir.state import load_solved

    return load_solved(args.chdir, dict(os.environ), Cache(default_cache_dir()), tuple(args.vars or ()))


def cmd_why(args) -> int:
    from .command.why import why

    answers = why(_solved(args), args.name)
    if args.json:
        json.dump([a.data for a in answers], sys.stdout, indent=2)
        print()
    else:
        print("\n\n".join(a.text for a in answers))
    return 0


def cmd_graph(args) -> int:
    from pathlib import Path

    from .command.graph import build_graph, render, to_dot, to_json

    g = build_graph(_solved(args), providers=args.providers, opentofu=args.opentofu)
    out = Path(args.output) if args.output else None
    as_json = args.json or (out is not None and out.suffix.lower() == ".json")
    text = to_json(g) if as_json else to_dot(g)
    if out is not None and out.suffix.lower() in (".svg", ".png", ".pdf"):
        render(text, out)
    elif out is not None:
        from .lockfile.write import write_atomic
        write_atomic(out, text if text.endswith("\n") else text + "\n")
    else:
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
    return 0


def cmd_outdated(args) -> int:
    from .command.outdated import outdated, render_table

    if getattr(args, "recursive", False):
        return _outdated_recursive(args)
    rows = outdated(args.chdir, dict(os.environ), tuple(args.vars or ()), args.tofu_version,
                    args.module_versions == "shared", progress=_progress(args))
    movable = [r for r in rows if r.can_move]
    if args.json:
        json.dump({"can_move": bool(movable), "items": [r.as_data() for r in rows]}, sys.stdout, indent=2)
        print()
    else:
        print(render_table(rows))
        if movable:
            names = ",".join(r.name.removeprefix("registry.opentofu.org/") for r in movable)
            print(f"\n{len(movable)} can move within the constraints: tofu-solve init -upgrade={names}")
        else:
            print("\nNothing can move without changing a constraint.")
    return 2 if movable else 0


def _each_root(args, fn):
    """``-recursive``: ``fn(root)`` for every root module under -chdir, in parallel.
    Returns [(relative name, outcome)]."""
    from pathlib import Path

    from .command.monorepo import find_roots, relative_name, run_each

    base = Path(args.chdir)
    return [(relative_name(o.root, base), o) for o in run_each(find_roots(base), fn)]


def _check_recursive(args) -> int:
    from .command.check import check

    results = _each_root(args, lambda root: check(root, dict(os.environ), tuple(args.vars or ()), args.tofu_version))
    bad = [(n, o) for n, o in results if not o.ok or o.value]
    if args.json:
        json.dump({"ok": not bad, "roots": [{"root": n, "ok": o.ok and not o.value,
                                             "differences": [d.as_data() for d in o.value] if o.ok else None,
                                             "error": o.error.to_dict() if o.error else None}
                                            for n, o in results]}, sys.stdout, indent=2)
        print()
        return 1 if bad else 0
    for name, o in results:
        state = "error: " + o.error.summary if not o.ok else \
            (f"{len(o.value)} difference{'s' if len(o.value) != 1 else ''}" if o.value else "agrees with its lock")
        print(f"{name}: {state}")
        for d in (o.value or []) if o.ok else []:
            print(f"  {d}")
    print(f"\n{len(bad)} of {len(results)} root modules differ from their lock files." if bad else
          f"\nAll {len(results)} root modules agree with their lock files.")
    return 1 if bad else 0


def _outdated_recursive(args) -> int:
    from .command.outdated import outdated, render_table

    results = _each_root(args, lambda root: outdated(root, dict(os.environ), tuple(args.vars or ()),
                                                     args.tofu_version, args.module_versions == "shared"))
    movable = any(o.ok and any(r.can_move for r in o.value) for _, o in results)
    failed = any(not o.ok for _, o in results)
    if args.json:
        json.dump({"can_move": movable, "roots": [{"root": n, "items": [r.as_data() for r in o.value] if o.ok else None,
                                                   "error": o.error.to_dict() if o.error else None}
                                                  for n, o in results]}, sys.stdout, indent=2)
        print()
    else:
        for name, o in results:
            print(f"== {name}")
            print(render_table(o.value) if o.ok else "\n" + o.error.render())
            print()
    return 1 if failed else 2 if movable else 0


def cmd_check(args) -> int:
    from .command.check import check

    if getattr(args, "recursive", False):
        return _check_recursive(args)
    diffs = check(args.chdir, dict(os.environ), tuple(args.vars or ()), args.tofu_version)
    if args.json:
        json.dump({"ok": not diffs, "differences": [d.as_data() for d in diffs]}, sys.stdout, indent=2)
        print()
    elif diffs:
        print("\nError: The working directory does not match the lock file\n", file=sys.stderr)
        print("\n".join(str(d) for d in diffs), file=sys.stderr)
        print(f"\n{len(diffs)} difference{'s' if len(diffs) != 1 else ''}. tofu-solve init makes the working "
              "directory match the lock again (it reinstalls from the verified cache).\n", file=sys.stderr)
    else:
        print("The lock file, .terraform/modules, modules.json and the override files all agree.")
    return 1 if diffs else 0


def cmd_version(args) -> int:
    if args.json:
        json.dump({"tofu_solve_version": __version__}, sys.stdout)
        print()
    else:
        print(f"tofu-solve v{__version__}")
    return 0


def cmd_demo(args) -> int:
    from .command.demo import run_demo

    return run_demo(args.output, args.corpus, sys.stdout)


# Every other flag `tofu init` takes (OpenTofu internal/command/init.go, `tofu init -help`):
# accepted, so that CI templates can pass one set of flags to both, and ignored, since they
# concern backends, state, prompts or colour, none of which tofu-solve has.
_IGNORED_INIT_FLAGS = {
    "backend": "BOOL", "cloud": "BOOL", "backend-config": "PATH|KEY=VALUE", "force-copy": None,
    "from-module": "SOURCE", "get": "BOOL", "input": "BOOL", "lock": "BOOL", "lock-timeout": "DURATION",
    "plugin-dir": "PATH", "reconfigure": None, "migrate-state": None,
    "ignore-remote-version": None, "test-directory": "PATH", "compact-warnings": None,
    "consolidate-warnings": "BOOL", "consolidate-errors": "BOOL",
}


def _tofu_init_flags(sp: argparse.ArgumentParser) -> None:
    g = sp.add_argument_group("accepted for compatibility with tofu init, and ignored",
                              "Backend, state, prompt and colour flags: tofu-solve has none of these, so they change "
                              "nothing here.")
    for name, value in _IGNORED_INIT_FLAGS.items():
        dest = "ignored_" + name.replace("-", "_")
        if value is None:
            g.add_argument(f"--{name}", dest=dest, action="store_true", help=argparse.SUPPRESS)
        else:
            g.add_argument(f"--{name}", dest=dest, nargs="?", const="true", action="append", metavar=value,
                           help=argparse.SUPPRESS)
    g.description += " They are: " + ", ".join(
        f"-{n}" + (f"={v}" if v else "") for n, v in _IGNORED_INIT_FLAGS.items()) + "."


def with_env_args(argv: list[str], env: Mapping[str, str]) -> list[str]:
    """OpenTofu's ``TF_CLI_ARGS`` and ``TF_CLI_ARGS_<command>`` (``cmd/tofu/main.go``
    ``mergeEnvArgs``): each is split as a shell would and inserted right after the command
    name, ``TF_CLI_ARGS`` first and then ``TF_CLI_ARGS_<command>`` in front of it, so the
    command line given wins. ``TF_CLI_ARGS`` applies to ``init`` only (the one tofu command
    tofu-solve mirrors); ``TF_CLI_ARGS_<command>`` to any command.

    Raises:
        TofuSolveError: a value that is not valid shell words.
    """
    commands = {"init", "check", "outdated", "why", "graph", "inspect", "demo", "version"}
    idx = next((i for i, a in enumerate(argv) if a in commands), None)
    if idx is None:
        return argv
    cmd = argv[idx]
    out = list(argv)
    for name in (["TF_CLI_ARGS"] if cmd == "init" else []) + [f"TF_CLI_ARGS_{cmd}"]:
        value = env.get(name)
        if not value:
            continue
        try:
            extra = shlex.split(value)
        except ValueError as e:
            raise TofuSolveError("Invalid environment variable",
                                 f"Error parsing extra CLI args from {name}: {e}.") from None
        out[idx + 1:idx + 1] = extra
    return out


class _VarOption(argparse.Action):
    """``-var`` and ``-var-file`` into one list, in command-line order (OpenTofu applies them
    in the order given, later ones winning)."""

    def __call__(self, parser, namespace, values, option_string=None):
        items = list(getattr(namespace, self.dest, None) or [])
        items.append(("var-file" if option_string and option_string.endswith("var-file") else "var", values))
        setattr(namespace, self.dest, items)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="tofu-solve",
        description="Locked, verified, transitively consistent module versions for OpenTofu.",
        epilog="Flags may be written OpenTofu-style (-chdir=DIR, -json) or GNU-style (--chdir DIR).",
    )
    p.add_argument("--version", action="version", version=f"tofu-solve {__version__}")
    p.add_argument("--chdir", dest="global_chdir", metavar="DIR",
                   help="switch to DIR before running the command, as tofu -chdir=DIR does")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--chdir", metavar="DIR", help="work in the root module DIR (default: the current directory)")
    common.add_argument("--json", action="store_true", help="print machine-readable JSON instead of text (init: "
                        "OpenTofu's JSON-lines stream)")
    common.add_argument("--no-color", action="store_true", dest="no_color",
                        help="no colour in the output (also with NO_COLOR set); a pipe never gets colour")
    common.add_argument("--var", action=_VarOption, dest="vars", metavar="NAME=VALUE",
                        help="set a root module variable for source and version (repeatable; as tofu -var)")
    common.add_argument("--var-file", action=_VarOption, dest="vars", metavar="FILE",
                        help="read root module variables from a .tfvars or .tfvars.json file (repeatable)")

    sp = sub.add_parser("inspect", parents=[common],
                        help="show the module calls, provider requirements and OpenTofu constraints of a root module",
                        description="Read the root module (.tf, .tf.json, .tofu, .tofu.json) and print every module "
                                    "call, required provider and OpenTofu version constraint with its file and line.")
    sp.set_defaults(func=cmd_inspect)

    sp = sub.add_parser("init", parents=[common],
                        help="select a consistent version for every module call, provider and OpenTofu, and lock "
                             "module and provider versions",
                        description="Read the root module, find every candidate version of every remote module "
                                    "call (transitively), solve for one consistent choice together with provider "
                                    "and OpenTofu versions, install the modules, and write .terraform.lock.hcl: the "
                                    "provider blocks tofu init would write and a module block per call, so that "
                                    "tofu init afterwards changes nothing. When no consistent choice exists, "
                                    "explain why.")
    sp.add_argument("--recursive", action="store_true",
                    help="every root module under -chdir (directories with configuration that no other directory "
                         "calls as a local module; .terraform, .terragrunt-cache and hidden directories left out), "
                         "in parallel over one cache, with a summary and a cross-root report")
    sp.add_argument("--json-into", metavar="FILE", dest="json_into",
                    help="write OpenTofu's JSON-lines stream into FILE as well, keeping the human output")
    sp.add_argument("--upgrade", nargs="?", const=True, default=False, metavar="NAME,...",
                    help="ignore locked versions and select the newest allowed ones; -upgrade=NAME,... only for "
                         "those module calls (vpc, eks.kms), module packages or providers (hashicorp/aws), keeping "
                         "every other lock")
    sp.add_argument("--lockfile", choices=["readonly"], help="readonly: never write the lock file; fail if it "
                                                            "would change")
    sp.add_argument("--module-versions", choices=["per-call", "shared"], default="per-call",
                    help="per-call (default): a version per module call, as OpenTofu installs them; shared: one "
                         "version per module package across the tree")
    sp.add_argument("--tofu-version", metavar="X.Y.Z",
                    help="solve for this OpenTofu version (default: tofu on PATH, else the newest known release)")
    sp.add_argument("--offline", action="store_true",
                    help="resolve from the lock file and the cache only; fail naming what is missing")
    sp.add_argument("--max-rounds", type=int, default=20000, metavar="N",
                    help="give up after N resolution rounds (default 20000)")
    sp.add_argument("--platform", action="append", metavar="OS_ARCH",
                    help="record provider h1: hashes for this platform too (repeatable, as in tofu providers lock; "
                         "default: this machine's)")
    _tofu_init_flags(sp)
    sp.set_defaults(func=cmd_init)

    sp = sub.add_parser("check", parents=[common],
                        help="check, offline, that what is installed is exactly what the lock file says",
                        description="Compare the configuration, .terraform.lock.hcl, .terraform/modules, modules.json "
                                    "and the override files, without any network, and list every difference: a call "
                                    "without a lock or with a changed constraint, a module tofu init installed at "
                                    "another version, an installed copy whose h1: does not match, a missing or stale "
                                    "override file, a provider lock the configuration no longer meets. Exit status "
                                    "1 when anything differs.")
    sp.add_argument("--tofu-version", metavar="X.Y.Z",
                    help="the OpenTofu version the working directory is for, as given to init (decides whether "
                         "override files are expected)")
    sp.add_argument("--recursive", action="store_true", help="every root module under -chdir, as init -recursive")
    sp.set_defaults(func=cmd_check)

    sp = sub.add_parser("outdated", parents=[common],
                        help="show what could move: per call and provider, locked, newest allowed, newest, and why",
                        description="For every module call and provider: the locked version, what init -upgrade "
                                    "would select, the newest version the constraints allow, the newest published, "
                                    "and what holds it back (the lock, a provider, OpenTofu, another module, a "
                                    "constraint). Reads the network, writes nothing. Exit status 0 when nothing "
                                    "can move, 2 when something can (as -detailed-exitcode), 1 on error.")
    sp.add_argument("--tofu-version", metavar="X.Y.Z", help="the OpenTofu release to solve for, as for init")
    sp.add_argument("--module-versions", choices=["per-call", "shared"], default="per-call",
                    help="as for init")
    sp.add_argument("--recursive", action="store_true", help="every root module under -chdir, as init -recursive")
    sp.set_defaults(func=cmd_outdated)

    sp = sub.add_parser("why", parents=[common], help="explain why a module call or provider is at its version",
                        description="Explain, from the last init (no network), why NAME is at its version. NAME is a "
                                    "call name, a call path (vpc.nested), a module package "
                                    "(terraform-aws-modules/kms/aws) or a provider (hashicorp/aws).")
    sp.add_argument("name", metavar="NAME")
    sp.set_defaults(func=cmd_why)

    sp = sub.add_parser("graph", parents=[common], help="draw the solved module tree (DOT, JSON, SVG or PNG)",
                        description="Draw the solved tree of the last init (no network), left to right: the module "
                                    "calls with package and version, edges labelled with the call's constraint; "
                                    "held-back calls dashed, fenced-off versions red, packages at several versions "
                                    "orange. -providers and -opentofu add those nodes. DOT by default; -json for "
                                    "node-link JSON; -o FILE.svg or .png renders with Graphviz.")
    sp.add_argument("--dot", action="store_true", help="Graphviz DOT (the default)")
    sp.add_argument("--providers", action="store_true",
                    help="add the providers, each edge with its distinct constraints, the binding one in red")
    sp.add_argument("--opentofu", action="store_true", help="add the OpenTofu version and its constraints")
    sp.add_argument("--output", "-o", metavar="FILE",
                    help="write to FILE instead of standard output: .svg, .png or .pdf are rendered by Graphviz dot, "
                         ".json is node-link JSON, anything else DOT text")
    sp.set_defaults(func=cmd_graph)

    sp = sub.add_parser("version", help="show the tofu-solve version (as tofu version does)",
                        description="Print the tofu-solve version; -json prints it as data.")
    sp.add_argument("--json", action="store_true", help="print machine-readable JSON")
    sp.set_defaults(func=cmd_version, chdir=None)

    sp = sub.add_parser("demo", help="build the real-data fixture world and show init, why and graph on it",
                        description="Build (or reuse) a fixture world from the real dependency corpus, start a module "
                                    "and provider registry and a git daemon on 127.0.0.1, run init on three bundled "
                                    "roots (resolvable, needs a joint solver, impossible), then why and graph; stop "
                                    "the servers and leave every result in a folder.")
    sp.add_argument("--output", metavar="DIR", default="tofu-solve-demo", help="results folder (default ./tofu-solve-demo)")
    sp.add_argument("--corpus", metavar="DIR", help="the corpus (default: ../shared/corpus)")
    sp.set_defaults(func=cmd_demo, json=False, chdir=None)
    return p


def os_error(e: OSError) -> TofuSolveError:
    """An OSError that escaped the stages, as a user-facing error naming the path."""
    where = " and ".join(redact(str(f)) for f in (e.filename, e.filename2) if f)
    return TofuSolveError(f"{e.strerror or type(e).__name__}",
                          f"The operation on {where or 'a file'} failed ({type(e).__name__}"
                          f"{f', errno {e.errno}' if e.errno else ''}). Check the path, its permissions and the free "
                          "space of its file system.")


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the exit status."""
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    try:
        argv = with_env_args(argv, os.environ)
    except TofuSolveError as e:
        print("\n" + e.render() + "\n", file=sys.stderr)
        return 1
    args = parser.parse_args(_gnu_flags(argv))
    if not getattr(args, "command", None):
        parser.print_help()
        return 2
    args.chdir = args.chdir or args.global_chdir or "."
    handler = configure_logging(os.environ)
    try:
        return _run(args)
    finally:
        if handler is not None:
            logging.getLogger("tofu_solve").removeHandler(handler)
            handler.close()


def _run(args) -> int:
    """Run the command; every failure becomes its exit status here, at one boundary."""
    try:
        return _run_checked(args)
    finally:
        views = getattr(args, "views", None)
        if views is not None:
            views.close()


def _run_checked(args) -> int:
    try:
        try:
            return args.func(args)
        except BrokenPipeError:
            raise
        except OSError as e:  # the file system said no: name the file, not a traceback
            raise os_error(e) from None
        except RecursionError:
            raise TofuSolveError("Input nested too deeply",
                                 "A configuration, lock or answer nests values too deeply to be processed.") from None
    except TofuSolveError as e:
        views = getattr(args, "views", None)
        if views is not None:  # init: the stream gets a diagnostic, people the text
            views.error(e)
            if views.human is None:
                print("\n" + e.render() + "\n", file=sys.stderr)
            return e.exit_code
        if getattr(args, "json", False):
            json.dump({"error": e.to_dict()}, sys.stdout, indent=2)
            print()
        print("\n" + e.render() + "\n", file=sys.stderr)
        return e.exit_code
    except BrokenPipeError:
        sys.stderr.close()
        return 1
    except KeyboardInterrupt:
        print("\nInterrupted.", file=sys.stderr)
        return 130
    except Exception as e:  # a bug: say so plainly; the traceback only on request
        if os.environ.get("TOFU_SOLVE_DEBUG"):
            raise
        print(f"\nError: internal error in tofu-solve\n\n{type(e).__name__}: {e}\n\nThis is a bug. Run again "
              "with TOFU_SOLVE_DEBUG=1 for the traceback and report it.\n", file=sys.stderr)
        return 1


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
