"""Terragrunt units (issue #73): reading a unit's ``terragrunt.hcl`` as Terragrunt does
(:mod:`.read`), turning a unit into the root the solver takes (:mod:`.unit`), and the pins
that make a plain ``terragrunt run --all init`` install what the lock records (:mod:`.pins`).

The facts followed are those of ``../shared/docs/terragrunt-reference.md`` and of
Terragrunt's source (gruntwork-io/terragrunt at 286a33cb, v1.1.3); each function names the
file and function it follows.
"""

from __future__ import annotations

CONFIG_FILE = "terragrunt.hcl"
"""A unit's configuration file (``DefaultTerragruntConfigPath``, ``pkg/config/config.go``)."""

STACK_FILE = "terragrunt.stack.hcl"
"""A stack's configuration file (``DefaultStackFile``, ``pkg/config/stack.go``)."""

__all__ = ["CONFIG_FILE", "STACK_FILE"]
