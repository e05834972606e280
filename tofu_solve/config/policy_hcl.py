"""HashiCorp's policy files (``*.policy.hcl``, Terraform policy v0.3.x), the subset that
applies before plan (issue #62 §1), read and evaluated per candidate.

A file holds an optional ``policy {}`` block, ``input "<name>" {}`` blocks, file-level
``locals {}``, and ``module_policy "<source>|*" "<label>"`` and ``provider_policy "<local
name>|*" "<label>"`` blocks, each with ``enforcement_level``, ``filter``, one ``locals`` and
repeatable ``enforce { condition, error_message, info_message }``. What is refused, with a
message at file and line: ``policy { plugins }`` (binaries tofu-solve does not run), any
other block or argument, a function outside :mod:`.hcl.functions`, a reference to an
undeclared input or local. ``resource_policy`` blocks are passed over with one note per file:
resources exist only after plan, which tofu-solve never reaches; HCP evaluates them there.

Semantics, from the reference (``../shared/docs/policy-lifecycle-reference.md`` §1):

* each file is a unit: its inputs and locals are its own;
* inputs: ``-policy-input NAME=VALUE``, then ``TFPOLICY_INPUT_<name>``, then ``default``,
  as HashiCorp's tfpolicy (v0.4.x) reads them; never another environment variable (v0.3.x
  also read one named exactly ``<name>``: a pull request's policy file would read the job's
  secrets, issue #67 §2). An input with none is an error, and a ``type`` (string, number,
  bool, list(string), map(string)) converts the value given (lists and maps as JSON);
* ``enforcement_level``: ``mandatory`` (the default: the v0.3.x reference's word, chosen over
  an index page's ``advisory`` because a rule that says nothing should not fail open; a
  file's ``policy { enforcement_level }`` sets its own default, as a public example does),
  ``mandatory_overridable`` or ``advisory``;
* a block applies when its first label is ``*`` or names the subject (below) and its
  ``filter`` is true; it fails when any ``enforce`` condition is false, and its failure
  carries every failing ``error_message``;
* module bindings: ``meta.source`` (the call's source as written), ``meta.version`` (the
  candidate's version; null for a local path), ``meta.address`` (``module.a.module.b``),
  ``meta.tfe_stack`` null; ``attrs`` is null for modules;
* provider bindings: ``meta.source`` (``registry.opentofu.org/hashicorp/aws``),
  ``meta.namespace``, ``meta.type``, ``meta.name`` (the provider's local name; tofu-solve
  knows a provider by its address across modules, so this is its type, the name
  ``required_providers`` gives it unless told otherwise), ``meta.version``, ``meta.alias``
  null; ``attrs`` null (provider blocks' arguments are configuration tofu-solve does not
  evaluate).

Module labels match by package: the label and the call's source are both read as module
source addresses and compared as :func:`~.policy.package_address` gives them (a registry
address with its host, the default registry's when the label has none; ``git::URL`` without
``ref``; ``oci://host/repository``); a local path compares as written, cleaned. So
``module_policy "terraform-aws-modules/vpc/aws"`` matches every call of that package, at any
version or subdirectory, and nothing else (substrings never match).
"""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from .. import confined
from .._lazy import load
from ..errors import ConfigurationError, SourceRange
from ..output_edge import one_line
from .hcl.lazy_locals import LazyLocals

LEVELS = ("mandatory", "mandatory_overridable", "advisory")
DEFAULT_LEVEL = "mandatory"
INPUT_PREFIX = "TFPOLICY_INPUT_"
_INPUT_TYPES = ("string", "number", "bool", "list(string)", "map(string)")


@dataclass(frozen=True)
class Expression:
    """An expression of a policy file: its parse tree, its text and its line."""

    tree: Any = field(repr=False, compare=False)
    text: str
    line: int


@dataclass(frozen=True)
class Enforce:
    """One ``enforce`` block: ``condition`` (required), ``error_message`` and
    ``info_message`` (None: not given)."""

    condition: Expression
    error_message: Expression | None
    info_message: Expression | None
    where: SourceRange


@dataclass(frozen=True)
class Verdict:
    """What a policy block said of one subject.

    Attributes:
        passed: every ``enforce`` condition held.
        errors: each failing ``enforce``'s ``error_message`` (its condition's text when it
            has none), in order.
        info: the ``info_message`` of every ``enforce``, passing or not.
        unknown: the values known only after plan (``attrs.region``) that a filter or an
            ``enforce`` read: each such check was passed over (issue #69 §1), never failed.
    """

    passed: bool
    errors: tuple[str, ...] = ()
    info: tuple[str, ...] = ()
    unknown: tuple[str, ...] = ()  # what only a plan knows, read by a check passed over (attrs.region)


