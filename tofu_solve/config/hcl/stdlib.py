"""The rest of the Terraform library functions HashiCorp's policy language lists (its
"Built-in functions" page, v1.0.x ``write/functions.mdx``: numeric, string, collection and
encoding functions), with the ones its examples use besides (``strcontains``, ``lookup``,
``coalesce``, ``one``, ``sum``, ``replace``, ``tostring`` …), each answering as Terraform's
own does (``internal/lang/funcs``, go-cty ``function/stdlib``; cited per function where the
rule is not obvious).

Values are the evaluator's (:mod:`.evaluate`): ``str``, ``int``/``float``, ``bool``,
``None``, ``list``, ``dict``. A set is a list without duplicates, in cty's order for
strings and numbers (sorted). Every result is bounded as the evaluator bounds values: a
function that would build more than :data:`~.evaluate.MAX_ELEMENTS` elements or a string of
more than :data:`~.evaluate.MAX_STRING` characters fails before building it.

Left out, each refused with the list of what is supported (``yamldecode``, ``yamlencode``:
a pull request's YAML can expand aliases without bound; ``formatdate``: Terraform's own
layout language, not worth a second implementation for a version rule).
"""

from __future__ import annotations

import csv
import io
import json
import math
import re
from collections.abc import Callable
from typing import Any

from .evaluate import MAX_ELEMENTS, MAX_STRING, Function, FunctionError, equal, to_bool, to_number, to_string, type_name


def _str(v: Any, what: str = "str") -> str:
    if v is None:
        raise FunctionError(f"argument {what} must not be null")
    try:
        return to_string(v)
    except FunctionError:
        raise FunctionError(f"argument {what}: string required, not {type_name(v)}") from None


def _num(v: Any, what: str = "num") -> int | float:
    if v is None:
        raise FunctionError(f"argument {what} must not be null")
    return to_number(v)


def _int(v: Any, what: str) -> int:
    n = _num(v, what)
    if not float(n).is_integer():
        raise FunctionError(f"argument {what} must be a whole number")
    return int(n)


def _seq(v: Any, what: str = "list") -> list:
    if not isinstance(v, list):
        raise FunctionError(f"argument {what}: list required, not {type_name(v)}")
    return v


def _map(v: Any, what: str = "map") -> dict:
    if not isinstance(v, dict):
        raise FunctionError(f"argument {what}: map or object required, not {type_name(v)}")
    return v


def _room(n: int | float, what: str = "elements") -> None:
    if n > MAX_ELEMENTS:
        raise FunctionError(f"the result would have {int(n)} {what}; tofu-solve allows at most {MAX_ELEMENTS}")


def _whole(v: float) -> int | float:
    return int(v) if isinstance(v, float) and v.is_integer() and abs(v) < 2 ** 63 else v


def _distinct(items: list) -> list:
    out: list = []
    for x in items:
        if not any(equal(x, y) for y in out):
            out.append(x)
    return out


def _as_set(items: list) -> list:
    """cty's set order for the evaluator's values: strings and numbers sorted, others as met."""
    out = _distinct(items)
    if all(isinstance(x, str) for x in out) or all(isinstance(x, (int, float)) and not isinstance(x, bool)
                                                     for x in out):
        out.sort()
    return out


# ----------------------------------------------------------------------------- numeric


def _minmax(pick: Callable, *nums: Any) -> int | float:
    if not nums:
        raise FunctionError("must pass at least one number")
    return pick(_num(n) for n in nums)


def log(num: Any, base: Any) -> float:
    """``funcs.LogFunc``: math.log(num) / math.log(base)."""
    try:
        return _whole(math.log(_num(num)) / math.log(_num(base, "base")))
    except (ValueError, ZeroDivisionError):
        raise FunctionError("the logarithm is not defined for these arguments") from None


