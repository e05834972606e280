"""Durations and exact pins for the release cooldown (issue #25)."""

from __future__ import annotations

import pytest

from tofu_solve.versions.cooldown import (
    InvalidDuration,
    exact_version,
    format_age,
    format_duration,
    min_age_setting,
    parse_duration,
)


@pytest.mark.parametrize("text,seconds", [
    ("7d", 7 * 86400), ("36h", 36 * 3600), ("1d12h", 36 * 3600), ("90m", 5400), ("2w", 14 * 86400),
    ("45s", 45), ("0", 0), ("", 0), (" 7D ", 7 * 86400),
])
def test_parse_duration(text, seconds):
    assert parse_duration(text) == seconds


@pytest.mark.parametrize("text", ["7", "7 days", "d", "-1d", "1.5d", "7d junk", "1y"])
def test_invalid_durations(text):
    with pytest.raises(InvalidDuration) as e:
        parse_duration(text)
    assert "-min-age" in e.value.detail


def test_flag_wins_over_environment():
    assert min_age_setting("1d", "7d") == 86400
    assert min_age_setting(None, "7d") == 7 * 86400
    assert min_age_setting("0", "7d") == 0
    assert min_age_setting(None, None) == 0
    with pytest.raises(InvalidDuration) as e:
        min_age_setting(None, "soon")
    assert "TOFU_SOLVE_MIN_AGE" in e.value.detail


def test_formats():
    assert format_duration(7 * 86400) == "7d" and format_duration(36 * 3600) == "1d12h"
    assert format_age(2 * 86400 + 5) == "2 days" and format_age(3600) == "1 hour" and format_age(5) == \
        "less than a minute"


@pytest.mark.parametrize("constraint,version", [
    ("1.2.3", "1.2.3"), ("= 1.2.3", "1.2.3"), ("=v1.2.3", "1.2.3"), ("1.2.3-beta1", "1.2.3-beta1"),
    ("~> 1.2", None), (">= 1.0, < 2.0", None), ("!= 1.2.3", None), (None, None),
])
def test_exact_version(constraint, version):
    assert exact_version(constraint) == version