@dataclass(frozen=True)
class PolicyRule:
    """A ``module_policy`` or ``provider_policy`` block.

    Attributes:
        kind: ``module`` or ``provider``.
        target: the first label as written (``*``, a module source, a provider local name).
        label: the second label, the rule's name (what ``-policy-override`` names).
        level: ``mandatory``, ``mandatory_overridable`` or ``advisory``.
        where: the block's first line.
        scope: the file the block is in (its inputs, locals and clock).
    """

    kind: str
    target: str
    label: str
    level: str
    filter: Expression | None
    locals: tuple[tuple[str, Expression], ...]
    enforces: tuple[Enforce, ...]
    where: SourceRange
    scope: PolicyScope = field(repr=False, compare=False)

    @property
    def block(self) -> str:
        """``module_policy "*" "floor"``, as messages name the rule."""
        return f'{self.kind}_policy "{self.target}" "{self.label}"'

    def uses_address(self) -> bool:
        """Whether the filter or a condition reads ``meta.address`` (only module rules can)."""
        load("tofu_solve.config.hcl.evaluate")
        from .hcl.evaluate import references

        exprs = [self.filter] if self.filter is not None else []
        exprs += [e.condition for e in self.enforces] + [x for _, x in self.locals]
        return any(ref[:2] == ("meta", "address") for x in exprs for ref, _ in references(x.tree))

    def reads(self) -> tuple[tuple[str, str], ...]:
        """What the rule reads of its subject's configuration and of its inputs, in order,
        each once: ``("attrs", "region")``, ``("input", "allowed_regions")`` (its filter, its
        conditions, its block's locals and its file's; issue #84 §2: a refusal names the
        configuration line and the input it turned on)."""
        load("tofu_solve.config.hcl.evaluate")
        from .hcl.evaluate import references

        exprs = [self.filter] if self.filter is not None else []
        exprs += [e.condition for e in self.enforces] + [x for _, x in self.locals] + [x for _, x in self.scope.locals]
        found = [(ref[0], ref[1]) for x in exprs for ref, _ in references(x.tree)
                 if len(ref) == 2 and ref[0] in ("attrs", "input")]
        return tuple(dict.fromkeys(found))

    @property
    def reads_version(self) -> bool:
        """Whether the rule's verdict can depend on the version (it reads ``meta.version``,
        or ``meta`` whole): when not, no version passes a subject it fails (issue #84 §2:
        ``check`` promised a move ``init`` could not make)."""
        load("tofu_solve.config.hcl.evaluate")
        from .hcl.evaluate import references

        exprs = [self.filter] if self.filter is not None else []
        exprs += [e.condition for e in self.enforces] + [x for _, x in self.locals] + [x for _, x in self.scope.locals]
        return any(ref[0] == "meta" and ref[1:] in ((), ("version",)) for x in exprs for ref, _ in references(x.tree))

    @property
    def reads_inputs(self) -> bool:
        """Whether the rule reads an ``input`` value (then ``-policy-input`` may change its verdict)."""
        return any(root == "input" for root, _ in self.reads())

    def judge(self, meta: Mapping[str, Any], attrs: Mapping[str, Any] | None = None) -> Verdict | None:
        """This rule on a subject with the bindings ``meta`` and ``attrs`` (a provider
        configuration's arguments, absent ones null; None for a module): None when its filter
        is false, else the :class:`Verdict`. A filter or an ``enforce`` that reads a value
        only a plan knows is passed over, named in ``Verdict.unknown``.

        Raises:
            ConfigurationError: the filter, a local, a condition or a message cannot be
                evaluated (a type error, a failing function call); at its file and line.
        """
        load("tofu_solve.config.hcl.evaluate")
        from .hcl.evaluate import EvalContext, OpenObject, UnknownValue

        bound = None if attrs is None else OpenObject(attrs)
        variables: dict[str, Any] = {"meta": dict(meta), "attrs": bound, "input": dict(self.scope.inputs)}
        ctx = EvalContext(variables, self.scope.functions)
        scope = self.scope  # a file's and a block's locals, each evaluated when first read
        variables["local"] = LazyLocals(dict(scope.locals) | dict(self.locals), lambda e: scope.value(e, ctx),
                                        scope.here)
        unknown: list[str] = []
        try:
            if self.filter is not None and not self.scope.condition(self.filter, ctx, "filter"):
                return None
        except UnknownValue as u:
            return Verdict(True, unknown=(u.name,))
        errors, info = [], []
        for e in self.enforces:
            try:
                ok = self.scope.condition(e.condition, ctx, "condition")
            except UnknownValue as u:
                unknown.append(u.name)
                continue
            try:
                if e.info_message is not None:
                    info.append(self.scope.text(e.info_message, ctx))
                if not ok:
                    errors.append(self.scope.text(e.error_message, ctx) if e.error_message is not None
                                  else f"condition {one_line(e.condition.text)} is false")
            except UnknownValue as u:
                unknown.append(u.name)
                if not ok:
                    errors.append(f"condition {one_line(e.condition.text)} is false")
        return Verdict(not errors, tuple(errors), tuple(info), tuple(dict.fromkeys(unknown)))

    def reads_attrs(self) -> bool:
        """Whether the rule's text reads ``attrs`` (so the root's provider blocks are read)."""
        texts = [self.filter.text] if self.filter is not None else []
        texts += [x.text for _, x in self.locals] + [x.text for _, x in self.scope.locals]
        texts += [x.text for e in self.enforces for x in (e.condition, e.error_message, e.info_message)
                  if x is not None]
        return any("attrs" in t for t in texts)


