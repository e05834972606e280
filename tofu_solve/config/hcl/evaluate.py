"""HCL expressions evaluated over python-hcl2's parse tree, with hclsyntax's semantics for
known values (issue #62: the conditions of HashiCorp's policy files).

Values are Python's: ``str``, ``int`` or ``float`` (an HCL number; a whole result is an
``int``), ``bool``, ``None`` (null), ``list`` (a tuple or list) and ``dict`` (an object or
map). Nothing here is unknown: policy conditions are evaluated on a candidate's known
``meta``.

What is evaluated: literals, quoted and heredoc templates with ``${ }`` interpolation and
``%{ if }``/``%{ for }`` directives, references (a root name, ``.attr``, ``[index]``,
``.0``, ``.*`` and ``[*]`` splats), the operators (``!``, unary ``-``, ``* / %``, ``+ -``,
``< > <= >=``, ``== !=``, ``&&``, ``||``, short-circuiting as hclsyntax 2.22 does), the
conditional, tuple and object constructors, ``for`` expressions, and calls of the functions
the caller gives (``try`` and ``can`` are the evaluator's own: they catch an evaluation
error). The rules are hclsyntax's (``expression.go``, ``expression_ops.go``,
``expression_template.go``): ``==`` is false across types, arithmetic and comparison convert
strings to numbers, templates convert numbers and bools to strings and refuse null.

Errors are :class:`EvalError`, each with the 1-based line of the expression that failed,
which the caller turns into an OpenTofu-style diagnostic at its file.

Evaluation is bounded (issue #67 §4: a policy file is a pull request's text): one
:class:`Budget` per evaluation of a rule, shared by everything it evaluates (``for``
bodies, locals), allows :data:`MAX_STEPS` expression nodes; no value may be a string longer
than :data:`MAX_STRING` characters or a collection of more than :data:`MAX_ELEMENTS`
elements; a number literal of more than :data:`MAX_DIGITS` digits is refused. Past any of
them, and for any failure of a function or an operator, the error is an :class:`EvalError` at
the expression's line, never an exception of Python's.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from lark import Token, Tree

from ..._lazy import load
from ...errors import TofuSolveError
from ..module_dir import UNKNOWN
from .walker import _ident, _unescape

Function = Callable[..., Any]

MAX_STEPS = 200_000
"""Expression nodes one evaluation of a rule may visit."""
MAX_STRING = 1 << 20
"""The longest string a value may be (characters)."""
MAX_ELEMENTS = 100_000
"""The most elements a list or object may hold."""
MAX_DIGITS = 400
"""The longest number literal (digits; cty's numbers are 512-bit floats, about 155 digits)."""


class Budget:
    """What is left of one evaluation's :data:`MAX_STEPS` (see the module docstring)."""

    def __init__(self, steps: int = MAX_STEPS):
        self.limit = self.left = steps


class EvalError(Exception):
    """An expression that cannot be evaluated: ``summary`` and ``detail`` as hclsyntax words
    them, ``line`` where (1-based; 0 when unknown)."""

    def __init__(self, summary: str, detail: str, line: int = 0):
        super().__init__(f"{summary}: {detail}")
        self.summary, self.detail, self.line = summary, detail, line


class UnknownValue(EvalError):
    """An expression reached a value only a plan knows (:data:`~..module_dir.UNKNOWN`, a
    provider argument): ``name`` is what it read (``attrs.region``). ``try`` and ``can`` do
    not catch it (Terraform's give an unknown result for an unknown argument)."""

    def __init__(self, name: str, line: int = 0):
        super().__init__("Value known only after plan", f"{name} is known only after plan.", line)
        self.name = name


class OpenObject(dict):
    """An object whose absent attributes are null: a provider configuration, whose schema
    gives every argument it does not set as null (``attrs.region`` of a block without one)."""


@dataclass(frozen=True)
class EvalContext:
    """What an expression may refer to and call.

    Attributes:
        variables: each root name (``meta``, ``input``, ``local``...) and its value.
        functions: each callable name as written (``startswith``, ``core::semverconstraint``)
            and its implementation, which raises :class:`FunctionError` on bad arguments.
    """

    variables: Mapping[str, Any]
    functions: Mapping[str, Function]
    budget: Budget = field(default_factory=Budget, compare=False)

    def child(self, **more: Any) -> EvalContext:
        """This context with ``more`` root names bound (a ``for`` expression's iterators),
        on the same budget."""
        return EvalContext({**self.variables, **more}, self.functions, self.budget)


class FunctionError(Exception):
    """A function refused its arguments (the message says why, as the function's doc does)."""


def evaluate(tree: Any, ctx: EvalContext) -> Any:
    """The value of the expression ``tree`` (a node of python-hcl2's parse tree).

    Raises:
        EvalError: an unknown name or function, a type mismatch, a failing function call,
            an index out of range; with the line of the sub-expression at fault.
    """
    return _Evaluator(ctx).value(tree)


def function_names(tree: Any) -> list[tuple[str, int]]:
    """Every function called in ``tree`` (its name as written, ``core::x`` with its
    namespace) with its line, in order: what a reader checks before evaluating anything."""
    out = []
    for t in (tree.iter_subtrees_topdown() if isinstance(tree, Tree) else ()):
        if t.data == "function_call":
            out.append((_call_name(t), _line(t)))
    return out


def references(tree: Any) -> list[tuple[tuple[str, ...], int]]:
    """Every reference in ``tree`` as its leading names (``("input", "org")``: the root and
    the attribute after it, when there is one) with its line; a ``for`` expression's own
    iterator names are included (the caller knows its roots)."""
    out: list[tuple[tuple[str, ...], int]] = []
    for t in (tree.iter_subtrees_topdown() if isinstance(tree, Tree) else ()):
        if t.data == "get_attr_expr_term":
            kids = _kids(t)
            head = _unwrap(kids[0])
            if isinstance(head, Tree) and head.data == "identifier":
                attr = [c for c in kids[1].children if isinstance(c, Tree) and c.data == "identifier"]
                out.append(((_ident(head), _ident(attr[0])) if attr else (_ident(head),), _line(t)))
        elif t.data == "expr_term":
            kids = _kids(t)
            if len(kids) == 1 and isinstance(kids[0], Tree) and kids[0].data == "identifier":
                out.append(((_ident(kids[0]),), _line(t)))
    return out


# --------------------------------------------------------------------------- helpers


def _kids(t: Tree) -> list:
    return [c for c in t.children if isinstance(c, Tree) and c.data != "new_line_or_comment"]


def _line(t: Any) -> int:
    if isinstance(t, Token):
        return t.line or 0
    meta = getattr(t, "meta", None)
    return 0 if meta is None or meta.empty else meta.line


def _unwrap(t: Any) -> Any:
    while isinstance(t, Tree) and t.data in ("expr_term", "expression"):
        kids = _kids(t)
        if len(kids) != 1 or any(isinstance(c, Token) and c.type == "LPAR" for c in t.children):
            return t
        t = kids[0]
    return t


def _call_name(t: Tree) -> str:
    return "::".join(_ident(c) for c in t.children if isinstance(c, Tree) and c.data == "identifier")


def type_name(v: Any) -> str:
    """A value's type as HCL names it in messages (``string``, ``number``, ``bool``,
    ``tuple``, ``object``, ``null``)."""
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, (int, float)):
        return "number"
    if isinstance(v, str):
        return "string"
    if isinstance(v, list):
        return "tuple"
    return "object"


