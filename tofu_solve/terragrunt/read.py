"""Reading a unit's ``terragrunt.hcl`` as Terragrunt reads it, for what tofu-solve needs: the
effective ``terraform { source, version }``, ``terraform_version_constraint``,
``terraform_binary`` and the ``generate`` blocks, with file and line.

Followed from Terragrunt's source (gruntwork-io/terragrunt at 286a33cb):

* parsing order (``pkg/config/config.go`` ``ParseConfig``, docs ``configuration parsing
  order``): ``include`` blocks first (their ``path`` may call functions but read no local),
  then ``locals`` (which may read an exposed ``include.NAME``), then the rest;
* includes (``pkg/config/include.go``): one level only ("Only one level of includes is
  allowed", ``TooManyLevelsOfInheritanceError``); merged in the order written, the unit's
  own file last, each one's set attributes replacing the earlier ones
  (``TerragruntConfig.Merge``: ``Terraform.Source``, ``Terraform.Version``,
  ``TerraformVersionConstraint``, ``TerraformBinary``; ``generate`` blocks by name);
  ``merge_strategy = "no_merge"`` merges nothing; ``"deep"`` is read as ``"shallow"`` for
  these scalar attributes, as ``DeepMerge`` also lets the child's scalars win;
* functions (``pkg/config/config_helpers.go``): every path function answers for the unit's
  own file (``pctx.TerragruntConfigPath``) even inside an included file;
  ``find_in_parent_folders`` starts in the parent of the unit's directory
  (``findInParentFoldersImpl``); ``path_relative_to_include`` / ``_from_include`` relate the
  unit's directory and the include's (``PathRelativeToInclude``); ``read_terragrunt_config``
  reads a path relative to the unit's directory, as its own configuration
  (``ReadTerragruntConfig``); ``get_env(NAME)`` without a default is an error when unset
  (``parseGetEnvParameters``).

Values that only Terragrunt's runtime knows (``dependency`` outputs, ``run_cmd``,
``sops_decrypt_file``, account lookups) raise :class:`NeedsTerragrunt` naming what was
read: the unit is then left out with that reason (issue #73 §1).
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import confined
from .._lazy import load
from ..config import hcl
from ..config.hcl.lazy_locals import LazyLocals
from ..errors import ConfigurationError, SourceRange
from . import CONFIG_FILE

MAX_PARENT_FOLDERS = 100
"""``find_in_parent_folders`` looks at most this many directories up (Terragrunt's
``MaxFoldersToCheck`` default, ``options.DefaultMaxFoldersToCheck``)."""

PIN_MARK = "tofu-solve pin"
"""The comment that marks a ``version`` attribute as tofu-solve's pin (:mod:`.pins`)."""

RUNTIME_FUNCTIONS = {
    "run_cmd": "runs a command",
    "sops_decrypt_file": "decrypts a file with SOPS keys",
    "get_aws_account_id": "asks AWS for the account", "get_aws_account_alias": "asks AWS for the account",
    "get_aws_caller_identity_arn": "asks AWS for the caller",
    "get_aws_caller_identity_user_id": "asks AWS for the caller",
    "read_tfvars_file": "reads a variables file tofu-solve does not evaluate",
    "get_terragrunt_source_cli_flag": "depends on the command line Terragrunt runs with",
    "get_working_dir": "depends on Terragrunt's download directory",
}
"""Terragrunt functions whose value only Terragrunt's run has, with why."""


CREDENTIAL_NAME = re.compile(r"key|token|secret|passw|credential|auth|session|cookie|cert|private", re.I)
"""An environment variable ``get_env`` does not read: a name that looks like a credential's
(the hand-over's rule for backend settings, ``workdir/handover.py``). A unit's source that
needs one is left out, its value never read."""

ENV_ALLOW_VARIABLE = "TOFU_SOLVE_TERRAGRUNT_ENV"
"""The job's list of the variables a unit's ``get_env`` may read (issue #80 §1): names or
``PREFIX*`` patterns, separated by commas or spaces. A name that looks like a credential's
(:data:`CREDENTIAL_NAME`) is never read, listed or not."""
DEFAULT_ENV_ALLOW = ("TG_*",)
"""What units may read when the job names nothing: Terragrunt's own ``TG_`` variables
(``TF_VAR_`` is not among them: it is where a job's secrets for the client are put)."""
MAX_UNIT_STEPS = 1_000_000
"""Expression nodes all the evaluations of one unit's files may visit together."""
MAX_UNIT_FILE_BYTES = 1 << 20
"""The largest file a unit reads (its own, an include, ``read_terragrunt_config``'s)."""
MAX_UNIT_BYTES = 8 << 20
"""What all the files one unit reads may hold together."""


