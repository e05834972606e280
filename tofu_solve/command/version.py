"""``tofu-solve version``: the version, as ``tofu version`` prints it."""

from __future__ import annotations

import json
import sys

from .._version import __version__
from ..settings import Settings


def run(args, settings: Settings) -> int:
    """The command: ``args`` as the parser left them."""
    if args.json:
        json.dump({"tofu_solve_version": __version__}, sys.stdout)
        print()
    else:
        print(f"tofu-solve v{__version__}")
    return 0