def to_string(v: Any) -> str:
    """``v`` as a string, as cty's conversion gives it: a number in its shortest form, a
    bool as ``true``/``false``.

    Raises:
        FunctionError: null, a collection.
    """
    if isinstance(v, str):
        return v
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return _number_text(v)
    raise FunctionError(f"a string is required, not {type_name(v)}")


def _number_text(v: int | float) -> str:
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


def to_number(v: Any) -> int | float:
    """``v`` as a number (a string that spells one converts, as cty does).

    Raises:
        FunctionError: null, a bool, a collection, a string that is not a number.
    """
    if isinstance(v, bool) or v is None or isinstance(v, (list, dict)):
        raise FunctionError(f"a number is required, not {type_name(v)}")
    if isinstance(v, str):
        try:
            f = float(v)
        except ValueError:
            raise FunctionError(f'a number is required; "{v}" is not one') from None
        return int(f) if f.is_integer() and re.fullmatch(r"-?\d+", v.strip()) else f
    return v


def to_bool(v: Any) -> bool:
    """``v`` as a bool (``"true"`` and ``"false"`` convert, as cty does).

    Raises:
        FunctionError: anything else.
    """
    if isinstance(v, bool):
        return v
    if v in ("true", "false"):
        return v == "true"
    raise FunctionError(f"a bool is required, not {type_name(v)}")


