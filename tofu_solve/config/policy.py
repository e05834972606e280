"""A team's module policy (issue #39): which sources may be used and which versions of a
module package or provider are denied, read from an HCL file in the repository and applied
as constraints while solving.

The file (``tofu-solve-policy.hcl``) is found from the root module upward, as a repository
holds it at its top; ``-policy=FILE`` names another, and ``TOFU_SOLVE_POLICY`` too
(``-policy`` wins; either set to ``none`` uses no policy; a relative path is from the root
module, as ``tofu -chdir`` reads ``-var-file``)::

    sources {
      allow = ["terraform-aws-modules/*/aws", "git::https://github.com/acme/*"]
      deny  = ["registry.opentofu.org/untrusted/*"]
    }

    deny "module" "terraform-aws-modules/eks/aws" {
      versions = "20.31.0"
      reason   = "breaks IRSA on upgrade"
      link     = "https://example.com/incidents/1234"
    }

    deny "provider" "hashicorp/aws" {
      versions = ">= 6.0.0, < 6.2.0"
      reason   = "state corruption, GHSA-xxxx"
    }

    release_cooldown         = "7d"   # a floor under -min-age and the CLI configuration's
    require_package_pins     = true   # every module lock records an immutable package
    require_signed_providers = true   # every provider's checksums signature-checked

Source patterns are shell-style (``*`` within and across segments) and match a call's
package address: a registry package with its host (a pattern without one is on the default
registry: ``terraform-aws-modules/*/aws``), ``git::URL`` without ``ref``, ``oci://host/repo``.
With ``allow``, only what it matches may be used; ``deny`` refuses what it matches, ``allow``
or not. A ``deny`` block's ``versions`` is a version constraint in the subject's own syntax
(go-version for modules, OpenTofu's provider constraints for providers); a version it admits
is not a candidate, as one a constraint excludes is not.
"""

from __future__ import annotations

import fnmatch
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from .. import confined
from .._lazy import load
from ..addrs.module_source import LocalSource, ModuleSource, OciSource, RegistrySource, RemoteSource, SourceKind
from ..addrs.provider import ProviderAddressError, parse_provider_source
from ..errors import ConfigurationError, SourceRange, TofuSolveError, name_suggestion
from ..output_edge import has_control, one_line
from ..settings import ReadLog
from ..versions.constraints import ModuleConstraint, ProviderConstraint, module_constraint, provider_constraint
from .policy_overrides import CommittedOverride, read_committed_overrides

if TYPE_CHECKING:
    from .module_dir import ProviderConfig
    from .policy_hcl import PolicyRule, PolicyUnit

POLICY_FILE = "tofu-solve-policy.hcl"
HCL_POLICY_SUFFIX = ".policy.hcl"
POLICY_VARIABLE = "TOFU_SOLVE_POLICY"


def _near_label(given: str, labels) -> str:
    """`` Did you mean "aws_tested_range"?`` for a ``-policy-override`` label: a label near
    in spelling (:func:`_did_you_mean`), else one that holds every ``_``/``-`` separated word
    of the given one in order (``aws_range`` in ``aws_tested_range``), the shortest; ""
    when none is."""
    near = _did_you_mean(given, labels)
    if near:
        return near
    words = [w for w in re.split(r"[_\-]+", given.lower()) if w]

    def holds(label: str) -> bool:
        at = 0
        low = label.lower()
        for w in words:
            at = low.find(w, at)
            if at < 0:
                return False
            at += len(w)
        return True

    found = sorted((x for x in set(labels) if words and holds(x)), key=lambda x: (len(x), x))
    return f' Did you mean "{found[0]}"?' if found else ""


def _did_you_mean(given: str, names) -> str:
    """`` Did you mean "versions"?``, as OpenTofu ends an "Unsupported argument" whose name
    is near a supported one (:func:`tofu_solve.errors.name_suggestion`); "" otherwise."""
    near = name_suggestion(given, names)
    return f' Did you mean "{near}"?' if near else ""


@dataclass(frozen=True)
class SourcePattern:
    """One ``allow`` or ``deny`` pattern of the ``sources`` block, and where it is written."""

    pattern: str
    where: SourceRange
    allowed: bool = False  # an ``allow`` pattern (else ``deny``)

    def matches(self, address: str) -> bool:
        return fnmatch.fnmatchcase(address, self.pattern)