def env_allowed(name: str, environ: Mapping[str, str]) -> bool:
    """Whether a unit's ``get_env`` may read the variable ``name`` in the job's ``environ``:
    listed by :data:`ENV_ALLOW_VARIABLE` (else :data:`DEFAULT_ENV_ALLOW`), a name or a
    ``PREFIX*`` pattern, and not shaped like a credential's."""
    if CREDENTIAL_NAME.search(name):
        return False
    listed = environ.get(ENV_ALLOW_VARIABLE)
    patterns = re.split(r"[,\s]+", listed.strip()) if listed is not None else list(DEFAULT_ENV_ALLOW)
    return any(p and (name == p or (p.endswith("*") and name.startswith(p[:-1]))) for p in patterns)


class NeedsTerragrunt(Exception):
    """A value only Terragrunt's runtime knows: ``what`` was read, ``line`` where."""

    def __init__(self, what: str, line: int = 0):
        super().__init__(what)
        self.what, self.line = what, line


@dataclass(frozen=True)
class Located:
    """A value and where it is written."""

    value: Any
    where: SourceRange
    file: Path  # the file on disk that holds it
    text: str = ""  # the expression as written


@dataclass(frozen=True)
class Generated:
    """A ``generate "NAME"`` block: ``path`` (relative to the working copy) and its
    ``contents`` when they are a known string (None otherwise); :meth:`at` cites a line of
    the generated file where the block writes it."""

    name: str
    path: str
    contents: str | None
    where: SourceRange
    first_line: int = 0  # the file line of the contents' first line (a heredoc), 0 when unknown
    file: str = field(default="", compare=False)  # the block's file, as cited
    lines: list[str] = field(default_factory=list, compare=False, repr=False)

    def at(self, line: int) -> SourceRange:
        """Where line ``line`` of the generated file is written (the block when unknown)."""
        if not self.first_line:
            return self.where
        n = self.first_line + line - 1
        snippet = self.lines[n - 1].strip() if 0 < n <= len(self.lines) else ""
        return SourceRange(self.file, n, f'generate "{self.name}"', snippet)


@dataclass(frozen=True)
class UnitConfig:
    """What tofu-solve reads of one unit, includes merged.

    Attributes:
        dir: the unit's directory.
        source: ``terraform.source`` (None: the unit has none and runs in its own directory).
        version: ``terraform.version`` as Terragrunt reads it (with tofu-solve's pin).
        version_below: the ``version`` that one replaces (an include's), None when none does.
        own_terraform_line: the line of the unit file's own ``terraform`` block (0: none).
        core: ``terraform_version_constraint``.
        binary: ``terraform_binary``.
        generated: the ``generate`` blocks, by name.
        files: every file read (the unit's, its includes', ``read_terragrunt_config``'s).
    """

    dir: Path
    source: Located | None = None
    version: Located | None = None
    version_below: Located | None = None
    own_terraform_line: int = 0
    core: Located | None = None
    binary: Located | None = None
    generated: tuple[Generated, ...] = ()
    files: tuple[Path, ...] = ()
    shown: str = CONFIG_FILE  # the unit's terragrunt.hcl as citations name it
    source_below: Located | None = None  # the ``source`` the effective one replaces (an include's)
    file: Path | None = None  # the unit's own file as read (a stack unit's: in its catalog)

    @property
    def own_file(self) -> Path:
        """The unit's own ``terragrunt.hcl``: where its pins are written."""
        return self.file or self.dir / CONFIG_FILE

    @property
    def home(self) -> Path:
        """The directory its lock and override file are written to (a catalog unit's own)."""
        return self.own_file.parent


@dataclass
class _Include:
    name: str
    path: Path
    expose: bool
    merge: bool
    where: SourceRange


def _shown(path: Path, display_base: Path | None) -> str:
    if display_base is None:
        return str(path)
    rel = os.path.relpath(path, display_base)
    return rel.replace(os.sep, "/")


