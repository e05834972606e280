"""The functions a policy condition may call (issue #62 §1): the ``core::`` functions of
HashiCorp's policy language and the Terraform functions a module or provider rule needs.

Each Terraform function answers as Terraform's own does (``internal/lang/funcs`` and
go-cty's ``function/stdlib``, cited per function); each may be called bare or with the
``core::`` namespace (``core::startswith``), as Terraform 1.8+ and the policy language
accept. The policy language's own four are called with ``core::`` only:

* ``core::semverconstraint(version, constraint)``: whether ``version`` meets the
  constraint, in Terraform's constraint syntax (hashicorp/go-version; ``,`` is AND, ``||``
  is OR, as the policy reference says);
* ``core::semvercmp(a, b)``: -1, 0 or 1, as go-version's ``Compare``;
* ``core::contains_substring(str, substr)`` and ``core::regex_match(str, pattern)``.

Regular expressions are Go's RE2 syntax read by Python's :mod:`re` (the common subset:
classes, anchors, groups, named groups ``(?P<n>…)``, repetition); a pattern Python cannot
compile is an error naming it.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from ..._lazy import load
from ...errors import TofuSolveError, name_suggestion
from ...output_edge import one_line
from ...versions.hashicorp_go_version import GoConstraints, GoVersion
from .evaluate import Function, FunctionError, equal, to_bool, to_number, type_name
from .stdlib import REFUSED, _seq, _str, library

# Every function name a policy may call, bare (Terraform's) or core:: only (the policy language's).
TERRAFORM_FUNCTIONS = tuple(sorted(("alltrue", "anytrue", "contains", "endswith", "join", "length", "lower", "regex",
                                    "regexall", "split", "startswith", "timeadd", "timecmp", "timestamp", "upper",
                                    "try", "can", *library(lambda p: None))))
POLICY_FUNCTIONS = ("semverconstraint", "semvercmp", "contains_substring", "regex_match")


_string, _list = _str, _seq  # one rule for an argument's type, stdlib's


def _pattern(p: Any):
    """``p`` compiled as Go's ``regexp`` compiles it: RE2 syntax, matched in linear time
    (HashiCorp's policy engine is Go; a pattern RE2 refuses, a backreference or a
    lookaround, is refused with RE2's reason: issue #67 §4)."""
    return _compiled(_string(p, "pattern"))


@functools.lru_cache(maxsize=256)
def _compiled(text: str):
    load("re2")
    import re2

    options = re2.Options()
    options.log_errors = False  # RE2 would write its own line to standard error, past the output edge
    try:
        return re2.compile(text, options=options)
    except re2.error as e:
        reason = e.args[0].decode(errors="replace") if e.args and isinstance(e.args[0], bytes) else str(e)
        raise FunctionError(f'invalid regular expression pattern "{one_line(text, 200)}": {one_line(reason, 200)}') \
            from None


def contains(coll: Any, value: Any) -> bool:
    """Whether the list (or set) has an element equal to ``value`` (``funcs.ContainsFunc``)."""
    return any(equal(x, value) for x in _list(coll, "list"))


def startswith(s: Any, prefix: Any) -> bool:
    """``funcs.StartsWithFunc``."""
    return _string(s, "str").startswith(_string(prefix, "prefix"))


def endswith(s: Any, suffix: Any) -> bool:
    """``funcs.EndsWithFunc``."""
    return _string(s, "str").endswith(_string(suffix, "suffix"))


def _match_value(m) -> Any:
    """One match as Terraform's ``regex`` gives it: the whole match without groups, a map of
    named groups, else a list of the groups (go-cty ``stdlib.RegexFunc``)."""
    if m.re.groupindex:
        return {k: m.group(k) for k in m.re.groupindex}
    if m.re.groups:
        return list(m.groups())
    return m.group(0)


def regex(pattern: Any, s: Any) -> Any:
    """The first match of ``pattern`` in ``s`` (go-cty ``stdlib.RegexFunc``).

    Raises:
        FunctionError: no match ("pattern did not match any part of the given string").
    """
    m = _pattern(pattern).search(_string(s, "string"))
    if m is None:
        raise FunctionError("pattern did not match any part of the given string")
    return _match_value(m)


def regexall(pattern: Any, s: Any) -> list:
    """Every match of ``pattern`` in ``s``, as :func:`regex` gives one (``RegexAllFunc``)."""
    return [_match_value(m) for m in _pattern(pattern).finditer(_string(s, "string"))]


def split(sep: Any, s: Any) -> list[str]:
    """``stdlib.SplitFunc`` (Go's ``strings.Split``): an empty string splits into one empty
    element; an empty separator splits after each character."""
    text, separator = _string(s, "str"), _string(sep, "separator")
    return list(text) if separator == "" else text.split(separator)


def join(sep: Any, *lists: Any) -> str:
    """``stdlib.JoinFunc``: the elements of every list, joined; a null element refused."""
    if not lists:
        raise FunctionError("at least one list is required")
    items = [x for lst in lists for x in _list(lst, "lists")]
    if any(x is None for x in items):
        raise FunctionError("element is null; cannot concatenate null values")
    return _string(sep, "separator").join(_string(x, "element") for x in items)


def length(v: Any) -> int:
    """A string's characters, a collection's elements (``funcs.LengthFunc``)."""
    if isinstance(v, (list, dict)):
        return len(v)
    if isinstance(v, str):
        import unicodedata

        return len(unicodedata.normalize("NFC", v))  # cty counts grapheme clusters; NFC is close
    raise FunctionError(f"argument value must be a string, collection or structural type, not {type_name(v)}")


def _bools(v: Any, what: str) -> list[bool]:
    out = []
    for x in _list(v, what):
        if x is None:
            out.append(False)  # Terraform: a null element counts as false
            continue
        out.append(to_bool(x))
    return out


def alltrue(v: Any) -> bool:
    """``funcs.AllTrueFunc``: true for an empty list."""
    return all(_bools(v, "list"))


def anytrue(v: Any) -> bool:
    """``funcs.AnyTrueFunc``: false for an empty list."""
    return any(_bools(v, "list"))


_DURATION_RE = re.compile(r"([0-9]*(?:\.[0-9]*)?)(ns|us|µs|ms|s|m|h)")
_UNITS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1, "m": 60, "h": 3600}
_MAX_DURATION_SECONDS = (2 ** 63 - 1) / 1e9