@dataclass(frozen=True)
class DenyRule:
    """A ``deny "module"|"provider" "SUBJECT" { versions, reason, link }`` block.

    Attributes:
        kind: ``module`` or ``provider``.
        subject: a module package address pattern (host included) or a provider address.
        constraint: the versions denied (a :class:`ModuleConstraint` or
            :class:`ProviderConstraint`).
        reason: why, as the policy says it; link: an advisory or incident ("" for none).
        where: the block.
    """

    kind: str
    subject: str
    constraint: ModuleConstraint | ProviderConstraint
    reason: str
    link: str
    where: SourceRange
    refused_by: Literal["policy"] = field(default="policy", init=False)  # what refuses: see ``Refusal``

    def as_data(self) -> dict:
        """The rule as ``-json`` carries it."""
        return {"kind": self.kind, "subject": self.subject, "versions": self.constraint.text, "reason": self.reason,
                "link": self.link or None, "file": self.where.file, "line": self.where.line}

    def heading(self) -> str:
        """The rule without its reason: ``deny "module" "…" (tofu-solve-policy.hcl:7)``."""
        return f'deny "{self.kind}" "{self.subject}" ({self.where})'

    def refusal(self) -> str:
        """Why a candidate is passed over: ``the policy denies it: <cite>``."""
        return f"the policy denies it: {self.cite()}"

    def cite(self) -> str:
        """The rule as every message names it: ``deny "module" "…" (tofu-solve-policy.hcl:7):
        reason (link)``."""
        link = f" ({self.link})" if self.link else ""
        return f'deny "{self.kind}" "{self.subject}" ({self.where}): {self.reason}{link}'


@dataclass(frozen=True)
class PolicyFailure:
    """A ``module_policy`` or ``provider_policy`` rule of a ``*.policy.hcl`` file that a
    version fails (issue #62): the same questions answered as of a :class:`DenyRule`, so
    that every place that names a denial names this one alike.

    Attributes:
        rule: the block; reason: its failing ``error_message`` texts, joined by "; ".
        overridden: the rule is ``mandatory_overridable`` and ``-policy-override`` names it.
    """

    rule: PolicyRule
    reason: str
    overridden: bool = False
    refused_by: Literal["policy"] = field(default="policy", init=False)  # what refuses: see ``Refusal``

    @property
    def link(self) -> str:
        """A rule of a ``*.policy.hcl`` file carries no link (a ``deny`` block may)."""
        return ""

    @property
    def kind(self) -> str:
        return self.rule.kind

    @property
    def subject(self) -> str:
        return self.rule.target

    @property
    def where(self) -> SourceRange:
        return self.rule.where

    @property
    def level(self) -> str:
        return self.rule.level

    def heading(self) -> str:
        """``module_policy "*" "floor" (policies/versions.policy.hcl:3)``."""
        return f"{self.rule.block} ({self.rule.where})"

    def refusal(self) -> str:
        """Why a candidate is passed over: ``the policy denies it: <cite>``, and for a
        ``mandatory_overridable`` rule the override that lifts it (issue #69 §3)."""
        lift = (f" (mandatory_overridable: -policy-override={self.rule.label} lifts it)"
                if self.rule.level == "mandatory_overridable" else "")
        return f"the policy denies it: {self.cite()}{lift}"

    def cite(self) -> str:
        """``module_policy "*" "floor" (policies/versions.policy.hcl:3): error_message``."""
        return f"{self.heading()}: {self.reason}"

    def as_data(self) -> dict:
        """The failure as ``-json`` carries it."""
        return {"kind": self.kind, "subject": self.subject, "policy": self.rule.label, "level": self.rule.level,
                "overridden": self.overridden, "reason": self.reason, "link": None, "file": self.where.file,
                "line": self.where.line}


Denial = DenyRule | PolicyFailure


@dataclass(frozen=True)
class Subject:
    """What a ``module_policy`` binds besides the version: the call's address
    (``module.a.module.b``) and its source as written."""

    address: str
    source: str

    @classmethod
    def of_call(cls, call_path: str, source: str) -> Subject:
        """The subject of the module call at ``call_path`` (``a.b``: ``module.a.module.b``)."""
        return cls("module." + ".module.".join(call_path.split(".")) if call_path else "", source)


