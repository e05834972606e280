"""A file's ``locals``, each evaluated when first read (locals refer to each other in any
order, as OpenTofu's and Terragrunt's do); a local that needs itself is an error at its line.
One mechanism for the policy files (:mod:`tofu_solve.config.policy_hcl`), their test files
(:mod:`tofu_solve.config.policy_test`) and Terragrunt's configuration
(:mod:`tofu_solve.terragrunt.read`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ...errors import ConfigurationError, SourceRange


class LazyLocals(dict):
    """``local.*`` as an evaluator reads it: ``exprs`` maps each name to its expression
    (anything with a ``line``); ``value(expr)`` evaluates one (raising the reader's own
    ConfigurationError); ``where(line)`` cites a line for a cycle."""

    def __init__(self, exprs: Mapping[str, Any], value: Callable[[Any], Any], where: Callable[[int], SourceRange]):
        super().__init__()
        self.exprs, self.value, self.where = exprs, value, where
        self.busy: set[str] = set()

    def __contains__(self, name: object) -> bool:
        return name in self.exprs

    def __getitem__(self, name: str) -> Any:
        if dict.__contains__(self, name):
            return dict.__getitem__(self, name)
        expr = self.exprs[name]
        if name in self.busy:
            raise ConfigurationError("Cycle in local values", f"local.{name} refers to itself.", self.where(expr.line))
        self.busy.add(name)
        try:
            value = self.value(expr)
        finally:
            self.busy.discard(name)
        dict.__setitem__(self, name, value)
        return value


__all__ = ["LazyLocals"]
