"""The ``tofu-solve`` command line: the edge of the program.

Only three things happen here: ``TF_CLI_ARGS``/``TF_CLI_ARGS_<command>`` are merged into the
arguments, the arguments are parsed, and the process environment is read, once, into
:class:`~tofu_solve.settings.Settings`; then the command's module in
:mod:`tofu_solve.command` runs (``run(args, settings)``) inside the one error boundary,
where every failure becomes its exit status and an OpenTofu-style message.

Flags are accepted OpenTofu-style (``-chdir=DIR``, ``-json``) and GNU-style
(``--chdir DIR``, ``--json``). Exit status: 0 success, 1 a reported error, 2 a usage error.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import json
import os
import shlex
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, NoReturn

from ._lazy import load
from ._version import __version__
from .output_edge import Guard, OutputEdge

if TYPE_CHECKING:
    from .errors import TofuSolveError
    from .settings import Settings

# The error hierarchy, the settings and logging are imported when first needed: a warm init
# answered from the stamp (workdir/stamp.py) needs none of them.


def _gnu_flags(argv: Sequence[str]) -> list[str]:
    """Rewrite OpenTofu-style ``-name[=value]`` flags as ``--name[=value]``."""
    out = []
    for a in argv:
        if a.startswith("-") and not a.startswith("--") and len(a.split("=", 1)[0]) > 2:
            out.append("-" + a)
        else:
            out.append(a)
    return out


# Go's strconv.ParseBool, which the flag package uses for `-flag=value` on boolean flags.
_GO_TRUE = frozenset({"1", "t", "T", "TRUE", "true", "True"})
_GO_FALSE = frozenset({"0", "f", "F", "FALSE", "false", "False"})


def _go_booleans(argv: list[str], parser: argparse.ArgumentParser) -> list[str]:
    """Boolean flags given Go's way, as tofu accepts them (``-json=true``, ``-upgrade=false``):
    a true value is the flag alone, a false one drops it. ``-upgrade=NAME,...`` stays a list
    of names (only the ParseBool words are booleans).

    Raises:
        SystemExit: a value ParseBool refuses (a usage error, exit 2, in the flag package's
            words: ``invalid boolean value "maybe" for -json: parse error``).
    """
    booleans = {"--upgrade"}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                booleans.update(o for a in sub._actions if a.nargs == 0 for o in a.option_strings)
    booleans.discard("--help")
    booleans.discard("-h")
    out = []
    for a in argv:
        name, eq, value = a.partition("=")
        if not eq or name not in booleans:
            out.append(a)
        elif value in _GO_TRUE:
            out.append(name)
        elif value in _GO_FALSE:
            negative = "--no-" + name[2:]
            if negative in booleans:  # a flag that is on by default (-handover): off
                out.append(negative)
            continue
        elif name == "--upgrade":
            out.append(a)  # -upgrade=NAME,...
        else:
            parser.error(f'invalid boolean value "{value}" for {name[1:]}: parse error')
    return out


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
    g = sp.add_argument_group("passed on to the client's init",
                              "Backend, state, prompt and plugin flags: tofu-solve does not act on them itself; the "
                              "hand-over passes them on to tofu init / terraform init (-from-module is not passed "
                              "on).")
    for name, value in _IGNORED_INIT_FLAGS.items():
        dest = "ignored_" + name.replace("-", "_")
        if value is None:
            g.add_argument(f"--{name}", dest=dest, action="store_true", help=argparse.SUPPRESS)
        else:
            g.add_argument(f"--{name}", dest=dest, nargs="?", const="true", action="append", metavar=value,
                           help=argparse.SUPPRESS)
    g.description = (g.description or "") + " They are: " + ", ".join(
        f"-{n}" + (f"={v}" if v else "") for n, v in _IGNORED_INIT_FLAGS.items()) + "."


def _target_flags(sp: argparse.ArgumentParser, verb: str) -> None:
    g = sp.add_mutually_exclusive_group()
    g.add_argument("--tofu-version", metavar="X.Y.Z", help=f"{verb} this OpenTofu release")
    g.add_argument("--terraform-version", metavar="X.Y.Z",
                   help=f"{verb} this Terraform release (default for both, the repository's choice: the nearest "
                        ".opentofu-version, .tofu-version or .terraform-version in the root module or above; else "
                        "the product the lock file was written for; else the client -tf-path names, else tofu, else "
                        "terraform on PATH, asked for its version; else the newest OpenTofu release known)")
    sp.add_argument("--tf-path", metavar="PATH",
                    help="the OpenTofu or Terraform executable to solve for and hand over to (default: "
                         "TOFU_SOLVE_TF_PATH, else tofu, else terraform on PATH)")


def _cooldown_flag(sp: argparse.ArgumentParser) -> None:
    sp.add_argument("--min-age", metavar="DURATION", dest="min_age",
                    help="release cooldown: versions of modules and providers released less than DURATION ago "
                         "(7d, 36h, 1d12h; 0 for none) are not candidates; locked versions stay, an exact pin is "
                         "honoured with a warning (default: $TOFU_SOLVE_MIN_AGE, else none)")


def _store_flag(sp: argparse.ArgumentParser) -> None:
    sp.add_argument("--package-store", metavar="oci://HOST/PREFIX", dest="package_store",
                    help="the package store on an OCI registry shared by CI jobs: packages the lock file names are "
                         "read from it (verified against the lock) before their origins, and packages verified from "
                         "an origin are pushed to it (default: $TOFU_SOLVE_PACKAGE_STORE; an empty value: none)")


def _policy_flag(sp: argparse.ArgumentParser) -> None:
    sp.add_argument("--policy", metavar="FILE",
                    help="the module policy: a tofu-solve-policy.hcl or *.policy.hcl file, or a directory of them "
                         "(default: $TOFU_SOLVE_POLICY, else the policy files of the root module or the nearest "
                         "directory above that has any; none for no policy)")
    sp.add_argument("--policy-override", metavar="LABEL[,LABEL...]", dest="policy_override",
                    help="let versions that fail these mandatory_overridable policies (by label) be selected, with "
                         "a warning, as HCP's override does")
    sp.add_argument("--policy-input", metavar="NAME=VALUE", dest="policy_input", action="append",
                    help="a value for the *.policy.hcl input NAME (repeatable; before TFPOLICY_INPUT_NAME and the "
                         "input's default, as HashiCorp's tfpolicy -input)")


def _exclude_flag(sp: argparse.ArgumentParser) -> None:
    sp.add_argument("--exclude-dir", metavar="PATTERN", dest="exclude_dir", action="append",
                    help="with -recursive, leave out the roots and units whose directory matches PATTERN (a "
                         ".gitignore pattern relative to -chdir, as Terragrunt's --queue-exclude-dir; repeatable; "
                         "after the repository's .tofu-solve-exclude files); each is shown as left out")


def with_env_args(argv: list[str], env: Mapping[str, str]) -> list[str]:
    """OpenTofu's ``TF_CLI_ARGS`` and ``TF_CLI_ARGS_<command>`` (``cmd/tofu/main.go``
    ``mergeEnvArgs``): each is split as a shell would and inserted right after the command
    name, ``TF_CLI_ARGS`` first and then ``TF_CLI_ARGS_<command>`` in front of it, so the
    command line given wins. ``TF_CLI_ARGS`` applies to ``init`` only (the one tofu command
    tofu-solve mirrors); ``TF_CLI_ARGS_<command>`` to any command.

    Raises:
        TofuSolveError: a value that is not valid shell words.
    """
    commands = {"init", "check", "outdated", "why", "graph", "inspect", "demo", "version", "list", "modules"}
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
            load("tofu_solve.errors")
            from .errors import TofuSolveError

            raise TofuSolveError("Invalid environment variable",
                                 f"Error parsing extra CLI args from {name}: {e}.") from None
        out[idx + 1:idx + 1] = extra
    return out


def _positive_int(text: str) -> int:
    """A whole number of at least 1 (argparse type; anything else is a usage error, exit 2)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


