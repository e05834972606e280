"""The ``tofu init`` flags tofu-solve accepts without acting on them and passes on to the
client's init as given (``internal/command/init.go`` / ``arguments/init.go``). Standard
library only: the warm path (:mod:`tofu_solve.workdir.stamp`) reads them from a command line
before anything else is imported."""

from __future__ import annotations

import argparse

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


__all__ = ["PASSED_ON", "passed_on"]
