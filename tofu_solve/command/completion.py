"""``tofu-solve completion SHELL``: the shell completion script, generated from the parser.

The script comes from shtab (a well-kept library that turns an ``argparse`` parser into
bash, zsh, fish and tcsh completion), run on the CLI's own parser, which the CLI hands to the
command (:func:`tofu_solve.cli.build_parser`), at the moment it is asked for: it can never
drift from the flags, and a new flag completes as soon as it exists. It completes commands,
flags (GNU-style, ``--upgrade``: tofu-solve reads both spellings) and choices
(``--lockfile readonly``, ``--module-versions shared``).
"""

from __future__ import annotations

import argparse
import sys

from .._lazy import load
from ..settings import Settings

SHELLS = ("bash", "zsh", "fish", "tcsh")


def run(args, settings: Settings, parser: argparse.ArgumentParser) -> int:
    """Print the completion script of ``parser`` for ``args.shell`` (one of :data:`SHELLS`)
    on standard output; exit status 0."""
    load("shtab")
    import shtab

    sys.stdout.write(shtab.complete(parser, shell=args.shell))
    return 0
