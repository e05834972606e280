"""apparentlymart/go-versions v1.0.3, as OpenTofu uses it.

OpenTofu uses this library for three things, all implemented here exactly:

* **provider constraints**: ``constraints.ParseRubyStyleMulti`` (``~> 1`` means
  ``>= 1.0.0, < 2.0.0``, no ``v`` prefix, at most one space after an operator);
* **lock-file versions**: ``versions.ParseVersion`` (at most three parts, canonical form
  ``1.2.3[-pre][+meta]``);
* **the module prerelease gate**: ``constraints.Parse``, the npm/cargo-style "canonical"
  syntax, through ``MeetingConstraintsString``.

Set membership follows ``versions.MeetingConstraints``: released versions in the set, plus
prereleases that the constraint names exactly ("requested"). Errors carry the library's own
message text.

Source: go-versions ``versions/constraints/{raw_scan.rl,ruby_style.go,canon_style.go,
version.go,spec.go}``, ``versions/{version.go,parse.go,set*.go}`` at v1.0.3.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, replace

from ..errors import InvalidConstraint, InvalidVersion, go_quote

_UINT64_MAX = 2**64 - 1

# Selection operators, with go-versions' rune values (used in vectors and sorting).
OP_UNCONSTRAINED = "\0"
OP_GT = ">"
OP_LT = "<"
OP_GE = "≥"
OP_PATCH_ONLY = "~"
OP_MINOR_ONLY = "^"
OP_LE = "≤"
OP_EQ = "="
OP_NE = "≠"
OP_MATCH = "*"

OP_NAMES = {
    OP_UNCONSTRAINED: "OpUnconstrained",
    OP_GT: "OpGreaterThan",
    OP_LT: "OpLessThan",
    OP_GE: "OpGreaterThanOrEqual",
    OP_PATCH_ONLY: "OpGreaterThanOrEqualPatchOnly",
    OP_MINOR_ONLY: "OpGreaterThanOrEqualMinorOnly",
    OP_LE: "OpLessThanOrEqual",
    OP_EQ: "OpEqual",
    OP_NE: "OpNotEqual",
    OP_MATCH: "OpMatch",
}

_SPACE = "\t\v\f\n\r "  # Ragel's `space`
_NUM_NAMES = ("major", "minor", "patch")


# --------------------------------------------------------------------------- versions


def _extra_less(s1: str, s2: str) -> bool:
    """``VersionExtra.LessThan``: dot-wise; the side that runs out of dots first is less."""
    if s1 == s2:
        return False
    while True:
        d1, d2 = s1.find("."), s2.find(".")
        if d1 == -1 and d2 != -1:
            return True
        if d2 == -1 and d1 != -1:
            return False
        if d1 == -1:
            return _less_str(s1, s2)
        a, b = s1[:d1], s2[:d2]
        if a != b:
            return _less_str(a, b)
        s1, s2 = s1[d1 + 1 :], s2[d2 + 1 :]


def _is_digits(s: str) -> bool:
    return all("0" <= c <= "9" for c in s)


def _less_str(s1: str, s2: str) -> bool:
    n1, n2 = _is_digits(s1), _is_digits(s2)
    if n1 and not n2:
        return True
    if n2 and not n1:
        return False
    if n1:
        if len(s1) != len(s2):
            return len(s1) < len(s2)
        return s1 < s2
    return s1.encode() < s2.encode()


@dataclass(frozen=True, order=False)
class Version:
    """A go-versions ``Version``: three numbers, prerelease and metadata.

    Equality (``==``) compares every field, metadata included, as Go's struct equality does;
    ordering (:meth:`less_than`) ignores metadata.
    """

    major: int
    minor: int
    patch: int
    prerelease: str = ""
    metadata: str = ""

    @classmethod
    def parse(cls, text: str) -> Version:
        """``versions.ParseVersion``.

        Raises:
            InvalidVersion: with go-versions' exact message (e.g. ``a "v" prefix should not
                be used``).
        """
        spec = parse_exact_version(text)
        return cls(spec.major.num, spec.minor.num, spec.patch.num, spec.prerelease, spec.metadata)

    def __str__(self) -> str:
        s = f"{self.major}.{self.minor}.{self.patch}"
        if self.prerelease:
            s += "-" + self.prerelease
        if self.metadata:
            s += "+" + self.metadata
        return s

    def same(self, other: Version) -> bool:
        """Same precedence: numbers and prerelease equal, metadata ignored."""
        return (self.major, self.minor, self.patch, self.prerelease) == (
            other.major, other.minor, other.patch, other.prerelease)

    def less_than(self, other: Version) -> bool:
        if self.major != other.major:
            return self.major < other.major
        if self.minor != other.minor:
            return self.minor < other.minor
        if self.patch != other.patch:
            return self.patch < other.patch
        if self.prerelease != other.prerelease:
            if self.prerelease == "":
                return False
            if other.prerelease == "":
                return True
            return _extra_less(self.prerelease, other.prerelease)
        return False

    def greater_than(self, other: Version) -> bool:
        if self.major != other.major:
            return self.major > other.major
        if self.minor != other.minor:
            return self.minor > other.minor
        if self.patch != other.patch:
            return self.patch > other.patch
        if self.prerelease != other.prerelease:
            if self.prerelease == "":
                return True
            if other.prerelease == "":
                return False
            return not _extra_less(self.prerelease, other.prerelease)
        return False

    def compare(self, other: Version) -> int:
        if self.less_than(other):
            return -1
        if self.greater_than(other):
            return 1
        return 0



UNSPECIFIED = Version(0, 0, 0)


# --------------------------------------------------------------------------- specs


@dataclass(frozen=True)
class Num:
    """``NumConstraint``: a number, or unconstrained (omitted or a wildcard)."""

    num: int = 0
    unconstrained: bool = False

    def __str__(self) -> str:
        return "*" if self.unconstrained else str(self.num)


@dataclass(frozen=True)
class VersionSpec:
    """``VersionSpec``: a boundary version whose numbers may be unconstrained."""

    major: Num = Num()
    minor: Num = Num()
    patch: Num = Num()
    prerelease: str = ""
    metadata: str = ""

    def depth(self) -> int:
        """``ConstraintDepth``: 0 unconstrained, 1 major, 2 minor, 3 patch (exact)."""
        if self == VersionSpec():
            return 0
        if self.major.unconstrained:
            return 0
        if self.minor.unconstrained:
            return 1
        if self.patch.unconstrained:
            return 2
        return 3

    def is_exact(self) -> bool:
        return self.depth() == 3

    def constrain_to_zero(self) -> VersionSpec:
        d = self.depth()
        if d == 0:
            return VersionSpec(Num(0), Num(0), Num(0))
        if d == 1:
            return VersionSpec(self.major, Num(0), Num(0))
        if d == 2:
            return VersionSpec(self.major, self.minor, Num(0))
        return self

    def constrain_to_upper_bound(self) -> VersionSpec:
        d = self.depth()
        if d == 0:
            return VersionSpec()
        if d == 1:
            return VersionSpec(Num(self.major.num + 1), Num(0), Num(0))
        if d == 2:
            return VersionSpec(self.major, Num(self.minor.num + 1), Num(0))
        return self

    def to_version(self) -> Version:
        return Version(self.major.num, self.minor.num, self.patch.num, self.prerelease, self.metadata)

    def __str__(self) -> str:
        s = f"{self.major}.{self.minor}.{self.patch}"
        if self.prerelease:
            s += "-" + self.prerelease
        if self.metadata:
            s += "+" + self.metadata
        return s


@dataclass(frozen=True)
class Selection:
    """``SelectionSpec``: one operator applied to one boundary."""

    op: str
    boundary: VersionSpec

    @functools.cached_property
    def compiled(self) -> tuple:
        """(kind, lower, upper), computed once per selection (see :func:`_compile`)."""
        return _compile(self)

    def as_dict(self) -> dict:
        """The shape used by the conformance vectors."""
        b = self.boundary
        num = lambda n: "*" if n.unconstrained else n.num  # noqa: E731
        return {"op": OP_NAMES[self.op], "major": num(b.major), "minor": num(b.minor),
                "patch": num(b.patch), "pre": b.prerelease, "meta": b.metadata}


Intersection = tuple  # tuple[Selection, ...]: every selection must hold
Union = tuple  # tuple[Intersection, ...]: any intersection may hold


# --------------------------------------------------------------------------- scanner


@dataclass
class _Raw:
    op: str = ""
    sep: str = ""
    nums: tuple = ("", "", "")
    num_ct: int = 0
    pre: str = ""
    meta: str = ""

    def version_spec(self) -> VersionSpec:
        def num(s: str) -> Num:
            if s == "" or s in ("*", "x", "X"):
                return Num(unconstrained=True)
            v = int(s)
            if v > _UINT64_MAX:
                raise InvalidVersion("Invalid version", f"version number {s} is too large")
            return Num(v)
        return VersionSpec(num(self.nums[0]), num(self.nums[1]), num(self.nums[2]), self.pre, self.meta)


def _is_op_char(c: str) -> bool:
    return not (c.isascii() and (c.isalnum() or c in _SPACE or c in ".*"))


def _is_extra_char(c: str) -> bool:
    return c.isascii() and (c.isalnum() or c in ".-")


def scan_constraint(data: str) -> tuple[_Raw, str]:
    """The Ragel machine ``op sep nums pre? meta?`` of ``raw_scan.rl``.

    Returns the tokens and the unconsumed rest of ``data`` (from the first character the
    machine could not take; ``""`` when it reached the end).
    """
    raw = _Raw()
    n, p = len(data), 0
    start = p
    while p < n and _is_op_char(data[p]):
        p += 1
    raw.op = data[start:p]
    start = p
    while p < n and (data[p] in _SPACE or data[p] == "v"):
        p += 1
    raw.sep = data[start:p]
    nums: list[str] = []

    def take_num(p: int) -> int | None:
        if p < n and data[p] in "*xX":
            nums.append(data[p])
            return p + 1
        q = p
        while q < n and "0" <= data[q] <= "9":
            q += 1
        if q == p:
            return None
        nums.append(data[p:q])
        return q

    q = take_num(p)
    if q is None:
        return _finish(raw, nums), data[p:]
    p = q
    while p < n and data[p] == ".":
        q = take_num(p + 1)
        if q is None:
            return _finish(raw, nums), data[p + 1 :]
        p = q
    for marker in "-+":
        if p < n and data[p] == marker:
            q = p + 1
            while q < n and _is_extra_char(data[q]):
                q += 1
            if q == p + 1:  # marker with nothing after it: error there, token not kept
                return _finish(raw, nums), data[q:]
            if marker == "-":
                raw.pre = data[p + 1 : q]
            else:
                raw.meta = data[p + 1 : q]
            p = q
            if marker == "-" and p < n and data[p] == "+":
                continue
            if marker == "-" and not (p < n and data[p] == "+"):
                break
    return _finish(raw, nums), data[p:]


def _finish(raw: _Raw, nums: list[str]) -> _Raw:
    raw.num_ct = len(nums)
    padded = (nums + ["", "", ""])[:3]
    raw.nums = tuple(padded)
    return raw


# --------------------------------------------------------------------------- parsers


def parse_exact_version(vs: str) -> VersionSpec:
    """``constraints.ParseExactVersion``. Raises :class:`InvalidVersion`."""

    def fail(msg: str):
        raise InvalidVersion("Invalid version", msg)

    if vs.strip() == "":
        fail("empty specification")
    raw, remain = scan_constraint(vs)
    op = raw.op.strip()
    if op in (">", ">=", "<", "<=", "!", "!=", "~>", "^", "~"):
        fail(f"can't use constraint operator {go_quote(raw.op)}; an exact version is required")
    elif op == "":
        if raw.sep != "":
            if "v" in raw.sep:
                fail('a "v" prefix should not be used')
            fail("extraneous spaces at start of specification")
    else:
        fail(f"invalid sequence {go_quote(raw.op)} at start of specification")
    if remain != "":
        remain = remain.strip()
        if remain == "":
            fail("extraneous spaces at end of specification")
        elif vs.startswith("v"):
            fail('a "v" prefix should not be used')
        elif remain.startswith((",", "|")):
            fail("can't specify multiple versions; a single exact version is required")
        elif remain.startswith("-"):
            fail("can't specify version range; a single exact version is required")
        elif vs.strip().startswith(remain):
            fail("invalid specification; required format is three positive integers separated by periods")
        else:
            fail(f"invalid characters {go_quote(remain)}")
    if raw.num_ct > 3:
        fail("too many numbered portions; only three are allowed (major, minor, patch)")
    nums = list(raw.nums)
    for i in range(raw.num_ct, 3):
        nums[i] = "0"
    for i, s in enumerate(nums):
        if s in ("*", "x", "X"):
            fail(f"can't use wildcard for {_NUM_NAMES[i]} number; an exact version is required")
    raw.nums = tuple(nums)
    return raw.version_spec()


class _ParseError(Exception):
    pass


def _parse_ruby_selection(s: str) -> tuple[Selection, str]:
    raw, remain = scan_constraint(s)
    ops = {"=": OP_EQ, "": OP_EQ, "!=": OP_NE, ">": OP_GT, ">=": OP_GE, "<": OP_LT, "<=": OP_LE}
    if raw.op in ops:
        op = ops[raw.op]
    elif raw.op == "~>":
        op = OP_PATCH_ONLY if raw.num_ct == 3 else OP_MINOR_ONLY
    elif raw.op == "=<":
        raise _ParseError(f'invalid constraint operator {go_quote(raw.op)}; did you mean "<="?', remain)
    elif raw.op == "=>":
        raise _ParseError(f'invalid constraint operator {go_quote(raw.op)}; did you mean ">="?', remain)
    else:
        raise _ParseError(f"invalid constraint operator {go_quote(raw.op)}", remain)
    if raw.sep == "":
        pass
    elif raw.sep == " ":
        if raw.op == "":
            raise _ParseError("extraneous spaces at start of specification", remain)
    else:
        if "v" in raw.sep:
            raise _ParseError('a "v" prefix should not be used when specifying versions', remain)
        if raw.op == "":
            raise _ParseError("extraneous spaces at start of specification", remain)
        raise _ParseError(f"only one space is expected after the operator {go_quote(raw.op)}", remain)
    if raw.num_ct > 3:
        raise _ParseError("too many numbered portions; only three are allowed (major, minor, patch)", remain)
    for i, n in enumerate(raw.nums):
        if n in ("*", "x", "X"):
            raise _ParseError(
                f"can't use wildcard for {_NUM_NAMES[i]} number; omit segments that should be unconstrained",
                remain)
    if raw.pre or raw.meta:
        raw.nums = tuple("0" if n == "" else n for n in raw.nums)
    try:
        boundary = raw.version_spec()
    except InvalidVersion as e:
        raise _ParseError(e.detail, remain) from None
    return Selection(op, boundary), remain


def parse_ruby_style(s: str) -> Selection:
    """``constraints.ParseRubyStyle``: exactly one selection. Raises :class:`InvalidConstraint`."""
    if s.strip() == "":
        raise InvalidConstraint("Invalid version constraint", "empty specification")
    try:
        sel, remain = _parse_ruby_selection(s)
    except _ParseError as e:
        raise InvalidConstraint("Invalid version constraint", e.args[0]) from None
    if remain != "":
        remain = remain.strip()
        if remain == "":
            msg = "extraneous spaces at end of specification"
        elif remain.startswith("v"):
            msg = 'a "v" prefix should not be used'
        elif remain.startswith(("||", ",")):
            msg = "only one constraint may be specified"
        elif remain.startswith("-"):
            msg = "range constraints are not supported"
        else:
            msg = f"invalid characters {go_quote(remain)}"
        raise InvalidConstraint("Invalid version constraint", msg)
    return sel


def parse_ruby_style_multi(s: str) -> Intersection:
    """``constraints.ParseRubyStyleMulti``: comma-separated selections, ANDed.

    ``""`` gives an empty intersection (no constraint). Raises :class:`InvalidConstraint`
    with go-versions' message, e.g. ``invalid specification "< v2.0": a "v" prefix ...``.
    """
    out: list[Selection] = []
    remain = s.strip(_SPACE)
    while remain != "":
        if remain.strip() == "":
            break
        try:
            sel, new_remain = _parse_ruby_selection(remain)
        except _ParseError as e:
            consumed = remain[: len(remain) - len(e.args[1])]
            raise InvalidConstraint(
                "Invalid version constraint",
                f"invalid specification {go_quote(consumed)}: {e.args[0]}") from None
        consumed = remain[: len(remain) - len(new_remain)]
        remain = new_remain.strip(_SPACE)
        if remain != "":
            if remain.startswith("v"):
                raise InvalidConstraint("Invalid version constraint",
                                        'a "v" prefix should not be used when specifying versions')
            if not remain.startswith(","):
                raise InvalidConstraint("Invalid version constraint",
                                        f"missing comma after {go_quote(consumed)}")
            remain = remain[1:].strip(_SPACE)
        out.append(sel)
    return tuple(out)


def _parse_canon_selection(s: str) -> tuple[Selection, str]:
    raw, remain = scan_constraint(s)
    if len(s) == len(remain):
        if remain and remain[0] == "v":
            raise _ParseError('a "v" prefix should not be used when specifying versions', remain)
        raise _ParseError(f"the sequence {go_quote(remain)} is not valid", remain)
    ops = {"": OP_UNCONSTRAINED, "=": OP_EQ, "!": OP_NE, ">": OP_GT, ">=": OP_GE, "<": OP_LT, "<=": OP_LE}
    if raw.op in ops:
        op = ops[raw.op]
    elif raw.op == "~":
        op = OP_PATCH_ONLY if raw.num_ct > 1 else OP_MINOR_ONLY
    elif raw.op == "^":
        op = OP_PATCH_ONLY if raw.nums[0][:1] == "0" else OP_MINOR_ONLY
    elif raw.op == "=<":
        raise _ParseError(f'invalid constraint operator {go_quote(raw.op)}; did you mean "<="?', remain)
    elif raw.op == "=>":
        raise _ParseError(f'invalid constraint operator {go_quote(raw.op)}; did you mean ">="?', remain)
    else:
        raise _ParseError(f"invalid constraint operator {go_quote(raw.op)}", remain)
    if raw.sep != "":
        if "v" in raw.sep:
            raise _ParseError('a "v" prefix should not be used when specifying versions', remain)
        raise _ParseError(f"no spaces allowed after operator {go_quote(raw.op)}", remain)
    if raw.num_ct > 3:
        raise _ParseError("too many numbered portions; only three are allowed (major, minor, patch)", remain)
    nums = list(raw.nums)
    seen_wild = False
    for i, n in enumerate(nums):
        if n in ("*", "x", "X"):
            seen_wild = True
        elif i >= raw.num_ct:
            nums[i] = "*" if seen_wild else "0"
        elif seen_wild:
            raise _ParseError(
                f"can't use exact {_NUM_NAMES[i]} segment after a previous segment was wildcard", remain)
    raw.nums = tuple(nums)
    if seen_wild:
        if raw.pre:
            raise _ParseError('can\'t use prerelease segment (introduced by "-") in a version with wildcards', remain)
        if raw.meta:
            raise _ParseError('can\'t use build metadata segment (introduced by "+") in a version with wildcards',
                              remain)
    try:
        boundary = raw.version_spec()
    except InvalidVersion as e:
        raise _ParseError(e.detail, remain) from None
    return Selection(op, boundary), remain


def parse_canon(s: str) -> Union:
    """``constraints.Parse`` (npm/cargo style: spaces AND, ``||`` OR, ``a - b`` ranges).

    Raises :class:`InvalidConstraint` with go-versions' message (e.g. ``commas are not needed
    to separate version selections; separate with spaces instead``).
    """
    def fail(msg: str):
        raise InvalidConstraint("Invalid version constraint", msg)

    s = s.strip(_SPACE)
    if s == "":
        fail("empty specification")
    union: list[tuple] = []
    inter: list[Selection] = []
    remain = s
    while True:
        try:
            sel, remain = _parse_canon_selection(remain)
        except _ParseError as e:
            fail(e.args[0])
        remain = remain.strip(_SPACE)
        if remain and remain[0] == "-":
            remain = remain[1:].strip(_SPACE)
            if remain == "":
                fail('operator "-" must be followed by another version selection to specify the upper limit of '
                     'the range')
            lower = sel
            try:
                upper, remain = _parse_canon_selection(remain)
            except _ParseError as e:
                fail(e.args[0])
            remain = remain.strip(_SPACE)
            if lower.op != OP_UNCONSTRAINED:
                fail('lower bound of range specified with "-" operator must be an exact version')
            if upper.op != OP_UNCONSTRAINED:
                fail('upper bound of range specified with "-" operator must be an exact version')
            lower = Selection(OP_GE, lower.boundary.constrain_to_zero())
            if upper.boundary.is_exact():
                upper = Selection(OP_LE, upper.boundary)
            else:
                upper = Selection(OP_LT, upper.boundary.constrain_to_upper_bound())
            inter += [lower, upper]
        else:
            if sel.op == OP_UNCONSTRAINED:
                sel = Selection(OP_EQ if sel.boundary.is_exact() else OP_MATCH, sel.boundary)
            if sel.op != OP_MATCH:
                if sel.op == OP_LE:
                    if not sel.boundary.is_exact():
                        sel = Selection(OP_LT, sel.boundary.constrain_to_upper_bound())
                elif sel.op == OP_GT:
                    if not sel.boundary.is_exact():
                        sel = Selection(OP_GE, sel.boundary.constrain_to_upper_bound())
                else:
                    sel = Selection(sel.op, sel.boundary.constrain_to_zero())
            inter.append(sel)
        if len(remain) == 0:
            break
        if remain[0] == ",":
            fail("commas are not needed to separate version selections; separate with spaces instead")
        if remain[0] == "|":
            if not remain.startswith("||"):
                fail('single "|" is not a valid operator; did you mean "||" to specify an alternative?')
            remain = remain[2:].strip(_SPACE)
            if remain == "":
                fail('operator "||" must be followed by another version selection')
            union.append(tuple(inter))
            inter = []
    union.append(tuple(inter))
    return tuple(union)


# --------------------------------------------------------------------------- sets


def _compile(sel: Selection) -> tuple:
    """(kind, lower, upper) for a selection, computed once: kinds ``all``, ``exact`` (member
    and requested when equal), ``ne``, ``gt``, ``ge``, ``lt``, ``le``, ``range`` (lower
    inclusive, upper exclusive)."""
    if sel.op == OP_UNCONSTRAINED:
        return ("all", None, None)
    if sel.op == OP_MATCH:
        b = sel.boundary
        d = b.depth()
        if d == 0:
            return ("all", None, None)
        if d == 3:
            return ("exact", b.to_version(), None)
        lower = replace(b.constrain_to_zero(), metadata="")
        if d == 1:
            upper = VersionSpec(Num(lower.major.num + 1), Num(0), Num(0))
        else:
            upper = VersionSpec(lower.major, Num(lower.minor.num + 1), Num(0), lower.prerelease)
        return ("range", lower.to_version(), upper.to_version())
    lower = sel.boundary.constrain_to_zero()
    if sel.op not in (OP_EQ, OP_NE):
        lower = replace(lower, metadata="")
    lo = lower.to_version()
    if sel.op == OP_EQ:
        return ("exact", lo, None)
    if sel.op == OP_NE:
        return ("ne", lo, None)
    if sel.op in (OP_GT, OP_GE, OP_LT, OP_LE):
        return ({OP_GT: "gt", OP_GE: "ge", OP_LT: "lt", OP_LE: "le"}[sel.op], lo, None)
    if sel.op == OP_MINOR_ONLY:
        return ("range", lo, Version(lo.major + 1, 0, 0, "", lo.metadata))
    if sel.op == OP_PATCH_ONLY:
        return ("range", lo, Version(lo.major, lo.minor + 1, 0, "", lo.metadata))
    raise AssertionError(sel.op)  # pragma: no cover - every parser operator is handled above


def _selection_has(sel: Selection, v: Version) -> tuple[bool, bool]:
    """(member, requested) of ``MeetingConstraints(sel)`` before the release filter."""
    kind, lo, up = sel.compiled
    if kind == "all":
        return True, False
    if kind == "exact":
        return v == lo, v == lo
    if kind == "ne":
        return v != lo, False
    if kind == "gt":
        return v.greater_than(lo), False
    if kind == "ge":
        return v.greater_than(lo) or v.same(lo), False
    if kind == "lt":
        return v.less_than(lo), False
    if kind == "le":
        return v.less_than(lo) or v.same(lo), False
    return (v.greater_than(lo) or v.same(lo)) and v.less_than(up), False


def _intersection_has(inter: tuple, v: Version) -> tuple[bool, bool]:
    member, requested = True, False
    for sel in inter:
        m, r = _selection_has(sel, v)
        member = member and m
        requested = requested or r
    return member, member and requested


def _union_has(union: tuple, v: Version) -> tuple[bool, bool]:
    if len(union) == 0:
        return True, False
    member = requested = False
    for inter in union:
        m, r = _intersection_has(inter, v)
        member = member or m
        requested = requested or r
    return member, requested


def meets(spec, v: Version) -> bool:
    """``versions.MeetingConstraints(spec).Has(v)``.

    ``spec`` is an intersection (tuple of :class:`Selection`, as from the Ruby-style
    parser) or a union (tuple of intersections, as from :func:`parse_canon`). Released
    versions need only be members; a prerelease must also be requested, i.e. named
    exactly by an ``=`` selection. The special version 0.0.0 (``versions.Unspecified``)
    is a member only of the unconstrained set (go-versions ``Set.Has``).
    """
    if v == UNSPECIFIED:
        return len(spec) == 0
    return _meets_inner(spec, v)


def _meets_inner(spec, v: Version) -> bool:
    if spec and isinstance(spec[0], tuple):
        member, requested = _union_has(spec, v)
    else:
        member, requested = _intersection_has(spec, v)
    return member and (v.prerelease == "" or requested)


def is_exactly_unspecified(spec: tuple) -> bool:
    """``set.Exactly(versions.Unspecified)`` for a Ruby-style intersection: the set is
    exactly {0.0.0} (OpenTofu's "0.0.0 is not a valid provider version")."""
    names_zero = any(s.op == OP_EQ and s.boundary.constrain_to_zero().to_version() == UNSPECIFIED
                     for s in spec)
    return names_zero and _meets_inner(spec, UNSPECIFIED)


# --------------------------------------------------------------------------- canonical string

_PRIORITY = {OP_GT: 1, OP_GE: 2, OP_EQ: 3, OP_PATCH_ONLY: 4, OP_MINOR_ONLY: 5, OP_LE: 6, OP_LT: 7, OP_NE: 8}
_SYMBOL = {OP_GT: "> ", OP_LT: "< ", OP_GE: ">= ", OP_PATCH_ONLY: "~> ", OP_MINOR_ONLY: "~> ",
           OP_LE: "<= ", OP_EQ: "", OP_NE: "!= "}


def canonical_string(spec: tuple) -> str:
    """OpenTofu's ``getproviders.VersionConstraintsString``: the lock file's ``constraints``.

    Deduplicates on (operator, boundary with unconstrained parts as 0), sorts by boundary
    (metadata as a tiebreak), then by operator priority ``> >= = ~>(patch) ~>(minor) <= < !=``,
    and joins with ``", "``.
    """
    import functools

    sels = []
    seen = set()
    for sel in spec:
        norm = Selection(sel.op, sel.boundary.constrain_to_zero())
        if norm not in seen:
            seen.add(norm)
            sels.append(norm)

    def boundary_cmp(a: VersionSpec, b: VersionSpec) -> int:
        av, bv = a.to_version(), b.to_version()
        if av.same(bv):
            if av.metadata == bv.metadata:
                return 0
            return -1 if _extra_less(av.metadata, bv.metadata) else 1
        return -1 if av.less_than(bv) else 1

    def cmp(a: Selection, b: Selection) -> int:
        c = boundary_cmp(a.boundary, b.boundary)
        if c == 0:
            return _PRIORITY.get(a.op, 0) - _PRIORITY.get(b.op, 0)
        return c

    parts = []
    for sel in sorted(sels, key=functools.cmp_to_key(cmp)):
        b = sel.boundary
        text = _SYMBOL.get(sel.op, "??? ")
        if sel.op == OP_MINOR_ONLY:
            text += f"{b.major}.{b.minor}"
        else:
            text += f"{b.major}.{b.minor}.{b.patch}"
        if b.prerelease:
            text += "-" + b.prerelease
        if b.metadata:
            text += "+" + b.metadata
        parts.append(text)
    return ", ".join(parts)
