"""OpenTofu's own test tables and test data, run against tofu-solve (issue #14).

Data in ``tests/conformance/opentofu/`` (see its README: copied or transcribed, never
code, from opentofu/opentofu at f831fa1aa4). Every case passes, or is listed in
``NOT_APPLICABLE`` with the reason.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tofu_solve.errors import TofuSolveError
from tofu_solve.lockfile import parse_lock_text
from tofu_solve.sources import parse_registry, parse_remote, parse_source

DATA = Path(__file__).parent / "conformance" / "opentofu"
TABLES = json.loads((DATA / "module_sources.json").read_text(encoding="utf-8"))

# (table, case name) -> why the case does not apply to tofu-solve
NOT_APPLICABLE: dict[tuple[str, str], str] = {}


def _cases(table: str):
    for c in TABLES[table]:
        why = c.get("not_applicable") or NOT_APPLICABLE.get((table, c["name"]))
        marks = [pytest.mark.skip(reason=f"not applicable: {why}")] if why else []
        yield pytest.param(c, id=c["name"], marks=marks)


@pytest.mark.parametrize("case", list(_cases("TestParseModuleSource")))
def test_parse_module_source(case):
    """internal/addrs/module_source_test.go TestParseModuleSource: String() of the parsed
    address, or an error (OpenTofu's message is kept in the data for reference)."""
    if "error" in case:
        with pytest.raises(TofuSolveError):
            parse_source(case["input"])
    else:
        assert str(parse_source(case["input"])) == case["string"]


@pytest.mark.parametrize("case", list(_cases("TestParseModuleSourceRemote")))
def test_parse_module_source_remote(case):
    if "error" in case:
        with pytest.raises(TofuSolveError):
            parse_remote(case["input"])
        return
    assert str(parse_remote(case["input"])) == case["string"]


@pytest.mark.parametrize("case", list(_cases("TestParseModuleSourceRegistry")))
def test_parse_module_source_registry(case):
    if "error" in case:
        with pytest.raises(TofuSolveError):
            parse_registry(case["input"])
        return
    got = parse_registry(case["input"])
    assert str(got) == case["string"]
    if "for_display" in case:
        assert got.for_display == case["for_display"]


def _expected(text: str) -> dict[tuple[str, int], str]:
    """The ``# ERROR: <summary>`` / ``# WARNING: <summary>`` comments, by line (as
    locks_file_test.go TestLoadLocksFromFile reads them)."""
    out = {}
    for n, line in enumerate(text.splitlines(), 1):
        for prefix, sev in (("# ERROR: ", "error"), ("# WARNING: ", "warning")):
            if prefix in line:
                out[(sev, n)] = line.split(prefix, 1)[1]
    return out


@pytest.mark.parametrize("name", sorted(p.name for p in (DATA / "depsfile").glob("*.hcl")))
def test_lock_file_testdata(name):
    text = (DATA / "depsfile" / name).read_text(encoding="utf-8")
    try:
        _, diags = parse_lock_text(text, name)
        got = {(d.severity, d.line): d.summary for d in diags}
    except TofuSolveError as e:  # a file-level HCL error
        got = {("error", e.where.line if e.where else 0): e.summary}
    assert got == _expected(text)
