"""``tofu-solve init``'s arguments (OpenTofu ``internal/command/arguments/init.go``)."""

from __future__ import annotations

import argparse
from dataclasses import dataclass

from ...workdir.flags import passed_on


def policy_inputs(ns: argparse.Namespace) -> tuple[str, ...]:
    """``-policy-input NAME=VALUE`` as given, in order (read by ``config.policy.policy_inputs``)."""
    return tuple(getattr(ns, "policy_input", None) or ())


def policy_overrides(ns: argparse.Namespace) -> tuple[str, ...]:
    """``-policy-override=LABEL,...`` as labels (repeated commas and spaces dropped)."""
    return tuple(n.strip() for n in (getattr(ns, "policy_override", None) or "").split(",") if n.strip())


@dataclass(frozen=True)
class InitArguments:
    """Every flag ``init`` reads, typed.

    Attributes:
        chdir: the root module directory (``-chdir``).
        upgrade: ``-upgrade`` (everything may move).
        upgrade_only: ``-upgrade=NAME,...``: what may move, each as written.
        accept_checksum: ``-accept-checksum=NAME,...``: whose new contents are accepted at the
            locked version, each as written.
        shared: ``-module-versions=shared``.
        lockfile: ``-lockfile`` (``update`` or ``readonly``).
        tofu_version, terraform_version: ``-tofu-version`` / ``-terraform-version``.
        tf_path: ``-tf-path``.
        handover: run the client's init afterwards (``-handover``).
        max_rounds: resolvelib's round cap.
        offline: ``-offline``.
        min_age: ``-min-age`` as written (None: not given).
        platforms: ``-platform`` values as written.
        vars: ``-var``/``-var-file`` in order, as the parser kept them.
        json: ``-json``; json_into: ``-json-into=FILE``; no_color: ``-no-color``.
        recursive: ``-recursive``.
        exclude_dir: ``-exclude-dir`` patterns, as written (``-recursive`` leaves matching roots out).
        verbose: ``-verbose``: a policy or cooldown warning lists every version it kept out.
        package_store: ``-package-store`` as written (None: not given).
        format: ``-format`` (``text`` or ``sarif``).
        passed_on: the tofu init flags the client's init acts on, in OpenTofu's
            ``-name=value`` form (:data:`tofu_solve.workdir.flags.PASSED_ON`).
    """

    chdir: str
    upgrade: bool = False
    upgrade_only: tuple[str, ...] = ()
    accept_checksum: tuple[str, ...] = ()
    shared: bool = False
    lockfile: str = "update"
    tofu_version: str | None = None
    terraform_version: str | None = None
    tf_path: str | None = None
    handover: bool = True
    max_rounds: int = 20000
    offline: bool = False
    min_age: str | None = None
    policy: str | None = None
    policy_override: tuple[str, ...] = ()  # -policy-override=LABEL,...
    policy_input: tuple[str, ...] = ()  # -policy-input NAME=VALUE, as given
    platforms: tuple[str, ...] = ()
    vars: tuple = ()
    json: bool = False
    json_into: str | None = None
    no_color: bool = False
    recursive: bool = False
    exclude_dir: tuple[str, ...] = ()
    passed_on: tuple[str, ...] = ()
    verbose: bool = False
    package_store: str | None = None
    format: str = "text"  # -format: text or sarif (the lock changes -lockfile=readonly refuses, for code scanning)

    @classmethod
    def from_namespace(cls, ns: argparse.Namespace) -> InitArguments:
        """Read the parser's namespace (:func:`tofu_solve.cli.build_parser`), once."""
        upgrade = ns.upgrade
        passed = passed_on(ns)
        return cls(
            chdir=ns.chdir, upgrade=upgrade is True,
            upgrade_only=tuple(n.strip() for n in upgrade.split(",") if n.strip()) if isinstance(upgrade, str) else (),
            accept_checksum=tuple(n.strip() for n in (getattr(ns, "accept_checksum", None) or "").split(",")
                                  if n.strip()),
            shared=ns.module_versions == "shared", lockfile=ns.lockfile or "update",
            tofu_version=ns.tofu_version, terraform_version=ns.terraform_version, tf_path=ns.tf_path,
            handover=bool(ns.handover), max_rounds=ns.max_rounds, offline=bool(ns.offline), min_age=ns.min_age,
            policy=getattr(ns, "policy", None), policy_override=policy_overrides(ns),
            policy_input=policy_inputs(ns),
            platforms=tuple(ns.platform or ()), vars=tuple(ns.vars or ()),
            json=bool(ns.json),
            json_into=getattr(ns, "json_into", None), no_color=bool(ns.no_color),
            recursive=bool(getattr(ns, "recursive", False)), passed_on=tuple(passed),
            exclude_dir=tuple(getattr(ns, "exclude_dir", None) or ()),
            verbose=bool(getattr(ns, "verbose", False)), package_store=getattr(ns, "package_store", None),
            format=getattr(ns, "format", None) or "text")