@dataclass(frozen=True)
class Policy:
    """A policy file, read.

    Attributes:
        file: the file as messages name it.
        allow, deny: the ``sources`` patterns (an empty ``allow``: every source allowed).
        rules: the ``deny`` blocks.
        min_age: ``release_cooldown`` in seconds (0: none): a floor under the cooldown the
            user sets (the larger applies).
        require_pins: ``require_package_pins``; require_signed: ``require_signed_providers``.
        settings_where: where each of those is written.
    """

    file: str
    allow: tuple[SourcePattern, ...] = ()
    deny: tuple[SourcePattern, ...] = ()
    rules: tuple[DenyRule, ...] = ()
    min_age: float = 0.0  # release_cooldown, seconds
    min_age_text: str = ""
    require_pins: bool = False
    require_signed: bool = False
    settings_where: tuple[tuple[str, SourceRange], ...] = ()  # (argument name, where)
    units: tuple[PolicyUnit, ...] = ()  # the *.policy.hcl files (issue #62)
    overrides: frozenset[str] = frozenset()  # -policy-override=LABEL,...
    registry_host: str = "registry.opentofu.org"
    # the allow lists and names of further tofu-solve-policy.hcl files (nearer the root module than
    # ``file``): a source must be on every list (issue #67 §8: a nearer file cannot widen one above)
    more_allows: tuple[tuple[SourcePattern, ...], ...] = ()
    more_files: tuple[str, ...] = ()
    # the root module's provider blocks, read when a provider_policy reads attrs (issue #69 §1)
    provider_configs: tuple[ProviderConfig, ...] = ()
    # the overrides committed in tofu-solve-overrides.hcl that apply to the root (issue #84 §4)
    committed: tuple[CommittedOverride, ...] = ()

    def committed_override(self, label: str) -> CommittedOverride | None:
        """The committed override that lifts the rules labelled ``label``, if one does."""
        return next((o for o in self.committed if o.label == label), None)

    @property
    def files(self) -> tuple[str, ...]:
        """Every policy file in force, as messages name them, from the repository's top down."""
        own = ((self.file,) if self.file else ()) + self.more_files
        return own + tuple(u.file for u in self.units if u.file not in own)

    @property
    def hcl_rules(self) -> tuple[PolicyRule, ...]:
        """Every ``module_policy`` and ``provider_policy`` block, file by file."""
        return tuple(r for u in self.units for r in u.rules)

    @property
    def decides_versions(self) -> bool:
        """Whether anything here can refuse a version (``deny`` blocks, policy rules)."""
        return bool(self.rules or self.hcl_rules)

    def with_overrides(self, labels: frozenset[str]) -> Policy:
        """This policy with ``-policy-override=LABEL,...`` applied: each label lifts the
        ``mandatory_overridable`` rules it names, and only those (:meth:`lifts`).

        Raises:
            ConfigurationError: a label no ``mandatory_overridable`` rule has (with a near
                label when there is one); a label that also names a rule of another level in
                another file or block kind ("Ambiguous -policy-override", naming each rule).
        """
        overridable = [r.label for r in self.hcl_rules if r.level == "mandatory_overridable"]
        for label in sorted(labels):
            named = [r for r in self.hcl_rules if r.label == label]
            if label not in overridable:
                why = (f" It is {named[0].level} ({named[0].where}): only a mandatory_overridable rule can be "
                       "overridden." if named else _near_label(label, overridable))
                raise ConfigurationError("Invalid -policy-override", f'No mandatory_overridable policy is labelled '
                                         f'"{label}".{why}')
            others = [r for r in named if r.level != "mandatory_overridable"]
            if others:
                listed = "; ".join(f"{r.block} ({r.where}, {r.level})" for r in named)
                raise ConfigurationError(
                    "Ambiguous -policy-override",
                    f'The label "{label}" names rules of different levels in different files or block kinds: '
                    f"{listed}. -policy-override lifts only the mandatory_overridable ones; rename one of them so "
                    "that the label names what it lifts.")
        return replace(self, overrides=frozenset(labels))

    def lifts(self, rule: PolicyRule) -> bool:
        """Whether ``-policy-override`` lifts ``rule``: a ``mandatory_overridable`` rule whose
        label it names (never a rule of another level, whatever its label)."""
        return rule.level == "mandatory_overridable" and rule.label in self.overrides

    def where_of(self, name: str) -> SourceRange | None:
        """Where the top-level argument ``name`` is written (None: not set)."""
        return next((w for n, w in self.settings_where if n == name), None)

    def source_refusal(self, source: ModuleSource) -> tuple[SourcePattern | None, str] | None:
        """Why the policy refuses ``source`` (the pattern, None when ``allow`` matches
        nothing; and the package address), or None when it may be used. Local paths are
        never refused (they are part of the repository)."""
        address = package_address(source)
        if address is None:
            return None
        for p in self.deny:
            if p.matches(address):
                return p, address
        for allow in (self.allow, *self.more_allows):
            if allow and not any(p.matches(address) for p in allow):
                return allow[0], address
        return None

    def refusal_words(self, pattern: SourcePattern | None) -> str:
        """Why a source is refused (:meth:`source_refusal`): the ``deny`` pattern that
        matches it, or the ``allow`` list it is not on, with the file and line."""
        if pattern is not None and not pattern.allowed:
            return f'sources.deny "{pattern.pattern}" at {pattern.where}'
        return f"not in sources.allow at {(pattern or self.allow[0]).where}"

    def module_denial(self, package: str, version, call: Subject | None = None) -> Denial | None:
        """The rule that denies ``version`` (a GoVersion) of the module package at ``package``
        (remembered: the solver asks again for every candidate list it builds): a ``deny``
        block, else a failing ``mandatory`` (or not overridden ``mandatory_overridable``)
        ``module_policy`` (``call``: the call it would serve; without one, rules that read
        ``meta.address`` or ``meta.source`` are judged with the package address as the
        source and an empty address)."""
        if version is None:
            return None
        key = (package, str(version), call)
        memo = self._memo()
        if key in memo:
            return memo[key]
        found: Denial | None = None
        for r in self.rules:
            if r.kind == "module" and fnmatch.fnmatchcase(package, r.subject) and r.constraint.allows(version):
                found = r
                break
        if found is None:
            found = next((f for f in self.module_verdicts(package, str(version), call) if not f.overridden
                          and f.level != "advisory"), None)
        memo[key] = found
        return found

    def module_verdicts(self, package: str, version: str | None, call: Subject | None) -> list[PolicyFailure]:
        """Every ``module_policy`` the module version fails, whatever its level
        (``version`` None: a local path).

        Raises:
            ConfigurationError: a rule that cannot be evaluated (file and line).
        """
        rules = [r for r in self.hcl_rules if r.kind == "module"]
        if not rules:
            return []
        source = call.source if call is not None else package
        meta = {"source": policy_source(source, self.registry_host), "version": version,
                "address": call.address if call is not None else "", "tfe_stack": None}
        out = []
        for r in rules:
            if r.target != "*" and not self._same_module(r.target, source, package):
                continue
            verdict = r.judge(meta)
            if verdict is not None and not verdict.passed:
                out.append(PolicyFailure(r, "; ".join(verdict.errors), self.lifts(r)))
        return out

    def _same_module(self, label: str, source: str, package: str) -> bool:
        """Whether a ``module_policy`` label names the call's package (the module docstring's
        rule: both read as source addresses, compared by package address)."""
        load("tofu_solve.addrs.module_source")
        from ..addrs.module_source import SourceAddressError, parse_source

        def norm(text: str) -> str:
            try:
                parsed = parse_source(text, self.registry_host)
            except SourceAddressError:
                return text
            return package_address(parsed) or str(parsed)

        return norm(label) in (norm(source), package)

    def provider_verdicts(self, address: str, version: str | None) -> list[PolicyFailure]:
        """Every ``provider_policy`` the provider version fails, whatever its level.

        Raises:
            ConfigurationError: a rule that cannot be evaluated (file and line).
        """
        rules = [r for r in self.hcl_rules if r.kind == "provider"]
        if not rules:
            return []
        host, namespace, type_ = (address.split("/") + ["", "", ""])[:3]
        configs = [c for c in self.provider_configs if c.address == address]
        out = []
        for r in rules:
            if r.target not in ("*", type_, f"{namespace}/{type_}", address):
                continue
            # each configuration of the provider in the root module is a subject, as HCP judges
            # each provider block; without a block, the provider's default configuration
            for alias, name, attrs, where in ([(c.alias, c.local_name, c.attrs, c.where) for c in configs]
                                              or [(None, type_, {}, None)]):
                meta = {"source": f"{namespace}/{type_}" if host == self.registry_host else address,
                        "namespace": namespace, "type": type_, "name": name, "version": version, "alias": alias}
                verdict = r.judge(meta, attrs)
                if verdict is not None and verdict.unknown:
                    self._memo().setdefault("_passed_over", {})[(r.block, str(r.where))] = (r, verdict.unknown,
                                                                                          where)
                if verdict is not None and not verdict.passed:
                    out.append(PolicyFailure(r, "; ".join(verdict.errors), self.lifts(r)))
                    break
        return out

    def passed_over(self) -> list[str]:
        """The checks of ``provider_policy`` rules passed over so far because they read a
        value only a plan knows (issue #69 §1), one line per rule: what it read, where."""
        found = self._memo().get("_passed_over", {})
        return [f"{r.block} ({r.where}) reads {', '.join(names)}, which "
                + (f"the provider block at {where} sets to a value known only after plan"
                   if where is not None else "is known only after plan")
                + ": the checks that read it were passed over (HCP evaluates them at plan)."
                for r, names, where in found.values()]

    def _memo(self) -> dict:
        try:
            return self.__dict__["_denials"]
        except KeyError:
            memo: dict = {}
            object.__setattr__(self, "_denials", memo)  # a cache, not part of the value
            return memo

    def provider_denial(self, address: str, version) -> Denial | None:
        """The rule that denies ``version`` (a go-versions Version or its text) of the
        provider: a ``deny`` block, else a failing ``mandatory`` (or not overridden
        ``mandatory_overridable``) ``provider_policy``."""
        for r in self.rules:
            if r.kind == "provider" and fnmatch.fnmatchcase(address, r.subject) and r.constraint.allows(version):
                return r
        key = ("provider", address, str(version))
        memo = self._memo()
        if key not in memo:
            memo[key] = next((f for f in self.provider_verdicts(address, str(version)) if not f.overridden
                              and f.level != "advisory"), None)
        return memo[key]


