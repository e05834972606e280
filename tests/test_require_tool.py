"""Issue #37 §1: README's two commands pass on a machine without the system tools only .ci/run
installs; CI still proves the tests that need them."""

from __future__ import annotations

import pytest

from tests.conftest import require_tool


def test_a_missing_tool_skips_with_what_to_install(monkeypatch):
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match=r"Graphviz dot is not installed.*apt-get install graphviz"):
        require_tool(None, "Graphviz dot", "graphviz")


def test_under_ci_a_missing_tool_fails(monkeypatch):
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="Graphviz dot is not installed"):
        require_tool("", "Graphviz dot", "graphviz")


def test_a_present_tool_lets_the_test_run(monkeypatch):
    monkeypatch.setenv("CI", "true")
    assert require_tool("/usr/bin/dot", "Graphviz dot", "graphviz") == "/usr/bin/dot"  # no skip, no failure