class _VarOption(argparse.Action):
    """``-var`` and ``-var-file`` into one list, in command-line order (OpenTofu applies them
    in the order given, later ones winning)."""

    def __call__(self, parser, namespace, values, option_string=None):
        items = list(getattr(namespace, self.dest, None) or [])
        items.append(("var-file" if option_string and option_string.endswith("var-file") else "var", values))
        setattr(namespace, self.dest, items)


class _Arg:
    """One ``add_argument`` of a command: its names and keywords, as argparse takes them.
    (The parser's table is built when the CLI starts, on the warm path too: plain classes,
    no ``dataclasses`` import.)"""

    __slots__ = ("names", "options")

    def __init__(self, *names: str, **options: Any):
        self.names, self.options = names, options

    def add_to(self, sp: argparse.ArgumentParser) -> None:
        sp.add_argument(*self.names, **self.options)


class _Group:
    """Flags several commands share, added by one function (``_target_flags``...)."""

    __slots__ = ("add", "args")

    def __init__(self, add: Callable[..., None], *args: Any):
        self.add, self.args = add, args

    def add_to(self, sp: argparse.ArgumentParser) -> None:
        self.add(sp, *self.args)


class _Command:
    """A command of the parser's table: its name, one-line help and description, whether
    it takes the common flags (``-chdir``, ``-json``, ``-no-color``, ``-var``, ``-var-file``),
    its own flags in the order ``--help`` lists them, and its parser defaults (the module
    that runs it)."""

    __slots__ = ("arguments", "common", "defaults", "description", "help", "name")

    def __init__(self, name: str, *, help: str, description: str, defaults: dict[str, Any], common: bool = False,
                 arguments: tuple[_Arg | _Group, ...] = ()):
        self.name, self.help, self.description = name, help, description
        self.defaults, self.common, self.arguments = defaults, common, arguments