def policy_source(text: str, registry_host: str) -> str:
    """A module source as a policy's ``meta.source`` gives it (issue #69 §1): as written,
    but a registry address on the default registry without its host (as HashiCorp gives a
    provider from its default registry, ``hashicorp/aws``), and a git source without its
    ``ref`` or an OCI one without its ``tag`` or ``digest`` (the version is
    ``meta.version``). So a rule reads the same whether a call writes the host or not, and
    ``init`` (the call's source as written) and ``check`` (the lock's recorded, normalized
    source) judge alike. A source that does not parse is given as written."""
    load("tofu_solve.addrs.module_source")
    from ..addrs.module_source import SourceAddressError, parse_source

    try:
        parsed = parse_source(text, registry_host)
    except SourceAddressError:
        return text
    if isinstance(parsed, RegistrySource):
        written = str(parsed)
        prefix = registry_host + "/"
        return written[len(prefix):] if written.startswith(prefix) else written
    if isinstance(parsed, OciSource) or (isinstance(parsed, RemoteSource) and parsed.kind is SourceKind.GIT):
        base, _, query = text.partition("?")
        kept = [q for q in query.split("&") if q and q.split("=")[0] not in ("ref", "tag", "digest")]
        return base + ("?" + "&".join(kept) if kept else "")
    return text


