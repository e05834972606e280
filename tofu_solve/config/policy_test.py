"""HashiCorp's policy test files (``*.policytest.hcl``), the setup stage's subset (issue #69
§4), read as ``tfpolicy test`` reads them (Terraform policy v0.4.x, ``reference/test/``:
``policytest.mdx``, ``module.mdx``, ``provider.mdx``, ``inputs.mdx``, ``locals.mdx``).

A file holds an optional ``policytest { targets = [...] }`` block (policy files or
directories, relative to the test file; ``terraform_config`` is accepted and ignored,
``plugins`` refused as in policy files), an optional ``inputs {}`` block (input values for
every mock of the file), an optional ``locals {}`` block (values the mocks may read as
``local.NAME``), and mock blocks:

* ``module "<source>" "<label>" { meta = {source, address, version}, inputs {}, expect_failure }``;
* ``provider "<name>" "<label>" { meta = {source, name, alias, version, ...}, attrs = {...},
  inputs {}, expect_failure }``;
* ``resource`` and ``data`` mocks: passed over with one note per file (resources exist only
  after plan, which tofu-solve never reaches).

Anything else is an error at its file and line. Expressions are evaluated by the policy
evaluator (:mod:`.hcl.evaluate`) with the policy functions, ``local.*`` the file's locals.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from .. import confined
from .._lazy import load
from ..errors import ConfigurationError, SourceRange
from .hcl.lazy_locals import LazyLocals

TEST_SUFFIX = ".policytest.hcl"


MAX_MOCKS = 500
"""Module and provider mocks one ``*.policytest.hcl`` file may hold."""


@dataclass(frozen=True)
class Mock:
    """One mock block of a test file.

    Attributes:
        kind: ``module`` or ``provider``.
        subject: the first label (a module source, a provider name).
        label: the second label, the test case's name.
        meta: the ``meta`` expression (:meth:`bound` evaluates it; absent keys: the
            defaults the judge gives).
        attrs: the ``attrs`` expression (a module's are its input variables, which no
            module rule binds; a provider's its configuration).
        inputs: the mock's own input values.
        expect_failure: whether the mock should fail the policies that apply to it.
        where: the block's first line.
    """

    kind: str
    subject: str
    label: str
    meta: Any = field(repr=False)  # an expression (evaluated per run: it may read input.*), or None
    attrs: Any = field(repr=False)
    inputs: dict
    expect_failure: bool
    where: SourceRange
    reader: Any = field(repr=False, compare=False)

    def bound(self, inputs: dict) -> tuple[dict, dict]:
        """``meta`` and ``attrs`` evaluated with the test file's locals and the inputs in
        force for this mock (``input.NAME``, as HashiCorp's examples mock a version).

        Raises:
            ConfigurationError: an expression that does not evaluate, or is not an object.
        """
        out = []
        for expr, what in ((self.meta, "meta"), (self.attrs, "attrs")):
            v = {} if expr is None else self.reader.value(expr, expr.line, self.heading, inputs)
            if not isinstance(v, dict):
                raise ConfigurationError("Invalid mock", f"{what} must be an object.", self.where)
            out.append(v)
        return out[0], out[1]

    @property
    def heading(self) -> str:
        """``module "terraform-aws-modules/vpc/aws" "too_old"``, as reports name it."""
        return f'{self.kind} "{self.subject}" "{self.label}"'


@dataclass(frozen=True)
class PolicyTestFile:
    """A ``*.policytest.hcl`` file, read.

    Attributes:
        file: its name in messages; path: where it is.
        targets: the ``policytest`` block's targets resolved against the file's directory
            (empty: the ``-policies`` path), each with the line that names it.
        inputs: the file's ``inputs`` block.
        mocks: the module and provider mocks, in file order.
        notes: what was passed over (resource and data mocks), one line each.
    """

    file: str
    path: Path
    targets: tuple[tuple[Path, SourceRange], ...] = ()
    inputs: dict = field(default_factory=dict)
    mocks: tuple[Mock, ...] = ()
    notes: tuple[str, ...] = ()


def as_input_value(v: Any) -> str:
    """A test's input value as the text a policy input reads (``-input`` gives text):
    strings as they are, bools and numbers as HCL writes them, lists and maps as JSON."""
    if isinstance(v, str):
        return v
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (list, dict)):
        return json.dumps(v)
    return "null" if v is None else str(v)


def read_policy_test(path: Path, shown: str, top: str | None, now: Callable[[], datetime],
                     text: str | None = None, targets_within: str | None = None) -> PolicyTestFile:
    """Read the test file at ``path`` (``shown``: its name in messages; ``top``: the
    directory its real path must stay inside, as policy files do; ``text``: an editor's
    unsaved buffer of it, checked against ``top`` as the file would be; ``targets_within``:
    the real path of the directory its ``targets`` may not leave, default the repository
    that holds it, else its own directory).

    Raises:
        ConfigurationError: unreadable, not HCL, or a block or argument outside the subset;
            an expression that does not evaluate; at file and line.
    """
    load("tofu_solve.config.hcl")
    from . import hcl

    if text is None:
        text = confined.read_text(path, shown, top)
    else:
        confined.check(path, shown, top)
    body = hcl.parse(text, shown)
    return _TestReader(path, shown, now, targets_within).read(body)


class _TestReader:
    def __init__(self, path: Path, shown: str, now: Callable[[], datetime], targets_within: str | None = None):
        self.path, self.shown, self.now = path, shown, now
        self.targets_within = targets_within
        self.local_exprs: dict[str, _Expr] = {}

    def here(self, line: int, context: str = "") -> SourceRange:
        return SourceRange(self.shown, line, context)

    def value(self, expr, line: int, context: str, inputs: dict | None = None) -> Any:
        load("tofu_solve.config.hcl.evaluate")
        from .hcl.evaluate import EvalContext, EvalError, evaluate
        load("tofu_solve.config.hcl.functions")
        from .hcl.functions import policy_functions

        scope: dict[str, Any] = {"input": dict(inputs or {})}
        ctx = EvalContext(scope, policy_functions(self.now))
        scope["local"] = LazyLocals(self.local_exprs, lambda e: self._local_value(e, ctx),
                                    lambda ln: self.here(ln, "locals"))
        try:
            return evaluate(expr.tree, ctx)
        except EvalError as e:
            raise ConfigurationError(e.summary, e.detail, self.here(e.line or line, context)) from None
        except RecursionError:
            raise ConfigurationError("Expression too deeply nested", "This expression nests deeper than tofu-solve "
                                     "evaluates.", self.here(line, context)) from None

    def _local_value(self, expr: _Expr, ctx) -> Any:
        """One local of the test file, evaluated in ``ctx`` (errors at its line, in ``locals``)."""
        load("tofu_solve.config.hcl.evaluate")
        from .hcl.evaluate import EvalError, evaluate

        try:
            return evaluate(expr.tree, ctx)
        except EvalError as e:
            raise ConfigurationError(e.summary, e.detail, self.here(e.line or expr.line, "locals")) from None

    def attributes(self, body, context: str, allowed: tuple[str, ...]) -> dict[str, Any]:
        out = {}
        for a in body.attributes:
            if allowed and a.name not in allowed:
                raise ConfigurationError("Unsupported argument", f'An argument named "{a.name}" is not expected '
                                         f"here ({context} takes {', '.join(allowed)}).", self.here(a.line, context))
            out[a.name] = self.value(a.expr, a.line, context)
        return out

    def read(self, body) -> PolicyTestFile:
        for a in body.attributes:
            raise ConfigurationError("Unsupported argument", f'An argument named "{a.name}" is not expected at the '
                                     "top of a policy test file.", self.here(a.line))
        for b in body.blocks_of("locals"):  # evaluated when a mock reads them: a local that reads a
            for a in b.body.attributes:     # data mock (passed over) is an error only if a judged mock needs it
                self.local_exprs[a.name] = _Expr(a.expr.tree, a.line)
        targets: list[tuple[Path, SourceRange]] = []
        inputs: dict[str, Any] = {}
        mocks: list[Mock] = []
        passed_over: list[str] = []
        for b in body.blocks:
            if b.type == "locals":
                continue
            if b.type == "policytest" and not b.labels:
                targets += self.policytest(b)
            elif b.type == "inputs" and not b.labels:
                inputs.update(self.attributes(b.body, "inputs", ()))
            elif b.type in ("module", "provider") and len(b.labels) == 2:
                if len(mocks) >= MAX_MOCKS:  # each is a policy evaluation: bounded (issue #80 §5)
                    raise ConfigurationError("Too many mocks", f"A policy test file holds at most {MAX_MOCKS} module "
                                             "and provider mocks; split the file.", self.here(b.line))
                mocks.append(self.mock(b))
            elif b.type in ("resource", "data") and len(b.labels) == 2:
                passed_over.append(f'{b.type} "{b.labels[0]}" "{b.labels[1]}" (line {b.line})')
            else:
                raise ConfigurationError(
                    "Unsupported block type", f'Blocks of type "{b.type}" with {len(b.labels)} labels are not '
                    "expected in a policy test file (policytest, inputs, locals, module \"SOURCE\" \"LABEL\", "
                    'provider "NAME" "LABEL", resource and data).', self.here(b.line))
        notes = (f"{self.shown}: {', '.join(passed_over)} passed over: resources and data sources exist only after "
                 "plan, which tofu-solve never reaches.",) if passed_over else ()
        return PolicyTestFile(self.shown, self.path, tuple(targets), inputs, tuple(mocks), notes)

    def policytest(self, b) -> list[tuple[Path, SourceRange]]:
        out: list[tuple[Path, SourceRange]] = []
        for nested in b.body.blocks:
            if nested.type == "plugins":
                raise ConfigurationError("Policy plugins are not supported", "tofu-solve runs no policy binaries; "
                                         "test a policy that needs plugins with tfpolicy.",
                                         self.here(nested.line, "policytest"))
            if nested.type != "terraform_config":
                raise ConfigurationError("Unsupported block type", f'Blocks of type "{nested.type}" are not expected '
                                         "in policytest.", self.here(nested.line, "policytest"))
        for a in b.body.attributes:
            if a.name != "targets":
                raise ConfigurationError("Unsupported argument", f'An argument named "{a.name}" is not expected in '
                                         "policytest.", self.here(a.line, "policytest"))
            listed = self.value(a.expr, a.line, "policytest")
            if not isinstance(listed, list) or not all(isinstance(t, str) and t for t in listed):
                raise ConfigurationError("Invalid targets", "targets must be a list of policy file or directory "
                                         "paths.", self.here(a.line, "policytest"))
            top = self.targets_within or confined.boundary(str(self.path.parent))
            for t in listed:
                target = Path(os.path.normpath(self.path.parent / t))
                real = os.path.realpath(target)
                if real != top and not real.startswith(top + os.sep):  # a pull request's file: its repository only
                    where = "the repository that holds this test file" if os.path.lexists(os.path.join(top, ".git")) \
                        else f"{top}, the folder that holds the policies (no repository holds it)"
                    raise ConfigurationError("Target outside the repository", f'The target "{t}" is outside '
                                             f"{where}.", self.here(a.line, "policytest"))
                out.append((target, self.here(a.line, "policytest")))
        return out

    def mock(self, b) -> Mock:
        kind, (subject, label) = b.type, b.labels
        context = f'{kind} "{subject}" "{label}"'
        exprs: dict[str, Any] = {}
        expect: Any = False
        for a in b.body.attributes:
            if a.name == "expect_failure":
                expect = self.value(a.expr, a.line, context)
            elif a.name in ("meta", "attrs"):
                exprs[a.name] = _Expr(a.expr.tree, a.line)
            else:
                raise ConfigurationError("Unsupported argument", f'An argument named "{a.name}" is not expected in '
                                         "a mock (meta, attrs, expect_failure, inputs {}).", self.here(a.line, context))
        inputs: dict[str, Any] = {}
        for nested in b.body.blocks:
            if nested.type != "inputs":
                raise ConfigurationError("Unsupported block type", f'Blocks of type "{nested.type}" are not expected '
                                         f"in a {kind} mock.", self.here(nested.line, context))
            inputs.update(self.attributes(nested.body, context, ()))
        if not isinstance(expect, bool):
            raise ConfigurationError("Invalid mock", "expect_failure must be true or false.",
                                     self.here(b.line, context))
        return Mock(kind, subject, label, exprs.get("meta"), exprs.get("attrs"), inputs, expect,
                    self.here(b.line, context), self)


@dataclass(frozen=True)
class _Expr:
    tree: Any
    line: int


__all__ = ["TEST_SUFFIX", "Mock", "PolicyTestFile", "as_input_value", "read_policy_test"]