def _commands() -> tuple[_Command, ...]:
    """The commands, in the order --help lists them (issue #51 §2: the parser built from
    data). A function, not a module constant: a warm ``init`` or ``check`` answered from
    the stamp never builds the parser, so it does not build its table either."""
    return (
        _Command(
            "inspect",
            help="show the module calls, provider requirements and OpenTofu constraints of a root module",
            description="Read the root module (.tf, .tf.json, .tofu, .tofu.json) and print every module "
                        "call, required provider and OpenTofu version constraint with its file and line.",
            common=True,
            arguments=(
                _Group(_target_flags, "read as"),
            ),
            defaults={"command_module": "inspect"},
        ),
        _Command(
            "init",
            help="select a consistent version for every module call, provider and OpenTofu, and lock "
                 "module and provider versions",
            description="Read the root module, find every candidate version of every remote module "
                        "call (transitively), solve for one consistent choice together with provider "
                        "and OpenTofu versions, install the modules, and write .terraform.lock.hcl: the "
                        "provider blocks tofu init would write and a module block per call, so that "
                        "tofu init afterwards changes nothing. When no consistent choice exists, "
                        "explain why.",
            common=True,
            arguments=(
                _Arg("--recursive", action="store_true",
                     help="every root module under -chdir (directories with configuration that no other directory "
                          "calls as a local module; .terraform, .terragrunt-cache, node_modules, hidden directories, "
                          "the download cache and what the repository's git ignores left out) and every Terragrunt "
                          "unit (a terragrunt.hcl naming a terraform.source, pinned where Terragrunt reads), in "
                          "parallel over one cache, with a summary and a cross-root report"),
                _Group(_exclude_flag),
                _Arg("--json-into", metavar="FILE", dest="json_into",
                     help="write OpenTofu's JSON-lines stream into FILE as well, keeping the human output"),
                _Arg("--verbose", action="store_true",
                     help="a policy or release-cooldown warning lists every version it kept out of every call and "
                          "provider (by default: one warning per rule, under two lines; -json always has the list); "
                          "a conflict lists every module version a rule refused, one line each"),
                _Arg("--quiet", action="store_true",
                     help="no progress lines on standard error (the results, warnings and errors are printed as "
                          "without it)"),
                _Arg("--format", choices=["text", "sarif", "markdown"], default="text",
                     help="sarif: with -lockfile=readonly, each lock that would change as a SARIF 2.1.0 log on "
                          "standard output, at the line of the call or provider that moves it (the text goes to "
                          "standard error); markdown: one report for a pull request comment on standard output, "
                          "per root what moves and why, what fails and where, the policy's findings (appended to "
                          "$GITHUB_STEP_SUMMARY too when it is set; the text goes to standard error); text "
                          "(default; with GITHUB_ACTIONS=true, GitHub Actions annotations too)"),
                _Arg("--upgrade", nargs="?", const=True, default=False, metavar="NAME,...",
                     help="ignore locked versions and select the newest allowed ones; -upgrade=NAME,... only for "
                          "those module calls (vpc, eks.kms), module packages or providers (hashicorp/aws), keeping "
                          "every other lock"),
                _Arg("--accept-checksum", metavar="NAME,...",
                     help="accept the new contents of these locked module calls, module packages or providers "
                          "at their locked versions, after review: their h1: hashes and packages are recorded "
                          "afresh, nothing moves, and it is refused when the version itself would change"),
                _Arg("--lockfile", choices=["readonly"], help="readonly: never write the lock file; fail if it "
                                                             "would change"),
                _Arg("--module-versions", choices=["per-call", "shared"], default="per-call",
                     help="per-call (default): a version per module call, as OpenTofu installs them; shared: one "
                          "version per module package across the tree"),
                _Group(_target_flags, "solve for"),
                _Arg("--handover", action=argparse.BooleanOptionalAction, default=True,
                     help="after locking and installing modules, run the client's own init (-lockfile=readonly) "
                          "to install providers and configure the backend (default true; -handover=false stops "
                          "after the modules and prints the command to run next)"),
                _Arg("--offline", action="store_true",
                     help="resolve from the lock file and the cache only; fail naming what is missing"),
                _Arg("--max-rounds", type=_positive_int, default=20000, metavar="N",
                     help="give up after N resolution rounds (default 20000)"),
                _Group(_cooldown_flag),
                _Group(_policy_flag),
                _Arg("--platform", action="append", metavar="OS_ARCH",
                     help="record provider h1: hashes for this platform too (repeatable, as in tofu providers lock; "
                          "default: this machine's)"),
                _Group(_store_flag),
                _Group(_tofu_init_flags),
            ),
            defaults={"command_module": "init"},
        ),
        _Command(
            "check",
            help="check, offline, that what is installed is exactly what the lock file says",
            description="Compare the configuration, .terraform.lock.hcl, .terraform/modules, modules.json "
                        "and the override files, without any network, and list every difference: a call "
                        "without a lock or with a changed constraint, a module tofu init installed at "
                        "another version, an installed copy whose h1: does not match, a missing or stale "
                        "override file, a provider lock the configuration no longer meets. Exit status "
                        "1 when anything differs.",
            common=True,
            arguments=(
                _Group(_target_flags, "check for (decides whether override files are expected),"),
                _Arg("--recursive", action="store_true", help="every root module under -chdir, as init -recursive"),
                _Group(_exclude_flag),
                _Group(_policy_flag),
                _Arg("--format", choices=["text", "json", "sarif", "markdown"], default="text",
                     help="text (the default; with GITHUB_ACTIONS=true, GitHub Actions annotations too), json (as "
                          "-json), sarif: a SARIF 2.1.0 log for code scanning, each difference at its file and "
                          "line, or markdown: one report for a pull request comment, appended to "
                          "$GITHUB_STEP_SUMMARY too when it is set (the text goes to standard error)"),
            ),
            defaults={"command_module": "check"},
        ),
        _Command(
            "outdated",
            help="show what could move: per call and provider, locked, newest allowed, newest, and why",
            description="For every module call and provider: the locked version, what init -upgrade "
                        "would select, the newest version the constraints allow, the newest published, "
                        "and what holds it back (the lock, a provider, OpenTofu, another module, a "
                        "constraint). Reads the network, writes nothing. Exit status 0 when nothing "
                        "can move, 2 when something can (as -detailed-exitcode), 1 on error.",
            common=True,
            arguments=(
                _Group(_target_flags, "solve for"),
                _Arg("--module-versions", choices=["per-call", "shared"], default="per-call",
                     help="as for init"),
                _Group(_cooldown_flag),
                _Arg("--recursive", action="store_true", help="every root module under -chdir, as init -recursive"),
                _Group(_exclude_flag),
                _Group(_policy_flag),
            ),
            defaults={"command_module": "outdated"},
        ),
        _Command(
            "list",
            help="list every module and provider version in use, from lock files only (an inventory, "
                 "or a CycloneDX or SPDX SBOM)",
            description="Read .terraform.lock.hcl (with -recursive, of every root module under -chdir) "
                        "and list each module package version and provider version once, with the roots "
                        "and call paths that use it and the policy's verdict when a policy is in force. "
                        "No network. -format=cyclonedx writes a CycloneDX 1.6 SBOM, -format=spdx an "
                        "SPDX 2.3 document.",
            common=True,
            arguments=(
                _Arg("--recursive", action="store_true", help="every root module under -chdir that has a lock file"),
                _Arg("--format", choices=["text", "json", "cyclonedx", "spdx"], default="text",
                     help="text (default), json (as -json), a CycloneDX 1.6 JSON SBOM, or an SPDX 2.3 JSON document"),
                _Group(_policy_flag),
            ),
            defaults={"command_module": "inventory"},
        ),
        _Command(
            "why",
            help="explain why a module call or provider is at its version",
            description="Explain, from the last init (no network), why NAME is at its version. NAME is a "
                        "call name, a call path (vpc.nested), a module package "
                        "(terraform-aws-modules/kms/aws) or a provider (hashicorp/aws).",
            common=True,
            arguments=(
                _Arg("name", metavar="NAME"),
            ),
            defaults={"command_module": "why"},
        ),
        _Command(
            "modules",
            help="list the declared modules and the versions installed, as terraform modules does",
            description="Print every module the configuration declares, with its source and the version "
                        "installed, as terraform modules prints it; -json prints the document terraform "
                        "modules -json prints, for OpenTofu and Terraform targets alike. Reads "
                        ".terraform/modules/modules.json, else the lock file (no network).",
            common=True,
            arguments=(
                _Arg("--recursive", action="store_true",
                     help="every root module under -chdir: a tree each, or with -json one document per line"),
            ),
            defaults={"command_module": "modules"},
        ),
        _Command(
            "graph",
            help="draw the solved module tree (DOT, JSON, SVG or PNG)",
            description="Draw the solved tree of the last init (no network), left to right: the module "
                        "calls with package and version, edges labelled with the call's constraint; "
                        "held-back calls dashed, fenced-off versions red, packages at several versions "
                        "orange. -providers and -opentofu add those nodes. DOT by default; -json for "
                        "node-link JSON; -o FILE.svg or .png renders with Graphviz.",
            common=True,
            arguments=(
                _Arg("--dot", action="store_true", help="Graphviz DOT (the default)"),
                _Arg("--providers", action="store_true",
                     help="add the providers, each edge with its distinct constraints, the binding one in red"),
                _Arg("--opentofu", action="store_true", help="add the OpenTofu version and its constraints"),
                _Arg("--output", "-o", metavar="FILE",
                     help="write to FILE instead of standard output: .svg, .png or .pdf are rendered by Graphviz dot, "
                          ".json is node-link JSON, anything else DOT text"),
            ),
            defaults={"command_module": "graph"},
        ),
        _Command(
            "store",
            help="fill the package store on an OCI registry from lock files, and verify it (store push|verify)",
            description="store push: for every lock file (of -chdir, or of every root module under it "
                        "with -recursive), make the package store hold every module package it names and "
                        "every provider package of every platform whose zh: hash it records, whatever the "
                        "local cache holds: what the store lacks, or holds corrupt, is pushed from the cache "
                        "or its origin, verified as init verifies it; a partial provider index is completed; "
                        "nothing is installed. Each package is reported complete, pushed, missing or rejected. "
                        "store verify: read every package the lock files name from the store and verify it "
                        "exactly as init would, without installing. Both exit 0 only when every package is "
                        "in the store (verify: verified), else 1. Prepare an air-gapped store once, verify "
                        "it, then run CI with every origin blocked.",
            common=True,
            arguments=(
                _Arg("action", choices=["push", "verify"], metavar="push|verify",
                     help="push: fill the store from lock files; verify: check that every locked package "
                          "installs from it"),
                _Arg("--recursive", action="store_true",
                     help="the lock files of every root module under -chdir"),
                _Arg("--platform", action="append", metavar="OS_ARCH",
                     help="only these provider platforms (repeatable; default: every platform the lock records "
                          "a zh: hash for)"),
                _Group(_store_flag),
            ),
            defaults={"command_module": "store"},
        ),
        _Command(
            "policy",
            help="test policy files against mock modules and providers (policy test), as tfpolicy test does",
            description="policy test: run every *.policytest.hcl file under -tests (default: the -policies path) "
                        "against its policytest block's targets, else the policy files of -policies (default: "
                        "the current directory): each module and provider mock is judged by the rules init and "
                        "check apply, and fails when any rule that applies to it fails; a mock whose outcome "
                        "differs from its expect_failure is reported with its file, line and label. Resource "
                        "and data mocks are passed over with a note. Exit 0 when every mock met its expectation, "
                        "else 1.",
            arguments=(
                _Arg("action", choices=["test"], metavar="test", help="test: run the policy tests"),
                _Arg("--chdir", metavar="DIR", help="work in DIR (default: the current directory)"),
                _Arg("--policies", metavar="PATH", help="a policy file or a directory of them (default: .)"),
                _Arg("--tests", metavar="PATH", help="a test file or a directory searched for *.policytest.hcl "
                                                    "(default: the -policies path)"),
                _Arg("--input", action="append", metavar="NAME=VALUE",
                     help="a policy input's value (repeatable; below a test's inputs, above TFPOLICY_INPUT_NAME)"),
                _Arg("--json", action="store_true", help="print machine-readable JSON"),
            ),
            defaults={"command_module": "policy"},
        ),
        _Command(
            "version",
            help="show the tofu-solve version (as tofu version does)",
            description="Print the tofu-solve version; -json prints it as data.",
            arguments=(
                _Arg("--json", action="store_true", help="print machine-readable JSON"),
            ),
            defaults={"command_module": "version", "chdir": None},
        ),
        _Command(
            "completion",
            help="print the shell completion script for bash, zsh, fish or tcsh",
            description="Print the completion script for SHELL, generated from tofu-solve's own flags at "
                        "the moment it is asked for, so it never drifts from them. Install it where the "
                        "shell looks: bash: tofu-solve completion bash > "
                        "~/.local/share/bash-completion/completions/tofu-solve; zsh: tofu-solve "
                        "completion zsh > ~/.zfunc/_tofu-solve (with ~/.zfunc in fpath); fish: "
                        "tofu-solve completion fish > ~/.config/fish/completions/tofu-solve.fish.",
            arguments=(
                _Arg("shell", choices=["bash", "zsh", "fish", "tcsh"], metavar="SHELL",
                     help="bash, zsh, fish or tcsh"),
            ),
            defaults={"command_module": "completion", "json": False, "chdir": None},
        ),
        _Command(
            "demo",
            help="build the real-data fixture world and show init, why and graph on it",
            description="Build (or reuse) a fixture world from the real dependency corpus, start a module "
                        "and provider registry and a git daemon on 127.0.0.1, run init on three bundled "
                        "roots (resolvable, needs a joint solver, impossible), then why and graph; stop "
                        "the servers and leave every result in a folder.",
            arguments=(
                _Arg("--output", metavar="DIR", default="tofu-solve-demo",
                     help="results folder (default ./tofu-solve-demo)"),
                _Arg("--corpus", metavar="DIR", help="the corpus (default: ../shared/corpus, else the copy the "
                                                     "installed package carries)"),
                _Arg("--serve", action="store_true",
                     help="keep the fixture world running for your own roots: print the CLI configuration that "
                          "points tofu-solve and tofu or terraform at it, and wait until interrupted"),
                _Arg("--port", metavar="N", type=int,
                     help="with -serve: the registry's port on 127.0.0.1 (the git daemon takes N+1); without it, "
                          "a restart in the same -output folder takes the ports the last one used, so that the "
                          "git sources and lock packages it wrote still point at it (an outage drill)"),
            ),
            defaults={"command_module": "demo", "json": False, "chdir": None},
        ),
        _Command(
            "lsp",
            help="serve the Language Server Protocol over stdin and stdout, for editors",
            description="A language server that runs beside terraform-ls or tofu-ls: on each open, change and "
                        "save it solves the file's root module as the editor shows it and reports, at the "
                        "lines concerned, conflicts with fixes verified by solving, locks that no longer "
                        "match, policy denials, held-back versions and typos; hovers and code lenses on "
                        "module blocks. Offline from the lock and the cache unless something must be fetched.",
            arguments=(
                _Arg("--stdio", action="store_true",
                     help="serve over stdin and stdout: the one transport, the default; accepted because VS Code's "
                          "language client and many editors' generic setups pass it"),
                _Arg("--clientProcessId", dest="client_process_id", metavar="PID",
                     help="the editor's process id, as VS Code's language client passes it; accepted and not used"),
                *(_Arg(f"--{word}", dest="refused_transport", action="store_const", const=f"--{word}",
                       help=argparse.SUPPRESS) for word in ("node-ipc", "tcp", "ws")),
                *(_Arg(f"--{word}", dest="refused_transport", metavar="VALUE",
                       type=lambda value, word=word: f"--{word}={value}", help=argparse.SUPPRESS)
                  for word in ("socket", "port", "pipe")),
            ),
            defaults={"command_module": "lsp", "json": False, "chdir": None, "refused_transport": None},
        ),
    )