def package_address(source: ModuleSource) -> str | None:
    """The address a source's package is known by, for policy patterns: a registry package
    with its host, ``git::URL`` without ``ref``, ``oci://host/repository``, any other remote
    package as written; None for a local path."""
    if isinstance(source, LocalSource):
        return None
    if isinstance(source, RegistrySource):
        return str(source.package)
    if isinstance(source, OciSource):
        return source.package_address
    if isinstance(source, RemoteSource) and source.kind is SourceKind.GIT:
        return source.with_ref("").package.replace("?ref=", "").rstrip("?")
    return str(source)


def _qualified(pattern: str, host: str) -> str:
    """A registry pattern without a host is on ``host`` (``terraform-aws-modules/*/aws``)."""
    if "::" in pattern or "://" in pattern:
        return pattern
    first = pattern.split("/", 1)[0]
    return pattern if "." in first or ":" in first else f"{host}/{pattern}"


def policy_files(directory: Path, reads: ReadLog | None = None, entries: bool = True) -> list[Path]:
    """The policy files of ``directory``: ``tofu-solve-policy.hcl`` first, then every
    ``*.policy.hcl`` by name (issue #62). Registered in ``reads``: the directory's entries
    when ``entries`` (a policy file that appears later takes the full path), else only the
    ``tofu-solve-policy.hcl`` looked for (above the repository, whose directories change
    for reasons of their own)."""
    if reads is not None:
        if entries:
            reads.listed(directory)
        reads.saw(directory / POLICY_FILE)
    try:
        names = sorted(os.listdir(directory))
    except OSError:
        return []
    own = [directory / POLICY_FILE] if POLICY_FILE in names and (directory / POLICY_FILE).is_file() else []
    found = [directory / n for n in names if n.endswith(HCL_POLICY_SUFFIX) and (directory / n).is_file()]
    for p in found:  # a name no message could quote on one line: refused by name, never read (issue #80 §2)
        if has_control(p.name):
            raise ConfigurationError("Invalid file name", f"The policy file {one_line(p.name)} in "
                                     f"{one_line(directory)} has a control or invisible character in its name: "
                                     "tofu-solve reads no such file. Rename it.")
    return own + found


def find_policies(root: Path, flag: str | None, environ: Mapping[str, str],
                  reads: ReadLog | None = None) -> list[Path]:
    """The policy files for ``root``: ``-policy`` (``flag``), else ``TOFU_SOLVE_POLICY``
    (either a file, or a directory whose policy files are read): set by whoever runs the
    job, these replace the repository's. Else, inside a repository, the policy files
    (:func:`policy_files`) of every directory from the repository's top down to ``root``, the
    top's first: all of them apply, so that a file a pull request drops beside a root module
    adds rules and removes none (issue #67 §8, as HCP attaches policy sets above the
    workspace); outside a repository, those of the first directory from ``root`` upward that
    has any. None when either setting is ``none`` or nothing is found. Every place looked at,
    found or not, is registered in ``reads`` (issue #47 §2).

    Raises:
        ConfigurationError: a named policy file or directory that does not exist, a named
            directory without policy files.
    """
    seen = reads.saw if reads is not None else (lambda *paths: None)
    named = flag if flag else environ.get(POLICY_VARIABLE)
    if named:
        if named == "none":
            return []
        p = Path(named)
        if not p.is_absolute():
            p = root / p  # as tofu reads -var-file: relative to the -chdir directory
        seen(p)
        origin = "-policy" if flag else POLICY_VARIABLE
        if p.is_dir():
            found = policy_files(p, reads)
            if not found:
                raise ConfigurationError("No policy files found", f"{origin} names the directory {named}, which holds "
                                         f"no {POLICY_FILE} and no *{HCL_POLICY_SUFFIX} file.")
            return found
        if not p.is_file():
            raise ConfigurationError("Policy file not found", f"{origin} names {named}, which is not a file.")
        return [p]
    d = root.resolve()
    watched = _watched_dirs(d)
    if len(watched) > 1 or (d / ".git").exists():  # inside a repository: every directory up to its top
        found = []
        for directory in sorted(watched, key=lambda p: len(p.parts)):
            found += policy_files(directory, reads)
        return found
    while True:
        found = policy_files(d, reads, d in watched)
        if found:
            return found
        if d.parent == d:
            return []
        d = d.parent