def equal(a: Any, b: Any) -> bool:
    """hclsyntax's ``==``: values of different types are unequal (``1 == "1"`` is false);
    numbers compare by value; collections element by element."""
    ta, tb = type_name(a), type_name(b)
    if ta != tb:
        return False
    if ta == "tuple":
        return len(a) == len(b) and all(equal(x, y) for x, y in zip(a, b, strict=True))
    if ta == "object":
        return a.keys() == b.keys() and all(equal(a[k], b[k]) for k in a)
    return bool(a == b)


def _matching_end(items: list, i: int) -> int | None:
    """The index of the ``%{ endfor }`` closing the ``%{ for }`` whose body starts at ``i``
    (nested ones skipped), or None."""
    depth = 0
    for j in range(i, len(items)):
        c = items[j]
        if isinstance(c, Tree) and c.data == "template_for_start":
            depth += 1
        elif isinstance(c, Tree) and c.data == "template_endfor":
            if depth == 0:
                return j
            depth -= 1
    return None


def _remainder(x: int | float, y: int | float) -> int | float:
    """hclsyntax's ``%`` (cty ``Modulo``, Go's): the remainder has the sign of the dividend
    (``-5 % 3`` is -2, where Python's ``%`` gives 1)."""
    if isinstance(x, int) and isinstance(y, int):
        r = abs(x) % abs(y)
        return -r if x < 0 else r
    import math

    return math.fmod(x, y)


def _whole(v: float) -> int | float:
    return int(v) if isinstance(v, float) and v.is_integer() and abs(v) < 2 ** 53 else v


# --------------------------------------------------------------------------- the evaluator


