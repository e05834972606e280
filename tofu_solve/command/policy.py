"""``tofu-solve policy test``: HashiCorp-style ``*.policytest.hcl`` files run against the
policy files, as ``tfpolicy test`` runs them for the setup stage (issue #69 §4).

Each module or provider mock is judged by the same functions ``init`` and ``check`` use
(:meth:`~tofu_solve.config.policy.Policy.module_verdicts`, ``provider_verdicts``,
``source_refusal`` and the ``deny`` blocks): a mock fails when any rule that applies to it
fails, whatever its enforcement level (the level decides what a run does, not whether the
rule holds). A mock whose outcome differs from its ``expect_failure`` is reported with its
file, line and label; the command exits 1 when any did, or when a file or policy does not
read (an error, as ``tfpolicy`` reports invalid tests even where failure is expected).

Inputs, from the highest precedence: the mock's ``inputs {}``, the test file's ``inputs {}``,
``-input NAME=VALUE``, ``TFPOLICY_INPUT_NAME``, then the input's ``default`` (the v0.4.x test
reference's order; never another environment variable).

Bindings a mock does not set: a module's ``meta.source`` is its first label, ``meta.address``
``module.<label>``, ``meta.version`` null; a provider's ``meta.source`` is
``hashicorp/<name>`` (HashiCorp's default registry, as its examples mock it), ``meta.name``
its first label, ``meta.alias`` and ``meta.version`` null, ``attrs`` the mock's (absent
arguments null).
"""

from __future__ import annotations

import fnmatch
import json
import os
import sys
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path

from .. import confined
from .._lazy import load
from ..errors import ConfigurationError, TofuSolveError
from ..output_edge import json_safe, one_line
from ..settings import Settings

HASHICORP_REGISTRY = "registry.terraform.io"
MAX_TEST_FILES = 1000


@dataclass(frozen=True)
class MockResult:
    """One mock's outcome: its file, line, heading, whether it failed the policies, what it
    expected, and each failing rule as messages cite it."""

    file: str
    line: int
    heading: str
    failed: bool
    expected_failure: bool
    failures: tuple[str, ...]

    @property
    def ok(self) -> bool:
        return self.failed == self.expected_failure

    def as_data(self) -> dict:
        return {"file": self.file, "line": self.line, "mock": self.heading, "ok": self.ok, "failed": self.failed,
                "expect_failure": self.expected_failure, "failures": list(self.failures)}


def _walk(path: Path, suffixes: tuple[str, ...]) -> list[Path]:
    """Files under ``path`` (or ``path`` itself) whose names end in one of ``suffixes``,
    sorted; hidden directories and ``.terraform`` left out; at most :data:`MAX_TEST_FILES`."""
    if path.is_file():
        return [path]
    out: list[Path] = []
    for top, dirs, files in os.walk(path):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        out += [Path(top) / f for f in sorted(files) if f.endswith(suffixes)]
        if len(out) > MAX_TEST_FILES:
            raise ConfigurationError("Too many files", f"More than {MAX_TEST_FILES} files under {path}.")
    return out


def _policy_files(target: Path) -> list[Path]:
    load("tofu_solve.config.policy")
    from ..config.policy import HCL_POLICY_SUFFIX, POLICY_FILE

    if target.is_file():
        return [target]
    if not target.is_dir():
        return []
    return sorted(p for p in target.iterdir() if p.is_file() and (p.name == POLICY_FILE
                                                                   or p.name.endswith(HCL_POLICY_SUFFIX)))


def judge_mock(policy, mock) -> list[str]:
    """Every rule of ``policy`` that ``mock`` fails, as messages cite it (empty: it passes).
    The mock's ``meta`` and ``attrs`` are evaluated with the inputs in force for it.

    Raises:
        ConfigurationError: a rule or a mock expression that cannot be evaluated, at its
            file and line.
    """
    load("tofu_solve.config.policy")
    from ..config.policy import Subject, package_address
    load("tofu_solve.addrs.module_source")
    from ..addrs.module_source import parse_source

    inputs = {k: v for u in policy.units for k, v in u.inputs.items()}
    meta, attrs = mock.bound(inputs)
    version = meta.get("version")
    version = None if version is None else str(version)
    out: list[str] = []
    if mock.kind == "module":
        source = str(meta.get("source") or mock.subject)
        try:
            parsed = parse_source(source, policy.registry_host)
            package = package_address(parsed) or source
            refusal = policy.source_refusal(parsed)
            if refusal is not None:
                out.append(f"the policy refuses its source ({policy.refusal_words(refusal[0])})")
        except TofuSolveError:
            package = source
        out += [r.cite() for r in _deny_blocks(policy, "module", package, version)]
        address = str(meta.get("address") or f"module.{mock.label}")
        out += [f.cite() for f in policy.module_verdicts(package, version, Subject(address, source))]
        return out
    load("tofu_solve.addrs.provider")
    from ..addrs.provider import parse_provider_source
    load("tofu_solve.config.module_dir")
    from ..config.module_dir import ProviderConfig

    written = str(meta.get("source") or f"hashicorp/{mock.subject}")
    try:
        address = str(parse_provider_source(written, policy.registry_host))
    except TofuSolveError as e:
        raise ConfigurationError("Invalid provider source", f'meta.source "{one_line(written)}": {e}',
                                 mock.where) from None
    config = ProviderConfig(str(meta.get("name") or mock.subject), address, meta.get("alias"), attrs)
    judged = replace(policy, provider_configs=(config,))
    out += [r.cite() for r in _deny_blocks(policy, "provider", address, version)]
    out += [f.cite() for f in judged.provider_verdicts(address, version)]
    return out