def _watched_dirs(root: Path) -> frozenset[Path]:
    """The directories whose entries the warm path watches for a policy file that appears:
    ``root`` and its parents up to the repository's top (the first with ``.git``); only
    ``root`` outside a repository (the directories above change for reasons of their own)."""
    out = []
    d = root
    while True:
        out.append(d)
        if (d / ".git").exists():
            return frozenset(out)
        if d.parent == d:
            return frozenset({root})
        d = d.parent


def find_policy(root: Path, flag: str | None, environ: Mapping[str, str],
                reads: ReadLog | None = None) -> Path | None:
    """The first of :func:`find_policies` (None: none).

    Raises:
        ConfigurationError: as :func:`find_policies`.
    """
    found = find_policies(root, flag, environ, reads)
    return found[0] if found else None


def policy_inputs(environ: Mapping[str, str], given: Sequence[str] = ()) -> dict[str, tuple[str, str]]:
    """The values ``*.policy.hcl`` inputs may read: input name -> (value, where it came from),
    from ``TFPOLICY_INPUT_<name>`` in ``environ``, then ``-policy-input NAME=VALUE``
    (``given``; a later one wins), as HashiCorp's tfpolicy reads them (the flag before the
    variable, both before the block's ``default``: ``../shared/docs/policy-lifecycle-reference.md``
    §1). No other environment variable reaches a policy (issue #67 §2: a pull request's
    policy file must not read the job's secrets).

    Raises:
        ConfigurationError: a ``-policy-input`` without ``=`` or with a name that is not an
            identifier.
    """
    load("tofu_solve.config.policy_hcl")
    from .policy_hcl import INPUT_PREFIX

    out = {k[len(INPUT_PREFIX):]: (v, k) for k, v in environ.items()
           if k.startswith(INPUT_PREFIX) and len(k) > len(INPUT_PREFIX)}
    for item in given:
        name, eq, value = item.partition("=")
        if not eq or not name.isidentifier():
            raise ConfigurationError("Invalid -policy-input", f'-policy-input "{item}": write NAME=VALUE, NAME '
                                     "the input's name.")
        out[name] = (value, f"-policy-input {name}")
    return out


def load_policy(root: Path, flag: str | None, environ: Mapping[str, str],
                registry_host: str = "registry.opentofu.org", reads: ReadLog | None = None,
                display_prefix: str = "", overrides: frozenset[str] = frozenset(), now=None,
                inputs: Sequence[str] = ()) -> Policy | None:
    """The policy in force for ``root`` (:func:`find_policies`, then :func:`read_policy` of
    a ``tofu-solve-policy.hcl`` and :func:`~.policy_hcl.read_policy_unit` of each
    ``*.policy.hcl``, issue #62; each file named relative to the root module in messages, as
    its own files are, after ``display_prefix``: under ``-recursive`` the root's place below
    where the user ran, so that every root names one file alike, issue #47 §5), or None;
    ``reads``: where the places looked at are registered; ``overrides``: the labels
    ``-policy-override`` names; ``now``: the clock policies' ``timestamp()`` reads (default
    the system's); ``inputs``: the ``-policy-input NAME=VALUE`` given (with
    ``TFPOLICY_INPUT_*`` of ``environ``, the only values inputs read: :func:`policy_inputs`).

    Raises:
        ConfigurationError: as :func:`find_policies` and the readers; an override that
            names no ``mandatory_overridable`` rule.
    """
    from datetime import datetime

    paths = find_policies(root, flag, environ, reads)
    if not paths:
        return None
    for path in paths:
        if reads is not None:
            reads.saw(path)

    def shown_as(path: Path) -> str:
        try:
            shown = os.path.relpath(path, root)
            if display_prefix:
                shown = os.path.normpath(os.path.join(display_prefix, shown))
        except ValueError:  # another drive
            shown = os.fspath(path)
        return shown

    policy = policy_of_files(paths, shown_as, policy_inputs(environ, inputs), registry_host,
                             now or (lambda: datetime.now(UTC)))
    if any(r.kind == "provider" and r.reads_attrs() for r in policy.hcl_rules):
        policy = replace(policy, provider_configs=root_provider_configs(root, registry_host, display_prefix))
    committed = read_committed_overrides(root, shown_as, (lambda: now().date()) if now is not None else None, reads)
    for o in committed:  # each names an overridable rule of this root's policy, else it is an error at its line
        try:
            policy.with_overrides(frozenset({o.label}))
        except ConfigurationError as e:
            raise ConfigurationError("Invalid policy override", e.detail.replace("-policy-override", "An override"),
                                     o.where) from None
    if committed:
        policy = replace(policy, committed=committed)
    labels = overrides | {o.label for o in committed}
    return policy.with_overrides(labels) if labels else policy


