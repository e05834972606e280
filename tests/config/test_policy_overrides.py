"""Committed policy overrides (issue #84 §4): read from ``tofu-solve-overrides.hcl`` at the
repository's top only, each with a reason and an expiry date, limited to the roots it names;
an expired one, or one without reason or date, is an error at its line."""

from __future__ import annotations

from datetime import date

import pytest

from tofu_solve.config.policy_overrides import OVERRIDES_FILE, read_committed_overrides
from tofu_solve.errors import ConfigurationError
from tofu_solve.settings import ReadLog

TODAY = date(2026, 12, 7)


def _repo(tmp_path, text: str):
    (tmp_path / ".git").mkdir()
    (tmp_path / OVERRIDES_FILE).write_text(text)
    for r in ("live/prod/app", "live/dev/app"):
        (tmp_path / r).mkdir(parents=True)
    return tmp_path


def _read(root, **kw):
    return read_committed_overrides(root, lambda p: p.name, lambda: TODAY, **kw)


def test_an_override_applies_to_the_roots_it_names_until_its_last_day(tmp_path):
    repo = _repo(tmp_path, 'override "eks_tested_line" {\n  reason  = "verified in staging"\n'
                           '  expires = "2026-12-07"\n  roots   = ["live/prod/*"]\n}\n')
    (o,) = _read(repo / "live" / "prod" / "app")
    assert (o.label, o.reason, o.expires, o.where.line) == ("eks_tested_line", "verified in staging", TODAY, 1)
    assert _read(repo / "live" / "dev" / "app") == ()  # not named: the rule holds there
    reads = ReadLog()
    _read(repo / "live" / "dev" / "app", reads=reads)
    assert str(repo / OVERRIDES_FILE) in reads.paths  # the warm path watches it


def test_an_expired_override_is_an_error_at_its_line(tmp_path):
    repo = _repo(tmp_path, '# reviewed\noverride "x" {\n  reason  = "r"\n  expires = "2026-12-06"\n}\n')
    with pytest.raises(ConfigurationError) as e:
        _read(repo / "live" / "prod" / "app")
    assert e.value.summary == "Policy override expired" and e.value.where.line == 4


@pytest.mark.parametrize("block,line", [
    ('override "x" {\n  expires = "2027-01-01"\n}\n', 1),
    ('override "x" {\n  reason  = "r"\n  expires = "next week"\n}\n', 3),
    ('override "x" {\n  reason  = "r"\n  expires = "2027-01-01"\n  owner = "me"\n}\n', 4),
    ('override {\n  reason  = "r"\n}\n', 1),
])
def test_an_override_without_reason_or_date_is_refused_at_its_line(tmp_path, block, line):
    repo = _repo(tmp_path, block)
    with pytest.raises(ConfigurationError) as e:
        _read(repo / "live" / "prod" / "app")
    assert e.value.where.line == line


def test_outside_a_repository_no_file_is_read(tmp_path):
    (tmp_path / OVERRIDES_FILE).write_text('override "x" {\n  reason = "r"\n  expires = "2000-01-01"\n}\n')
    assert _read(tmp_path) == ()
