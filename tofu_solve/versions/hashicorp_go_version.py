"""hashicorp/go-version v1.9.0, as OpenTofu uses it for module ``version`` arguments.

Everything here matches the Go library's behaviour, quirks included (see
``../shared/docs/opentofu-reference.md`` §1 and ``conformance/README.md`` §4):

* versions may carry a ``v`` prefix, any number of numeric segments (padded to three),
  and a prerelease without a hyphen (``1.7rc2``);
* ``~>`` pins every written segment but the last, so ``~> 1`` has no upper bound;
* a prerelease version only matches ``>``/``>=``/``<``/``<=``/``~>`` constraints whose own
  version is a prerelease of the same segments; ``=`` and ``!=`` skip that rule;
* build metadata never counts in comparisons.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property, total_ordering

from ..errors import InvalidConstraint, InvalidVersion

# gv version.go VersionRegexpRaw, verbatim.
VERSION_REGEXP_RAW = (
    r"v?([0-9]+(\.[0-9]+)*?)"
    r"(-([0-9]+[0-9A-Za-z\-~]*(\.[0-9A-Za-z\-~]+)*)|(-?([A-Za-z\-~]+[0-9A-Za-z\-~]*(\.[0-9A-Za-z\-~]+)*)))?"
    r"(\+([0-9A-Za-z\-~]+(\.[0-9A-Za-z\-~]+)*))?"
    r"?"
)
_VERSION_RE = re.compile(VERSION_REGEXP_RAW)
# Go's \s is [\t\n\f\r ] (no \v, no Unicode spaces).
_GO_SPACE = r"[\t\n\f\r ]"
_OPERATORS = ("", "=", "!=", ">", "<", ">=", "<=", "~>")
_CONSTRAINT_RE = re.compile(
    rf"{_GO_SPACE}*(~>|>=|<=|!=|>|<|=|){_GO_SPACE}*({VERSION_REGEXP_RAW}){_GO_SPACE}*"
)
_INT64_MAX = 2**63 - 1


@total_ordering
@dataclass(frozen=True, eq=False)
class GoVersion:
    """A version as hashicorp/go-version parses it.

    Attributes:
        segments: numeric segments, padded with zeros to at least three.
        si: how many numeric segments were written.
        pre: prerelease text ("" when none).
        metadata: build metadata ("" when none).
        original: the text as given.
    """

    segments: tuple[int, ...]
    si: int
    pre: str
    metadata: str
    original: str

    @classmethod
    def parse(cls, text: str) -> GoVersion:
        """Parse like ``version.NewVersion``.

        Raises:
            InvalidVersion: malformed text, or a segment beyond int64.
        """
        m = _VERSION_RE.fullmatch(text) if isinstance(text, str) else None
        if m is None:
            raise InvalidVersion("Invalid version", f"Malformed version: {text}")
        parts = m.group(1).split(".")
        segs = []
        for p in parts:
            val = int(p)
            if val > _INT64_MAX:
                raise InvalidVersion(
                    "Invalid version",
                    f'error parsing version: strconv.ParseInt: parsing "{p}": value out of range',
                )
            segs.append(val)
        while len(segs) < 3:
            segs.append(0)
        pre = m.group(7) or m.group(4) or ""
        return cls(tuple(segs), len(parts), pre, m.group(10) or "", text)

    # --- accessors, named as in go-version ---
    @property
    def prerelease(self) -> str:
        return self.pre

    @property
    def core(self) -> GoVersion:
        """``Core()``: the first three segments, no prerelease or metadata."""
        s = self.segments[:3]
        return GoVersion(s, 3, "", "", ".".join(map(str, s)))

    @cached_property
    def string(self) -> str:
        """``String()``: segments joined, then ``-pre`` and ``+metadata`` (no ``v``)."""
        out = ".".join(str(s) for s in self.segments)
        if self.pre:
            out += "-" + self.pre
        if self.metadata:
            out += "+" + self.metadata
        return out

    def __str__(self) -> str:
        return self.string

    def __repr__(self) -> str:
        return f"GoVersion({self.original!r})"

    def compare(self, other: GoVersion) -> int:
        """``Compare``: -1, 0 or 1; gv's ordering, quirks included."""
        if self.string == other.string:
            return 0
        if self.segments == other.segments:
            ps, po = self.pre, other.pre
            if ps == "" and po == "":
                return 0
            if ps == "":
                return 1
            if po == "":
                return -1
            return _compare_prereleases(ps, po)
        a, b = self.segments, other.segments
        for i in range(max(len(a), len(b))):
            if i > len(a) - 1:
                return -1 if any(b[i:]) else 0
            if i > len(b) - 1:
                return 1 if any(a[i:]) else 0
            if a[i] != b[i]:
                return -1 if a[i] < b[i] else 1
        return 0

    def equal(self, other: GoVersion) -> bool:
        return self.compare(other) == 0

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, GoVersion):
            return NotImplemented
        return self.compare(other) == 0

    def __lt__(self, other: GoVersion) -> bool:
        return self.compare(other) < 0

    def __hash__(self) -> int:
        # Versions that compare equal have the same numeric segments once trailing
        # zeros are dropped, so hashing those alone is consistent with __eq__.
        segs = list(self.segments)
        while segs and segs[-1] == 0:
            segs.pop()
        return hash(tuple(segs))


def _compare_part(a: str, b: str) -> int:
    if a == b:
        return 0
    a_num, b_num = _parse_int64(a), _parse_int64(b)
    if a == "":
        return -1 if b_num is not None else 1
    if b == "":
        return 1 if a_num is not None else -1
    if a_num is not None and b_num is None:
        return -1
    if a_num is None and b_num is not None:
        return 1
    if a_num is None and b_num is None and a > b:
        return 1
    if (a_num or 0) > (b_num or 0):
        return 1
    return -1


