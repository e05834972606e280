"""A test-only reader for the set-algebra expressions the go-versions tests write
(``Intersection(Released, Only(v(1.0.0)))``), giving (member, requested) per version.

It mirrors go-versions' set types (``set*.go``) independently of the implementation under
test, which computes membership straight from parsed constraints.
"""

from __future__ import annotations

import re

from tofu_solve.versions import apparentlymart_go_versions as gvs

_TOKEN = re.compile(r'\s*(?:(\w+)|(\()|(\))|(,)|(\.)|("(?:[^"\\]|\\.)*"))')


class S:
    def __init__(self, has, requested):
        self.has = has
        self.req = requested

    def member(self, v):
        return self.has(v)

    def requested(self, v):
        return self.req(v)


def _only(*vs):
    return S(lambda v: v in vs, lambda v: v in vs)


ATOMS = {
    "All": S(lambda v: True, lambda v: False),
    "None": S(lambda v: False, lambda v: False),
    "Released": S(lambda v: v.prerelease == "", lambda v: False),
    "Prerelease": S(lambda v: v.prerelease != "", lambda v: False),
    "InitialDevelopment": S(lambda v: v.less_than(gvs.Version(1, 0, 0)), lambda v: False),
}


def _bound(fn):
    return lambda b: S(lambda v: fn(v, b), lambda v: False)


FUNCS = {
    "Only": lambda v: _only(v),
    "Selection": lambda *vs: _only(*vs),
    "AtLeast": _bound(lambda v, b: v.greater_than(b) or v.same(b)),
    "AtMost": _bound(lambda v, b: v.less_than(b) or v.same(b)),
    "NewerThan": _bound(lambda v, b: v.greater_than(b)),
    "OlderThan": _bound(lambda v, b: v.less_than(b)),
    "Intersection": lambda *ss: S(lambda v: all(s.member(v) for s in ss),
                                  lambda v: all(s.member(v) for s in ss) and any(s.requested(v) for s in ss)),
    "Union": lambda *ss: S(lambda v: any(s.member(v) for s in ss), lambda v: any(s.requested(v) for s in ss)),
}


def _subtract(a, b):
    return S(lambda v: a.member(v) and not b.member(v), lambda v: a.requested(v) and not b.member(v))


METHODS = {
    "Subtract": _subtract,
    "AllRequested": lambda a: S(lambda v: a.requested(v), lambda v: a.requested(v)),
    "WithoutUnrequestedPrereleases": lambda a: FUNCS["Union"](
        METHODS["AllRequested"](a), FUNCS["Intersection"](ATOMS["Released"], a)),
    "Union": lambda a, b: FUNCS["Union"](a, b),
    "Intersection": lambda a, b: FUNCS["Intersection"](a, b),
}


def parse_version_loose(text: str) -> gvs.Version:
    """``v("1.0")`` in the tests may omit parts: pad as go-versions does."""
    return gvs.Version.parse(text)


class _Parser:
    def __init__(self, text, meeting):
        self.toks = list(_TOKEN.finditer(text))
        self.i = 0
        self.text = text
        self.meeting = meeting

    def peek(self):
        return self.toks[self.i] if self.i < len(self.toks) else None

    def take(self):
        t = self.toks[self.i]
        self.i += 1
        return t

    def expect(self, group):
        t = self.take()
        assert t.group(group), (self.text, t.group(0))
        return t

    def expr(self):
        t = self.take()
        name = t.group(1)
        if name == "V":
            self.expect(2)
            value = parse_version_loose(self.take().group(6)[1:-1])
            self.expect(3)
        elif name in ("MustMakeSet",):
            self.expect(2)
            inner = self.take()
            assert inner.group(1) in ("MeetingConstraintsStringRuby", "MeetingConstraintsString")
            self.expect(2)
            s = self.take().group(6)
            self.expect(3)
            self.expect(3)
            value = self.meeting(inner.group(1), s[1:-1].encode().decode("unicode_escape"))
        elif name in ATOMS:
            value = ATOMS[name]
        else:
            self.expect(2)
            args = []
            while not self.peek().group(3):
                args.append(self.expr())
                if self.peek().group(4):
                    self.take()
            self.expect(3)
            value = FUNCS[name](*args)
        while self.peek() is not None and self.peek().group(5):
            self.take()
            meth = self.take().group(1)
            self.expect(2)
            args = []
            while not self.peek().group(3):
                args.append(self.expr())
                if self.peek().group(4):
                    self.take()
            self.expect(3)
            value = METHODS[meth](value, *args)
        return value


def evaluate(text: str, meeting) -> S:
    """Evaluate a set expression; ``meeting(kind, constraint)`` builds constraint sets."""
    p = _Parser(re.sub(r"\bv\(([^()]*)\)", r'V("\1")', text), meeting)
    out = p.expr()
    assert p.peek() is None, text
    return out


def parse_v(text: str) -> gvs.Version:
    m = re.fullmatch(r"v\((.*)\)", text)
    return gvs.Version.parse(m.group(1)) if m else None