@dataclass(frozen=True)
class PolicyScope:
    """What a ``*.policy.hcl`` file's rules evaluate in: its inputs' values, its file-level
    locals, its lines (for citations) and ``now``, the clock ``timestamp()`` reads. Built
    before the rules, which each hold it (:attr:`PolicyRule.scope`)."""

    file: str
    lines: tuple[str, ...] = field(repr=False)
    inputs: Mapping[str, Any]
    locals: tuple[tuple[str, Expression], ...]
    now: Callable[[], datetime] = field(repr=False, compare=False)
    notes: tuple[str, ...] = ()
    # input name -> where its value came from: "-policy-input NAME", "TFPOLICY_INPUT_NAME", "its default (F:L)"
    input_origins: Mapping[str, str] = field(default_factory=dict, compare=False)

    @functools.cached_property
    def functions(self):
        """The functions its expressions may call, built once (every candidate is judged)."""
        load("tofu_solve.config.hcl.functions")
        from .hcl.functions import policy_functions

        return policy_functions(self.now)

    def here(self, line: int, context: str = "") -> SourceRange:
        snippet = self.lines[line - 1].strip() if 0 < line <= len(self.lines) else ""
        return SourceRange(self.file, line, context, snippet)

    def value(self, expr: Expression, ctx) -> Any:
        """``expr`` evaluated in ``ctx``.

        Raises:
            ConfigurationError: the evaluator's error at ``expr``'s file and line.
        """
        load("tofu_solve.config.hcl.evaluate")
        from .hcl.evaluate import EvalError, UnknownValue, evaluate

        try:
            return evaluate(expr.tree, ctx)
        except UnknownValue:
            raise  # the rule's judge passes the check over
        except EvalError as e:
            raise ConfigurationError(e.summary, e.detail, self.here(e.line or expr.line)) from None
        except RecursionError:  # a hostile file: nesting deeper than the interpreter's stack
            raise ConfigurationError("Expression too deeply nested", "This expression nests deeper than tofu-solve "
                                     "evaluates.", self.here(expr.line)) from None

    def condition(self, expr: Expression, ctx, what: str) -> bool:
        """``expr`` as a bool (a ``filter`` or a ``condition``).

        Raises:
            ConfigurationError: not a bool ("Invalid ``what`` value").
        """
        v = self.value(expr, ctx)
        if not isinstance(v, bool):
            load("tofu_solve.config.hcl.evaluate")
            from .hcl.evaluate import type_name

            raise ConfigurationError(f"Invalid {what} value", f"The {what} must be true or false, not "
                                     f"{type_name(v)}.", self.here(expr.line))
        return v

    def text(self, expr: Expression, ctx) -> str:
        """``expr`` as a message string: on one line, control characters escaped, at most
        :data:`~tofu_solve.output_edge.MAX_QUOTED` characters (a policy file is a pull
        request's text: issue #67 §1)."""
        load("tofu_solve.config.hcl.evaluate")
        from .hcl.evaluate import FunctionError, to_string

        v = self.value(expr, ctx)
        try:
            return one_line(to_string(v))
        except FunctionError:
            return one_line(json.dumps(v))


