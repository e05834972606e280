"""apparentlymart/go-versions v1.0.3 conformance: provider constraints (Ruby style), the
npm-style parser OpenTofu's module prerelease gate uses, version parsing and set
membership. Every verbatim vector."""

import pytest

from tests.conftest import VECTORS
from tests.versions import setexpr
from tofu_solve.errors import InvalidConstraint, InvalidVersion
from tofu_solve.versions import apparentlymart_go_versions as gvs

GVS = VECTORS["go_versions"]

# Probe versions for comparing set expressions with the implementation.
PROBES = [gvs.Version.parse(t) for t in (
    "0.0.1", "0.0.2", "0.9.0", "0.9.1", "0.9.5", "0.10.0", "1.0.0", "1.0.0-beta1", "1.0.0-beta.1", "1.0.1",
    "1.0.2", "1.1.0", "1.2.0", "1.2.3", "1.2.4", "1.2.5", "1.3.0", "2.0.0", "2.0.0-beta1", "2.0.0-beta.1",
    "2.0.0-beta.2", "2.0.1", "3.0.0", "1.0.0+meta", "1.2.3-beta", "0.2.5", "0.3.0")]


def _spec_dicts(spec):
    return [s.as_dict() for s in spec]


@pytest.mark.parametrize("case", GVS["ruby_parse"], ids=lambda c: repr(c["input"]))
def test_ruby_parse(case):
    if case["ok"]:
        assert gvs.parse_ruby_style(case["input"]).as_dict() == case["spec"]
    else:
        with pytest.raises(InvalidConstraint) as e:
            gvs.parse_ruby_style(case["input"])
        assert e.value.detail == case["error"]


@pytest.mark.parametrize("case", GVS["ruby_parse_multi"], ids=lambda c: repr(c["input"]))
def test_ruby_parse_multi(case):
    if case["ok"]:
        assert _spec_dicts(gvs.parse_ruby_style_multi(case["input"])) == case["spec"]
    else:
        with pytest.raises(InvalidConstraint) as e:
            gvs.parse_ruby_style_multi(case["input"])
        assert e.value.detail == case["error"]


@pytest.mark.parametrize("case", GVS["canon_parse"], ids=lambda c: repr(c["input"]))
def test_canon_parse(case):
    if case["ok"]:
        assert [_spec_dicts(i) for i in gvs.parse_canon(case["input"])] == case["spec"]
    else:
        with pytest.raises(InvalidConstraint) as e:
            gvs.parse_canon(case["input"])
        assert e.value.detail == case["error"]


@pytest.mark.parametrize("text,canonical", GVS["parse_valid"])
def test_parse_version_valid(text, canonical):
    assert str(gvs.Version.parse(text)) == canonical


@pytest.mark.parametrize("text,error", GVS["parse_invalid"])
def test_parse_version_invalid(text, error):
    with pytest.raises(InvalidVersion) as e:
        gvs.Version.parse(text)
    assert e.value.detail == error


def test_version_string_round_trip():
    for text, expected in GVS["version_string"]:
        assert str(gvs.Version.parse(text)) == expected


@pytest.mark.parametrize("constraint,version,expected", GVS["check"])
def test_check_ruby(constraint, version, expected):
    assert gvs.meets(gvs.parse_ruby_style_multi(constraint), gvs.Version.parse(version)) is expected


def _meeting(kind, text):
    spec = gvs.parse_ruby_style_multi(text) if kind.endswith("Ruby") else gvs.parse_canon(text)
    return setexpr.S(lambda v: gvs.meets(spec, v), lambda v: False)


@pytest.mark.parametrize("case", GVS["set_has"], ids=lambda c: f'{c["set"]}~{c["version"]}')
def test_set_has(case):
    # Rows on the special Unspecified version state the Set.Has wrapper rule (0.0.0 is a
    # member of All only); test_unspecified checks the implementation follows it.
    if case["version"] == "Unspecified":
        assert case["want"] is (case["set"] == "All")
        return
    if not case["set"].startswith("MustMakeSet"):
        # pure set algebra: check the test helper itself reproduces go-versions
        s = setexpr.evaluate(case["set"], _meeting)
        assert s.member(setexpr.parse_v(case["version"])) is case["want"]
        return
    inner = case["set"]
    s = setexpr.evaluate(inner, lambda kind, text: _requested_aware(kind, text))
    assert s.member(setexpr.parse_v(case["version"])) is case["want"]