def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="tofu-solve",
        description="Locked, verified, transitively consistent module versions for OpenTofu.",
        epilog="Flags may be written OpenTofu-style (-chdir=DIR, -json) or GNU-style (--chdir DIR).",
    )
    # as `tofu --version` prints what `tofu version` prints (issue #50 §5: one spelling)
    p.add_argument("--version", action="version", version=f"tofu-solve v{__version__}")
    p.add_argument("--chdir", dest="global_chdir", metavar="DIR",
                   help="switch to DIR before running the command, as tofu -chdir=DIR does")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    common = argparse.ArgumentParser(add_help=False)  # the flags most commands share
    common.add_argument("--chdir", metavar="DIR", help="work in the root module DIR (default: the current directory)")
    common.add_argument("--json", action="store_true", help="print machine-readable JSON instead of text (init: "
                        "OpenTofu's JSON-lines stream)")
    common.add_argument("--no-color", action="store_true", dest="no_color",
                        help="no colour in the output (also with NO_COLOR set); a pipe never gets colour")
    common.add_argument("--var", action=_VarOption, dest="vars", metavar="NAME=VALUE",
                        help="set a root module variable for source and version (repeatable; as tofu -var)")
    common.add_argument("--var-file", action=_VarOption, dest="vars", metavar="FILE",
                        help="read root module variables from a .tfvars or .tfvars.json file (repeatable)")

    for c in _commands():
        sp = sub.add_parser(c.name, parents=[common] if c.common else [], help=c.help, description=c.description)
        for a in c.arguments:
            a.add_to(sp)
        sp.set_defaults(**c.defaults)
    # Go's flag package takes no abbreviations: -lockfil=readonly is a mistake, not -lockfile
    p.allow_abbrev = False
    for command_parser in sub.choices.values():
        command_parser.allow_abbrev = False
    p.set_defaults(_commands=sub.choices)
    return p


