"""The entry point PyInstaller freezes into the self-contained executable
(scripts/build_executable.sh): the same ``main`` as the installed ``tofu-solve`` command."""

import sys

from tofu_solve.cli import main

if __name__ == "__main__":
    sys.exit(main())
