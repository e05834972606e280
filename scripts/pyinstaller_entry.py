"""The entry point PyInstaller freezes into the self-contained executable
(scripts/build_executable.sh): the same ``entry`` as the installed ``tofu-solve`` command."""

from tofu_solve.cli import entry

if __name__ == "__main__":
    entry()