def _requested_aware(kind, text):
    spec = gvs.parse_ruby_style_multi(text)

    def requested(v):
        # requested = named by an exact selection and a member
        return gvs.meets(spec, v) and any(
            s.op == gvs.OP_EQ and s.boundary.constrain_to_zero().to_version() == v for s in spec)
    return setexpr.S(lambda v: gvs.meets(spec, v), requested)


def test_unspecified():
    # go-versions Set.Has: 0.0.0 is a member of the unconstrained set only.
    assert gvs.meets((), gvs.UNSPECIFIED)
    assert not gvs.meets(gvs.parse_ruby_style_multi(">= 0.0.0"), gvs.UNSPECIFIED)
    assert not gvs.meets(gvs.parse_ruby_style_multi("!= 1.0.0"), gvs.UNSPECIFIED)


@pytest.mark.parametrize("key", ["meeting_constraints_canon", "meeting_constraints_ruby"])
def test_meeting_constraints_sets(key):
    parse = gvs.parse_canon if key.endswith("canon") else gvs.parse_ruby_style_multi
    for case in GVS[key]:
        spec = parse(case["input"])
        want = setexpr.evaluate(case["want_set"], _meeting)
        for v in PROBES + [gvs.Version.parse("1.0.0-beta.1"), gvs.Version.parse("2.0.0-beta.1")]:
            assert gvs.meets(spec, v) is bool(want.member(v)), (case["input"], str(v))


def test_requested_prerelease_rules():
    # Prereleases are in the set only when named exactly (MeetingConstraints).
    assert not gvs.meets(gvs.parse_ruby_style_multi(">= 1.2.3-beta"), gvs.Version.parse("1.2.3-beta"))
    assert gvs.meets(gvs.parse_ruby_style_multi("1.2.0-beta.1, >= 1.0"), gvs.Version.parse("1.2.0-beta.1"))
    assert not gvs.meets(gvs.parse_ruby_style_multi("!= 2.0.0-beta1, 2.0.0-beta1"), gvs.Version.parse("2.0.0-beta1"))
    # go-versions ~> with a prerelease matches releases only
    spec = gvs.parse_ruby_style_multi("~> 1.2.3-beta")
    assert gvs.meets(spec, gvs.Version.parse("1.2.4")) and not gvs.meets(spec, gvs.Version.parse("1.2.3-rc1"))


def test_metadata_rules():
    # = and != compare metadata; other operators drop it.
    assert not gvs.meets(gvs.parse_ruby_style_multi("1.2.3"), gvs.Version.parse("1.2.3+meta"))
    assert gvs.meets(gvs.parse_ruby_style_multi("!= 2.1.0"), gvs.Version.parse("2.1.0+build.7"))
    assert gvs.meets(gvs.parse_ruby_style_multi(">= 1.2.3"), gvs.Version.parse("1.2.3+meta"))


def test_prerelease_ordering_quirk():
    # go-versions: the side that runs out of dots first is less, whatever the content.
    assert gvs.Version.parse("1.0.0-beta").less_than(gvs.Version.parse("1.0.0-alpha.1"))
    assert gvs.Version.parse("1.0.0-rc1").less_than(gvs.Version.parse("1.0.0-rc.1"))
    assert gvs.Version.parse("1.0.0-1").less_than(gvs.Version.parse("1.0.0-01"))


def test_trailing_separator_is_dropped():
    # ParseVersion silently accepts and drops an empty trailing "-", "+" or "."
    for text in ("1.2.3-", "1.2.3+", "1.2.3."):
        assert str(gvs.Version.parse(text)) == "1.2.3"