def _unknown_command(argv: Sequence[str], parser: argparse.ArgumentParser) -> str | None:
    """The usage error for a command tofu-solve does not have, with the nearest one ("Did
    you mean init?", issue #50 §5, as tofu says it); None when the first word that is not
    a flag is a command (or there is none)."""
    import difflib

    commands = sorted(parser.get_default("_commands") or {})
    words = iter(argv)
    for a in words:
        if a in ("-chdir", "--chdir"):
            next(words, None)  # its value
            continue
        if a.startswith("-"):
            continue
        if a in commands:
            return None
        near = difflib.get_close_matches(a, commands, n=1, cutoff=0.5)
        hint = f" Did you mean {near[0]}?" if near else ""
        return f'"{a}" is not a tofu-solve command.{hint}\nRun tofu-solve -help for the commands.'
    return None


def _unknown_flags(extras: Sequence[str], parser: argparse.ArgumentParser, command: str | None) -> str:
    """The usage error for flags no parser took, in the words of Go's flag package ("flag
    provided but not defined: -upgradee"), with the nearest flag of the command when one is
    near ("Did you mean -upgrade?"), as tofu-solve users type OpenTofu-style flags."""
    import difflib

    commands = parser.get_default("_commands") or {}
    sp = commands.get(command) if command else None
    known = sorted({o for o in (sp or parser)._option_string_actions if o.startswith("--")})
    lines = []
    for extra in extras:
        name = extra.split("=", 1)[0]
        if not name.startswith("-"):
            lines.append(f"unexpected argument: {extra}")
            continue
        shown = "-" + name.lstrip("-")
        near = difflib.get_close_matches("--" + name.lstrip("-"), known, n=1, cutoff=0.75)
        hint = f" Did you mean -{near[0].lstrip('-')}?" if near else ""
        lines.append(f"flag provided but not defined: {shown}.{hint}")
    where = f"tofu-solve {command}" if command else "tofu-solve"
    return "\n".join(lines) + f"\nRun {where} -help for its flags."