def _read_text(path: Path, shown: str, top: str, cited: SourceRange | None = None,
               texts: Mapping[Path, str] | None = None) -> str:
    """The text of a file the unit names (its own, an include, ``read_terragrunt_config``'s),
    only from inside the repository ``top`` the unit is in (issue #67 §3: a pull request's
    ``include { path = "/proc/self/environ" }`` must not be read, let alone quoted); an
    editor's unsaved buffer of it (``texts``, by absolute path) when there is one, checked
    against the same boundary (issue #85 §1)."""
    try:
        if texts:
            buffer = texts.get(Path(os.path.abspath(path)))
            if buffer is not None:
                confined.check(path, shown, top)
                if len(buffer.encode("utf-8", "surrogatepass")) > confined.MAX_FILE_BYTES:
                    raise ConfigurationError("File too large", f"{shown} is over "
                                             f"{confined.MAX_FILE_BYTES >> 20} MiB.")
                return buffer
        return confined.read_text(path, shown, top)
    except ConfigurationError as e:  # outside the repository, not a regular file, too large: cited where named
        raise ConfigurationError(e.summary, e.detail, cited) from None
    except (OSError, UnicodeDecodeError) as e:
        reason = e.strerror if isinstance(e, OSError) and e.strerror else "not UTF-8 text"
        raise ConfigurationError("Failed to read Terragrunt configuration", f"{shown}: {reason}.", cited) from None


class _Runtime(dict):
    """A root name whose every attribute only Terragrunt's run knows (``dependency``)."""

    def __init__(self, name: str, why: str = "another unit's outputs"):
        super().__init__()
        self.name, self.why = name, why

    def __contains__(self, key: object) -> bool:
        return True

    def __getitem__(self, key: str) -> Any:
        raise NeedsTerragrunt(f"{self.name}.{key} ({self.why})")


class UnitReader:
    """Reads one unit (its ``terragrunt.hcl`` and what it includes) for one run.

    ``environ``: the environment ``get_env`` reads; ``display_base``: file names are cited
    relative to it; ``repo_root``: what ``get_repo_root()`` answers (None: found with git);
    ``texts``: an editor's unsaved buffers by absolute path, read instead of the disk.
    """

    def __init__(self, unit_dir: Path, environ: Mapping[str, str], display_base: Path | None = None,
                 repo_root: Path | None = None, reads: Callable[[Path], None] | None = None,
                 values: Mapping[str, Any] | None = None, config_name: str = CONFIG_FILE,
                 source_file: Path | None = None, texts: Mapping[Path, str] | None = None):
        self.texts = texts
        self.dir = Path(os.path.abspath(unit_dir))
        self.config_path = self.dir / config_name
        # the file read for the unit's own configuration: its config_path, except for a stack's unit, which
        # is evaluated where stack generate writes it but read from its catalog (:mod:`.stack`)
        self.source_file = Path(os.path.abspath(source_file)) if source_file is not None else self.config_path
        self.values = values  # a stack's values for this unit (``values.*``), None outside a stack
        # the repository: no file outside it is read; outside a git work tree a unit's includes above
        # it are Terragrunt's normal case, and no pull request is being read: nothing is refused
        top = confined.boundary(str(self.dir))
        self.top = top if os.path.lexists(os.path.join(top, ".git")) else os.path.abspath(os.sep)
        self.environ, self.display_base = environ, display_base
        self._repo_root = repo_root
        self.files: list[Path] = []
        self.reads = reads
        self.include_list: list[_Include] = []
        # bounded as a policy's evaluation is (issue #80 §1): one budget of expression steps for every file the
        # unit reads, a size for each file and for all, each read_terragrunt_config file read once
        load("tofu_solve.config.hcl.evaluate")
        from ..config.hcl.evaluate import Budget

        self.budget = Budget(MAX_UNIT_STEPS)
        self.bytes_read = 0
        self.configs: dict[Path, Any] = {}

    # ------------------------------------------------------------ the unit

    def read(self) -> UnitConfig:
        """The unit, includes merged.

        Raises:
            ConfigurationError: a file does not parse, a function fails, an include is missing
                or nested, with file and line.
            NeedsTerragrunt: the source or version needs Terragrunt's runtime.
        """
        unit = _FileReader(self, self.source_file, include=None)
        includes = self.include_list = unit.includes()
        layers: list[_FileReader] = []
        exposed: dict[str, Any] = {}
        for inc in includes:
            reader = _FileReader(self, inc.path, include=inc, cited=inc.where)
            if reader.body.blocks_of("include"):
                raise ConfigurationError(
                    "Too many levels of includes",
                    f"{self.shown(self.config_path)} includes {self.shown(inc.path)}, which itself includes "
                    "another file. Only one level of includes is allowed (Terragrunt's "
                    "TooManyLevelsOfInheritanceError).", inc.where)
            if inc.expose:
                exposed[inc.name] = reader.exposed()
            if inc.merge:
                layers.append(reader)
        unit.include_values = exposed
        layers.append(unit)
        source = source_below = version = below = core = binary = None
        generated: dict[str, Generated] = {}
        for layer in layers:
            tf = layer.terraform_block()
            if tf is not None:
                mine_source = layer.attr(tf.body, "source")
                if mine_source is not None:
                    source, source_below = mine_source, source
                mine = layer.attr(tf.body, "version")
                if mine is not None:
                    version, below = mine, version
            core = layer.attr(layer.body, "terraform_version_constraint") or core
            binary = layer.attr(layer.body, "terraform_binary") or binary
            for g in layer.generate_blocks():
                generated[g.name] = g
        own = unit.terraform_block()
        return UnitConfig(self.dir, source, version, below, own.line if own is not None else 0, core, binary,
                          tuple(generated.values()), tuple(dict.fromkeys(self.files)), self.shown(self.source_file),
                          source_below, self.source_file)

    def shown(self, path: Path) -> str:
        return _shown(path, self.display_base)

    def repo_root(self) -> Path:
        """``get_repo_root()``: the top of the unit's git work tree (``GetRepoRoot``, which
        runs ``git rev-parse --show-toplevel``)."""
        if self._repo_root is None:
            load("tofu_solve.remote.gitcmd")
            from ..remote.gitcmd import GitError, run

            try:
                out = run(["-C", str(self.dir), "rev-parse", "--show-toplevel"], self.environ, timeout=30)
            except (GitError, OSError):
                raise ConfigurationError("Not in a git repository", f"get_repo_root() in "
                                         f"{self.shown(self.config_path)}: {self.dir} is not inside a git work "
                                         "tree.") from None
            self._repo_root = Path(out.decode("utf-8", "replace").strip())
        return self._repo_root