def policy_of_files(paths: Sequence[Path], shown_as, values: Mapping[str, tuple[str, str]], registry_host: str,
                    now, texts: Mapping[Path, str] | None = None) -> Policy:
    """The policy of the files ``paths`` (``tofu-solve-policy.hcl`` files read by
    :func:`read_policy` and combined, ``*.policy.hcl`` files read as units with the input
    ``values``), each named in messages as ``shown_as(path)`` gives; ``now`` the clock;
    ``texts``: an editor's unsaved buffers by path, read instead of the disk.

    Raises:
        ConfigurationError: as the readers.
    """
    load("tofu_solve.config.policy_hcl")
    from .policy_hcl import read_policy_unit

    teams: list[Policy] = []
    units = []
    for path in paths:
        text = (texts or {}).get(path)
        if path.name.endswith(HCL_POLICY_SUFFIX):
            units.append(read_policy_unit(path, shown_as(path), values, now, text))
        else:
            teams.append(read_policy(path, shown_as(path), registry_host, text))
    policy = combined(teams) if teams else Policy(units[0].file if units else "")
    return replace(policy, units=tuple(units), registry_host=registry_host)


def root_provider_configs(root: Path, registry_host: str, display_prefix: str = "") -> tuple[ProviderConfig, ...]:
    """The root module's ``provider`` blocks (:class:`~.module_dir.ProviderConfig`), read as
    the product of ``registry_host`` reads the module (its files, overrides merged), for a
    ``provider_policy`` that reads ``attrs`` (issue #69 §1); none when the module does not
    read (its own error is the solve's to report)."""
    load("tofu_solve.addrs.product")
    from ..addrs.product import OPENTOFU, TERRAFORM
    load("tofu_solve.config.loader")
    from .loader import load_module_dir

    product = TERRAFORM if registry_host == TERRAFORM.registry_host else OPENTOFU
    try:
        return load_module_dir(root, display_prefix, product=product, strict=False).provider_configs
    except TofuSolveError:
        return ()


def combined(policies: Sequence[Policy]) -> Policy:
    """Several ``tofu-solve-policy.hcl`` files as one, the repository's top first (issue #67
    §8): every ``deny`` pattern and block of each; a source must be on every ``allow`` list
    that is not empty; the longest ``release_cooldown``; a requirement any file sets."""
    first, rest = policies[0], list(policies[1:])
    if not rest:
        return first
    longest = max(policies, key=lambda p: p.min_age)
    return replace(
        first, deny=tuple(x for p in policies for x in p.deny), rules=tuple(r for p in policies for r in p.rules),
        more_allows=tuple(p.allow for p in rest if p.allow), more_files=tuple(p.file for p in rest),
        min_age=longest.min_age, min_age_text=longest.min_age_text,
        require_pins=any(p.require_pins for p in policies), require_signed=any(p.require_signed for p in policies),
        # the cooldown in force is cited first (where_of gives the first)
        settings_where=longest.settings_where + tuple(w for p in policies if p is not longest
                                                      for w in p.settings_where))


def read_policy(path: Path, shown: str | None = None, registry_host: str = "registry.opentofu.org",
                text: str | None = None) -> Policy:
    """Read the policy file at ``path`` (``shown``: its name in messages; ``text``: an
    editor's unsaved buffer of it, read instead of the disk).

    Raises:
        ConfigurationError: unreadable file, broken HCL, an unknown block or argument, a
            pattern or address that does not parse, a constraint that does not parse,
            ``deny`` without ``versions`` or ``reason``; each with file and line.
    """
    load("tofu_solve.config.hcl")
    from . import hcl

    name = shown or os.fspath(path)
    if text is None:
        try:
            text = confined.read_text(path, name)  # a link out of the repository is refused (issue #67 §3)
        except (OSError, UnicodeDecodeError) as e:
            raise ConfigurationError("Failed to read the policy file", f"{name} could not be read ({e}).") from None
    reader = _PolicyReader(name, text, registry_host)
    body = hcl.parse(text, name)
    for a in body.attributes:
        reader.setting(a)
    for b in body.blocks:
        if b.type == "sources" and not b.labels:
            reader.sources(b)
        elif b.type == "deny" and len(b.labels) == 2 and b.labels[0] in ("module", "provider"):
            reader.deny(b)
        else:
            raise ConfigurationError("Unsupported block type",
                                     f'Blocks of type "{b.type}" with {len(b.labels)} labels are not expected in a '
                                     'policy file (sources, deny "module" "ADDRESS", deny "provider" "ADDRESS").',
                                     reader.here(b.line))
    return Policy(name, tuple(reader.allow), tuple(reader.deny_patterns), tuple(reader.rules),
                  settings_where=tuple(reader.where.items()), **reader.settings)