def os_error(e: OSError) -> TofuSolveError:
    """An OSError that escaped the stages, as a user-facing error naming the path."""
    load("tofu_solve.addrs.redact")
    from .addrs.redact import redact
    load("tofu_solve.errors")
    from .errors import TofuSolveError

    load("tofu_solve.output_edge")
    from .output_edge import one_line

    # a path is outside text: one bounded line (issue #80 §5: a 60 KiB path was quoted whole)
    where = " and ".join(one_line(redact(str(f)), 300) for f in (e.filename, e.filename2) if f)
    return TofuSolveError(f"{e.strerror or type(e).__name__}",
                          f"The operation on {where or 'a file'} failed ({type(e).__name__}"
                          f"{f', errno {e.errno}' if e.errno else ''}). Check the path, its permissions and the free "
                          "space of its file system.")


COLLECTOR_THRESHOLDS = (100_000, 50, 100)


def tune_collector() -> None:
    """Set the cyclic garbage collector's thresholds for a run of tofu-solve
    (:data:`COLLECTOR_THRESHOLDS`, process-wide, as mypy does at its entry point).

    A solve builds hundreds of thousands of long-lived objects (criteria, candidates,
    parsed module trees) and next to no cyclic garbage; with CPython's defaults
    (700, 10, 10) the collector walks them again and again, a fifth to a third of a
    1,050-call solve (``bench/solver_scaling.py``). Reference counting still frees
    everything that is not in a cycle at once."""
    gc.set_threshold(*COLLECTOR_THRESHOLDS)