class _FileReader:
    """One file of a unit: parsed once, evaluated in the unit's context."""

    def __init__(self, unit: UnitReader, path: Path, include: _Include | None, cited: SourceRange | None = None,
                 original: Path | None = None):
        self.unit, self.path, self.include = unit, Path(path), include
        # read_terragrunt_config parses a file as its own configuration: its path functions answer for it
        self.config_path = Path(original) if original is not None else unit.config_path
        self.shown = unit.shown(self.path)
        if not self.path.is_file():
            raise ConfigurationError("Included file not found" if include else "Terragrunt configuration not found",
                                     f"{self.shown} does not exist.", cited)
        self.text = _read_text(self.path, self.shown, unit.top, cited, unit.texts)
        size = len(self.text.encode("utf-8", "surrogatepass"))
        unit.bytes_read += size
        if size > MAX_UNIT_FILE_BYTES or unit.bytes_read > MAX_UNIT_BYTES:
            raise ConfigurationError("Terragrunt configuration too large",
                                     f"{self.shown} is {size} bytes; tofu-solve reads a unit's files of at most "
                                     f"{MAX_UNIT_FILE_BYTES >> 20} MiB each and {MAX_UNIT_BYTES >> 20} MiB in all.",
                                     cited)
        self.lines = self.text.splitlines()
        unit.files.append(self.path)
        if unit.reads is not None:
            unit.reads(self.path)
        self.body = hcl.parse(self.text, self.shown)
        self.local_exprs = {a.name: a for b in self.body.blocks_of("locals") for a in b.body.attributes}
        self.locals = LazyLocals(self.local_exprs, lambda a: self.value(a.expr, a.line), self.here)
        self.include_values: dict[str, Any] = {}
        self._functions: dict | None = None

    def here(self, line: int, context: str = "") -> SourceRange:
        snippet = self.lines[line - 1].strip() if 0 < line <= len(self.lines) else ""
        return SourceRange(self.shown, line, context, snippet)

    # ------------------------------------------------------------ evaluation

    def value(self, expr, line: int, with_locals: bool = True) -> Any:
        load("tofu_solve.config.hcl.evaluate")
        from ..config.hcl.evaluate import EvalContext, EvalError, evaluate

        variables: dict[str, Any] = {"dependency": _Runtime("dependency"), "dependencies": _Runtime("dependencies"),
                                     "feature": _Runtime("feature"),
                                     "values": dict(self.unit.values) if self.unit.values is not None
                                     else _Runtime("values", "a stack's values")}
        if with_locals:
            variables["local"] = self.locals
            variables["include"] = self.include_values
        try:
            return evaluate(expr.tree, EvalContext(variables, self.functions(), self.unit.budget))
        except NeedsTerragrunt as e:
            raise NeedsTerragrunt(e.what, e.line or line) from None
        except EvalError as e:
            raise ConfigurationError(e.summary, e.detail, self.here(e.line or line)) from None
        except RecursionError:
            raise ConfigurationError("Expression too deeply nested", "This expression nests deeper than tofu-solve "
                                     "evaluates.", self.here(line)) from None

    def attr(self, body, name: str) -> Located | None:
        """``name`` of ``body`` evaluated (None when absent or null)."""
        for a in body.attributes:
            if a.name == name:
                v = self.value(a.expr, a.line)
                if v is None:
                    return None
                if not isinstance(v, str):
                    load("tofu_solve.config.hcl.evaluate")
                    from ..config.hcl.evaluate import type_name

                    raise ConfigurationError(f"Invalid {name} value", f"{name} must be a string, not "
                                             f"{type_name(v)}.", self.here(a.line))
                return Located(v, self.here(a.line), self.path, a.expr.text)
        return None

    def includes(self) -> list[_Include]:
        """The file's ``include`` blocks: ``path`` evaluated without locals (Terragrunt reads
        includes before locals)."""
        out = []
        for b in self.body.blocks_of("include"):
            name = b.labels[0] if b.labels else ""
            attrs = {a.name: a for a in b.body.attributes}
            if "path" not in attrs:
                raise ConfigurationError("Missing required argument", 'The argument "path" is required in an include '
                                         "block.", self.here(b.line))
            p = self.value(attrs["path"].expr, attrs["path"].line, with_locals=False)
            if not isinstance(p, str):
                raise ConfigurationError("Invalid include path", "path must be a string.", self.here(b.line))
            path = Path(p) if os.path.isabs(p) else self.unit.dir / p
            expose = merge = None
            if "expose" in attrs:
                expose = self.value(attrs["expose"].expr, attrs["expose"].line, with_locals=False)
            if "merge_strategy" in attrs:
                merge = self.value(attrs["merge_strategy"].expr, attrs["merge_strategy"].line, with_locals=False)
                if merge not in ("no_merge", "shallow", "deep"):
                    raise ConfigurationError("Invalid merge_strategy", f'merge_strategy must be "no_merge", '
                                             f'"shallow" or "deep", not {merge!r}.', self.here(b.line))
            out.append(_Include(name, Path(os.path.normpath(path)), expose is True, merge != "no_merge",
                                self.here(b.line)))
        return out

    def exposed(self) -> dict[str, Any]:
        """What ``include.NAME`` gives the unit when ``expose = true``: the included file's
        locals and, where known, its inputs."""
        out: dict[str, Any] = {"locals": {n: self.locals[n] for n in self.local_exprs}}
        for a in self.body.attributes:
            if a.name == "inputs":
                try:
                    out["inputs"] = self.value(a.expr, a.line)
                except NeedsTerragrunt:
                    pass
        return out

    def terraform_block(self):
        blocks = self.body.blocks_of("terraform")
        if len(blocks) > 1:
            raise ConfigurationError("Duplicate terraform block", "Only one terraform block is allowed in a "
                                     "Terragrunt configuration file.", self.here(blocks[1].line))
        return blocks[0] if blocks else None

    def generate_blocks(self) -> list[Generated]:
        out = []
        for b in self.body.blocks_of("generate"):
            if not b.labels:
                continue
            attrs = {a.name: a for a in b.body.attributes}
            path = self.value(attrs["path"].expr, attrs["path"].line) if "path" in attrs else ""
            contents, first = None, 0
            if "contents" in attrs:
                c = attrs["contents"]
                try:
                    v = self.value(c.expr, c.line)
                    contents = v if isinstance(v, str) else None
                except NeedsTerragrunt:
                    contents = None
                # a heredoc's first line is the one after its opening marker
                first = c.line + 1 if c.expr.text.lstrip().startswith("<<") else 0
            out.append(Generated(b.labels[0], str(path), contents, self.here(b.line), first, self.shown, self.lines))
        return out

    # ------------------------------------------------------------ functions

    def functions(self) -> dict:
        if self._functions is None:
            self._functions = self._build_functions()
        return self._functions

    def _build_functions(self) -> dict:
        load("tofu_solve.config.hcl.functions")
        load("tofu_solve.config.hcl.evaluate")
        from datetime import UTC, datetime

        from ..config.hcl.evaluate import FunctionError
        from ..config.hcl.functions import policy_functions

        fns = {k: v for k, v in policy_functions(lambda: datetime.now(UTC)).items()
               if not k.startswith("core::") and k not in ("timestamp",)}
        unit = self.unit
        config_dir = self.config_path.parent

        def text(v: Any, what: str) -> str:
            if not isinstance(v, str):
                raise FunctionError(f"{what} must be a string")
            return v

        def find_in_parent_folders(name: Any = None, fallback: Any = None, *extra: Any) -> str:
            if extra:
                raise FunctionError("it takes 0, 1, or 2 arguments")
            wanted = text(name, "name") if name is not None else CONFIG_FILE
            previous = str(config_dir)
            for _ in range(MAX_PARENT_FOLDERS):
                current = os.path.dirname(previous)
                if current == previous or not _within(current, unit.top):
                    break  # only inside the repository (issue #80 §1: a path's existence is an answer too)
                candidate = os.path.join(current, wanted)
                if unit.reads is not None:
                    unit.reads(Path(candidate))  # found or not: a file appearing there changes the answer
                if os.path.exists(candidate):
                    return candidate
                previous = current
            if fallback is not None:
                return text(fallback, "fallback")
            raise FunctionError(f"could not find a {wanted} in any of the parent folders of "
                                f"{unit.shown(self.config_path)}")

        def path_relative_to_include(*names: Any) -> str:
            inc = self.include or _child_include(unit, names)
            if inc is None:
                return "."
            return os.path.relpath(str(config_dir), str(inc.path.parent)).replace(os.sep, "/")

        def path_relative_from_include(*names: Any) -> str:
            inc = self.include or _child_include(unit, names)
            if inc is None:
                return "."
            return os.path.relpath(str(inc.path.parent), str(config_dir)).replace(os.sep, "/")

        def get_parent_terragrunt_dir(*names: Any) -> str:
            return os.path.normpath(os.path.join(str(config_dir), path_relative_from_include(*names)))

        def get_env(name: Any, *default: Any) -> str:
            if len(default) > 1:
                raise FunctionError('it takes get_env("<NAME>", "[DEFAULT]")')
            key = text(name, "name")
            if CREDENTIAL_NAME.search(key):
                raise NeedsTerragrunt(f'get_env("{key}"), a credential\'s name (tofu-solve never reads one: it '
                                      "would reach the lock, a request or the output)")
            if not env_allowed(key, unit.environ):  # the job's secrets are not all named like one (#80 §1)
                if default:
                    return text(default[0], "default")
                raise NeedsTerragrunt(f'get_env("{key}"), a variable the job does not let units read (list it in '
                                      f"{ENV_ALLOW_VARIABLE}, which allows {', '.join(DEFAULT_ENV_ALLOW)} when unset)")
            if key in unit.environ:
                return unit.environ[key]
            if default:
                return text(default[0], "default")
            raise FunctionError(f"the environment variable {key} is not set and no default was given")

        def read_terragrunt_config(path: Any, *default: Any) -> Any:
            p = text(path, "path")
            full = Path(os.path.normpath(p if os.path.isabs(p) else config_dir / p))
            if full in unit.configs:  # read once per unit, as Terragrunt parses a file once per run
                return unit.configs[full]
            if not _within(str(full), unit.top):  # refused whether it exists or not: no bit of the machine answers
                confined.check(full, unit.shown(full), unit.top)
            if not full.is_file() and default:
                return default[0]
            other = _FileReader(unit, full, include=None, original=full)
            out: dict[str, Any] = {"locals": {n: other.locals[n] for n in other.local_exprs}}
            tf = other.terraform_block()
            if tf is not None:
                out["terraform"] = {a.name: other.value(a.expr, a.line) for a in tf.body.attributes
                                    if a.name in ("source", "version")}
            for a in other.body.attributes:
                if a.name == "inputs":
                    out["inputs"] = other.value(a.expr, a.line)
            unit.configs[full] = out
            return out

        def fileexists(p: Any) -> bool:
            full = os.path.normpath(os.path.join(str(config_dir), text(p, "path")))
            if not _within(full, unit.top):
                raise FunctionError(f"{text(p, 'path')} is outside the repository: a unit's fileexists answers only "
                                    "inside it")
            return os.path.isfile(full)

        def runtime(name: str) -> Callable[..., Any]:
            def call(*_args: Any) -> Any:
                raise NeedsTerragrunt(f"{name}() ({RUNTIME_FUNCTIONS[name]})")
            return call

        fns.update({
            "find_in_parent_folders": find_in_parent_folders,
            "path_relative_to_include": path_relative_to_include,
            "path_relative_from_include": path_relative_from_include,
            "get_terragrunt_dir": lambda: str(config_dir),
            "get_original_terragrunt_dir": lambda: str(unit.dir),
            "get_parent_terragrunt_dir": get_parent_terragrunt_dir,
            "get_repo_root": lambda: str(unit.repo_root()),
            "get_path_to_repo_root": lambda: os.path.relpath(str(unit.repo_root()), str(config_dir)).replace(
                os.sep, "/"),
            "get_path_from_repo_root": lambda: os.path.relpath(str(config_dir), str(unit.repo_root())).replace(
                os.sep, "/"),
            "get_env": get_env,
            "read_terragrunt_config": read_terragrunt_config,
            "get_platform": lambda: {"linux": "linux", "darwin": "darwin", "win32": "windows"}.get(
                sys.platform, sys.platform),
            "get_terraform_command": lambda: "init",
            "get_terraform_cli_args": list,
            "mark_as_read": lambda p: p,
            # Terraform's filesystem functions that read no file's contents
            "dirname": lambda p: os.path.dirname(text(p, "path")),
            "basename": lambda p: os.path.basename(text(p, "path")),
            "abspath": lambda p: os.path.abspath(text(p, "path")),
            "fileexists": fileexists,
            **{name: runtime(name) for name in RUNTIME_FUNCTIONS},
        })
        return fns


