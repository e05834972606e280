"""hashicorp/go-version v1.9.0 conformance: every verbatim vector (module semantics)."""

import pytest

from tests.conftest import VECTORS
from tofu_solve.errors import InvalidConstraint, InvalidVersion
from tofu_solve.versions.hashicorp_go_version import GoConstraints, GoVersion

GV = VECTORS["go_version"]


@pytest.mark.parametrize("constraint,version,expected", GV["check"])
def test_check(constraint, version, expected):
    assert GoConstraints.parse(constraint).check(GoVersion.parse(version)) is expected


@pytest.mark.parametrize("a,b,sign", GV["compare"])
def test_compare(a, b, sign):
    assert GoVersion.parse(a).compare(GoVersion.parse(b)) == sign


@pytest.mark.parametrize("kind", ["equal", "gt", "lt", "gte", "lte"])
def test_predicates(kind):
    for a, b, expected in GV["predicates"][kind]:
        c = GoVersion.parse(a).compare(GoVersion.parse(b))
        got = {"equal": c == 0, "gt": c > 0, "lt": c < 0, "gte": c >= 0, "lte": c <= 0}[kind]
        assert got is expected, (kind, a, b)


@pytest.mark.parametrize("text", GV["parse_valid"])
def test_parse_valid(text):
    assert GoVersion.parse(text).original == text


@pytest.mark.parametrize("text", GV["parse_invalid"])
def test_parse_invalid(text):
    with pytest.raises(InvalidVersion) as e:
        GoVersion.parse(text)
    assert "Malformed version" in e.value.detail


@pytest.mark.parametrize("text,expected", GV["version_string"])
def test_string(text, expected):
    assert str(GoVersion.parse(text)) == expected


@pytest.mark.parametrize("text,expected", GV["version_core"])
def test_core(text, expected):
    assert str(GoVersion.parse(text).core) == expected


@pytest.mark.parametrize("text,expected", GV["version_prerelease"])
def test_prerelease(text, expected):
    assert GoVersion.parse(text).prerelease == expected


@pytest.mark.parametrize("text,expected", GV["version_metadata"])
def test_metadata(text, expected):
    assert GoVersion.parse(text).metadata == expected


@pytest.mark.parametrize("text,expected", GV["version_segments"])
def test_segments(text, expected):
    assert list(GoVersion.parse(text).segments) == expected


@pytest.mark.parametrize("text,ok,count", GV["constraint_parse"])
def test_constraint_parse(text, ok, count):
    if ok:
        assert len(GoConstraints.parse(text).items) == count
    else:
        with pytest.raises(InvalidConstraint):
            GoConstraints.parse(text)


@pytest.mark.parametrize("text,expected", GV["constraint_prerelease"])
def test_constraint_prerelease(text, expected):
    assert GoConstraints.parse(text).items[0].prerelease is expected


@pytest.mark.parametrize("a,b,expected", GV["constraint_equals"])
def test_constraint_equals(a, b, expected):
    assert GoConstraints.parse(a).equals(GoConstraints.parse(b)) is expected


@pytest.mark.parametrize("text,expected", GV["constraint_sort"])
def test_constraint_sort(text, expected):
    assert str(GoConstraints.parse(text).sorted()) == expected


@pytest.mark.parametrize("text,expected", GV["constraint_string"])
def test_constraint_string(text, expected):
    assert str(GoConstraints.parse(text)) == expected


def test_collection_sort():
    for case in GV["sort"]:
        assert [str(v) for v in sorted(GoVersion.parse(t) for t in case["input"])] == case["expected"]


def test_pessimistic_single_segment_has_no_upper_bound():
    # OpenTofu behaviour (go-version): `~> 1` is `>= 1.0.0`, unlike provider constraints.
    c = GoConstraints.parse("~> 1")
    assert c.check(GoVersion.parse("2.0.0")) and c.check(GoVersion.parse("10.0.0"))
    assert not c.check(GoVersion.parse("0.9.0"))


def test_go_whitespace_is_not_python_whitespace():
    # Go's \s has no \v: a vertical tab around an operator is malformed.
    with pytest.raises(InvalidConstraint):
        GoConstraints.parse(">=\v1.0")
    # and a trailing newline is not accepted by an anchored Go regexp the way Python's $ would
    with pytest.raises(InvalidVersion):
        GoVersion.parse("1.2.3\n")


def test_equal_versions_hash_alike():
    a, b = GoVersion.parse("1.0.0.0-beta"), GoVersion.parse("1.0.0")
    assert a == b and hash(a) == hash(b)