def _deny_blocks(policy, kind: str, subject: str, version: str | None) -> list:
    """The ``deny`` blocks of a ``tofu-solve-policy.hcl`` that refuse ``version``."""
    if version is None:
        return []
    out = []
    for r in policy.rules:
        if r.kind != kind or not fnmatch.fnmatchcase(subject, r.subject):
            continue
        try:
            if r.constraint.allows(version):
                out.append(r)
        except TofuSolveError:
            continue
    return out


def run_tests(policies: Path, tests: Path, given: list[str], settings: Settings,
              base: Path | None = None) -> tuple[list[MockResult], list[str]]:
    """Every mock of every test file under ``tests`` judged against its targets (else the
    policy files of ``policies``): the results, in file order, and the notes; files are
    named relative to ``base`` (default: the current directory).

    Raises:
        ConfigurationError: no test file; a target that holds no policy file; a file that
            does not read; a rule that cannot be evaluated.
    """
    load("tofu_solve.config.policy")
    from ..config.policy import policy_inputs, policy_of_files
    load("tofu_solve.config.policy_test")
    from ..config.policy_test import TEST_SUFFIX, as_input_value, read_policy_test

    def now() -> datetime:
        return datetime.now(UTC)

    files = [f.resolve() for f in _walk(tests, (TEST_SUFFIX,))]
    if not files:
        raise ConfigurationError("No policy tests", f"No {TEST_SUFFIX} files under {tests}.")
    policies = policies.resolve()
    flags = policy_inputs(settings.environ, given)
    results: list[MockResult] = []
    notes: list[str] = []
    base = base or Path.cwd()

    def shown_as(p: Path) -> str:
        try:
            return os.path.relpath(p, base)
        except ValueError:
            return os.fspath(p)

    # what targets may not leave: the repository that holds the policies, else (no repository) the folder that
    # holds them (issue #84 §3: a copy of policies/ outside git tested as it does inside)
    within = confined.boundary(str(policies if policies.is_dir() else policies.parent))
    for f in files:
        test = read_policy_test(f, shown_as(f), None, now, targets_within=within)
        notes += list(test.notes)
        paths: list[Path] = []
        for target, where in test.targets:
            found = _policy_files(target)
            if not found:
                raise ConfigurationError("Target holds no policy", f"{shown_as(target)} is not a policy file nor a "
                                         "directory that holds one.", where)
            paths += found
        paths = list(dict.fromkeys(paths or _policy_files(policies)))
        if not paths:
            raise ConfigurationError("No policy files", f"No policy files at {shown_as(policies)} for "
                                     f"{test.file} (give -policies=PATH or a policytest block's targets).")
        for mock in test.mocks:
            values = dict(flags)
            values.update({k: (as_input_value(v), f"{test.file} inputs") for k, v in test.inputs.items()})
            values.update({k: (as_input_value(v), f"{mock.heading} inputs") for k, v in mock.inputs.items()})
            policy = policy_of_files(paths, shown_as, values, HASHICORP_REGISTRY, now)
            failures = judge_mock(policy, mock)
            results.append(MockResult(test.file, mock.where.line, mock.heading, bool(failures), mock.expect_failure,
                                      tuple(failures)))
    return results, notes


def run(ns, settings: Settings) -> int:
    """``tofu-solve policy test``: ``ns`` as the parser left it. Exit 0 when every mock met
    its expectation, else 1."""
    base = Path(ns.chdir or ".")
    policies = base / (ns.policies or ".")
    tests = base / ns.tests if ns.tests else policies
    results, notes = run_tests(policies, tests, list(ns.input or ()), settings, base.resolve())
    missed = [r for r in results if not r.ok]
    if ns.json:
        print(json.dumps(json_safe({"ok": not missed, "passed": len(results) - len(missed), "failed": len(missed),
                                    "results": [r.as_data() for r in results], "notes": notes}), indent=2))
        return 1 if missed else 0
    current = None
    for r in results:
        if r.file != current:
            current = r.file
            print(one_line(r.file))
        if r.ok:  # a mock's label is the test file's text: one line (issue #80 §2)
            print(f"  pass  {one_line(r.heading)} (line {r.line})")
            continue
        why = ("expected to fail, but every rule that applies passed" if r.expected_failure else
               "expected to pass, but it fails " + "; ".join(one_line(f) for f in r.failures))
        print(f"  FAIL  {one_line(r.heading)} (line {r.line}): {why}")
    for n in notes:
        print(f"\nNote: {n}", file=sys.stderr)
    word = "Failure!" if missed else "Success!"
    print(f"\n{word} {len(results) - len(missed)} passed, {len(missed)} failed.")
    return 1 if missed else 0


__all__ = ["MockResult", "judge_mock", "run", "run_tests"]