def main(argv: Sequence[str] | None = None, environ: Mapping[str, str] | None = None) -> int:
    """Run the CLI with ``argv`` (default: the process's) in ``environ`` (default: the
    process environment, the only place it is read); returns the exit status. Everything
    it writes crosses the output edge (:mod:`tofu_solve.output_edge`), but the language
    server's protocol stream."""
    argv = list(sys.argv[1:] if argv is None else argv)
    environ = os.environ if environ is None else environ
    if _command_word(argv) == "lsp":
        return _main(argv, environ)
    out, err = sys.stdout, sys.stderr
    actions = environ.get("GITHUB_ACTIONS") == "true"
    json_out = _json_output(argv)
    guard = Guard()  # one region for the process: the runner reads both streams as one (issue #81 §1)
    edges = OutputEdge(out, actions, json=json_out, guard=guard), OutputEdge(err, actions, guard=guard)
    sys.stdout, sys.stderr = edges
    try:
        # under GitHub Actions no workflow command runs from here on but tofu-solve's own
        for edge in edges:
            edge.stop_commands()
        return _main(argv, environ)
    finally:
        for edge in edges:
            with contextlib.suppress(OSError, ValueError):
                edge.flush()
        guard.close()  # closed before the process exits, however it ends
        sys.stdout, sys.stderr = out, err


def _command_word(argv: Sequence[str]) -> str:
    """The command of ``argv``: its first word that is not a flag ("" when none)."""
    return next((a for a in argv if not a.startswith("-")), "")


def _json_output(argv: Sequence[str]) -> bool:
    """Whether standard output carries a JSON document or stream: ``-json``, or a
    ``-format`` other than ``text`` (SARIF, JSON, CycloneDX, SPDX...)."""
    for i, a in enumerate(argv):
        if a in ("-json", "--json", "-json=true", "--json=true"):
            return True
        name, eq, value = a.partition("=")
        if name in ("-format", "--format"):
            value = value if eq else (argv[i + 1] if i + 1 < len(argv) else "")
            if value not in ("", "text"):
                return True
    return False


def _main(argv: list[str], environ: Mapping[str, str]) -> int:
    try:
        argv = with_env_args(argv, environ)
    except Exception as e:  # a TofuSolveError (the hierarchy is imported only when one is raised)
        if not hasattr(e, "render"):
            raise
        print("\n" + e.render() + "\n", file=sys.stderr)
        return 1
    load("tofu_solve.workdir")
    from .workdir import stamp

    # a warm init or check: nothing changed since the last verified run
    fast = stamp.fast_path(argv, environ, passed_on=lambda: _passed_on(argv))
    if fast is not None:
        return fast
    load("tofu_solve.errors")
    from .errors import TofuSolveError
    load("tofu_solve.settings")
    from .settings import Settings

    parser = build_parser()
    try:
        settings = Settings.from_environ(environ)
    except TofuSolveError as e:
        print("\n" + e.render() + "\n", file=sys.stderr)
        return 1
    unknown = _unknown_command(argv, parser)
    if unknown is not None:
        print(f"Error: {unknown}", file=sys.stderr)
        return 2
    args, extras = parser.parse_known_args(_go_booleans(_gnu_flags(argv), parser))
    if extras:
        print(f"Error: {_unknown_flags(extras, parser, getattr(args, 'command', None))}", file=sys.stderr)
        return 2
    if not getattr(args, "command", None):
        parser.print_help()
        return 2
    if getattr(args, "exclude_dir", None) and not getattr(args, "recursive", False):
        print("Error: -exclude-dir leaves roots out of -recursive: add -recursive, or run in the root you "
              "want (-chdir=DIR)", file=sys.stderr)
        return 2
    args.chdir = args.chdir or args.global_chdir or "."
    settings = _anchor_paths(args, settings)
    tune_collector()
    load("tofu_solve.command.logs")
    from .command.logs import configure as configure_logging

    handler = configure_logging(settings.log_level, settings.log_path)
    # what the user edits, as the run begins: a stamp is never taken of a file saved meanwhile
    before = stamp.inputs(argv, environ) if args.command in ("init", "check") else None
    try:
        outcome = _run(args, settings)
    finally:
        if handler is not None:
            import logging

            logging.getLogger("tofu_solve").removeHandler(handler)
            handler.close()
    if not isinstance(outcome, stamp.Finished):
        return outcome
    if outcome.code == 0 and outcome.message is not None:  # verified, nothing changed: the next may answer at once
        stamp.record(argv, environ, outcome.message, handover=outcome.handover,
                     watched=settings.reads.paths, listed=settings.reads.dirs, before=before,
                     changed=settings.reads.changed())
    return outcome.code


