"""Typed command-line arguments, one object per command, as OpenTofu's
``internal/command/arguments`` parses each command's flags into its own struct: the parser
(:mod:`tofu_solve.cli`) leaves an ``argparse.Namespace``; a command reads its fields once,
here, and works with the typed object."""

from .init_flags import InitArguments
from .report_flags import (
    CheckArguments,
    GraphArguments,
    InspectArguments,
    ModulesArguments,
    OutdatedArguments,
    WhyArguments,
)

__all__ = ["CheckArguments", "GraphArguments", "InitArguments", "InspectArguments", "ModulesArguments",
           "OutdatedArguments", "WhyArguments"]
