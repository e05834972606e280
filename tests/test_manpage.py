"""The man page (issue #37 §7): ``man/tofu-solve.1``, generated from the parser by
``scripts/manpage.py`` (argparse-manpage) and installed by the wheel as
``share/man/man1/tofu-solve.1``. ``.ci/run`` runs ``scripts/manpage.py --check`` (byte for
byte, with the pinned generator); this test holds on any Python: the page documents every
command and every flag -help shows, and nothing the parser no longer has."""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import tomllib
from pathlib import Path

from tests.conftest import require_tool
from tofu_solve.cli import build_parser

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "man" / "tofu-solve.1"


def _sections() -> dict[str, str]:
    """Command name -> the roff text of its COMMAND and OPTIONS sections."""
    text = PAGE.read_text(encoding="utf-8")
    out: dict[str, str] = {}
    for m in re.finditer(r"^\.SH (?:COMMAND|OPTIONS) \\fI\\,'tofu\\-solve (\w+)'\\/\\fR\n(.*?)(?=^\.SH )", text,
                         re.M | re.S):
        out[m.group(1)] = out.get(m.group(1), "") + m.group(2)
    return out


def test_the_page_documents_every_command_and_flag():
    sections = _sections()
    commands = build_parser().get_default("_commands")
    assert sorted(sections) == sorted(commands)
    for name, sp in commands.items():
        flags = {o for a in sp._actions if a.help != argparse.SUPPRESS for o in a.option_strings
                 if o.startswith("--") and o != "--help"}
        shown = set(re.findall(r"\\fB(\\-\\-[\w\\-]+)\\fR", sections[name]))
        assert {f.replace("-", "\\-") for f in flags} <= shown, name


def test_the_wheel_installs_the_page():
    data_files = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["data-files"]
    assert data_files["share/man/man1"] == ["man/tofu-solve.1"]


def test_man_renders_the_page_without_warnings():
    groff = require_tool(shutil.which("groff"), "groff", "groff-base")
    out = subprocess.run([groff, "-man", "-Tutf8", "-ww", "-z", str(PAGE)], capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 0 and out.stderr == "", out.stderr
