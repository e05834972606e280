"""Switch one solver or stamp rule off at a time and see which tests outside ``tests/e2e/``
notice (issue #58 §3: every promise reached by a fast test, not only by a slow end-to-end
one).

Each mutant is a one-place textual change to a copy of the tree; the tests outside
``tests/e2e/`` run against that copy, stopping at the first failure. A mutant every test
survives is a blind spot: the script exits 1 and names it.

Usage: ``python scripts/mutants.py [-j N] [NAME ...]`` (from the repository root; the
names are those of :data:`MUTANTS`; default all). Prints one line per mutant: its name, then
the first test that failed, or ``SURVIVED``.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Mutant:
    """One rule switched off: in ``file``, ``old`` (which must occur exactly once) becomes ``new``."""

    name: str
    file: str
    old: str
    new: str


MUTANTS = [
    Mutant("improvement pass off", "tofu_solve/solver/resolve.py",
           "    result = improve(result, reqs, provider, ctx,",
           "    result = (lambda r, *a, **k: r)(result, reqs, provider, ctx,"),
    Mutant("exact stage off", "tofu_solve/solver/resolve.py",
           "        result, optimality = optimise(result, reqs, ctx, subjects, dead, ctx.options.max_rounds)",
           "        optimality = Optimality(None, False, 'switched off')"),
    Mutant("every provider lock applies", "tofu_solve/solver/locks.py",
           '    never applies."""\n',
           '    never applies."""\n    return True\n'),
    Mutant("the solver's denial check removed", "tofu_solve/solver/factory.py",
           "        return self.ctx.lock_denial(candidate)\n",
           "        return None\n"),
    Mutant("a parent directory not registered", "tofu_solve/config/policy.py",
           "        found = policy_files(d, reads, d in watched)\n",
           "        found = policy_files(d, reads if d == root.resolve() else None, d in watched)\n"),
    Mutant("policy rules not judged", "tofu_solve/config/policy.py",
           "        if found is None:\n            found = next((f for f in self.module_verdicts(",
           "        if False:\n            found = next((f for f in self.module_verdicts("),
    Mutant("deprecated versions not last", "tofu_solve/solver/locks.py",
           "        if marked:\n",
           "        if False:\n"),
    Mutant("revocations not read", "tofu_solve/remote/registry_lifecycle.py",
           "                return self._revocations.run(key, lambda: self._read_revocations(package))\n",
           "                return {}\n"),
    Mutant("the stamp taken after the run", "tofu_solve/cli.py",
           "listed=settings.reads.dirs, before=before,",
           "listed=settings.reads.dirs, before=stamp.inputs(argv, environ),"),
    Mutant("nearest replaced by newest", "tofu_solve/solver/locks.py",
           "    return sorted(ordered, key=lambda c: (min(abs(rank(c) - a) for a in anchors), -rank(c)))",
           "    return sorted(ordered, key=lambda c: -rank(c))"),
    Mutant("every lock released", "tofu_solve/solver/locks.py",
           "    lock = terms.module(req.call_path)\n",
           "    lock = None\n"),
    # Terragrunt units (issue #73)
    Mutant("a unit's own file merged first", "tofu_solve/terragrunt/read.py",
           "        layers.append(unit)\n",
           "        layers.insert(0, unit)\n"),
    Mutant("find_in_parent_folders starts in the unit", "tofu_solve/terragrunt/read.py",
           "            previous = str(config_dir)\n",
           "            previous = str(config_dir / 'x')\n"),
    Mutant("get_env reads credentials", "tofu_solve/terragrunt/read.py",
           "            if CREDENTIAL_NAME.search(key):\n",
           "            if False:\n"),
    Mutant("a unit's files read from anywhere", "tofu_solve/terragrunt/read.py",
           "        return confined.read_text(path, shown, top)\n",
           "        return confined.read_text(path, shown, '/')\n"),
    Mutant("the pin's mark ignored", "tofu_solve/terragrunt/read.py",
           "    return PIN_RE.search(_line_of(located)) is not None\n",
           "    return False\n"),
    Mutant("registry calls not pinned for Terragrunt", "tofu_solve/terragrunt/pins.py",
           "            lines = [f\"  version = {hcl_string('= ' + lock.version)}\"]\n",
           "            continue\n"),
    # issue #71 §1: every place each rule is applied
    # lock sources: a lock applies only for the call's source as it stands, within its constraint
    Mutant("a lock for another source applies", "tofu_solve/solver/locks.py",
           "    if lock is None or not locked_for(lock, req.call):\n",
           "    if lock is None:\n"),
    Mutant("a lock the constraint excludes applies", "tofu_solve/solver/locks.py",
           "        if not list_module_versions(req.constraint, [lock.version]).matching:\n            return None\n",
           "        pass\n"),
    Mutant("a denied lock applies", "tofu_solve/solver/context.py",
           "        if cand is None or self.lock_denial(cand) is not None:\n",
           "        if cand is None:\n"),
    # locked first
    Mutant("the locked version not offered first", "tofu_solve/solver/locks.py",
           "        cands = [locked] + [c for c in cands if c.version_text != locked.version_text]\n",
           "        cands = cands + [locked] * (locked not in cands)\n"),
    Mutant("the search does not try the lock first", "tofu_solve/solver/factory.py",
           "                if ok(locked):\n                    yield locked",
           "                if False:\n                    yield locked"),
    # nearest, for providers
    Mutant("a provider lock moves to the newest", "tofu_solve/solver/factory.py",
           "            out = nearest_provider_versions(out, self.ctx.provider_versions(address), locked)\n",
           "            out = list(out)\n"),
    # the release cooldown
    Mutant("the cooldown off for modules", "tofu_solve/solver/factory.py",
           "        held = self._too_young(candidate, final)\n",
           "        held = None\n"),
    Mutant("the cooldown off for providers", "tofu_solve/solver/factory.py",
           "if self.provider_too_young(address, str(c.version), constraints) is None]\n",
           "if True]\n"),
    # policy denial, overrides and enforcement levels
    Mutant("provider versions not judged", "tofu_solve/solver/factory.py",
           "            out = [c for c in out if self.provider_denial(key, c.version) is None]\n",
           "            out = list(out)\n"),
    Mutant("an override lifts any rule", "tofu_solve/config/policy.py",
           '        return rule.level == "mandatory_overridable" and rule.label in self.overrides\n',
           "        return rule.label in self.overrides\n"),
    Mutant("advisory module rules refuse", "tofu_solve/config/policy.py",
           '                          and f.level != "advisory"), None)\n        memo[key] = found\n',
           '                          ), None)\n        memo[key] = found\n'),
    Mutant("advisory provider rules refuse", "tofu_solve/config/policy.py",
           '                              and f.level != "advisory"), None)\n        return memo[key]\n',
           '                              ), None)\n        return memo[key]\n'),
    Mutant("what a rule kept out not recorded", "tofu_solve/solver/verdicts.py",
           "            rule = ctx.lock_denial(c)\n",
           "            rule = None\n"),
    # revocation
    Mutant("revoked versions not refused", "tofu_solve/solver/context.py",
           "        found: Refusal | None = self.revocation(cand)\n",
           "        found: Refusal | None = None\n"),
    # store verification of modules and providers
    Mutant("a stored module package not checked against the lock", "tofu_solve/remote/package_store/reading.py",
           "        if got not in h1s:\n",
           "        if False:\n"),
    Mutant("a stored provider zip's sha256 digest not checked against the lock",
           "tofu_solve/remote/package_store/reading.py",
           "            if zh and not recorded(zh):\n",
           "            if False:\n"),
    Mutant("a stored provider zip of another digest not checked against the lock",
           "tofu_solve/remote/package_store/reading.py",
           "            if not recorded(zh):\n                self.ledger",
           "            if False:\n                self.ledger"),
    Mutant("store verify takes any provider package", "tofu_solve/remote/package_store/verifying.py",
           "        if zh not in hashes and h1 not in hashes:\n",
           "        if False:\n"),
    Mutant("store push takes any provider digest", "tofu_solve/remote/package_store/verifying.py",
           '                raise Rejected(f"its zip is {digest}, which the lock does not record")\n',
           "                pass\n"),
    Mutant("an OCI blob not checked against its digest", "tofu_solve/remote/oci.py",
           "        if got != want or (size >= 0 and len(data) != size):\n",
           "        if False:\n"),
    # the store's retries
    Mutant("the store's requests not retried", "tofu_solve/remote/oci.py",
           "        session = _timed_session(self.timeout, retries=self.store_retries)\n",
           "        session = _timed_session(self.timeout, retries=False)\n"),
    # SARIF placement
    Mutant("SARIF lines off by one", "tofu_solve/command/views/sarif.py",
           '    return {"physicalLocation": {"artifactLocation": artifact, "region": {"startLine": line}}}\n',
           '    return {"physicalLocation": {"artifactLocation": artifact, "region": {"startLine": line + 1}}}\n'),
    Mutant("findings placed a line off", "tofu_solve/command/views/sarif.py",
           "        file, line = where.file, max(1, int(where.line or 1))\n",
           "        file, line = where.file, max(1, int(where.line or 1)) + 1\n"),
    # the editor's fixes are verified
    Mutant("fixes offered unverified", "tofu_solve/explain/whatif.py",
           '            if check.status != "solved":\n                continue\n',
           '            if False:\n                continue\n'),
    # issue #82: the clients' files and registries as they are in 2026
    Mutant("the CLI configuration directory's JSON files not merged", "tofu_solve/config/cliconfig.py",
           'if (p.name.endswith(".tfrc") or p.name.endswith(".tfrc.json")) and p.is_file()',
           'if p.name.endswith(".tfrc") and p.is_file()'),
    Mutant("the hand-over reads only the main CLI configuration file", "tofu_solve/workdir/client_config.py",
           "    files = [(str(f), read_file(f, memo)) for f in locate(environ, product.command).files()]",
           "    files = [(str(f), read_file(f, memo)) for f in locate(environ, product.command).files()[:1]]"),
    Mutant("the registry's packages field not checked", "tofu_solve/plugins/packages.py",
           "                check_package(meta, sizes[0] if sizes else self._zip_size(meta, what), h1)\n",
           "                pass\n"),
    Mutant("the registry's hashes not locked", "tofu_solve/plugins/provider_locks.py",
           "            hashes.update(info.reported)",
           "            pass"),
    Mutant("another platform's package always downloaded", "tofu_solve/plugins/packages.py",
           "        if self.registry_hashes and platform != current_platform():",
           "        if False:"),
    Mutant("a Terragrunt unit's own call needs the bridge", "tofu_solve/workdir/overrides.py",
           "        if needs_bridge(req.call) and not req.call.terragrunt:",
           "        if needs_bridge(req.call):"),
    Mutant("provider expressions on every Terraform", "tofu_solve/workdir/overrides.py",
           "    if since is not None and target.triple >= since:\n        return\n",
           "    return\n"),

    # issue #85: the editor reads Terragrunt units from its buffers, within the repository
    Mutant("the editor's buffers not read for a unit", "tofu_solve/terragrunt/read.py",
           "            buffer = texts.get(Path(os.path.abspath(path)))",
           "            buffer = None"),
    Mutant("an editor's buffer read from outside the repository", "tofu_solve/terragrunt/read.py",
           "            if buffer is not None:\n                confined.check(path, shown, top)\n",
           "            if buffer is not None:\n                pass\n"),
    # issue #80: the second ring
    Mutant("an exact ref's lock not held to its tag's commit", "tofu_solve/providers/pinned.py",
           "            if check and fetched.commit and ref:",
           "            if False:"),
    Mutant("a unit's get_env reads any variable", "tofu_solve/terragrunt/read.py",
           "            if not env_allowed(key, unit.environ):",
           "            if False:"),
    Mutant("a unit's fileexists answers outside the repository", "tofu_solve/terragrunt/read.py",
           "            if not _within(full, unit.top):",
           "            if False:"),
    Mutant("read_terragrunt_config read again each time", "tofu_solve/terragrunt/read.py",
           "            if full in unit.configs:",
           "            if False:"),
    Mutant("JSON output strings not made one line", "tofu_solve/output_edge.py",
           "        return one_line(value)\n    if isinstance(value, dict):",
           "        return value\n    if isinstance(value, dict):"),
    Mutant("the hand-over offers a plugin directory because it exists", "tofu_solve/workdir/client_config.py",
           "        elif verified_dir(d, allowed.get(address, ()), cache):",
           "        elif True:"),
    Mutant("a plugin cache's existing directory kept unchecked", "tofu_solve/plugins/packages.py",
           "        if exists and verified_dir(target, (h1,), self.cache):",
           "        if exists:"),
    Mutant("store verify passes over a package the lock does not record", "tofu_solve/command/store.py",
           "    out = [store.verifier.check_provider(key, p, scratch) for p in sorted(stored)]",
           "    out = [store.verifier.check_provider(key, p, scratch) for p, zh in sorted(stored.items()) "
           "if zh in zhs or not zh]"),
    Mutant("the hand-over parses a CLI configuration it read before", "tofu_solve/workdir/client_config.py",
           "    files = [(str(f), read_file(f, memo))",
           "    files = [(str(f), read_file(f))"),
    Mutant("a summary's outside text not escaped", "tofu_solve/command/views/markdown.py",
           r'    return _ESCAPED.sub(r"\\\1", one_line(value, limit)).replace("@", "&#64;")',
           "    return one_line(value, limit)"),
    Mutant("a summary not bounded", "tofu_solve/command/views/markdown.py",
           '        if size + n > limit - _RESERVE and kind != "head":',
           "        if False:"),
    Mutant("a policy file passed over in silence", "tofu_solve/command/monorepo.py",
           "        out += [relative_name(p, base) for p in found if os.path.realpath(p) not in applied]",
           "        out += []"),
    Mutant("a policy test's targets bounded by the test file's folder", "tofu_solve/command/policy.py",
           "        test = read_policy_test(f, shown_as(f), None, now, targets_within=within)",
           "        test = read_policy_test(f, shown_as(f), None, now)"),
    Mutant("a rule's refusals one line per version", "tofu_solve/solver/kept_out.py",
           "        return self.why, self.rule or self.text\n",
           "        return self.why, self.text\n"),
    # one vocabulary for "kept out" (issue #83 §3)
    Mutant("the kind of a reason not part of what merges it", "tofu_solve/solver/kept_out.py",
           "        groups.setdefault(kept.key, []).append(version)\n",
           "        groups.setdefault(kept.key[1], []).append(version)\n"),
    Mutant("the explanation says each version's reason on its own", "tofu_solve/explain/render.py",
           "            lines += [f\"  - {s.sentence()}\" for s in said]\n",
           "            lines += [f\"  - {v}: {k.text}\" for v, k in by_version.items()]\n"),
    Mutant("policy advice chosen by the reason's words", "tofu_solve/explain/render.py",
           "            if kept.why is Why.POLICY:  # what would work (issue #84 §2)\n",
           "            if kept.text.startswith(\"the policy denies it\"):\n"),
    Mutant("a refusal's kind taken as the policy's", "tofu_solve/solver/kept_out.py",
           "    why = Why.REVOCATION if refusal.refused_by == \"revocation\" else Why.POLICY\n",
           "    why = Why.POLICY\n"),
    Mutant("check promises a move no version makes", "tofu_solve/command/check.py",
           '    if inner is None or not hasattr(inner, "reads_version") or inner.reads_version:',
           "    if True:"),
    Mutant("an expired override applies", "tofu_solve/config/policy_overrides.py",
           "        if expires < now:", "        if False:"),
    Mutant("an override applies to every root", "tofu_solve/config/policy_overrides.py",
           "        if not o.applies_to(rel):", "        if False:"),
    Mutant("a no_merge include merged anyway", "tofu_solve/terragrunt/read.py",
           'expose is True, merge != "no_merge",', "expose is True, True,"),
    Mutant("someone else's override file removed", "tofu_solve/workdir/overrides.py",
           '            if d not in wanted and p.is_file() and p.read_text(encoding="utf-8").startswith(HEADER[:40]):',
           "            if d not in wanted and p.is_file():"),
    Mutant("imports after start-up without the guard", "tofu_solve/_lazy.py",
           "    with _IMPORTS:\n        return importlib.import_module(name)",
           "    return importlib.import_module(name)"),
    Mutant("the language server solves without its budget", "tofu_solve/lsp/server.py",
           "network=self.network, deadline=time.monotonic() + SOLVE_SECONDS)", "network=self.network)"),
    Mutant("the lock file read without the confined reader", "tofu_solve/lockfile/read.py",
           "        return confined.read_text(p, p.name)", '        return p.read_text(encoding="utf-8")'),
    Mutant("plugin cache placers of one directory race", "tofu_solve/plugins/packages.py",
           "            placing = self._placing.setdefault(target, threading.Lock())",
           "            placing = threading.Lock()"),
    Mutant("-recursive leaves no root out", "tofu_solve/command/monorepo.py",
           "    left = {r: why for r in found for why in [exclusions.left_out(r)] if why is not None}",
           "    left: dict = {}"),
    Mutant("a left-out root run all the same", "tofu_solve/command/monorepo.py",
           "    ran = {o.root: o for o in run_each(roots, fn)}",
           "    ran = {o.root: o for o in run_each([*roots, *left], fn)}"),
    Mutant("an exclude pattern's negation ignored", "tofu_solve/command/exclusions.py",
           "            elif res.include is False:\n                found = None\n",
           "            elif res.include is False:\n                pass\n"),
    Mutant("a client-only path passed on as written", "tofu_solve/workdir/flags.py",
           "            value = os.path.relpath(os.path.join(os.path.abspath(start), value), os.path.abspath(root))\n",
           "            value = value\n"),
    Mutant("a refused CLI configuration remembered as accepted", "tofu_solve/config/hcl1.py",
           "    digest = accepted_digest(text) if memo is not None else \"\"\n",
           "    digest = accepted_digest(text) if memo is not None else \"\"\n    if memo is not None:\n"
           "        memo.remember(digest)\n"),
    # places that apply a rule, once held only end to end (issue #83 §1)
    Mutant("cli.main opens no guard region", "tofu_solve/cli.py",
           "            edge.stop_commands()\n",
           "            pass\n"),
    Mutant("cli.main takes standard output for text under -json", "tofu_solve/cli.py",
           "OutputEdge(out, actions, json=json_out, guard=guard)",
           "OutputEdge(out, actions, json=False, guard=guard)"),
    Mutant("a moved tag not noticed", "tofu_solve/remote/git.py",
           "                    self.moved[url] = moved\n",
           "                    pass\n"),
    Mutant("a merged provider block keeps both sides' hashes", "tofu_solve/plugins/provider_locks.py",
           "            if a in merged:  # both sides' hashes: only what was verified here stays\n",
           "            if False:\n"),
    Mutant("the language server asks the network before it is turned on", "tofu_solve/lsp/server.py",
           "        self.network = False  # registries",
           "        self.network = True  # registries"),
    Mutant("policy inputs not in the warm stamp", "tofu_solve/workdir/stamp.py",
           '_ENV_PREFIXES = ("TF_", "TOFU_SOLVE_", "TFPOLICY_INPUT_")',
           '_ENV_PREFIXES = ("TF_", "TOFU_SOLVE_")'),
    Mutant("a policy test mock's own inputs ignored", "tofu_solve/command/policy.py",
           '            values.update({k: (as_input_value(v), f"{mock.heading} inputs")'
           ' for k, v in mock.inputs.items()})\n',
           ""),
    Mutant("a same-version package change unnamed", "tofu_solve/solver/changes.py",
           '        parts.append("package recorded" if not old.package else "package changed")\n',
           "        pass\n"),
    Mutant("the policy's warnings one per version's words", "tofu_solve/command/views/warnings.py",
           "        by_reason.setdefault(of_refusal(rule).key, {}).setdefault(subject, {})[version] = rule\n",
           "        by_reason.setdefault((of_refusal(rule).why, rule.cite()), {}).setdefault(subject, {})[version]"
           " = rule\n"),
    # one answer to "does this lock hold?" (issue #83 §2)
    Mutant("-upgrade holds every lock", "tofu_solve/solver/lock_terms.py",
           "        if self.upgrade:\n            return Standing(subject, None, Released.UPGRADE)\n",
           ""),
    Mutant("-upgrade=NAME keeps the calls inside the named call", "tofu_solve/solver/lock_terms.py",
           "                name = gone.get(path) or next((n for g, n in gone.items() if path.startswith(g + \".\")),"
           " None)\n",
           "                name = gone.get(path)\n"),
    Mutant("an accepted entry keeps its pins", "tofu_solve/solver/lock_terms.py",
           '        modules = {p: (replace(m, hashes=(), package="") if p in self.accepted_modules else m)\n',
           "        modules = {p: m\n"),
    Mutant("a freed provider's listing not asked again", "tofu_solve/solver/wiring.py",
           "    refresh_only = terms.relisted_providers\n",
           "    refresh_only = frozenset[str]()\n"),
    Mutant("a held-back reason said again for each version", "tofu_solve/explain/holdback.py",
           "            if k.key not in keys_said:\n",
           "            if True:\n"),
    Mutant("a kept-out hold-back without its kind of reason", "tofu_solve/explain/holdback.py",
           "why=kept.why.value, rule=kept.rule or None)",
           "why=None, rule=kept.rule or None)"),
    Mutant("outdated's reason said for one version only", "tofu_solve/command/outdated.py",
           "row.held_by, row.reason, row.why = first.kind, first.sentence(), ",
           "row.held_by, row.reason, row.why = first.kind, first.reason, "),
    Mutant("a denied newer version worded apart", "tofu_solve/explain/holdback.py",
           "    if rule is not None:  # a revocation or the policy\n"
           "        return HoldBack.of(v.version_text, of_refusal(rule))",
           "    if rule is not None:  # a revocation or the policy\n"
           "        return HoldBack(v.version_text, 'policy', f'denied by {rule.cite()}')"),
    Mutant("a freed lock's change not naming the NAME that freed it", "tofu_solve/solver/lock_terms.py",
           'Released.NAMED: f"-upgrade={self.named_by}",',
           'Released.NAMED: "-upgrade=",'),
    Mutant("a merged module block keeps both sides' hashes", "tofu_solve/workdir/verify.py",
           "    if merged:\n        return tuple(verified), ",
           "    if False:\n        return tuple(verified), "),
    Mutant("the cooldown's warning one per version", "tofu_solve/command/views/warnings.py",
           '            key = of_held_back(one, limit, f"{format_age(one.age)} ago").key\n',
           "            key = (Why.COOLDOWN, one.version)\n"),
    Mutant("outdated's row without the kind of reason that keeps its version out", "tofu_solve/command/outdated.py",
           "row.held_by, row.reason, row.why = first.kind, first.sentence(), first.why",
           "row.held_by, row.reason, row.why = first.kind, first.sentence(), None"),
]