def parseint(s: Any, base: Any) -> int:
    """``funcs.ParseIntFunc``: base 2 to 62, an optional sign, digits 0-9a-zA-Z."""
    b = _int(base, "base")
    if not 2 <= b <= 62:
        raise FunctionError("base must be a whole number between 2 and 62 inclusive")
    text = _str(s, "number")
    digits = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"[:b]
    body = text[1:] if text[:1] in "+-" else text
    if not body or len(body) > 400 or any(c not in (digits if b > 36 else digits.lower() + digits.upper())
                                          for c in body):
        raise FunctionError(f'cannot parse "{text[:80]}" as a base {b} integer')
    value = 0
    for c in body:
        value = value * b + (int(c, 36) if b <= 36 else digits.index(c))
    return -value if text.startswith("-") else value


def power(num: Any, p: Any) -> int | float:
    """``funcs.PowFunc``."""
    x, y = _num(num), _num(p, "power")
    if abs(y) > 4096:
        raise FunctionError("the power is too large")
    try:
        return _whole(float(x) ** float(y))
    except (OverflowError, ZeroDivisionError):
        raise FunctionError("the result is not a finite number") from None


# ----------------------------------------------------------------------------- strings


def _fmt_one(verb: str, flags: str, v: Any) -> str:
    if verb == "v":
        return json.dumps(v, separators=(",", ":")) if isinstance(v, (list, dict)) else (
            "null" if v is None else to_string(v))
    if verb == "s":
        return _str(v, "value")
    if verb == "q":
        return json.dumps(_str(v, "value"))
    if verb == "d":
        return str(_int(v, "value"))
    if verb in ("f", "e", "g"):
        n = float(_num(v, "value"))
        precision = flags.split(".")[1] if "." in flags else ""
        return format(n, f".{precision}{verb}" if precision else verb)
    if verb == "t":
        return "true" if to_bool(v) else "false"
    if verb in ("x", "X", "o", "b"):
        return format(_int(v, "value"), verb)
    raise FunctionError(f"unsupported format verb %{verb}")


_VERB = re.compile(r"%([-+# 0]*(?:\d+)?(?:\.\d+)?)([a-zA-Z%])")


def format_(spec: Any, *values: Any) -> str:
    """``stdlib.FormatFunc``: the verbs ``%v %s %q %d %f %e %g %t %x %X %o %b`` and ``%%``,
    with width and precision; a width above 1000 is refused (a bound, not Terraform's rule)."""
    text = _str(spec, "format")
    out: list[str] = []
    pos = 0
    arg = 0
    for m in _VERB.finditer(text):
        out.append(text[pos:m.start()])
        pos = m.end()
        flags, verb = m.groups()
        if verb == "%":
            out.append("%")
            continue
        if arg >= len(values):
            raise FunctionError(f"not enough arguments for format verb %{verb}")
        piece = _fmt_one(verb, flags, values[arg])
        arg += 1
        width = re.match(r"[-+# 0]*(\d+)", flags)
        if width:
            w = int(width.group(1))
            if w > 1000:
                raise FunctionError("a format width above 1000 is refused")
            piece = piece.ljust(w) if "-" in flags else piece.rjust(w, "0" if flags.startswith("0") else " ")
        out.append(piece)
    out.append(text[pos:])
    if arg < len(values):
        raise FunctionError(f"too many arguments; no verbs for {len(values) - arg} of them")
    result = "".join(out)
    if len(result) > MAX_STRING:
        raise FunctionError("the result is too long")
    return result


def formatlist(spec: Any, *values: Any) -> list[str]:
    """``stdlib.FormatListFunc``: lists give one element per index (all of one length),
    other values repeat."""
    lengths = {len(v) for v in values if isinstance(v, list)}
    if len(lengths) > 1:
        raise FunctionError("all list arguments must have the same length")
    n = lengths.pop() if lengths else 1
    _room(n)
    return [format_(spec, *[v[i] if isinstance(v, list) else v for v in values]) for i in range(n)]