def _anchor_paths(args: argparse.Namespace, settings):
    """Every path a flag or ``TOFU_SOLVE_POLICY`` names, read once relative to the directory
    the command was started in, after ``-chdir`` (as OpenTofu reads ``-var-file`` and
    ``-backend-config``), whether one root or ``-recursive`` (issue #81 §4: ``-policy=policies``
    was read from each root): ``-policy`` and ``-var-file`` made absolute in ``args``; the
    settings with ``TOFU_SOLVE_POLICY`` likewise (a new :class:`~tofu_solve.settings.Settings`).
    ``-backend-config=FILE`` and ``-plugin-dir``, which only the client reads, are passed on
    rebased onto the root it runs in (:func:`tofu_solve.workdir.flags.rebased`)."""
    base = os.path.abspath(args.chdir)

    def anchored(value: str) -> str:
        return value if not value or value == "none" or os.path.isabs(value) else os.path.join(base, value)

    if isinstance(getattr(args, "policy", None), str):
        args.policy = anchored(args.policy)
    if getattr(args, "vars", None):
        args.vars = [(kind, anchored(v) if kind == "var-file" else v) for kind, v in args.vars]
    named = settings.environ.get("TOFU_SOLVE_POLICY")
    if named and anchored(named) != named:
        import dataclasses
        from types import MappingProxyType

        settings = dataclasses.replace(settings, environ=MappingProxyType(
            {**settings.environ, "TOFU_SOLVE_POLICY": anchored(named)}))
    return settings


def _passed_on(argv: Sequence[str]) -> tuple[str, ...]:
    """The flags ``argv`` passes on to the client's init, as ``init`` reads them (the
    parser, then :func:`tofu_solve.workdir.flags.passed_on`), for a hand-over answered from
    the stamp."""
    load("tofu_solve.workdir.flags")
    from .workdir.flags import passed_on

    parser = build_parser()
    args, _ = parser.parse_known_args(_go_booleans(_gnu_flags(list(argv)), parser))
    return passed_on(args)


def entry() -> NoReturn:
    """The ``tofu-solve`` command (console script, ``python -m tofu_solve``, the frozen
    executable): :func:`main`, then the process ends at once with its status, its output
    flushed and logging shut down, without the interpreter's teardown (which frees every
    object a solve built, one by one: about a tenth of a second after a cold ``init``, as
    mypy found for itself). Everything tofu-solve writes is complete by then (each file is
    written atomically and closed; git processes and downloads were stopped by the run),
    and no thread is left that anything waits for. An exception out of :func:`main` takes
    the interpreter's usual way out."""
    code = main()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe or stream: nothing more can be said
            pass
    if "logging" in sys.modules:
        sys.modules["logging"].shutdown()
    os._exit(code)


def _run(args, settings: Settings) -> int:
    """Run the command; every failure becomes its exit status here, at one boundary."""
    opened: list = []  # the views a command opened (init's): its failure is reported to them
    try:
        return _run_checked(args, settings, opened)
    finally:
        for views in opened:
            views.close()


def _dispatch(args, settings: Settings, opened: list) -> int:
    """The command's ``run``, its module imported only now (a warm ``check`` never imports
    the network code). A command that speaks through views of its own (``open_views``) gets
    them here, and they are kept in ``opened`` for the error boundary."""
    if args.command_module not in ("version", "completion"):
        load("tofu_solve.config")
        from .config import (
            hcl,  # the compiled HCL grammar is kept in tofu-solve's cache, nowhere else
        )

        hcl.use_cache_dir(settings.cache_dir / "grammar")
    if args.command_module == "init":
        load("tofu_solve.command")
        from .command import early

        # before init's own module is imported: its first requests go out meanwhile (issue #36)
        args.early_start = early.start_for(args, settings)
    if args.command_module == "lsp":  # the server runs above the commands, whose code it uses
        load("tofu_solve.lsp.server")
        from .lsp.server import run as serve

        return serve(args, settings)
    module = load(f"tofu_solve.command.{args.command_module}")
    if args.command_module == "demo":
        return module.run(args, settings, main)
    if args.command_module == "completion":
        return module.run(args, settings, build_parser())
    if hasattr(module, "open_views"):
        views = module.open_views(args, settings)
        opened.append(views)
        return module.run(args, settings, views)
    return module.run(args, settings)


def _run_checked(args, settings: Settings, opened: list) -> int:
    load("tofu_solve.errors")
    from .errors import TofuSolveError

    try:
        try:
            return _dispatch(args, settings, opened)
        except BrokenPipeError:
            raise
        except OSError as e:  # the file system said no: name the file, not a traceback
            raise os_error(e) from None
        except RecursionError:
            raise TofuSolveError("Input nested too deeply",
                                 "A configuration, lock or answer nests values too deeply to be processed.") from None
    except TofuSolveError as e:
        if opened:  # init: the stream gets a diagnostic, people the text
            views = opened[0]
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
        if settings.debug:
            raise
        print(f"\nError: internal error in tofu-solve\n\n{type(e).__name__}: {e}\n\nThis is a bug. Run again "
              "with TOFU_SOLVE_DEBUG=1 for the traceback and report it.\n", file=sys.stderr)
        return 1


if __name__ == "__main__":  # pragma: no cover
    entry()