def _copy(into: Path) -> Path:
    dest = into / "tree"
    shutil.copytree(REPO, dest, symlinks=True, ignore=shutil.ignore_patterns(
        ".git", ".venv", ".node-*", "__pycache__", ".pytest_cache", "*.egg-info", "build", "dist"))
    return dest


def run(m: Mutant, python: str) -> str:
    """The first test outside ``tests/e2e/`` that fails with ``m`` applied, or ``SURVIVED``."""
    with tempfile.TemporaryDirectory(prefix="mutant-") as tmp:
        tree = _copy(Path(tmp))
        shared = REPO.parent / "shared"
        if shared.exists():
            (Path(tmp) / "shared").symlink_to(shared)
        path = tree / m.file
        text = path.read_text(encoding="utf-8")
        if text.count(m.old) != 1:
            return f"NOT APPLIED ({m.file} no longer holds the text it changes exactly once)"
        path.write_text(text.replace(m.old, m.new), encoding="utf-8")
        # tests/test_mutants.py checks that each mutant's text is in the tree: in a mutated tree it
        # fails by construction, and would hide a mutant every real test survives
        # derandomized Hypothesis (the "ci" profile, tests/conftest.py): a verdict never depends on a draw
        r = subprocess.run([python, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", "--ignore=tests/e2e",
                            "--ignore=tests/test_mutants.py", "-o", "addopts="], cwd=tree, capture_output=True,
                           text=True, env={**os.environ, "CI": "true"})
        failed = [ln for ln in r.stdout.splitlines() if ln.startswith(("FAILED", "ERROR"))]
        if r.returncode == 0:
            return "SURVIVED"
        return failed[0].split(" - ")[0] if failed else f"exit {r.returncode}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-j", type=int, default=4, help="mutants run at once (default 4)")
    ap.add_argument("names", nargs="*", help="mutants to run (default: all)")
    args = ap.parse_args(argv)
    chosen = [m for m in MUTANTS if not args.names or m.name in args.names]
    with ThreadPoolExecutor(args.j) as pool:
        results = list(pool.map(lambda m: (m, run(m, sys.executable)), chosen))
    for m, outcome in results:
        print(f"{m.name}: {outcome}")
    return 1 if any(o == "SURVIVED" or o.startswith("NOT APPLIED") for _, o in results) else 0


if __name__ == "__main__":
    sys.exit(main())
