"""What tofu-solve reads from one module directory: typed, with file and line."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..addrs.module_source import ModuleSource
from ..addrs.provider import ProviderAddress
from ..errors import SourceRange
from ..versions.constraints import ModuleConstraint, ProviderConstraint


@dataclass(frozen=True)
class ModuleCall:
    """A ``module "name" { source = ..., version = ... }`` block, or a symbol library's
    ``symbols "name" { source = ..., version = ... }`` block (OpenTofu 1.13's
    ``symbol_libraries`` experiment), which OpenTofu installs as a module.

    Attributes:
        name: the call name as its call-path segment: ``vpc``, or ``symbols:lib`` for a
            symbol library (:func:`tofu_solve.addrs.identifiers.symbols_segment`).
        source_text: ``source`` as written (after static evaluation).
        source: the parsed source address.
        version: the ``version`` constraint (None when absent or null).
        where: file and line of the ``module`` block.
        version_where: file and line of the ``version`` argument (None when absent).
        has_count / has_for_each: the block sets ``count`` / ``for_each``.
        source_where: file and line of the ``source`` argument (None when unknown).
        symbols: a ``symbols`` block: its package is read for ``*.sym.hcl`` files only.
        arguments: every argument the block sets (its inputs and meta-arguments), each with
            where it is written, in file order (the inputs are checked against the variables
            the selected module declares: :func:`tofu_solve.explain.typos.unknown_arguments`).
        terragrunt: the call a Terragrunt unit's ``terraform`` block stands for: Terragrunt,
            not the client, reads its source, so no client needs to load a ``version`` on it
            (issue #82 §4).
    """

    name: str
    source_text: str
    source: ModuleSource
    version: ModuleConstraint | None
    where: SourceRange
    version_where: SourceRange | None = None
    has_count: bool = False
    has_for_each: bool = False
    source_where: SourceRange | None = None
    symbols: bool = False
    arguments: tuple[tuple[str, SourceRange], ...] = field(default=(), compare=False)
    terragrunt: bool = False

    @property
    def label(self) -> str:
        """The block's label as written (``lib`` for ``symbols "lib"``)."""
        return self.name.removeprefix("symbols:") if self.symbols else self.name

    @property
    def constraint_where(self) -> SourceRange:
        """Where the call's constraint is imposed, as every citation of a call reads (issue
        #34): its ``version`` argument, else its ``source`` argument, else the block."""
        return self.version_where or self.source_where or self.where

    @property
    def source_at(self) -> SourceRange:
        """Its ``source`` argument (else the block): where a failure to reach the source is cited."""
        return self.source_where or self.where


@dataclass(frozen=True)
class RequiredProvider:
    """One `required_providers` entry of a module (OpenTofu's `configs.RequiredProvider`); the solver
    turns each into a :class:`tofu_solve.solver.model.ProviderRequirement` with its origin.

    Attributes:
        local_name: the name used in the module (``aws``).
        address: the provider's fully-qualified source address.
        constraint: the version constraint (None when the entry has no ``version``).
        where: file and line of the entry's ``version`` attribute, the one that imposes the
            constraint (of the entry itself when it has none; of the legacy ``provider``
            block's ``version``): every citation of a constraint names that line.
        legacy: written in a pre-0.13 form (``aws = ">= 2.0"`` or ``provider "aws" {
            version = ... }``).
        via: for a ``source`` or ``version`` that is not a literal (Terraform 1.17's const
            variables and locals), what it read and where that value came from
            (``version = var.aws_floor (-var)``); "" for a literal.
    """

    local_name: str
    address: ProviderAddress
    constraint: ProviderConstraint | None
    where: SourceRange
    legacy: bool = False
    via: str = ""


@dataclass(frozen=True)
class CoreVersionRequirement:
    """A constraint on the OpenTofu version (go-version syntax).

    Attributes:
        constraint: the constraint.
        where: file and line.
        kind: ``"required_version"``, ``"compatible_with"``
            (``language { compatible_with { opentofu = ... } }``) or
            ``"terraform_version_constraint"`` (a Terragrunt unit's, which Terragrunt checks
            against whichever client it runs: ``checkVersionConstraints``,
            ``internal/runner/run/version_check.go``).
        tofu_file: written in a ``.tofu``/``.tofu.json`` file. OpenTofu 1.12 and later
            honour ``required_version`` only there (reference §8).
    """

    constraint: ModuleConstraint
    where: SourceRange
    kind: str = "required_version"
    tofu_file: bool = False

    def counts_for(self, version: tuple[int, int, int], terraform: bool = False) -> bool:
        """Whether OpenTofu at ``version`` (major, minor, patch) enforces this one; with
        ``terraform``, whether Terraform does: every ``required_version`` counts there
        (Terraform ``internal/configs/module.go``), and it reads no ``.tofu`` file."""
        if self.kind == "terraform_version_constraint":
            return True
        if terraform:
            return self.kind == "required_version" and not self.tofu_file
        if self.kind == "compatible_with":
            return True
        return self.tofu_file or version < (1, 12, 0)


class _Unknown:
    """A value only a plan knows (:data:`UNKNOWN`)."""

    def __repr__(self) -> str:
        return "UNKNOWN"


UNKNOWN = _Unknown()
"""A provider argument whose value is known only after plan (a resource's attribute, a
function of one, a variable without a value): policies that read it pass over the check."""


@dataclass(frozen=True)
class ProviderConfig:
    """One ``provider`` block of a module, as a policy's ``attrs`` binds it (issue #69 §1).

    Attributes:
        local_name: the block's label (``aws``).
        address: the provider it configures (through ``required_providers``, else the
            default ``hashicorp/<name>``).
        alias: its ``alias`` (None: the default configuration).
        attrs: its arguments: a value known without a plan (a literal, a variable with a
            value, a template of those), else :data:`UNKNOWN`; a nested block as a list of
            such mappings.
        where: the block's first line.
    """

    local_name: str
    address: str
    alias: str | None
    attrs: dict = field(default_factory=dict)
    where: SourceRange | None = None


@dataclass(frozen=True)
class ModuleConfig:
    """Everything tofu-solve needs from one module directory.

    Attributes:
        dir: the directory read.
        files: the configuration files used, in load order (primary, then overrides).
        module_calls: in file order, overrides merged.
        provider_requirements: in file order.
        core_requirements: OpenTofu version constraints.
        variables: the names of the variables the module declares, in file order.
        provider_configs: its ``provider`` blocks, overrides merged (:class:`ProviderConfig`).
    """

    dir: Path
    files: tuple[str, ...] = ()
    module_calls: tuple[ModuleCall, ...] = ()
    provider_requirements: tuple[RequiredProvider, ...] = ()
    core_requirements: tuple[CoreVersionRequirement, ...] = field(default=())
    variables: tuple[str, ...] = ()
    provider_configs: tuple[ProviderConfig, ...] = ()

    def call(self, name: str) -> ModuleCall | None:
        for c in self.module_calls:
            if c.name == name:
                return c
        return None