@dataclass(frozen=True)
class PolicyUnit:
    """One ``*.policy.hcl`` file, read: its :class:`PolicyScope` and its rules, built
    complete (issue #71 §3)."""

    scope: PolicyScope
    rules: tuple[PolicyRule, ...]

    @property
    def file(self) -> str:
        return self.scope.file

    @property
    def notes(self) -> tuple[str, ...]:
        return self.scope.notes

    @property
    def inputs(self) -> Mapping[str, Any]:
        return self.scope.inputs

    @property
    def locals(self) -> tuple[tuple[str, Expression], ...]:
        return self.scope.locals

    def here(self, line: int, context: str = "") -> SourceRange:
        return self.scope.here(line, context)


def read_policy_unit(path: os.PathLike | str, shown: str, given: Mapping[str, tuple[str, str]],
                     now: Callable[[], datetime], text: str | None = None) -> PolicyUnit:
    """Read the ``*.policy.hcl`` file at ``path`` (``shown``: its name in messages);
    ``given``: the input values (name -> (value, where it came from):
    :func:`~.policy.policy_inputs`); ``text``: an editor's unsaved buffer of it, read instead
    of the disk (the language server, issue #85 §2).

    Raises:
        ConfigurationError: unreadable, broken HCL, an unsupported block, argument,
            function or level, an undeclared reference, an input without a value; at its
            file and line.
    """
    load("tofu_solve.config.hcl")
    from . import hcl

    if text is None:
        try:
            text = confined.read_text(Path(path), shown)  # a link out of the repository is refused (issue #67 §3)
        except (OSError, UnicodeDecodeError) as e:
            raise ConfigurationError("Failed to read the policy file", f"{shown} could not be read ({e}).") from None
    return _UnitReader(shown, text, given, now).read(hcl.parse(text, shown))


