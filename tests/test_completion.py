"""``tofu-solve completion SHELL`` (issue #37 §7): the script shtab generates from the parser,
loaded into the real shells and asked to complete, so a flag or command added to the parser
completes without anything else changing."""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys

from tests.conftest import require_tool
from tofu_solve.cli import build_parser

COMMANDS = sorted(build_parser().get_default("_commands"))


def _init_flags() -> list[str]:
    """Every long flag init's -help shows (the client's own flags it passes on are hidden
    there, and from completion too)."""
    init = build_parser().get_default("_commands")["init"]
    flags = sorted({o for a in init._actions if a.help != argparse.SUPPRESS for o in a.option_strings
                    if o.startswith("--")})
    assert "--upgrade" in flags and "--backend-config" not in flags
    return flags


def _script(shell: str, tmp_path) -> str:
    out = subprocess.run([sys.executable, "-m", "tofu_solve", "completion", shell], capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 0, out.stderr
    path = tmp_path / f"tofu-solve.{shell}"
    path.write_text(out.stdout)
    return str(path)


def test_bash_completes_commands_flags_and_choices(tmp_path):
    script = _script("bash", tmp_path)
    program = f"""
source {script}
ask() {{ COMP_WORDS=("$@"); COMP_CWORD=$(( ${{#COMP_WORDS[@]}} - 1 )); COMPREPLY=(); _shtab_tofu_solve; echo "${{COMPREPLY[*]}}"; }}
ask tofu-solve ''
ask tofu-solve in
ask tofu-solve init --upg
ask tofu-solve init --lockfile ''
ask tofu-solve outdated --module-versions s
ask tofu-solve completion ''
ask tofu-solve init --
"""
    out = subprocess.run(["bash", "--norc", "-c", program], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    every, in_, upgrade, lockfile, shared, shells, init_flags = out.stdout.splitlines()
    assert sorted(every.split()) == COMMANDS
    assert in_.split() == ["inspect", "init"]
    assert upgrade == "--upgrade"
    assert lockfile == "readonly"
    assert shared == "shared"
    assert shells.split() == ["bash", "zsh", "fish", "tcsh"]
    assert sorted(init_flags.split()) == _init_flags()  # generated from the parser: nothing missing


def test_fish_completes_commands_flags_and_choices(tmp_path):
    fish = require_tool(shutil.which("fish"), "fish", "fish")
    script = _script("fish", tmp_path)
    program = (f"source {script}; complete -C 'tofu-solve in'; echo ---; complete -C 'tofu-solve init --lockf'; "
               "echo ---; complete -C 'tofu-solve init --lockfile '; echo ---; complete -C 'tofu-solve init --'")
    out = subprocess.run([fish, "--no-config", "-c", program], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    commands, flags, choices, init_flags = (part.strip().splitlines() for part in out.stdout.split("---"))
    assert sorted(line.split("\t")[0] for line in commands) == ["init", "inspect"]
    assert [line.split("\t")[0] for line in flags] == ["--lockfile"]
    assert [line.split("\t")[0] for line in choices] == ["readonly"]
    assert sorted(line.split("\t")[0] for line in init_flags) == _init_flags()


def test_zsh_loads_the_script_with_every_command_and_flag(tmp_path):
    """zsh completes only inside its line editor; the script is loaded by a real zsh and
    the tables it defines are read back: every command, and init's flags with their choices."""
    zsh = require_tool(shutil.which("zsh"), "zsh", "zsh")
    script = _script("zsh", tmp_path)
    assert subprocess.run([zsh, "-n", script], capture_output=True, timeout=60).returncode == 0
    program = (f"autoload -U compinit; compinit -u -D; source {script} 2>/dev/null; "
               "print -l -- ${(f)\"$(functions _shtab_tofu_solve_commands)\"}; echo ---; "
               "print -l -- $_shtab_tofu_solve_init_options")
    out = subprocess.run([zsh, "-f", "-c", program], capture_output=True, text=True, timeout=60)
    commands, init_options = out.stdout.split("---")
    for command in COMMANDS:
        assert f"{command}:'" in commands, command
    assert "--lockfile[" in init_options and ":(readonly)" in init_options
    assert "--module-versions[" in init_options and "(per-call shared)" in init_options


def test_an_unknown_shell_is_a_usage_error():
    out = subprocess.run([sys.executable, "-m", "tofu_solve", "completion", "powershell"], capture_output=True,
                         text=True, timeout=60)
    assert out.returncode == 2
    assert "invalid choice: 'powershell'" in out.stderr