def _duration(text: Any) -> timedelta:
    """Go's ``time.ParseDuration`` ("1h30m", "-24h", "300ms").

    Raises:
        FunctionError: not a duration.
    """
    s = _string(text, "duration")
    sign, body = (-1, s[1:]) if s.startswith("-") else (1, s.removeprefix("+"))
    if body == "0":
        return timedelta(0)
    pos, seconds = 0, 0.0
    while pos < len(body):
        m = _DURATION_RE.match(body, pos)
        if m is None or m.group(1) in ("", "."):
            raise FunctionError(f'invalid duration "{s}"')
        seconds += float(m.group(1)) * _UNITS[m.group(2)]
        pos = m.end()
    if not body:
        raise FunctionError(f'invalid duration "{s}"')
    if seconds > _MAX_DURATION_SECONDS:  # Go's time.Duration: int64 nanoseconds, about 292 years
        raise FunctionError(f'invalid duration "{s}"')
    return timedelta(seconds=sign * seconds)


def _time(text: Any, what: str) -> datetime:
    """An RFC 3339 timestamp, as Terraform's time functions require."""
    s = _string(text, what)
    if not re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)", s):
        raise FunctionError(f'not a valid RFC3339 timestamp: "{s}"')
    try:
        return datetime.fromisoformat(s.replace("Z", "+00:00"))
    except ValueError:
        raise FunctionError(f'not a valid RFC3339 timestamp: "{s}"') from None


def _rfc3339(t: datetime) -> str:
    """Go's ``time.RFC3339`` layout: whole seconds (a fraction is dropped, not rounded)."""
    return t.replace(microsecond=0).isoformat().replace("+00:00", "Z")


def timeadd(ts: Any, duration: Any) -> str:
    """``funcs.TimeAddFunc``: the timestamp moved by a Go duration, in RFC 3339."""
    try:
        return _rfc3339(_time(ts, "timestamp") + _duration(duration))
    except OverflowError:
        raise FunctionError("the result is out of the range of timestamps") from None


def timecmp(a: Any, b: Any) -> int:
    """``funcs.TimeCmpFunc``: -1, 0 or 1."""
    x, y = _time(a, "timestamp_a"), _time(b, "timestamp_b")
    return (x > y) - (x < y)


