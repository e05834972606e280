"""The one output edge (issue #67 §1): ``tofu_solve.output_edge``, each of its guards alone."""

from __future__ import annotations

import io
import json

import pytest

from tofu_solve.output_edge import MAX_QUOTED, OutputEdge, one_line, printable, workflow_commands


def test_printable_escapes_every_control_character_but_the_newline():
    text = "a\x1b]52;c;Zm9v\x07b\x00c\rd\te\u2028f\u202eg\x9bh\nnext"
    assert printable(text) == "a\\x1b]52;c;Zm9v\\x07b\\x00c\\rd\\te\\u2028f\\u202eg\\x9bh\nnext"


def test_one_line_escapes_newlines_too_and_is_bounded():
    assert one_line("a\nb\r\nc") == "a\\nb\\r\\nc"
    long = one_line("x" * (MAX_QUOTED + 50))
    assert long.startswith("x" * MAX_QUOTED) and long.endswith("… (50 more characters)")
    assert one_line("abc", limit=2) == "ab… (1 more characters)"


def test_under_actions_the_human_stream_stops_commands_until_tofu_solves_own():
    raw = io.StringIO()
    edge = OutputEdge(raw, actions=True, token="t0k")
    edge.stop_commands()
    edge.write("::warning::not a command\n")
    workflow_commands(edge, ["::error file=a.tf,line=1::mine"])
    assert raw.getvalue().splitlines() == ["::stop-commands::t0k", "::warning::not a command", "::t0k::",
                                           "::error file=a.tf,line=1::mine"]


def test_the_legacy_form_is_broken_in_text_and_escaped_in_json():
    text = io.StringIO()
    OutputEdge(text, actions=True).write("a ##[add-mask]b\n")
    assert "##[" not in text.getvalue() and text.getvalue().replace("\u200d", "") == "a ##[add-mask]b\n"
    doc = io.StringIO()
    edge = OutputEdge(doc, actions=True, json=True)
    edge.stop_commands()  # never a guard line in a JSON document
    edge.write(json.dumps({"m": "##[add-mask]b"}))
    assert "##[" not in doc.getvalue() and json.loads(doc.getvalue()) == {"m": "##[add-mask]b"}


def test_off_actions_nothing_but_control_characters_changes():
    raw = io.StringIO()
    edge = OutputEdge(raw)
    edge.stop_commands()
    edge.write("##[x] ::warning::y\x1b[31m\n")
    workflow_commands(edge, ["::error::z"])
    assert raw.getvalue() == "##[x] ::warning::y\\x1b[31m\n::error::z\n"


def test_a_wrapped_line_never_starts_with_a_runner_command():
    from tofu_solve.command.views.human import HumanView

    folded = HumanView(False).fold("Warning: " + "word " * 22 + "::warning title=x::y and more")
    assert len(folded.splitlines()) > 1
    assert not any(line.strip().startswith("::") for line in folded.splitlines())
    assert folded.replace("\u200d", "").split() == ("Warning: " + "word " * 22 + "::warning title=x::y and more").split()


def test_every_kind_check_reports_has_its_sarif_rule():
    """A difference kind without a rule was an internal error of check -format=sarif (issue
    #70: 'revoked'); the kinds are read from check's own code."""
    import ast
    from pathlib import Path

    from tofu_solve.command.views.sarif import RULES

    tree = ast.parse((Path(__file__).resolve().parents[1] / "tofu_solve/command/check.py").read_text())
    kinds = {c.args[0].value for c in ast.walk(tree) if isinstance(c, ast.Call) and getattr(c.func, "id", "") ==
             "Difference" and c.args and isinstance(c.args[0], ast.Constant)}
    assert kinds and kinds <= set(RULES), kinds - set(RULES)


