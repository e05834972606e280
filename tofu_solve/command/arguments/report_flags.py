"""The arguments of the reporting commands (``check``, ``outdated``, ``why``, ``graph``,
``inspect``), read once from the parser's namespace."""

from __future__ import annotations

import argparse
from dataclasses import dataclass

from .init_flags import policy_inputs, policy_overrides


@dataclass(frozen=True)
class RootArguments:
    """What every reporting command reads: the root, its variables, ``-json``.

    Attributes:
        chdir: the root module directory (``-chdir``).
        vars: ``-var``/``-var-file`` in order, as the parser kept them.
        json: ``-json``.
    """

    chdir: str
    vars: tuple = ()
    json: bool = False

    @staticmethod
    def _common(ns: argparse.Namespace) -> dict:
        return {"chdir": ns.chdir, "vars": tuple(getattr(ns, "vars", None) or ()), "json": bool(ns.json)}


@dataclass(frozen=True)
class CheckArguments(RootArguments):
    """``check``: besides the root, the target (``-tofu-version``, ``-terraform-version``,
    ``-tf-path``) and ``-recursive``."""

    tofu_version: str | None = None
    terraform_version: str | None = None
    tf_path: str | None = None
    recursive: bool = False
    exclude_dir: tuple[str, ...] = ()  # -exclude-dir PATTERN, as written (with -recursive)
    policy: str | None = None  # -policy (check only)
    policy_override: tuple[str, ...] = ()  # -policy-override
    policy_input: tuple[str, ...] = ()  # -policy-input NAME=VALUE
    format: str = "text"  # -format (check only): text, json or sarif

    @classmethod
    def from_namespace(cls, ns: argparse.Namespace) -> CheckArguments:
        fmt = getattr(ns, "format", None) or "text"
        common = cls._common(ns)
        common["json"] = common["json"] or fmt == "json"
        return cls(**common, tofu_version=ns.tofu_version, terraform_version=ns.terraform_version,
                   tf_path=ns.tf_path, recursive=bool(getattr(ns, "recursive", False)),
                   exclude_dir=tuple(getattr(ns, "exclude_dir", None) or ()),
                   policy=getattr(ns, "policy", None), policy_override=policy_overrides(ns),
                   policy_input=policy_inputs(ns), format="json" if fmt == "json" or ns.json else fmt)


@dataclass(frozen=True)
class OutdatedArguments(CheckArguments):
    """``outdated``: as ``check``, with ``-module-versions`` and ``-min-age`` (as written)."""

    shared: bool = False
    min_age: str | None = None

    @classmethod
    def from_namespace(cls, ns: argparse.Namespace) -> OutdatedArguments:
        return cls(**cls._common(ns), tofu_version=ns.tofu_version, terraform_version=ns.terraform_version,
                   tf_path=ns.tf_path, recursive=bool(getattr(ns, "recursive", False)),
                   exclude_dir=tuple(getattr(ns, "exclude_dir", None) or ()),
                   shared=ns.module_versions == "shared", min_age=ns.min_age, policy=getattr(ns, "policy", None),
                   policy_override=policy_overrides(ns), policy_input=policy_inputs(ns))


@dataclass(frozen=True)
class WhyArguments(RootArguments):
    """``why NAME``."""

    name: str = ""

    @classmethod
    def from_namespace(cls, ns: argparse.Namespace) -> WhyArguments:
        return cls(**cls._common(ns), name=ns.name)


@dataclass(frozen=True)
class GraphArguments(RootArguments):
    """``graph``: ``-providers``, ``-opentofu`` and ``-o FILE``."""

    providers: bool = False
    opentofu: bool = False
    output: str | None = None

    @classmethod
    def from_namespace(cls, ns: argparse.Namespace) -> GraphArguments:
        return cls(**cls._common(ns), providers=bool(ns.providers), opentofu=bool(ns.opentofu), output=ns.output)


@dataclass(frozen=True)
class InspectArguments(RootArguments):
    """``inspect``: besides the root, the target it is read as (``-tofu-version``,
    ``-terraform-version``, ``-tf-path``)."""

    tofu_version: str | None = None
    terraform_version: str | None = None
    tf_path: str | None = None

    @classmethod
    def from_namespace(cls, ns: argparse.Namespace) -> InspectArguments:
        return cls(**cls._common(ns), tofu_version=getattr(ns, "tofu_version", None),
                   terraform_version=getattr(ns, "terraform_version", None), tf_path=getattr(ns, "tf_path", None))


@dataclass(frozen=True)
class ModulesArguments(RootArguments):
    """``modules``: ``-recursive`` besides the root."""

    recursive: bool = False

    @classmethod
    def from_namespace(cls, ns: argparse.Namespace) -> ModulesArguments:
        return cls(**cls._common(ns), recursive=bool(getattr(ns, "recursive", False)))
