"""OpenTofu's registry module pick and provider version pick, and the public API."""

import pytest

from tests.conftest import VECTORS
from tofu_solve.errors import (
    InvalidConstraint,
    NoMatchingVersionError,
    NoVersionsError,
    TofuSolveError,
    VersionError,
)
from tofu_solve.versions import (
    list_module_versions,
    module_constraint,
    provider_constraint,
    select_module_version,
    select_provider_version,
)

PC = VECTORS["tofu_provider_constraints"]


def test_public_api_examples():
    assert module_constraint("~> 1.2").allows("1.9.0") is True
    assert provider_constraint("~> 1").allows("2.0.0") is False
    assert select_module_version("~> 1.2", ["1.2.0", "1.3.0-beta"]) == "1.2.0"


@pytest.mark.parametrize("case", VECTORS["tofu_module_selection"], ids=lambda c: c["id"])
def test_module_selection_matches_opentofu(case):
    if case["expected_error"]:
        kind = {"Unresolvable module version constraint": NoMatchingVersionError,
                "Module has no versions": NoVersionsError,
                "Invalid version constraint": InvalidConstraint}[case["expected_error"]]
        with pytest.raises(kind) as e:
            select_module_version(case["constraint"], case["available"])
        assert e.value.summary == case["expected_error"]
        if case.get("expected_error_newest"):
            assert e.value.newest == case["expected_error_newest"]
    else:
        assert select_module_version(case["constraint"], case["available"]) == case["expected_selected_canonical"]


def test_no_versions_and_no_match_are_distinct():
    with pytest.raises(NoVersionsError, match="Module has no versions"):
        select_module_version(">= 1.0", [])
    with pytest.raises(NoVersionsError):
        # only unrequested prereleases: they do not count as available
        select_module_version(">= 1.0", ["2.0.0-beta"])
    with pytest.raises(NoMatchingVersionError) as e:
        select_module_version("~> 3.0", ["1.0.0", "2.1.0", "2.0.0"])
    assert e.value.newest == "2.1.0"
    assert "The newest available version is 2.1.0" in e.value.detail


def test_invalid_registry_versions_are_skipped():
    listing = list_module_versions(">= 1.0", ["1.0.0", "not-a-version", "2.0.0"])
    assert listing.invalid == ("not-a-version",)
    assert [v.string for v in listing.matching] == ["2.0.0", "1.0.0"]


def test_module_ties_go_to_first_listed():
    # equal under go-version Compare (metadata differs): OpenTofu keeps the first listed
    listing = list_module_versions(None, ["1.0.0+b", "1.0.0+a"])
    assert listing.matching[0].original == "1.0.0+b"


def test_no_version_argument_never_selects_prereleases():
    assert select_module_version(None, ["1.0.0", "2.0.0-rc1"]) == "1.0.0"


def test_v_prefixed_registry_versions_are_normalized():
    assert select_module_version("~> 1.0", ["v1.0.0", "v1.4.2"]) == "1.4.2"


@pytest.mark.parametrize("text,canonical,_name", PC["canonical_string"] + PC["canonical_string_other"])
def test_canonical_provider_constraints(text, canonical, _name):
    assert provider_constraint(text).canonical == canonical


@pytest.mark.parametrize("case", PC["selection"], ids=lambda c: c["id"])
def test_provider_selection_matches_opentofu(case):
    kwargs = {"locked": case["locked"], "upgrade": case["upgrade"], "provider": case["provider"]}
    if case["expected_error"]:
        with pytest.raises(TofuSolveError) as e:
            select_provider_version(case["constraints"], case["available"], **kwargs)
        assert e.value.detail == case["expected_error"]
    else:
        assert select_provider_version(case["constraints"], case["available"], **kwargs) == case["expected_selected"]


def test_meeting_constraints_vector():
    for text, version, expected in PC["meeting_constraints"]:
        assert provider_constraint(text).allows(version) is expected


def test_provider_ties_go_to_last_listed():
    # a stable ascending sort walked from the end: the last of equal versions wins
    assert select_provider_version([], ["1.0.0+a", "1.0.0+b"]) == "1.0.0+b"


@pytest.mark.parametrize("text", ["", "== 1.0", ">= 1.0 < 2.0", "1.0,", "~>"])
def test_invalid_module_constraints_name_the_text(text):
    with pytest.raises(InvalidConstraint) as e:
        module_constraint(text)
    assert e.value.summary == "Invalid version constraint"
    assert repr(text) in e.value.detail


@pytest.mark.parametrize("text,fragment", [
    ("v1.0.0", 'a "v" prefix should not be used'),
    (">=  1.0", "only one space is expected"),
    ("1.0.0.0", "too many numbered portions"),
])
def test_provider_constraints_need_both_parsers(text, fragment):
    with pytest.raises(InvalidConstraint) as e:
        provider_constraint(text)
    assert fragment in e.value.detail or "does not use correct version constraint syntax" in e.value.detail


def test_provider_constraint_rejected_by_go_version_first():
    # go-versions alone would accept "~> 1.2.3-beta.1+x"? it must also pass go-version
    with pytest.raises(InvalidConstraint, match="does not use correct version constraint syntax"):
        provider_constraint("1.0 || 2.0")


def test_error_is_a_version_error():
    with pytest.raises(VersionError):
        select_provider_version([">= 2.0.0"], ["1.0.0"])