class _Evaluator:
    """One evaluation: the context, and the dispatch over the parse tree's node kinds."""

    def __init__(self, ctx: EvalContext):
        self.ctx = ctx

    def fail(self, t: Any, summary: str, detail: str) -> EvalError:
        return EvalError(summary, detail, _line(t))

    def value(self, t: Any) -> Any:
        budget = self.ctx.budget
        budget.left -= 1
        if budget.left < 0:
            raise self.fail(t, "Expression too costly", f"Evaluating this expression took more than {budget.limit} "
                            "steps, the most tofu-solve allows one policy rule or one Terragrunt unit's files "
                            "(a for expression over a large collection, nested?).")
        try:
            v = self._value(t)
        except (ArithmeticError, ValueError, MemoryError, RecursionError) as e:
            raise self.fail(t, "Operation failed", f"The expression cannot be evaluated ({type(e).__name__}).") \
                from None
        if isinstance(v, str) and len(v) > MAX_STRING:
            raise self.fail(t, "Value too large", f"This expression gives a string of {len(v)} characters; tofu-solve "
                            f"allows at most {MAX_STRING}.")
        if isinstance(v, (list, dict)) and len(v) > MAX_ELEMENTS:
            raise self.fail(t, "Value too large", f"This expression gives a collection of {len(v)} elements; "
                            f"tofu-solve allows at most {MAX_ELEMENTS}.")
        return v

    def _value(self, t: Any) -> Any:
        if isinstance(t, Token):
            raise self.fail(t, "Invalid expression", f"Unexpected {t!s}.")
        d = t.data
        if d in ("expr_term", "expression"):
            kids = _kids(t)
            if len(kids) != 1:
                raise self.fail(t, "Invalid expression", "An expression was expected.")
            return self.value(kids[0])
        if d == "literal_value":
            return {"null": None, "true": True, "false": False}[str(t.children[0])]
        if d in ("int_lit", "float_lit"):
            text = str(t.children[0])
            if sum(c.isdigit() for c in text) > MAX_DIGITS:
                raise self.fail(t, "Invalid number", f"A number literal of more than {MAX_DIGITS} digits is refused.")
            return int(text) if d == "int_lit" else _whole(float(text))
        if d == "string":
            return self.template([p for p in t.children if isinstance(p, Tree) and p.data == "string_part"], t)
        if d in ("heredoc_template", "heredoc_template_trim"):
            return self.heredoc(t)
        if d == "identifier":
            return self.variable(_ident(t), t)
        if d == "tuple":
            return [self.value(k) for k in _kids(t)]
        if d == "object":
            return self.object(t)
        if d == "get_attr_expr_term":
            base, step = _kids(t)
            return self.get_attr(self.value(base), step, t)
        if d == "index_expr_term":
            base, step = _kids(t)
            return self.index(self.value(base), step, t)
        if d in ("attr_splat_expr_term", "full_splat_expr_term"):
            return self.splat(t)
        if d == "function_call":
            return self.call(t)
        if d == "conditional":
            cond, yes, no = _kids(t)
            return self.value(yes) if self.boolean(cond, "condition") else self.value(no)
        if d == "binary_op":
            return self.binary(t)
        if d == "unary_op":
            op = str(t.children[0])
            v = self.value(_kids(t)[0])
            try:
                return (not to_bool(v)) if op == "!" else _whole(-to_number(v))
            except FunctionError as e:
                raise self.fail(t, "Invalid operand", f"Unsuitable value for unary operand: {e}.") from None
        if d in ("for_tuple_expr", "for_object_expr"):
            return self.for_expr(t)
        raise self.fail(t, "Unsupported expression", f"{d.replace('_', ' ')} is not supported here.")

    # ---------------------------------------------------------------- references

    def variable(self, name: str, t: Any) -> Any:
        if name not in self.ctx.variables:
            raise self.fail(t, "Unknown variable", f'There is no variable named "{name}".')
        return self.ctx.variables[name]

    def get_attr(self, base: Any, step: Tree, t: Any) -> Any:
        name_t = next(c for c in step.children if isinstance(c, Tree))
        name = _ident(name_t) if name_t.data == "identifier" else str(name_t.children[0])
        if base is None:
            raise self.fail(t, "Attempt to get attribute from null value",
                            "This value is null, so it does not have any attributes.")
        if not isinstance(base, dict):
            raise self.fail(t, "Unsupported attribute", f"Can't access attributes on a {type_name(base)} value.")
        if name not in base:
            if isinstance(base, OpenObject):
                return None
            raise self.fail(t, "Unsupported attribute", f'This object does not have an attribute named "{name}".')
        found = base[name]
        if found is UNKNOWN:
            raise UnknownValue(f"attrs.{name}" if isinstance(base, OpenObject) else name, _line(t))
        return found

    def index(self, base: Any, step: Tree, t: Any) -> Any:
        if step.data == "short_index":
            key: Any = int(str(next(c for c in step.children if isinstance(c, Token) and c.type == "INT_LITERAL")))
        else:
            key = self.value(_kids(step)[0])
        if base is None:
            raise self.fail(t, "Attempt to index null value", "This value is null, so it does not have any indices.")
        if isinstance(base, list):
            try:
                n = to_number(key)
            except FunctionError:
                raise self.fail(t, "Invalid index", "A tuple or list is indexed by a number.") from None
            if not float(n).is_integer() or not 0 <= n < len(base):
                raise self.fail(t, "Invalid index", "The given key does not identify an element in this collection "
                                "value.")
            return base[int(n)]
        if isinstance(base, dict):
            try:
                k = to_string(key)
            except FunctionError:
                raise self.fail(t, "Invalid index", "An object or map is indexed by a string.") from None
            if k not in base:
                raise self.fail(t, "Invalid index", "The given key does not identify an element in this collection "
                                "value.")
            return base[k]
        raise self.fail(t, "Invalid index", f"This value does not have any indices ({type_name(base)}).")

    def splat(self, t: Tree, then: Callable[[Any], Any] | None = None) -> Any:
        """A splat (hclsyntax ``SplatExpr``): its steps applied to each element of the base (a
        non-list is a one-element tuple, null an empty one), ``then`` after them. A full splat
        (``[*]``) takes every step after it, and one full splat after another nests; an
        attribute-only splat (``.*``) takes attribute steps and legacy ``.0`` indexes only, and
        a ``[i]`` after them indexes the whole result."""
        base_t, sp = _kids(t)
        inner = _unwrap(base_t)
        if t.data == "full_splat_expr_term" and isinstance(inner, Tree) and inner.data == "full_splat_expr_term":
            return self.splat(inner, lambda v: self._over_items(v, sp, t, then))
        return self._over_items(self.value(base_t), sp, t, then)

    def _over_items(self, base: Any, sp: Tree, t: Tree, then: Callable[[Any], Any] | None) -> Any:
        if base is None:
            return []
        steps = _kids(sp)
        cut = len(steps)
        if t.data == "attr_splat_expr_term":
            cut = next((i for i, step in enumerate(steps) if step.data == "braces_index"), cut)
        out: Any = []
        for item in base if isinstance(base, list) else [base]:
            v = item
            for step in steps[:cut]:
                v = self.get_attr(v, step, t) if step.data == "get_attr" else self.index(v, step, t)
            out.append(then(v) if then is not None else v)
        for step in steps[cut:]:
            out = self.get_attr(out, step, t) if step.data == "get_attr" else self.index(out, step, t)
        return out

    def object(self, t: Tree) -> dict:
        out: dict = {}
        for elem in _kids(t):
            key_t, val_t = next(c for c in elem.children if isinstance(c, Tree)), _kids(elem)[-1]
            inner = _unwrap(_kids(key_t)[0]) if _kids(key_t) else None
            if inner is None:  # a keyword used as a key
                key = str(next(iter(key_t.scan_values(lambda v: isinstance(v, Token)))))
            elif isinstance(inner, Tree) and inner.data == "identifier":
                key = _ident(inner)
            elif isinstance(inner, Tree) and inner.data == "literal_value":  # {null = 1}: the name "null"
                key = str(inner.children[0])
            else:
                try:
                    key = to_string(self.value(inner))
                except FunctionError as e:
                    raise self.fail(key_t, "Incorrect key type", f"Can't use this value as a key: {e}.") from None
            out[key] = self.value(val_t)
        return out

    # ---------------------------------------------------------------- operators

    def boolean(self, t: Any, what: str) -> bool:
        v = self.value(t)
        if v is None:
            raise self.fail(t, "Null condition", f"The {what} value is null. Conditions must either be true or false.")
        try:
            return to_bool(v)
        except FunctionError:
            raise self.fail(t, "Incorrect condition type",
                            f"The {what} expression must be of type bool, not {type_name(v)}.") from None

    def binary(self, t: Tree) -> Any:
        left_t, term = _kids(t)
        op_t, right_t = _kids(term)
        op = str(op_t.children[0])
        if op in ("&&", "||"):
            left = self.boolean(left_t, "operand")
            if (op == "&&" and not left) or (op == "||" and left):
                return left  # hclsyntax 2.22: the right side is not evaluated
            return self.boolean(right_t, "operand")
        a, b = self.value(left_t), self.value(right_t)
        if op == "==":
            return equal(a, b)
        if op == "!=":
            return not equal(a, b)
        try:
            x, y = to_number(a), to_number(b)
        except FunctionError as e:
            raise self.fail(t, "Invalid operand", f"Unsuitable value for the {op} operator: {e}.") from None
        if op in ("<", ">", "<=", ">="):
            return {"<": x < y, ">": x > y, "<=": x <= y, ">=": x >= y}[op]
        if op in ("/", "%") and y == 0:
            raise self.fail(t, "Operation failed", "Can't divide by zero.")
        r = {"+": lambda: x + y, "-": lambda: x - y, "*": lambda: x * y, "/": lambda: x / y,
             "%": lambda: _remainder(x, y)}[op]()
        if isinstance(r, float) and (r != r or r in (float("inf"), float("-inf"))):
            raise self.fail(t, "Operation failed", f"The result of the {op} operator is not a finite number.")
        return _whole(r)

    # ---------------------------------------------------------------- templates

    def template(self, parts: list, t: Any) -> str:
        """A quoted template's parts (python-hcl2 gives directives flat: ``%{ if }``,
        ``%{ else }``, ``%{ endif }``, ``%{ for }``, ``%{ endfor }`` in sequence), joined."""
        items: list = []
        for part in parts:
            items.extend(part.children)
        if len(items) == 1 and isinstance(items[0], Tree) and items[0].data == "interpolation":
            # hclsyntax's TemplateWrapExpr: a template that is one interpolation and nothing
            # else is that value, unconverted ("${5}" == 5, "${null}" is null)
            return self.value(_kids(items[0])[0])
        text, _rest = self._template_items(_stripped(items), 0, t, ())
        return text

    def _template_items(self, items: list, i: int, t: Any, stop: tuple[str, ...]) -> tuple[str, int]:
        out: list[str] = []
        while i < len(items):
            c = items[i]
            if isinstance(c, str):  # literal text, unescaped and stripped (_stripped)
                out.append(c)
                i += 1
                continue
            if c.data in stop:
                return "".join(out), i
            if c.data == "interpolation":
                v = self.value(_kids(c)[0])
                out.append(self._interpolated(v, c))
                i += 1
            elif c.data == "template_if_start":
                cond = self.boolean(_kids(c)[0], "template condition")
                yes, i = self._template_items(items, i + 1, t, ("template_else", "template_endif"))
                no = ""
                if i < len(items) and isinstance(items[i], Tree) and items[i].data == "template_else":
                    no, i = self._template_items(items, i + 1, t, ("template_endif",))
                i = self._expect_end(items, i, "template_endif", c)
                out.append(yes if cond else no)
            elif c.data == "template_for_start":
                names = [_ident(k) for k in _kids(c) if k.data == "identifier"]
                coll = self.value(_kids(c)[-1])
                start = i + 1
                end = _matching_end(items, start)
                if end is None:
                    raise self.fail(c, "Unterminated template directive", "The template has no matching endfor.")
                for key, v in self._pairs(coll, c):
                    bound = dict(zip(names, (key, v) if len(names) == 2 else (v,), strict=True))
                    text, _ = _Evaluator(self.ctx.child(**bound))._template_items(items, start, t,
                                                                                 ("template_endfor",))
                    out.append(text)
                i = self._expect_end(items, end, "template_endfor", c)
            else:
                raise self.fail(c, "Invalid template", f"Unexpected {c.data.replace('_', ' ')}.")
        if stop:
            raise self.fail(t, "Unterminated template directive", f"The template has no matching {stop[-1][9:]}.")
        return "".join(out), i

    def _expect_end(self, items: list, i: int, kind: str, start: Any) -> int:
        if i >= len(items) or not (isinstance(items[i], Tree) and items[i].data == kind):
            raise self.fail(start, "Unterminated template directive", f"The template has no matching {kind[9:]}.")
        return i + 1

    def _interpolated(self, v: Any, t: Any) -> str:
        if v is None:
            raise self.fail(t, "Invalid template interpolation value",
                            "The expression result is null. Cannot include a null value in a string template.")
        try:
            return to_string(v)
        except FunctionError:
            raise self.fail(t, "Invalid template interpolation value",
                            f"Cannot include the given value in a string template: string required, not "
                            f"{type_name(v)}.") from None

    def heredoc(self, t: Tree) -> str:
        raw = str(t.children[0])
        m = re.match(r"<<(-?)([A-Za-z][\w.-]*)\r?\n", raw)
        if m is None:  # pragma: no cover - the grammar's terminal guarantees the marker
            raise self.fail(t, "Invalid heredoc", "The heredoc has no marker.")
        body = raw[m.end():]
        body = body[:body.rstrip().rfind("\n") + 1] if "\n" in body.rstrip() else ""
        if m.group(1):  # <<-: the common leading whitespace removed (hclsyntax)
            lines = body.split("\n")
            indents = [len(x) - len(x.lstrip(" \t")) for x in lines if x.strip()]
            cut = min(indents) if indents else 0
            body = "\n".join(x[cut:] for x in lines)
        if "${" in body.replace("$${", "") or "%{" in body.replace("%%{", ""):
            load("tofu_solve.config.hcl")

            try:
                return to_string(template_value(body, self.ctx))
            except UnknownValue:
                raise
            except EvalError as e:  # the inner parse is one line: name the heredoc's
                raise EvalError(e.summary, e.detail, _line(t)) from None
        return body.replace("$${", "${").replace("%%{", "%{")

    # ---------------------------------------------------------------- for expressions

    def _pairs(self, coll: Any, t: Any) -> list[tuple[Any, Any]]:
        if isinstance(coll, list):
            return list(enumerate(coll))
        if isinstance(coll, dict):
            return sorted(coll.items())
        raise self.fail(t, "Iteration over non-iterable value",
                        f"A value of type {type_name(coll)} cannot be used as the collection in a 'for' expression.")

    def for_expr(self, t: Tree) -> Any:
        kids = _kids(t)
        intro = kids[0]
        names = [_ident(k) for k in _kids(intro) if k.data == "identifier"]
        coll_t = _kids(intro)[-1]
        cond_t = next((k for k in kids if k.data == "for_cond"), None)
        body = [k for k in kids[1:] if k.data != "for_cond"]
        grouped = any(isinstance(c, Token) and c.type == "ELLIPSIS" for c in t.children)
        out_list: list = []
        out_map: dict = {}
        for key, v in self._pairs(self.value(coll_t), t):
            bound = dict(zip(names, (key, v) if len(names) == 2 else (v,), strict=True))
            inner = _Evaluator(self.ctx.child(**bound))
            if cond_t is not None and not inner.boolean(_kids(cond_t)[0], "for condition"):
                continue
            if t.data == "for_tuple_expr":
                out_list.append(inner.value(body[0]))
                continue
            try:
                k = to_string(inner.value(body[0]))
            except FunctionError as e:
                raise self.fail(body[0], "Invalid object key", f"Key expression in 'for' expression: {e}.") from None
            val = inner.value(body[1])
            if grouped:
                out_map.setdefault(k, []).append(val)
            elif k in out_map:
                raise self.fail(body[0], "Duplicate object key", f'Two different items produced the key "{k}" in '
                                "this 'for' expression. If duplicates are expected, use the ellipsis (...) after "
                                "the value expression to enable grouping by key.")
            else:
                out_map[k] = val
        return out_list if t.data == "for_tuple_expr" else out_map

    # ---------------------------------------------------------------- function calls

    def call(self, t: Tree) -> Any:
        name = _call_name(t)
        args_t = next((k for k in _kids(t) if k.data == "arguments"), None)
        arg_trees = _kids(args_t) if args_t is not None else []
        bare = name.removeprefix("core::")
        if bare in ("try", "can"):
            return self._try(bare, arg_trees, t)
        fn = self.ctx.functions.get(name)
        if fn is None:
            raise self.fail(t, "Call to unknown function", f'There is no function named "{name}".')
        args = [self.value(a) for a in arg_trees]
        if args_t is not None and any(isinstance(c, Token) and c.type == "ELLIPSIS" for c in args_t.children):
            if not isinstance(args[-1], list):
                raise self.fail(t, "Invalid expanding argument value",
                                "The expanding argument (indicated by ...) must be of a tuple or list type.")
            args = args[:-1] + list(args[-1])
        try:
            return fn(*args)
        except FunctionError as e:
            raise self.fail(t, "Error in function call", f'Call to function "{name}" failed: {e}.') from None
        except TypeError:
            raise self.fail(t, "Wrong number of arguments",
                            f'Function "{name}" does not take {len(args)} argument(s).') from None
        except (ArithmeticError, ValueError, MemoryError, RecursionError) as e:  # never Python's own words
            raise self.fail(t, "Error in function call", f'Call to function "{name}" failed: '
                            f"{type(e).__name__}.") from None

    def _try(self, name: str, arg_trees: list, t: Tree) -> Any:
        """``try(a, b, ...)``: the first argument that evaluates without error; ``can(x)``:
        whether ``x`` does (Terraform's ``lang/funcs/conversion.go``)."""
        if name == "can":
            if len(arg_trees) != 1:
                raise self.fail(t, "Wrong number of arguments", 'Function "can" takes exactly one argument.')
            try:
                self.value(arg_trees[0])
                return True
            except UnknownValue:
                raise
            except EvalError:
                return False
        if not arg_trees:
            raise self.fail(t, "Wrong number of arguments", 'Function "try" needs at least one argument.')
        for a in arg_trees:
            try:
                return self.value(a)
            except UnknownValue:
                raise
            except EvalError:
                continue
        raise self.fail(t, "Error in function call", 'Call to function "try" failed: no expression succeeded.')