def test_json_documents_carry_every_outside_string_on_one_line():
    """Issue #80 §2: a JSON output's strings as a ``jq -r`` step prints them: names one line,
    tofu-solve's prose keeps its lines, every control and invisible character escaped."""
    from tofu_solve.output_edge import json_safe

    doc = {"root": "live/x\n::warning::y", "error": {"file": "a\u200bb.tf", "line": 2, "ok": True, "detail":
           "first line\nsecond \x1b]52;c;x\x07 line"}, "names": ["p\ufeffq", None, 1.5], "k\nx": "v"}
    got = json_safe(doc)
    assert got["root"] == "live/x\\n::warning::y" and got["error"]["file"] == "a\\u200bb.tf"
    assert got["error"]["detail"] == "first line\nsecond \\x1b]52;c;x\\x07 line"  # prose: its own newline kept
    assert got["names"] == ["p\\ufeffq", None, 1.5] and got["error"]["line"] == 2 and got["error"]["ok"] is True
    assert "k\\nx" in got


def test_an_operating_system_error_quotes_a_long_path_on_one_bounded_line():
    """Issue #80 §5: a 60 KiB path (a pull request's directory names) in an OS error."""
    from tofu_solve.cli import os_error

    path = "/repo/" + "d\n::warning::x/" * 5000
    e = os_error(OSError(36, "File name too long", path))
    text = e.render()
    assert len(max(text.splitlines(), key=len)) < 800 and "\n::warning" not in text


def test_one_guard_region_for_the_process_opened_once_and_closed_at_its_end():
    """Issue #81 §1: the runner reads both streams as one; the region is opened once (on the
    first stream with human text), resumed only for tofu-solve's own annotations, opened
    again (a fresh token) for text after them, and closed at the end."""
    from tofu_solve.output_edge import Guard

    merged = io.StringIO()
    guard = Guard("t0k")
    out, err = OutputEdge(merged, True, json=True, guard=guard), OutputEdge(merged, True, guard=guard)
    out.stop_commands()
    err.stop_commands()
    out.write('{"json": true}\n')
    err.write("some text\n")
    workflow_commands(err, ["::error file=a.tf,line=1::mine"])
    err.write("Error: after the annotations\n")
    later = guard.token
    guard.close()
    lines = merged.getvalue().splitlines()
    assert lines[:5] == ["::stop-commands::t0k", '{"json": true}', "some text", "::t0k::",
                         "::error file=a.tf,line=1::mine"]
    assert later != "t0k" and lines[5:] == [f"::stop-commands::{later}", "Error: after the annotations",
                                            f"::{later}::"]
    guard.close()  # closed once
    assert merged.getvalue().splitlines() == lines


@pytest.mark.parametrize("argv", [["version"], ["version", "-json"], ["nonsense-command"]])
def test_the_cli_closes_its_guard_region_however_it_ends(argv, monkeypatch):
    """Issue #81 §1, where ``cli.main`` installs the edges: under GitHub Actions the region
    opened at the start is closed at the end, on success, in JSON mode, and on an error."""
    import contextlib

    from tofu_solve.cli import main

    merged = io.StringIO()
    with contextlib.redirect_stdout(merged), contextlib.redirect_stderr(merged), contextlib.suppress(SystemExit):
        main(argv, {"GITHUB_ACTIONS": "true", "HOME": "/nonexistent"})
    lines = merged.getvalue().splitlines()
    opened = [ln for ln in lines if ln.startswith("::stop-commands::")]
    assert len(opened) == 1, lines
    assert lines[-1] == f"::{opened[0].split('::')[2]}::", lines


def test_under_json_the_cli_keeps_standard_output_a_json_document(monkeypatch):
    """Issue #83 §1, where ``cli.main`` installs the edges: with ``-json`` under GitHub
    Actions standard output is the document alone (the guard region opens and closes on
    standard error), so a reader parses it as it is."""
    import contextlib
    import json

    from tofu_solve.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), contextlib.suppress(SystemExit):
        main(["version", "-json"], {"GITHUB_ACTIONS": "true", "HOME": "/nonexistent"})
    assert json.loads(out.getvalue())["tofu_solve_version"]
    assert "::stop-commands::" not in out.getvalue() and "::stop-commands::" in err.getvalue()