def _parse_int64(s: str) -> int | None:
    """strconv.ParseInt(s, 10, 64), or None when it fails."""
    if not re.fullmatch(r"[+-]?[0-9]+", s):
        return None
    v = int(s)
    if v > _INT64_MAX or v < -_INT64_MAX - 1:
        return None
    return v


def _compare_prereleases(a: str, b: str) -> int:
    if a == b:
        return 0
    pa, pb = a.split("."), b.split(".")
    for i in range(max(len(pa), len(pb))):
        x = pa[i] if i < len(pa) else ""
        y = pb[i] if i < len(pb) else ""
        c = _compare_part(x, y)
        if c != 0:
            return c
    return 0


def _prerelease_check(v: GoVersion, c: GoVersion) -> bool:
    if c.pre and v.pre:
        return v.segments == c.segments
    if not c.pre and v.pre:  # noqa: SIM103 (as go-version's prereleaseCheck is written)
        return False
    return True


def _op_eq(v, c):
    return v.equal(c)


def _op_ne(v, c):
    return not v.equal(c)


def _op_gt(v, c):
    return _prerelease_check(v, c) and v.compare(c) == 1


def _op_lt(v, c):
    return _prerelease_check(v, c) and v.compare(c) == -1


def _op_ge(v, c):
    return _prerelease_check(v, c) and v.compare(c) >= 0


def _op_le(v, c):
    return _prerelease_check(v, c) and v.compare(c) <= 0


def _op_pessimistic(v: GoVersion, c: GoVersion) -> bool:
    if not _prerelease_check(v, c) or (c.pre and not v.pre):
        return False
    if v.compare(c) < 0:
        return False
    cs = len(c.segments)
    if cs > len(v.segments):
        return False
    for i in range(c.si - 1):
        if v.segments[i] != c.segments[i]:
            return False
    if c.segments[cs - 1] > v.segments[cs - 1]:  # noqa: SIM103 (as go-version's constraintPessimistic)
        return False
    return True


# operator text -> (go-version operator rune used for sorting, check function)
_OPS = {
    "": ("=", _op_eq),
    "=": ("=", _op_eq),
    "!=": ("≠", _op_ne),
    ">": (">", _op_gt),
    "<": ("<", _op_lt),
    ">=": ("≥", _op_ge),
    "<=": ("≤", _op_le),
    "~>": ("~", _op_pessimistic),
}


@dataclass(frozen=True)
class GoConstraint:
    """One element of a go-version constraint list (``>= 1.2``)."""

    op: str  # the operator rune go-version uses ("=", "≠", ">", "<", "≥", "≤", "~")
    operator_text: str  # as written ("" for none)
    version: GoVersion
    original: str

    def check(self, v: GoVersion) -> bool:
        return _OPS[self.operator_text][1](v, self.version)

    @property
    def prerelease(self) -> bool:
        return self.version.pre != ""

    def equals(self, other: GoConstraint) -> bool:
        return self.op == other.op and self.version.equal(other.version)

    def __str__(self) -> str:
        return self.original


@dataclass(frozen=True)
class GoConstraints:
    """A comma-separated go-version constraint list: every element must hold (AND)."""

    items: tuple[GoConstraint, ...]
    text: str = field(compare=False)

    @classmethod
    def parse(cls, text: str) -> GoConstraints:
        """Parse like ``version.NewConstraint``.

        Raises:
            InvalidConstraint: any element malformed (``""``, ``"1.0,"``, ``"== 1"``,
                ``">= 1.0 < 2.0"``...), naming the element.
        """
        if not isinstance(text, str):
            raise InvalidConstraint("Invalid version constraint", f"Not a string: {text!r}")
        items = []
        for single in text.split(","):
            m = _CONSTRAINT_RE.fullmatch(single)
            if m is None:
                raise InvalidConstraint(
                    "Invalid version constraint",
                    f"Malformed constraint: {single!r} in {text!r}. This string does not use "
                    "correct version constraint syntax.",
                )
            try:
                ver = GoVersion.parse(m.group(2))
            except InvalidVersion as e:
                raise InvalidConstraint(
                    "Invalid version constraint", f"{e.detail} in {text!r}"
                ) from None
            op_text = m.group(1)
            items.append(GoConstraint(_OPS[op_text][0], op_text, ver, single))
        return cls(tuple(items), text)

    def check(self, v: GoVersion) -> bool:
        return all(c.check(v) for c in self.items)

    def sorted(self) -> GoConstraints:
        """``sort.Sort``: by operator rune, then by version."""
        import functools

        def cmp(a: GoConstraint, b: GoConstraint) -> int:
            if a.op != b.op:
                return -1 if a.op < b.op else 1
            return -1 if a.version.compare(b.version) < 0 else (1 if b.version.compare(a.version) < 0 else 0)

        items = sorted(self.items, key=functools.cmp_to_key(cmp))
        return GoConstraints(tuple(items), ",".join(c.original for c in items))

    def equals(self, other: GoConstraints) -> bool:
        """``Equals``: order-insensitive, operator and version equality."""
        if len(self.items) != len(other.items):
            return False
        return all(a.equals(b) for a, b in zip(self.sorted().items, other.sorted().items, strict=False))

    def __str__(self) -> str:
        # gv Constraints.String(): original element texts joined with ",".
        return ",".join(c.original for c in self.items)