def indent(spaces: Any, s: Any) -> str:
    """``funcs.IndentFunc``: every line but the first indented."""
    n = _int(spaces, "spaces")
    if not 0 <= n <= 1000:
        raise FunctionError("spaces must be between 0 and 1000")
    text = _str(s)
    if len(text) * (1 + n) > MAX_STRING:
        raise FunctionError("the result is too long")
    return text.replace("\n", "\n" + " " * n)


def substr(s: Any, offset: Any, length: Any) -> str:
    """``stdlib.SubstrFunc``: a negative offset counts from the end; length -1 is the rest."""
    text, off, n = _str(s), _int(offset, "offset"), _int(length, "length")
    if off < 0:
        off = max(len(text) + off, 0)
    if off > len(text):
        raise FunctionError("offset must be less than the length of the string")
    return text[off:] if n < 0 else text[off:off + n]


def title(s: Any) -> str:
    """``stdlib.TitleFunc`` (Go's ``strings.Title``): each word's first letter upper-cased."""
    return re.sub(r"(^|[^\w'])(\w)", lambda m: m.group(1) + m.group(2).upper(), _str(s))


def trim(s: Any, cutset: Any) -> str:
    return _str(s).strip(_str(cutset, "cutset"))


def replace(s: Any, old: Any, new: Any, pattern: Callable[[Any], Any]) -> str:
    """``funcs.ReplaceFunc``: a ``/…/`` search string is an RE2 pattern (``$1`` in the
    replacement), compiled by ``pattern`` (RE2, as :mod:`.functions` compiles them); any
    other is replaced literally."""
    text, search, sub = _str(s), _str(old, "substr"), _str(new, "replace")
    if len(search) > 1 and search.startswith("/") and search.endswith("/"):
        result = pattern(search[1:-1]).sub(re.sub(r"\$\{?(\w+)\}?", r"\\g<\1>", sub), text)
    else:
        if search == "":
            raise FunctionError("the search string must not be empty")
        result = text.replace(search, sub)
    if len(result) > MAX_STRING:
        raise FunctionError("the result is too long")
    return result


# ----------------------------------------------------------------------------- collections


def chunklist(lst: Any, size: Any) -> list:
    items, n = _seq(lst), _int(size, "size")
    if n < 0:
        raise FunctionError("the size argument must be positive")
    if n == 0:
        return [items]
    return [items[i:i + n] for i in range(0, len(items), n)]


def coalesce(*vals: Any) -> Any:
    """``stdlib.CoalesceFunc``: the first argument that is not null or an empty string."""
    for v in vals:
        if v is not None and v != "":
            return v
    raise FunctionError("no non-null, non-empty-string arguments")


def coalescelist(*lists: Any) -> list:
    for v in lists:
        if v is not None and _seq(v, "lists"):
            return v
    raise FunctionError("no non-null arguments")


def compact(lst: Any) -> list:
    return [x for x in _seq(lst) if x is not None and x != ""]


def concat(*lists: Any) -> list:
    out = [x for lst in lists for x in _seq(lst, "seqs")]
    _room(len(out))
    return out


def element(lst: Any, index: Any) -> Any:
    """``stdlib.ElementFunc``: the index wraps around the list's length."""
    items, i = _seq(lst), _int(index, "index")
    if not items:
        raise FunctionError("cannot use element function with an empty list")
    if i < 0:
        raise FunctionError("cannot use element function with a negative index")
    return items[i % len(items)]


def flatten(lst: Any) -> list:
    out: list = []

    def walk(v: list, depth: int) -> None:
        if depth > 100:
            raise FunctionError("the list is nested too deeply")
        for x in v:
            if isinstance(x, list):
                walk(x, depth + 1)
            else:
                out.append(x)
                _room(len(out))

    walk(_seq(lst), 0)
    return out


def keys(m: Any) -> list[str]:
    return sorted(_map(m))


def values(m: Any) -> list:
    d = _map(m)
    return [d[k] for k in sorted(d)]


