"""``tofu-solve check``: is what is installed exactly what the lock says?

Offline and read-only. It reads the configuration (the root module and every installed
copy under ``.terraform/modules``), ``.terraform.lock.hcl`` and ``modules.json``, and lists
each difference:

* ``no-lock``: a remote module call without a module lock entry;
* ``constraints``: a call whose ``version`` constraint is not the one locked;
* ``source``: a call whose source is not the one locked;
* ``stale-lock``: a module lock entry for a call that no longer exists;
* ``manifest``: ``modules.json`` lacks the call, or records another source, version or
  directory than the lock implies (what ``tofu init -upgrade`` or a plain ``tofu init``
  on a fresh clone leaves behind when it picks other versions);
* ``not-installed`` / ``hash``: the installed directory is missing, or its ``h1:`` is not
  among the lock's hashes because it was changed after installation;
* ``lock-hash``: the lock's ``h1:`` matches neither the installed copy nor what the last
  init recorded for it, which agree: the lock file was edited (issue #47 §6, the diagnosis
  ``init`` gives too: :func:`tofu_solve.workdir.install.hash_mismatch`);
* ``override``: the override bridge file is missing, stale, or no longer needed;
* ``provider``: a required provider without a lock, a locked provider the configuration
  no longer meets (or no longer requires);
* ``policy``: a locked version today's policy denies;
* ``revoked``: a locked module version its registry revoked, as the last ``init`` that
  asked the registry recorded it in the cache (issue #62 §3; ``check`` stays offline);
* ``pin``: a Terragrunt unit whose ``terragrunt.hcl`` lets Terragrunt resolve another
  version than the lock's (:func:`check_unit`).

:func:`check` returns them; the CLI exits 1 when there is any.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from .._lazy import load
from ..addrs.module_source import LocalSource, RegistrySource, lock_source, parse_source, tofu_source
from ..config.policy import Policy, Subject, load_policy, package_address
from ..config.tree import ModuleTree, read_module_tree
from ..config.variables import collect_input_values
from ..errors import ConfigurationError, HashError, LockHashEdited, SourceRange, TofuSolveError
from ..lockfile import LOCK_FILE_NAME, read_lock_file
from ..lockfile.hashes import VCS_DIRS, hash_dir
from ..settings import ReadLog, Settings
from ..solver.locks import locked_for, policy_denial
from ..solver.model import Kind
from ..terragrunt.pins import OVERRIDE_FILE, override_edit
from ..terragrunt.unit import UNIT_CALL, Unit, has_unit_file, unit_and_target
from ..versions import apparentlymart_go_versions as gvs
from ..versions.target import TargetVersion, configured_client, target_version
from ..workdir import overrides
from ..workdir.install import MANIFEST, NOT_HASHED, data_dir, hash_mismatch, read_manifest
from ..workdir.solved import recorded_module_locks
from ..workdir.stamp import FULL_CHECK_VARIABLE, HASH_MEMO_FILE, Finished, HashMemo
from .arguments.report_flags import CheckArguments
from .views.report_views import AGREE, CheckView

DifferenceKind = Literal["no-lock", "constraints", "source", "stale-lock", "not-installed", "manifest", "hash",
                         "lock-hash", "override", "provider", "policy", "revoked", "pin"]
"""What a :class:`Difference` is about (its ``kind`` in ``check -json``)."""


@dataclass(frozen=True)
class Difference:
    """One way the working directory disagrees with the lock.

    Attributes:
        kind: see the module docstring.
        subject: ``module "vpc.nested"``, ``provider "registry.opentofu.org/hashicorp/aws"``,
            or a file.
        detail: one sentence saying what differs and what to run.
        where: the configuration line concerned, when there is one.
    """

    kind: DifferenceKind
    subject: str
    detail: str
    where: SourceRange | None = None

    def as_data(self) -> dict:
        return {"kind": self.kind, "subject": self.subject, "detail": self.detail,
                "file": self.where.file if self.where else None, "line": self.where.line if self.where else None}

    def __str__(self) -> str:
        at = f" ({self.where})" if self.where else ""
        return f"- {self.subject}: {self.detail}{at}"


def check(root: Path, settings: Settings, cli_vars: tuple[tuple[str, str], ...] = (),
          target: TargetVersion | None = None, display_prefix: str = "",
          policy: Policy | None = None) -> list[Difference]:
    """Every difference between the configuration, the lock file, ``modules.json``, the
    installed modules and the override files of the working directory at ``root``
    (``cli_vars``: ``-var`` / ``-var-file`` options, and ``target`` the client
    and version to check for, as ``init`` chose it; by default OpenTofu, as
    :func:`tofu_solve.versions.target.target_version` finds it without a client;
    ``display_prefix`` before the root's file names in citations, as ``-recursive`` names them).

    Raises:
        ConfigurationError: the root module cannot be read.
        LockFileError: the lock file is malformed.
    """
    root = Path(root)
    target = target or target_version(None, root)
    unit, target = unit_and_target(root, display_prefix, settings.environ, target, settings.reads.saw)
    if unit is not None:
        return check_unit(unit, settings, target, policy)
    walk = _Walk(root, settings, target)  # the lock file, modules.json and the hash memo are read first
    root_tree = read_module_tree(root, confine=False, inputs=collect_input_values(root, settings.environ, cli_vars),
                                 product=target.product, display_prefix=display_prefix)
    walk.visit(root_tree, "", "")
    out, locks = walk.out, walk.locks
    unread = tuple(p + "." for p in walk.skipped)  # calls inside a copy not read are unknown, not stale
    for path in sorted(p for p in set(locks.modules) - walk.seen if not p.startswith(unread)):
        out.append(Difference("stale-lock", f'module "{path}"', "is locked but no module call has that path any "
                              "more; run tofu-solve init to drop it."))
    if overrides.bridge_supported(target):  # else init writes none, and says why
        _check_overrides(out, root, walk.modules_dir, root_tree, walk.copies,
                         {p: m.source for p, m in locks.modules.items()})
    _check_providers(out, locks, walk.providers, complete=not walk.skipped)
    if policy is not None:
        _check_policy(out, locks, policy, target.product.registry_host)
    _check_revoked(out, locks, target.product.registry_host, settings)
    return out


def check_unit(unit: Unit, settings: Settings, target: TargetVersion, policy: Policy | None = None) -> list[Difference]:
    """Every way a Terragrunt unit (issue #73 §4) would not install what its lock records,
    offline and without ``.terraform`` (Terragrunt installs into its own working copy):

    * ``no-lock`` / ``constraints`` / ``source``: the unit's module has no lock entry, or its
      range or source changed since;
    * ``pin``: Terragrunt would resolve another version than the lock's: the unit's
      ``version`` is a range with no tofu-solve pin (Terragrunt takes the newest release in
      it on every run, ``resolveTerraformModuleVersion``), or the pin is not the lock's;
    * ``override``: ``tofu_solve_override.tf`` is not what the lock implies;
    * ``policy`` / ``revoked``: as for a root module.
    """
    out: list[Difference] = []
    locks = read_lock_file(unit.config.home / LOCK_FILE_NAME, refused_by="tofu-solve check")
    host = target.product.registry_host
    if unit.kind != "local":
        _check_unit_module(out, unit, locks.modules.get(UNIT_CALL), host)
    edit = override_edit(unit, locks.modules)
    if edit is not None:
        out.append(Difference("override", OVERRIDE_FILE, f"is not what the lock implies (it would be {edit.what}), so "
                              "the client in Terragrunt's working copy would choose the module's calls itself; run "
                              "tofu-solve init.", edit.where))
    if policy is not None:
        _check_policy(out, locks, policy, host)
    _check_revoked(out, locks, host, settings)
    return out


def _check_unit_module(out: list[Difference], unit: Unit, lock, host: str) -> None:
    subject = f'module "{UNIT_CALL}"'
    at = unit.range_where or unit.source_where
    if lock is None:
        out.append(Difference("no-lock", subject, f"the Terragrunt unit's module ({unit.source_text}) has no lock "
                              "entry; run tofu-solve init.", at))
        return
    if lock.constraints != (unit.range or ""):
        out.append(Difference("constraints", subject, f'its version constraint is "{unit.range or ""}" but the lock '
                              f'has "{lock.constraints}"; run tofu-solve init.', at))
    try:
        source = parse_source(unit.source_text, host)
    except TofuSolveError:
        return
    ranged_ref = unit.kind in ("git", "oci") and unit.range is not None
    if lock.source != lock_source(source, ranged_ref, lock.version):
        out.append(Difference("source", subject, f"its source is not the locked one ({lock.source}); run tofu-solve "
                              "init.", unit.source_where))
    if unit.kind != "registry" and not ranged_ref:
        return  # a git or OCI ref is exact: Terragrunt takes what the source names
    pinned = unit.pin if unit.pin is not None or ranged_ref else _exact(unit.terragrunt_constraint)
    if pinned == lock.version:
        return
    if pinned is not None:
        words = (f"Terragrunt installs {pinned} (the unit's {'source' if ranged_ref else 'version'} pins it), not "
                 f"the lock's {lock.version}; run tofu-solve init.")
    elif unit.range:
        words = (f'Terragrunt resolves "{unit.range}" again on every run and takes the newest release in it, which '
                 f"need not be the lock's {lock.version}; run tofu-solve init to pin it.")
    else:
        words = (f"Terragrunt takes the newest release of {unit.source_text} on every run, which need not be the "
                 f"lock's {lock.version}; run tofu-solve init to pin it.")
    # placed where the pin is, or belongs: the unit's own terragrunt.hcl
    own = SourceRange(unit.config.shown, unit.config.own_terraform_line or 1)
    out.append(Difference("pin", subject, words, unit.pin_at.where if unit.pin_at is not None else own))


def _exact(constraint: str | None) -> str | None:
    """The one version ``constraint`` admits when it is an exact one (``1.2.3``, ``= 1.2.3``)."""
    if constraint is None:
        return None
    text = constraint.strip().removeprefix("=").strip()
    return text if re.fullmatch(r"v?\d+(\.\d+){0,2}(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?", text) else None


def _check_revoked(out: list[Difference], locks, host: str, settings: Settings) -> None:
    """Locked registry module versions their registry revoked (issue #62 §3: a revoked
    version "blocks new users"; ``init`` moves such a lock to the nearest version not
    revoked, and ``-lockfile=readonly`` refuses it), from the cache."""
    load("tofu_solve.remote.registry_lifecycle")
    from ..remote.registry_lifecycle import cached_revocations
    load("tofu_solve.store.cache")
    from ..store.cache import Cache

    cache = Cache(settings.cache_dir)
    for path, m in sorted(locks.modules.items()):
        try:
            source = parse_source(m.source, host)
        except TofuSolveError:
            continue
        if not isinstance(source, RegistrySource):
            continue
        revoked = cached_revocations(cache, source.package, settings.reads).get(m.version)
        if revoked is not None:
            link = f" ({revoked.link})" if revoked.link else ""
            out.append(Difference("revoked", f'module "{path}"', f"is locked at {m.version}, which its registry "
                                  f"revoked: {revoked.reason}{link}; tofu-solve init moves it to the nearest version "
                                  "not revoked."))


class _Walk:
    """One walk of the module calls from the root down through the installed copies: each
    call checked against its lock entry, ``modules.json`` and its installed copy, whose own
    calls are then walked. Collects the differences (``out``), the call paths met
    (``seen``), the copies read (``copies``: call path -> (tree, directory, subdir)), every
    provider requirement met (``providers``) and the calls whose copy was not read
    (``skipped``: their providers and calls are unknown)."""

    def __init__(self, root: Path, settings: Settings, target: TargetVersion):
        self.root, self.target = root, target
        self.locks = read_lock_file(root / LOCK_FILE_NAME, refused_by="tofu-solve check")
        self.modules_dir = data_dir(root, settings.data_dir) / "modules"
        # the hashes init remembered by size and time (read only: check writes nothing)
        self.memo = HashMemo(data_dir(root, settings.data_dir) / HASH_MEMO_FILE,
                             trust=not settings.environ.get(FULL_CHECK_VARIABLE))
        self.recorded = recorded_module_locks(root, settings)
        self.manifest = read_manifest(self.modules_dir / MANIFEST)
        self.out: list[Difference] = []
        self.seen: set[str] = set()
        self.copies: dict[str, tuple[ModuleTree, Path, str]] = {}
        self.providers: dict[str, list] = {}
        self.skipped: list[str] = []

    def visit(self, tree: ModuleTree, prefix: str, base: str) -> None:
        """``tree``'s providers and remote calls, the calls at ``prefix`` (their call paths'
        start), its files cited under ``base`` (the installed copy's directory, relative)."""
        for _, p in tree.providers:
            self.providers.setdefault(str(p.address), []).append(p)
        for rc in tree.remote_calls:
            path = ".".join(([prefix] if prefix else []) + list(rc.rel_path))
            self.seen.add(path)
            at = rc.call.constraint_where  # one citation form (issue #34): the version, else the source attribute
            if base and at is not None:  # name the installed copy's file, not the package's
                at = SourceRange(f"{base}/{at.file}", at.line)
            copy = self._call(path, rc.call, at)
            if copy is None:
                self.skipped.append(path)
                continue
            self.copies[path] = copy
            self.visit(copy[0], path, _rel(copy[1], self.root))

    def _call(self, path: str, call, at: SourceRange | None) -> tuple[ModuleTree, Path, str] | None:
        """Check one call; its installed copy's (tree, directory, subdir) when it is read,
        else None (a difference says why)."""
        out, subject = self.out, f'module "{path}"'
        lock = self._lock(path, subject, at)
        if lock is None:
            return None
        want_constraint = call.version.text if call.version else ""
        if lock.constraints != want_constraint:
            out.append(Difference("constraints", subject,
                                  f'its version constraint is "{want_constraint}" but the lock has '
                                  f'"{lock.constraints}"; run tofu-solve init.', at))
        if not locked_for(lock, call):
            out.append(Difference("source", subject, f"its source is not the locked one ({lock.source}); run "
                                  "tofu-solve init.", at))
            return None
        installed = self.modules_dir / path
        if not _check_manifest(out, subject, self.manifest.get(path), call, lock, installed, self.root, at):
            return None  # another version is installed: its hash and its calls say nothing more
        if not installed.is_dir():
            out.append(Difference("not-installed", subject, f"{_rel(installed, self.root)} does not exist; run "
                                  "tofu-solve init.", at))
            return None
        if not self._hash_matches(path, subject, lock, installed, at):
            return None
        subdir = "" if isinstance(call.source, LocalSource) else call.source.subdir
        try:
            tree = read_module_tree(installed, subdir, product=self.target.product, symbols=call.symbols)
        except ConfigurationError as e:
            out.append(Difference("not-installed", subject, f"the installed copy cannot be read: {e.summary}.", at))
            return None
        return tree, installed, subdir

    def _lock(self, path: str, subject: str, at: SourceRange | None):
        """The call's lock entry; one the last init recorded when a tool dropped it from the
        lock file (what init writes back); None when there is none (a difference says so)."""
        lock = self.locks.modules.get(path)
        if lock is None and path in self.recorded:
            self.out.append(Difference(
                "no-lock", subject, f"its module block is missing from the lock file, which the last tofu-solve "
                f"init locked at {self.recorded[path].version}: a tool that rewrites the lock file (tofu providers "
                "lock, tofu init -upgrade) drops module blocks; tofu-solve init writes it back.", at))
            return self.recorded[path]  # the installed copy is checked against it
        if lock is None:
            self.out.append(Difference("no-lock", subject, "has no module lock entry; run tofu-solve init.", at))
        return lock

    def _hash_matches(self, path: str, subject: str, lock, installed: Path, at: SourceRange | None) -> bool:
        """Whether the installed copy's ``h1:`` is one the lock records (or the lock records
        none); else a difference with the one diagnosis init gives too (issue #47 §6: the
        lock, or the copy?)."""
        h1s = [h for h in lock.hashes if h.startswith("h1:")]
        try:
            actual = self.memo.h1(installed, lambda p: hash_dir(p, exclude=VCS_DIRS, exclude_files=NOT_HASHED))
        except HashError as e:
            actual = f"(cannot hash: {e.detail})"
        if not h1s or actual in h1s:
            return True
        rec = self.recorded.get(path)
        problem = hash_mismatch(path, lock, None, actual, rec.hashes if rec is not None else (), LOCK_FILE_NAME)
        edited = isinstance(problem, LockHashEdited)
        self.out.append(Difference("lock-hash" if edited else "hash", subject,
                                   " ".join(problem.detail.split()) if problem is not None
                                   else f"the installed copy in {_rel(installed, self.root)} has {actual}, the lock "
                                   f"records {', '.join(h1s)}.",
                                   problem.where if edited and problem is not None else at))
        return False


def _check_policy(out: list[Difference], locks, policy: Policy, host: str) -> None:
    """Locked versions today's policy denies, and locked sources it refuses (issue #39): a
    lock written before a rule was added, or by a tool that does not read the policy. A
    plain ``init`` moves a denied lock (issue #47: a policy change is a lock change), so
    that is the command named."""
    for path, m in sorted(locks.modules.items()):
        try:
            source = parse_source(m.source, host)
        except TofuSolveError:
            continue
        refusal = policy.source_refusal(source)
        address = package_address(source)
        if refusal is not None:
            out.append(Difference("policy", f'module "{path}"', f"is locked to {refusal[1]}, which the policy refuses "
                                  f"({policy.refusal_words(refusal[0])}); change the call's source."))
        elif address is not None and (rule := policy_denial(policy, Kind.MODULE, address, m.version,
                                                            Subject.of_call(path, m.source))) is not None:
            out.append(Difference("policy", f'module "{path}"', f"is locked at {m.version}, which the policy denies "
                                  f"({rule.cite()}); {_next_step(rule)}", rule.where))
    for addr, p in sorted(locks.providers.items()):
        rule = policy_denial(policy, Kind.PROVIDER, addr, p.version)
        if rule is not None:
            out.append(Difference("policy", f'provider "{addr}"', f"is locked at {p.version}, which the policy "
                                  f"denies ({rule.cite()}); {_next_step(rule)}", rule.where))


def _next_step(rule) -> str:
    """What moves a denied lock: init, to the nearest allowed version, when the rule's
    verdict turns on the version; else no version passes while the configuration and the
    inputs it reads stand, and that is said (issue #84 §2: never a promise init cannot keep)."""
    inner = getattr(rule, "rule", None)
    if inner is None or not hasattr(inner, "reads_version") or inner.reads_version:
        return "tofu-solve init moves it to the nearest allowed version."
    read = [f"{root}.{name}" for root, name in inner.reads()]
    inputs = [name for root, name in inner.reads() if root == "input"]
    return ("no version can pass this rule while what it reads stands" + (f" ({', '.join(read)})" if read else "")
            + ": change the configuration" + (f", or give {' and '.join(f'-policy-input {n}=VALUE' for n in inputs)}"
                                              if inputs else "")
            + (f", or lift it with -policy-override={inner.label}" if inner.level == "mandatory_overridable" else "")
            + ".")


def _rel(p: Path, root: Path) -> str:
    try:
        return str(p.relative_to(root))
    except ValueError:
        return str(p)


def _check_manifest(out, subject, record, call, lock, installed, root, where) -> bool:
    """Compare the call's modules.json record with what the lock implies; False (and a
    difference) when they disagree."""
    versioned = call.version is not None
    want_source = tofu_source(call.source, versioned, lock.version)
    want_version = lock.version if isinstance(call.source, RegistrySource) else ""
    rel = _rel(installed, root).replace("\\", "/")
    want_dir = f"{rel}/{call.source.subdir}" if call.source.subdir else rel
    if record is None:
        out.append(Difference("manifest", subject, "is missing from .terraform/modules/modules.json; run tofu-solve "
                              "init.", where))
        return False
    got = (record.get("Source", ""), record.get("Version", ""), record.get("Dir", ""))
    if got[1] != want_version:
        out.append(Difference("manifest", subject, f"modules.json records version {got[1] or '(none)'}, the lock "
                              f"{want_version}: tofu init installed another version; run tofu-solve init.", where))
    elif got[0] != want_source:
        load("tofu_solve.addrs.redact")
        from ..addrs.redact import redact
        out.append(Difference("manifest", subject, f"modules.json records source {redact(got[0])}, the lock implies "
                              f"{redact(want_source)}: tofu init installed another version; run tofu-solve init.",
                              where))
    elif got[2] != want_dir:
        out.append(Difference("manifest", subject, f"modules.json records directory {got[2]}, expected {want_dir}; "
                              "run tofu-solve init.", where))
    else:
        return True
    return False


def _check_overrides(out, root, modules_dir, root_tree, copies, locked_sources) -> None:
    wanted, _ = overrides.split_outside(overrides.wanted_files(root, root_tree, copies, locked_sources), root)
    for d, text in sorted(wanted.items()):
        p = d / overrides.OVERRIDE_FILE
        try:
            have = p.read_text(encoding="utf-8")
        except OSError:
            have = None
        if have is None:
            out.append(Difference("override", _rel(p, root), "is missing: tofu init cannot load the git/OCI calls "
                                  "with a version constraint; run tofu-solve init."))
        elif have != text:
            out.append(Difference("override", _rel(p, root), "does not match the lock (stale or edited); run "
                                  "tofu-solve init."))
    tops = [root] + ([modules_dir] if modules_dir.is_dir() else [])
    for d in overrides.existing(*tops):
        if d not in wanted:
            out.append(Difference("override", _rel(d / overrides.OVERRIDE_FILE, root),
                                  "is no longer needed; run tofu-solve init to remove it."))


def _check_providers(out, locks, providers: dict[str, list], complete: bool = True) -> None:
    """Each required provider against its lock; a provider locked but required nowhere only
    when every installed copy was read (``complete``): a copy not read (its module block
    lost, edited, not installed) may require it, and its own difference is reported."""
    for addr, reqs in sorted(providers.items()):
        a = reqs[0].address
        if a.is_builtin or a.is_legacy:
            continue
        subject = f'provider "{addr}"'
        lock = locks.providers.get(addr)
        if lock is None:
            out.append(Difference("provider", subject, "is required but not locked; run tofu-solve init.",
                                  reqs[0].where))
            continue
        spec: tuple = ()
        for r in reqs:
            if r.constraint is not None:
                spec += r.constraint.spec
        try:
            ok = gvs.meets(spec, gvs.Version.parse(lock.version))
        except TofuSolveError:
            ok = False
        if not ok:
            bad = next((r for r in reqs if r.constraint is not None and not r.constraint.allows(lock.version)), reqs[0])
            out.append(Difference("provider", subject,
                                  f"locked at {lock.version}, which the constraint "
                                  f'"{bad.constraint.text if bad.constraint else ""}" no longer allows; run tofu-solve '
                                  "init -upgrade.", bad.where))
    for addr in sorted(set(locks.providers) - set(providers) if complete else ()):
        out.append(Difference("provider", f'provider "{addr}"', "is locked but no longer required; run tofu-solve "
                              "init to drop it."))


def _target(args: CheckArguments, root, client, reads: ReadLog | None = None) -> TargetVersion:
    return target_version(args.tofu_version, Path(root), terraform=args.terraform_version, client=client,
                          reads=reads)


def run(ns, settings: Settings) -> int | Finished:
    """The command: ``ns`` as the parser left it, read once into :class:`CheckArguments`.
    Agreeing in text mode, what the next identical check may answer from the stamp."""
    args = CheckArguments.from_namespace(ns)
    if args.recursive:
        return _run_recursive(args, settings)
    view = _view(args, settings)
    try:
        client = configured_client(settings, args.tf_path, named=bool(args.tofu_version or args.terraform_version))
        target = _target(args, args.chdir, client, settings.reads)
        policy = load_policy(Path(args.chdir), args.policy, settings.environ, target.product.registry_host,
                             settings.reads, overrides=frozenset(args.policy_override), inputs=args.policy_input)
        diffs = check(Path(args.chdir), settings, tuple(args.vars or ()), target, policy=policy)
    except TofuSolveError as e:  # where CI looks too (issue #70 §1); the error itself is printed as ever
        view.failed(e)
        raise
    view.result(diffs)
    # the warm path may answer the next check (workdir/stamp.py); not a Terragrunt unit's, whose get_env may
    # read any environment variable, which the stamp does not key on
    if not diffs and args.format == "text" and not has_unit_file(Path(args.chdir)) \
            and not (policy is not None and policy.committed):  # an override ends on a date (issue #84 §4)
        return Finished(0, f"{AGREE[:-1]} (as the last check found them: every file has the size and "
                           "modification time it had then).")
    return 1 if diffs else 0


def _run_recursive(args: CheckArguments, settings: Settings) -> int:
    load("tofu_solve.command.monorepo")
    from .monorepo import each_root_for_its_target, passed_over_notice  # only -recursive pays for the fan-out

    view = _view(args, settings)
    try:
        results = each_root_for_its_target(args, settings, lambda root, target, prefix, policy: check(
            root, settings, tuple(args.vars or ()), target, prefix, policy=policy))
    except TofuSolveError as e:  # a failure before any root (a shared policy file): placed too
        view.failed(e)
        raise
    view.notices = passed_over_notice(args, settings, results)
    view.roots(results)
    return 1 if any(not o.ok or o.value for _, o in results) else 0


def _view(args: CheckArguments, settings: Settings) -> CheckView:
    """The view of ``args``' format; annotations for GitHub Actions where its runner says so."""
    import os

    return CheckView(args.json, sarif=args.format == "sarif",
                     annotations=settings.environ.get("GITHUB_ACTIONS") == "true", base=args.chdir,
                     cwd=os.getcwd(), environ=settings.environ,
                     markdown=f"tofu-solve check{' -recursive' if args.recursive else ''}"
                     if args.format == "markdown" else None)
