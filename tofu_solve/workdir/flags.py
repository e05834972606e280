"""The ``tofu init`` flags tofu-solve accepts without acting on them and passes on to the
client's init as given (``internal/command/init.go`` / ``arguments/init.go``). Standard
library only: the warm path (:mod:`tofu_solve.workdir.stamp`) reads them from a command line
before anything else is imported."""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence

# -from-module is not passed on: it copies a module into an empty directory, which a solved
# root is not.
PASSED_ON = ("backend", "cloud", "backend-config", "force-copy", "get", "input", "lock", "lock-timeout",
             "plugin-dir", "reconfigure", "migrate-state", "ignore-remote-version", "test-directory",
             "compact-warnings", "consolidate-warnings", "consolidate-errors")


def passed_on(ns: argparse.Namespace) -> tuple[str, ...]:
    """The :data:`PASSED_ON` flags the parser's namespace holds, in OpenTofu's
    ``-name=value`` form (a flag without a value as ``-name``), in the order of
    :data:`PASSED_ON`, each flag's values in the order given."""
    out: list[str] = []
    for name in PASSED_ON:
        value = getattr(ns, "ignored_" + name.replace("-", "_"), None)
        if value is True:
            out.append(f"-{name}")
        elif isinstance(value, list):
            out.extend(f"-{name}={v}" for v in value)
    return tuple(out)


def rebased(flags: Sequence[str], start: str, root: str) -> list[str]:
    """``flags`` (:func:`passed_on`'s) with each path the client reads (``-backend-config=FILE``,
    a value without ``=``; ``-plugin-dir=DIR``) that was relative to ``start`` (the directory
    the command was started in, after ``-chdir``) made relative to ``root``, where the
    client's init runs: the same file, named as the user named it when ``root`` is ``start``
    (issue #81 §4: a path is read from where the user stands, under ``-recursive`` too, as
    OpenTofu reads ``-backend-config`` after ``-chdir``)."""
    out = []
    for flag in flags:
        name, _, value = flag.partition("=")
        if name in ("-backend-config", "-plugin-dir") and value and not os.path.isabs(value) \
                and not (name == "-backend-config" and "=" in value):
            value = os.path.relpath(os.path.join(os.path.abspath(start), value), os.path.abspath(root))
            flag = f"{name}={value}"
        out.append(flag)
    return out


__all__ = ["PASSED_ON", "passed_on", "rebased"]