def lookup(m: Any, key: Any, *default: Any) -> Any:
    """``funcs.LookupFunc``: the default when the key is absent (an error without one)."""
    d, k = _map(m, "inputMap"), _str(key, "key")
    if k in d:
        return d[k]
    if default:
        return default[0]
    raise FunctionError(f'the given key "{k}" does not exist in the map')


def merge(*maps: Any) -> dict:
    out: dict = {}
    for m in maps:
        if m is not None:
            out.update(_map(m, "maps"))
    return out


def one(lst: Any) -> Any:
    items = _seq(lst)
    if len(items) > 1:
        raise FunctionError("must be a list, set, or tuple value with either zero or one elements")
    return items[0] if items else None


def range_(*args: Any) -> list:
    """``stdlib.RangeFunc``: (limit), (start, limit) or (start, limit, step)."""
    if not 1 <= len(args) <= 3:
        raise FunctionError("must have one, two, or three arguments")
    nums = [_num(a, "params") for a in args]
    start, limit, step = (0, nums[0], 1.0) if len(nums) == 1 else (nums[0], nums[1], nums[2] if len(nums) == 3
                                                                     else (1 if nums[1] >= nums[0] else -1))
    if step == 0:
        raise FunctionError("step must not be zero")
    if (step > 0 and start > limit) or (step < 0 and start < limit):
        raise FunctionError("the step would never reach the limit")
    count = max(0, math.ceil((limit - start) / step))
    _room(count)
    return [_whole(start + i * step) for i in range(count)]


def reverse(lst: Any) -> list:
    return list(reversed(_seq(lst)))


def setintersection(first: Any, *others: Any) -> list:
    out = [x for x in _as_set(_seq(first, "first_set")) if all(any(equal(x, y) for y in _seq(o, "other_sets"))
                                                               for o in others)]
    return out


def setproduct(*sets: Any) -> list:
    if len(sets) < 2:
        raise FunctionError("at least two arguments are required")
    total = 1
    for s in sets:
        total *= len(_seq(s, "sets"))
        _room(total)
    out: list = [[]]
    for s in sets:
        out = [prefix + [x] for prefix in out for x in s]
    return out


def setsubtract(a: Any, b: Any) -> list:
    return [x for x in _as_set(_seq(a, "a")) if not any(equal(x, y) for y in _seq(b, "b"))]


def setunion(*sets: Any) -> list:
    out = _as_set([x for s in sets for x in _seq(s, "sets")])
    _room(len(out))
    return out


def slice_(lst: Any, start: Any, end: Any) -> list:
    items, i, j = _seq(lst), _int(start, "start_index"), _int(end, "end_index")
    if i < 0 or j > len(items) or i > j:
        raise FunctionError("the start and end indexes must be within the list, start not after end")
    return items[i:j]


def sort(lst: Any) -> list:
    """``funcs.SortFunc``: the elements as strings, in lexical order."""
    items = _seq(lst)
    if any(x is None for x in items):
        raise FunctionError("given list element is null; a null cannot be sorted")
    return sorted(_str(x, "list") for x in items)


def sum_(lst: Any) -> int | float:
    items = _seq(lst)
    if not items:
        raise FunctionError("cannot sum an empty list")
    return _whole(math.fsum(_num(x, "list") for x in items)) if any(isinstance(_num(x), float) for x in items) \
        else sum(int(_num(x)) for x in items)


def zipmap(ks: Any, vs: Any) -> dict:
    a, b = _seq(ks, "keys"), _seq(vs, "values")
    if len(a) != len(b):
        raise FunctionError("number of keys and values must be equal")
    return {_str(k, "keys"): v for k, v in zip(a, b, strict=True)}


def tolist(v: Any) -> list:
    return list(_seq(v, "v"))


def toset(v: Any) -> list:
    return _as_set(_seq(v, "v"))


def tomap(v: Any) -> dict:
    return dict(_map(v, "v"))


# ----------------------------------------------------------------------------- encoding