__all__ = ["MAX_DIGITS", "MAX_ELEMENTS", "MAX_STEPS", "MAX_STRING", "Budget", "EvalContext", "EvalError",
           "FunctionError", "equal", "evaluate", "function_names", "references", "to_bool", "to_number", "to_string",
           "type_name"]


_STRIP_SPACE = " \t\r\n"


def template_value(text: str, ctx: EvalContext) -> Any:
    """A bare template (a heredoc's body; hclsyntax ``ParseTemplate``): literal text, where
    backslashes are not escapes, with ``${ }`` and ``%{ }`` sequences, evaluated in ``ctx``.
    A template that is one interpolation is that value, unconverted.

    Raises:
        EvalError: a sequence that does not parse or evaluate (line 1: the caller places it).
    """
    load("tofu_solve.config.hcl")
    from . import parse

    try:
        inner = parse(f'x = "{_quoted_template(text)}"\n', "template").attributes[0].expr.tree
    except TofuSolveError:
        raise EvalError("Invalid template", "The template's ${ } or %{ } sequences do not parse.", 1) from None
    return _Evaluator(ctx).value(inner)


def _stripped(items: list) -> list:
    """A template's items with each literal token turned into its text (escapes undone,
    ``$${``/``%%{`` made ``${``/``%{``) and the whitespace a strip marker takes removed:
    ``~`` after ``${``/``%{`` trims the literal before, ``~`` before ``}`` the literal after
    (hclsyntax ``parseTemplateParts``, ``templateLiteralToken`` trimming)."""
    out: list = []
    strip_next = False
    for c in items:
        if isinstance(c, Token):
            text = _unescape(str(c)) if c.type == "STRING_CHARS" else str(c)[1:]
            out.append(text.lstrip(_STRIP_SPACE) if strip_next else text)
            strip_next = False
            continue
        marks = [i for i, k in enumerate(c.children) if isinstance(k, Token) and k.type == "STRIP_MARKER"]
        if marks and marks[0] == 1 and out and isinstance(out[-1], str):
            out[-1] = out[-1].rstrip(_STRIP_SPACE)
        strip_next = bool(marks) and marks[-1] == len(c.children) - 2
        out.append(c)
    return out


def _quoted_template(body: str) -> str:
    """A heredoc's body as the inside of a quoted template: its literal text escaped, its
    ``${ }`` and ``%{ }`` sequences as written (a quoted string inside one stays a string)."""
    out: list[str] = []
    i, n = 0, len(body)
    while i < n:
        if body.startswith(("$${", "%%{"), i):
            out.append(body[i:i + 3])
            i += 3
        elif body.startswith(("${", "%{"), i):
            j = _sequence_end(body, i + 2)
            out.append(body[i:j])
            i = j
        else:
            c = body[i]
            out.append({"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r"}.get(c, c))
            i += 1
    return "".join(out)


def _sequence_end(text: str, i: int) -> int:
    """The index after the ``}`` that closes a ``${``/``%{`` opened before ``i`` (braces
    counted, quoted strings skipped with their own sequences); ``len(text)`` when none does
    (the parser then says what is wrong)."""
    depth = 1
    n = len(text)
    while i < n:
        c = text[i]
        if c == '"':
            i += 1
            while i < n and text[i] != '"':
                if text[i] == "\\":
                    i += 2
                elif text.startswith(("${", "%{"), i):
                    i = _sequence_end(text, i + 2)
                else:
                    i += 1
            i += 1
            continue
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return n