def _version(v: Any, what: str) -> GoVersion:
    try:
        return GoVersion.parse(_string(v, what))
    except TofuSolveError:
        raise FunctionError(f'"{v}" is not a version') from None


def semverconstraint(version: Any, constraint: Any) -> bool:
    """``core::semverconstraint``: whether ``version`` meets ``constraint`` (go-version
    syntax; ``,`` AND, ``||`` OR between alternatives, as the policy reference says)."""
    v = _version(version, "version")
    text = _string(constraint, "constraint")
    alternatives = []
    for part in text.split("||"):
        try:
            alternatives.append(GoConstraints.parse(part.strip()))
        except TofuSolveError:
            raise FunctionError(f'invalid version constraint "{text}"') from None
    return any(c.check(v) for c in alternatives)


def semvercmp(a: Any, b: Any) -> int:
    """``core::semvercmp``: -1, 0 or 1 (go-version ``Compare``)."""
    return _version(a, "a").compare(_version(b, "b"))


def contains_substring(s: Any, substr: Any) -> bool:
    """``core::contains_substring(str, substr)``."""
    return _string(substr, "substr") in _string(s, "str")


def regex_match(s: Any, pattern: Any) -> bool:
    """``core::regex_match(str, pattern)``: whether the pattern matches anywhere in ``str``."""
    return _pattern(pattern).search(_string(s, "str")) is not None


def policy_functions(now: Callable[[], datetime]) -> dict[str, Function]:
    """Every function a policy condition may call, by the names it may be called by (bare
    and ``core::`` for Terraform's; ``core::`` only for the policy language's own);
    ``now``: the clock ``timestamp()`` reads (UTC)."""
    def timestamp() -> str:
        return _rfc3339(now().astimezone(UTC).replace(microsecond=0))

    terraform: dict[str, Function] = {
        "alltrue": alltrue, "anytrue": anytrue, "contains": contains, "endswith": endswith, "join": join,
        "length": length, "lower": lambda s: _string(s, "str").lower(), "regex": regex, "regexall": regexall,
        "split": split, "startswith": startswith, "timeadd": timeadd, "timecmp": timecmp, "timestamp": timestamp,
        "upper": lambda s: _string(s, "str").upper(),
    }
    policy: dict[str, Function] = {"semverconstraint": semverconstraint, "semvercmp": semvercmp,
                                   "contains_substring": contains_substring, "regex_match": regex_match}
    terraform.update(library(_pattern))
    out: dict[str, Function] = dict(terraform)
    out.update({f"core::{k}": v for k, v in terraform.items()})
    out.update({f"core::{k}": v for k, v in policy.items()})
    return out


def known_function(name: str) -> bool:
    """Whether a policy may call ``name`` as written (``try`` and ``can`` included)."""
    bare = name.removeprefix("core::")
    if bare in ("try", "can"):
        return True
    return bare in TERRAFORM_FUNCTIONS or (name.startswith("core::") and bare in POLICY_FUNCTIONS)


def unsupported_detail(name: str) -> str:
    """Why a policy may not call ``name``, and what it may call (the detail of "Call to
    unsupported function")."""
    bare = name.removeprefix("core::")
    why = (f" tofu-solve refuses it: {REFUSED[bare]}." if bare in REFUSED else
           " It is available as core::" + bare + "." if bare in POLICY_FUNCTIONS else "")
    if not why:  # a typo: OpenTofu's "did you mean" over the names a policy may call (issue #84 §2)
        prefix = "core::" if name.startswith("core::") else ""
        near = name_suggestion(bare, [*TERRAFORM_FUNCTIONS, *POLICY_FUNCTIONS])
        if near is not None:
            shown = f"core::{near}" if near in POLICY_FUNCTIONS and near not in TERRAFORM_FUNCTIONS else prefix + near
            why = f' Did you mean "{shown}"?'
    return (f'The function "{name}" is not available in tofu-solve\'s policy subset.{why} Available: '
            + ", ".join(TERRAFORM_FUNCTIONS) + "; and " + ", ".join(f"core::{p}" for p in POLICY_FUNCTIONS)
            + " (each Terraform function also as core::NAME).")


__all__ = ["POLICY_FUNCTIONS", "TERRAFORM_FUNCTIONS", "known_function", "policy_functions", "to_number",
           "unsupported_detail"]