def jsondecode(s: Any) -> Any:
    text = _str(s)
    try:
        return json.loads(text, parse_float=lambda x: _whole(float(x)), parse_constant=lambda c: None)
    except (ValueError, RecursionError) as e:
        raise FunctionError(f"invalid JSON: {str(e)[:200]}") from None


def jsonencode(v: Any) -> str:
    out = json.dumps(v, separators=(",", ":"), ensure_ascii=False).replace("<", "\\u003c").replace(
        ">", "\\u003e").replace("&", "\\u0026")  # Go's json.Marshal escapes HTML characters
    if len(out) > MAX_STRING:
        raise FunctionError("the result is too long")
    return out


def csvdecode(s: Any) -> list[dict]:
    """``stdlib.CSVDecodeFunc``: the first row names the columns; every row an object."""
    rows = list(csv.reader(io.StringIO(_str(s))))
    if not rows:
        raise FunctionError("missing header line")
    head = rows[0]
    out = []
    for n, row in enumerate(rows[1:], 2):
        if len(row) != len(head):
            raise FunctionError(f"record on line {n}: wrong number of fields")
        out.append(dict(zip(head, row, strict=True)))
    _room(len(out))
    return out


def library(pattern: Callable[[Any], Any]) -> dict[str, Function]:
    """The functions of this module by their Terraform names (bare; the caller adds
    ``core::``); ``pattern`` compiles a regular expression (RE2)."""
    return {
        "abs": lambda n: abs(_num(n)), "ceil": lambda n: math.ceil(_num(n)), "floor": lambda n: math.floor(_num(n)),
        "log": log, "max": lambda *n: _minmax(max, *n), "min": lambda *n: _minmax(min, *n), "parseint": parseint,
        "pow": power, "signum": lambda n: (_num(n) > 0) - (_num(n) < 0),
        "chomp": lambda s: re.sub(r"(?:\r\n|\r|\n)+\Z", "", _str(s)), "format": format_, "formatlist": formatlist,
        "indent": indent, "strrev": lambda s: _str(s)[::-1], "substr": substr, "title": title, "trim": trim,
        "trimprefix": lambda s, p: _str(s).removeprefix(_str(p, "prefix")),
        "trimsuffix": lambda s, p: _str(s).removesuffix(_str(p, "suffix")),
        "trimspace": lambda s: _str(s).strip(" \t\n\r\v\f\u0085\u00a0"),
        "strcontains": lambda s, sub: _str(sub, "substr") in _str(s),
        "replace": lambda s, old, new: replace(s, old, new, pattern),
        "chunklist": chunklist, "coalesce": coalesce, "coalescelist": coalescelist, "compact": compact,
        "concat": concat, "distinct": lambda lst: _distinct(_seq(lst)), "element": element, "flatten": flatten,
        "keys": keys, "values": values, "lookup": lookup, "merge": merge, "one": one, "range": range_,
        "reverse": reverse, "setintersection": setintersection, "setproduct": setproduct,
        "setsubtract": setsubtract, "setunion": setunion, "slice": slice_, "sort": sort, "sum": sum_,
        "zipmap": zipmap, "tostring": lambda v: None if v is None else _str(v, "v"),
        "tonumber": lambda v: None if v is None else to_number(v), "tobool": lambda v: None if v is None else
        to_bool(v), "tolist": tolist, "toset": toset, "tomap": tomap,
        "jsondecode": jsondecode, "jsonencode": jsonencode, "csvdecode": csvdecode,
    }


REFUSED = {
    "yamldecode": "a YAML document's aliases can expand without bound",
    "yamlencode": "left out with yamldecode",
    "formatdate": "Terraform's own date layout language is not implemented",
    "getresources": "resources exist only after plan, which tofu-solve never reaches",
    "getdatasource": "data sources are read by a provider during plan",
    "gethttprequest": "a policy file must not make tofu-solve send requests",
    "valuetostring": "not implemented",
}
"""Functions of HashiCorp's policy language that tofu-solve refuses, with the reason its
error gives."""
