"""Typed command-line arguments, one object per command, as OpenTofu's
``internal/command/arguments`` parses each command's flags into its own struct: the parser
(:mod:`tofu_solve.cli`) leaves an ``argparse.Namespace``; a command reads its fields once,
here, and works with the typed object.

Each command imports its own module (``init_flags``, ``report_flags``): nothing is imported
here, so ``init``'s early start reads its arguments without the reporting commands'.
"""
