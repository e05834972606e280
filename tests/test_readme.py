"""README's quick start is the contract CI runs: keep them the same."""

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def quick_start_blocks() -> list[str]:
    text = (REPO / "README.md").read_text()
    section = text.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    return [b.strip() for b in re.findall(r"```sh\n(.*?)```", section, re.S)]


def test_quick_start_has_two_commands():
    blocks = quick_start_blocks()
    assert len(blocks) >= 2
    assert "tofu-solve" in blocks[0] and "pytest" in blocks[1]


def test_ci_runs_the_readme_test_command():
    ci = (REPO / ".ci" / "run").read_text()
    assert quick_start_blocks()[1] in ci.splitlines()


def test_the_library_paths_readme_names_import():
    import importlib

    text = (REPO / "README.md").read_text()
    section = text.split("Library API", 1)[1].split("\n## ", 1)[0]
    names = re.findall(r"`(tofu_solve(?:\.\w+)+)`", section)
    assert len(names) >= 15
    for name in names:
        try:
            importlib.import_module(name)
        except ModuleNotFoundError:
            module, _, attr = name.rpartition(".")
            assert hasattr(importlib.import_module(module), attr), name