class _UnitReader:
    """One policy file read: its blocks in order, checked as they are met."""

    def __init__(self, name: str, text: str, given: Mapping[str, tuple[str, str]], now: Callable[[], datetime]):
        self.name, self.text, self.given, self.now = name, text, given, now
        self.lines = tuple(text.splitlines())
        self.inputs: dict[str, Any] = {}
        self.input_origins: dict[str, str] = {}  # where each input's value came from (issue #84 §2)
        self.locals: list[tuple[str, Expression]] = []
        self.default_level = DEFAULT_LEVEL
        self.notes: list[str] = []

    def here(self, line: int, context: str = "") -> SourceRange:
        return SourceRange(self.name, line, context, self.lines[line - 1].strip() if 0 < line <= len(self.lines)
                           else "")

    def refuse(self, summary: str, detail: str, line: int, context: str = "") -> ConfigurationError:
        return ConfigurationError(summary, detail, self.here(line, context))

    def read(self, body) -> PolicyUnit:
        order = {"policy": 0, "input": 1, "locals": 2}
        blocks = sorted(body.blocks, key=lambda b: order.get(b.type, 3))  # inputs before rules that read them
        for a in body.attributes:
            raise self.refuse("Unsupported argument", f'An argument named "{a.name}" is not expected at the top '
                              "level of a policy file.", a.line)
        rule_blocks = []
        skipped = 0
        for b in blocks:
            if b.type == "policy" and not b.labels:
                self.policy_block(b)
            elif b.type == "input" and len(b.labels) == 1:
                self.input_block(b)
            elif b.type == "locals" and not b.labels:
                self.locals += self.local_exprs(b, "locals")
            elif b.type in ("module_policy", "provider_policy") and len(b.labels) == 2:
                rule_blocks.append(b)
            elif b.type == "resource_policy":
                skipped += 1
            else:
                raise self.refuse("Unsupported block type",
                                  f'Blocks of type "{b.type}" with {len(b.labels)} labels are not expected in a '
                                  'policy file (policy, input "NAME", locals, module_policy "SOURCE" "LABEL", '
                                  'provider_policy "NAME" "LABEL", resource_policy).', b.line)
        if skipped:
            self.notes.append(f"{self.name}: {skipped} resource_policy block(s) not evaluated: resources exist only "
                              "after plan, which tofu-solve does not run (HCP evaluates them there)")
        scope = PolicyScope(self.name, self.lines, dict(self.inputs), tuple(self.locals), self.now,
                            tuple(self.notes), dict(self.input_origins))
        rules = tuple(self.rule(b, scope) for b in rule_blocks)
        labels: dict[tuple[str, str], int] = {}
        for r in rules:
            key = (r.kind, r.label)
            if key in labels:
                raise self.refuse("Duplicate policy label", f'A {r.kind}_policy labelled "{r.label}" is already '
                                  f"declared at {self.name}:{labels[key]}; labels name a rule and must be unique.",
                                  r.where.line)
            labels[key] = r.where.line
        unit = PolicyUnit(scope, rules)
        self.check_references(unit)
        return unit

    # ---------------------------------------------------------------- blocks

    def policy_block(self, b) -> None:
        for a in b.body.attributes:
            if a.name != "enforcement_level":
                raise self.refuse("Unsupported argument", f'An argument named "{a.name}" is not expected in a '
                                  '"policy" block.', a.line, "policy")
            self.default_level = self.level(a, "policy")
        for inner in b.body.blocks:
            if inner.type == "plugins":
                raise self.refuse("Policy plugins are not supported",
                                  "tofu-solve does not run policy plugins (compiled binaries): remove the plugins "
                                  "block, or keep the policies that need them in a separate file that only HCP "
                                  "evaluates.", inner.line, "policy")
            if inner.type != "terraform_config":
                raise self.refuse("Unsupported block type", f'Blocks of type "{inner.type}" are not expected in a '
                                  '"policy" block.', inner.line, "policy")

    def level(self, a, context: str) -> str:
        try:
            v = a.expr.literal()
        except Exception:
            v = None
        if v not in LEVELS:
            raise self.refuse("Invalid enforcement level", 'enforcement_level must be "mandatory", '
                              '"mandatory_overridable" or "advisory".', a.line, context)
        return str(v)

    def input_block(self, b) -> None:
        name = b.labels[0]
        ctx = f'input "{name}"'
        args = {a.name: a for a in b.body.attributes}
        for n, a in args.items():
            if n not in ("type", "default", "description", "nullable", "sensitive"):
                raise self.refuse("Unsupported argument", f'An argument named "{n}" is not expected in an input '
                                  "block.", a.line, ctx)
        if "type" not in args:
            raise self.refuse("Missing required argument", f'The argument "type" is required in {ctx}.', b.line, ctx)
        type_text = args["type"].expr.text.replace(" ", "")
        if type_text not in _INPUT_TYPES:
            raise self.refuse("Unsupported input type", f"tofu-solve reads inputs of type {', '.join(_INPUT_TYPES)}; "
                              f"{ctx} is {args['type'].expr.text}.", args["type"].line, ctx)
        if name in self.given:
            raw, origin = self.given[name]
            self.inputs[name] = self.convert(raw, type_text, origin, b.line, ctx)
            self.input_origins[name] = origin
        elif "default" in args:
            try:
                self.inputs[name] = args["default"].expr.literal()
                self.input_origins[name] = f"its default ({self.name}:{args['default'].line})"
            except Exception:
                raise self.refuse("Invalid default value", f"The default of {ctx} must be a constant.",
                                  args["default"].line, ctx) from None
        else:
            raise self.refuse("No value for required input", f"{ctx} has no default: give it with -policy-input "
                              f"{name}=VALUE or {INPUT_PREFIX}{name} in the environment.", b.line, ctx)

    def convert(self, raw: str, type_text: str, origin: str, line: int, ctx: str) -> Any:
        """An input's value from the environment, converted to its ``type``."""
        try:
            if type_text == "string":
                return raw
            if type_text == "number":
                load("tofu_solve.config.hcl.evaluate")
                from .hcl.evaluate import to_number

                return to_number(raw)
            if type_text == "bool":
                if raw not in ("true", "false"):
                    raise ValueError(raw)
                return raw == "true"
            value = json.loads(raw)
            ok = (isinstance(value, list) and all(isinstance(x, str) for x in value)) if type_text == "list(string)" \
                else (isinstance(value, dict) and all(isinstance(x, str) for x in value.values()))
            if not ok:
                raise ValueError(raw)
            return value
        except Exception:
            raise self.refuse("Invalid value for input", f"{origin} is not a {type_text} (lists and maps are written "
                              "as JSON).", line, ctx) from None

    def local_exprs(self, b, context: str) -> list[tuple[str, Expression]]:
        if b.body.blocks:
            raise self.refuse("Unsupported block type", "A locals block holds only arguments.",
                              b.body.blocks[0].line, context)
        return [(a.name, Expression(a.expr.tree, a.expr.text, a.line)) for a in b.body.attributes]

    def rule(self, b, unit: PolicyScope) -> PolicyRule:
        kind = b.type.removesuffix("_policy")
        target, label = b.labels
        ctx = f'{b.type} "{target}" "{label}"'
        level, filt, local_block, enforces = self.default_level, None, [], []
        for a in b.body.attributes:
            if a.name == "enforcement_level":
                level = self.level(a, ctx)
            elif a.name == "filter":
                filt = Expression(a.expr.tree, a.expr.text, a.line)
            else:
                raise self.refuse("Unsupported argument", f'An argument named "{a.name}" is not expected in a '
                                  f"{b.type} block (enforcement_level, filter).", a.line, ctx)
        seen_locals = False
        for inner in b.body.blocks:
            if inner.type == "locals" and not seen_locals:
                local_block, seen_locals = self.local_exprs(inner, ctx), True
            elif inner.type == "enforce":
                enforces.append(self.enforce(inner, ctx))
            else:
                raise self.refuse("Unsupported block type", f'Blocks of type "{inner.type}" are not expected here '
                                  "(one locals, enforce).", inner.line, ctx)
        if not enforces:
            raise self.refuse("Missing enforce block", f"{ctx} has no enforce block: a rule needs at least one.",
                              b.line, ctx)
        return PolicyRule(kind, target, label, level, filt, tuple(local_block), tuple(enforces),
                          self.here(b.line, ctx), unit)

    def enforce(self, b, context: str) -> Enforce:
        args = {a.name: a for a in b.body.attributes}
        for n, a in args.items():
            if n not in ("condition", "error_message", "info_message"):
                raise self.refuse("Unsupported argument", f'An argument named "{n}" is not expected in an enforce '
                                  "block.", a.line, context)
        if "condition" not in args:
            raise self.refuse("Missing required argument", 'The argument "condition" is required in an enforce '
                              "block.", b.line, context)

        def expr(n: str) -> Expression | None:
            a = args.get(n)
            return None if a is None else Expression(a.expr.tree, a.expr.text, a.line)

        cond = expr("condition")
        assert cond is not None
        return Enforce(cond, expr("error_message"), expr("info_message"), self.here(b.line, context))

    # ---------------------------------------------------------------- what the expressions may name

    def check_references(self, unit: PolicyUnit) -> None:
        """Every function called is one a policy may call, every ``input.X`` is declared,
        every ``local.X`` is a file or block local; checked before anything is evaluated."""
        load("tofu_solve.config.hcl.evaluate")
        from .hcl.evaluate import function_names, references
        load("tofu_solve.config.hcl.functions")
        from .hcl.functions import known_function, unsupported_detail

        file_locals = {n for n, _ in unit.locals}
        for scope_locals, exprs in self.scopes(unit):
            for x in exprs:
                for name, line in function_names(x.tree):
                    if not known_function(name):
                        raise self.refuse("Call to unsupported function", unsupported_detail(name), line)
                for ref, line in references(x.tree):
                    if len(ref) < 2:
                        continue
                    if ref[0] == "input" and ref[1] not in unit.inputs:
                        raise self.refuse("Reference to undeclared input", f'There is no input named "{ref[1]}" in '
                                          f"{self.name}.", line)
                    if ref[0] == "local" and ref[1] not in file_locals | scope_locals:
                        raise self.refuse("Reference to undeclared local value", f'A local value named "{ref[1]}" '
                                          "has not been declared.", line)

    @staticmethod
    def scopes(unit: PolicyUnit) -> Iterator[tuple[set[str], list[Expression]]]:
        yield set(), [x for _, x in unit.locals]
        for r in unit.rules:
            exprs = [x for _, x in r.locals] + ([r.filter] if r.filter is not None else [])
            for e in r.enforces:
                exprs += [x for x in (e.condition, e.error_message, e.info_message) if x is not None]
            yield {n for n, _ in r.locals}, exprs


__all__ = ["DEFAULT_LEVEL", "INPUT_PREFIX", "LEVELS", "Enforce", "Expression", "PolicyRule", "PolicyUnit",
           "Verdict", "read_policy_unit"]