def _within(path: str, top: str) -> bool:
    """Whether ``path`` (its real path) is ``top`` or inside it."""
    real = os.path.realpath(path)
    return real == top or real.startswith(top.rstrip(os.sep) + os.sep)


def _child_include(unit: UnitReader, names: tuple) -> _Include | None:
    """The include a path function called in the unit's own file relates to: the one
    named, else the only one (``getSelectedIncludeBlock``, ``pkg/config/include.go``)."""
    load("tofu_solve.config.hcl.evaluate")
    from ..config.hcl.evaluate import FunctionError

    includes = unit.include_list
    if not includes:
        return None
    if names:
        for inc in includes:
            if inc.name == names[0]:
                return inc
        raise FunctionError(f"no include block is named {names[0]!r}")
    if len(includes) > 1:
        raise FunctionError("the unit has more than one include block: name the one meant")
    return includes[0]


FileReader = _FileReader
"""One file read in a unit's context (a stack file is read with it too: :mod:`.stack`)."""

PIN_RE = re.compile(r"#\s*" + re.escape(PIN_MARK) + r"\b")

RANGE_RE = re.compile(r'#\s*tofu-solve\s+version\s*=\s*"([^"\n]*)"')
"""A git or OCI source's range, written where Terragrunt does not look: a comment on the
``source`` line, ``# tofu-solve version = "~> 1.2"`` (Terragrunt has no syntax for one)."""


def _line_of(located: Located) -> str:
    try:
        return confined.read_text(located.file, located.where.file).splitlines()[located.where.line - 1]
    except (OSError, UnicodeDecodeError, IndexError, ConfigurationError):
        return ""


def marked_as_pin(located: Located) -> bool:
    """Whether the attribute at ``located`` carries tofu-solve's pin comment."""
    return PIN_RE.search(_line_of(located)) is not None


def comment_range(located: Located) -> str | None:
    """The range a ``# tofu-solve version = "..."`` comment on ``located``'s line writes."""
    m = RANGE_RE.search(_line_of(located))
    return m.group(1) if m else None


__all__ = ["PIN_MARK", "Generated", "Located", "NeedsTerragrunt", "UnitConfig", "UnitReader", "marked_as_pin"]