class _PolicyReader:
    """One policy file read: its settings, source patterns and deny rules as they are met
    (``name``: the file as messages name it; ``text``: its contents)."""

    def __init__(self, name: str, text: str, registry_host: str):
        self.name, self.lines, self.registry_host = name, text.splitlines(), registry_host
        self.allow: list[SourcePattern] = []
        self.deny_patterns: list[SourcePattern] = []
        self.rules: list[DenyRule] = []
        self.settings: dict = {}
        self.where: dict = {}

    def here(self, line: int, context: str = "") -> SourceRange:
        return SourceRange(self.name, line, context, self.lines[line - 1] if 0 < line <= len(self.lines) else "")

    def literal(self, attr, what: str, shape: str, fits):
        """The argument's constant value when ``fits`` it, else "Invalid policy value"."""
        load("tofu_solve.config.hcl")
        from . import hcl

        try:
            v = attr.expr.literal()
        except hcl.NotLiteral:
            v = None
        if not fits(v):
            raise ConfigurationError("Invalid policy value", f"{what} must be {shape}.", self.here(attr.line))
        return v

    def string(self, attr, what: str) -> str:
        return self.literal(attr, what, "a string", lambda v: isinstance(v, str))

    def strings(self, attr, what: str) -> list[str]:
        return self.literal(attr, what, "a list of strings",
                            lambda v: isinstance(v, list) and all(isinstance(x, str) for x in v))

    def setting(self, a) -> None:
        """A top-level argument: ``release_cooldown``, ``require_package_pins``,
        ``require_signed_providers``."""
        if a.name == "release_cooldown":
            load("tofu_solve.versions.cooldown")
            from ..versions.cooldown import parse_duration

            text_value = self.string(a, "release_cooldown")
            try:
                self.settings["min_age"] = parse_duration(text_value, "release_cooldown")
            except TofuSolveError as e:
                raise ConfigurationError(e.summary, e.detail, self.here(a.line)) from None
            self.settings["min_age_text"] = text_value
        elif a.name in ("require_package_pins", "require_signed_providers"):
            self.settings["require_pins" if a.name == "require_package_pins" else "require_signed"] = \
                self.literal(a, a.name, "true or false", lambda v: isinstance(v, bool))
        else:
            raise ConfigurationError("Unsupported argument", f'An argument named "{a.name}" is not expected in a '
                                     "policy file." + _did_you_mean(a.name, ("release_cooldown", "require_package_pins",
                                                                              "require_signed_providers")),
                                     self.here(a.line))
        self.where[a.name] = self.here(a.line)

    def sources(self, b) -> None:
        """A ``sources`` block: its ``allow`` and ``deny`` patterns."""
        for a in b.body.attributes:
            if a.name not in ("allow", "deny"):
                raise ConfigurationError("Unsupported argument", f'An argument named "{a.name}" is not expected '
                                         'in a "sources" block.' + _did_you_mean(a.name, ("allow", "deny")),
                                         self.here(a.line, "sources"))
            into = self.allow if a.name == "allow" else self.deny_patterns
            into += [SourcePattern(_qualified(p, self.registry_host), self.here(a.line, "sources"), a.name == "allow")
                     for p in self.strings(a, f"sources.{a.name}")]

    def deny(self, b) -> None:
        """A ``deny "module" "ADDRESS"`` or ``deny "provider" "ADDRESS"`` block."""
        kind, subject = b.labels
        ctx = f'deny "{kind}" "{subject}"'
        args = {a.name: a for a in b.body.attributes}
        for n in args:
            if n not in ("versions", "reason", "link"):
                raise ConfigurationError("Unsupported argument", f'An argument named "{n}" is not expected '
                                         f"in a {ctx} block." + _did_you_mean(n, ("versions", "reason", "link")),
                                         self.here(args[n].line, ctx))
        for n in ("versions", "reason"):
            if n not in args:
                raise ConfigurationError("Missing required argument", f'The argument "{n}" is required in a '
                                         f"{ctx} block.", self.here(b.line, ctx))
        versions = self.string(args["versions"], f"{ctx}: versions")
        if kind == "provider" and "*" not in subject:
            try:
                subject = str(parse_provider_source(subject, self.registry_host))
            except ProviderAddressError as e:
                raise ConfigurationError(e.summary, e.detail, self.here(b.line, ctx)) from None
        elif kind == "module":
            subject = _qualified(subject, self.registry_host)
        try:
            constraint: ModuleConstraint | ProviderConstraint = \
                module_constraint(versions) if kind == "module" else provider_constraint(versions)
        except TofuSolveError as e:
            raise ConfigurationError(e.summary, e.detail, self.here(args["versions"].line, ctx)) from None
        link = self.string(args["link"], f"{ctx}: link") if "link" in args else ""
        self.rules.append(DenyRule(kind, subject, constraint, self.string(args["reason"], f"{ctx}: reason"), link,
                                   self.here(b.line, ctx)))


__all__ = ["HCL_POLICY_SUFFIX", "POLICY_FILE", "POLICY_VARIABLE", "Denial", "DenyRule", "Policy", "PolicyFailure",
           "SourcePattern", "Subject", "find_policies", "find_policy", "load_policy", "package_address", "policy_files",
           "read_policy"]
