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


def test_the_user_guide_names_the_dependencies_pyproject_lists():
    """Issue #50 §5: the user guide's sentence on dependencies names every one
    pyproject.toml lists, and none it does not (packaging is not one)."""
    import re
    import tomllib
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    deps = [re.split(r"[<>=;\[ ]", d, maxsplit=1)[0].lower()
            for d in tomllib.loads((root / "pyproject.toml").read_text())["project"]["dependencies"]]
    sentence = (root / "docs" / "user-guide.md").read_text().split("Dependencies (", 1)[1].split("come from PyPI")[0]
    words = set(re.findall(r"[a-z0-9][a-z0-9-]*", sentence.lower()))
    assert [d for d in deps if d not in words] == []
    assert "packaging" not in words
