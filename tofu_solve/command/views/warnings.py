"""The words of the solver's warnings, from the records it returns (issue #51 §4: the
solver says what happened, the view says it in English): a module version fenced off by its
own line (:class:`~tofu_solve.solver.fenced.FencedOff`), ``-upgrade=NAME`` held back by
other locks (:class:`~tofu_solve.solver.upgrades.BlockedUpgrade`), what the policy and the
release cooldown kept out (their records of the run), and git tags that moved (issue #58 §2:
no warning is worded in ``command/init.py``: issue #71 §2 moved the last ten here)."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from ...addrs.redact import redact
from ...config.file_selection import OWN_OVERRIDE_FILE as OVERRIDE_FILE
from ...config.policy import PolicyFailure
from ...errors import RepairWarning, RuleWarning, TofuSolveError, WarningText
from ...explain.typos import UnknownArgument
from ...lockfile import LOCK_FILE_NAME
from ...output_edge import one_line
from ...remote.lifecycle import Deprecation
from ...solver.fenced import FencedOff
from ...solver.kept_out import Why, of_held_back, of_refusal
from ...solver.release_cooldown import Cooldown
from ...solver.resolve import Resolution
from ...solver.run import Refusal
from ...solver.upgrades import BlockedUpgrade, newer
from ...terragrunt.pins import unpinnable
from ...terragrunt.unit import UNIT_CALL
from ...versions import apparentlymart_go_versions as gvs
from ...versions.cooldown import format_age
from ...versions.hashicorp_go_version import GoVersion


@dataclass(frozen=True)
class InitWarnings:
    """Every warning of one ``init``, by where it comes from (issue #83 §4): each step of the
    conductor returns its own and writes none into the result; :meth:`ordered` is the one
    order a user reads them in, assigned to the result once.

    Attributes (in that order):
        first: what the lock file as read needed: how each merge-conflict hunk was
            resolved, then the module blocks restored from the last init's record.
        cli_config: the CLI configuration's.
        solver: the solve's own (a root call without a version, ...).
        fenced_off: versions a fence kept out.
        after_solve: the solve's outcome: moved tags, the cooldown, the policy, deprecations,
            unknown arguments, unsigned checksums, damaged cache entries, moved packages.
        blocked: ``-upgrade=NAME`` targets a newer version of which needs other locks to move.
        installed: the install's: copies replaced, override files not written.
        unpinned: a Terragrunt unit's calls its pins cannot hold.
        stored: the package store's.
    """

    first: tuple[WarningText, ...] = ()
    cli_config: tuple[WarningText, ...] = ()
    solver: tuple[str, ...] = ()  # Resolution.warnings: plain text or WarningText
    fenced_off: tuple[WarningText, ...] = ()
    after_solve: tuple[WarningText, ...] = ()
    blocked: tuple[WarningText, ...] = ()
    installed: tuple[WarningText, ...] = ()
    unpinned: tuple[WarningText, ...] = ()
    stored: tuple[WarningText, ...] = ()

    def ordered(self) -> list[str]:
        """Every warning, in the order shown (the attributes' order)."""
        return [*self.first, *self.cli_config, *self.solver, *self.fenced_off, *self.after_solve, *self.blocked,
                *self.installed, *self.unpinned, *self.stored]


def unknown_argument_warning(u: UnknownArgument) -> WarningText:
    """``Unsupported argument``, as OpenTofu words it at ``plan``, said at ``init`` with the
    argument's file and line and the name meant (issue #60 §4)."""
    return WarningText(
        "Unsupported argument",
        f'on {u.where.file} line {u.where.line}: module "{u.call_path}" sets "{u.name}", which {u.module} '
        f'{u.version} does not declare. Did you mean "{u.suggestion}"? tofu plan would stop at it ("An argument '
        f'named "{u.name}" is not expected here")' + ("; without a version constraint the newest version was "
                                                      "selected" if u.suggestion == "version" else "") + ".")


def fenced_off_warning(f: FencedOff) -> WarningText:
    """``Module version fenced off by its own line``."""
    r = f.requirement
    return WarningText(
        "Module version fenced off by its own line",
        f'Module "{f.call}" is at {f.selected}, but {f.newer} of the same line requires '
        f'{r.address.for_display} "{r.constraint.text if r.constraint else ""}" ({r.where}), which '
        f"excludes the selected {f.chosen}: its authors may have found {f.selected} incompatible with it.")


def blocked_upgrade_warning(b: BlockedUpgrade, upgrade_names: tuple[str, ...]) -> WarningText:
    """``Newer version needs other locks to move``."""
    return WarningText("Newer version needs other locks to move", blocked_upgrade_text(b, upgrade_names))


def blocked_upgrade_text(b: BlockedUpgrade, upgrade_names: tuple[str, ...]) -> str:
    """The warning's words for ``b``; ``upgrade_names``: the ``-upgrade=NAME`` names given
    (kept in the command it suggests)."""
    moves = ", ".join(f"{n} {old} -> {new}" for n, old, new, _ in b.others)
    head = (f"{b.name} is at {b.selected}, the newest its constraints allow while every other lock is kept. "
            f"{b.name} {b.newer} needs {moves}; tofu-solve moved nothing else.")
    if all(newer(new, old) for _, old, new, _ in b.others):
        names = ",".join(dict.fromkeys((*upgrade_names, b.name, *(n for n, *_ in b.others))))
        if b.lands is False:  # -upgrade takes the newest of each, and those newest do not fit together
            return (f"{head} -upgrade={names} would take the newest of each, which do not fit together; "
                    "constraints that hold the others at those versions do.")
        return f"{head} To allow it: tofu-solve init -upgrade={names}"
    # a lock that would have to go down: -upgrade takes the newest, so only a constraint does it;
    # the ones that go up move with the same command as NAME (issue #48 §4: one command, not three)
    down = [(n, new, where) for n, old, new, where in b.others if not newer(new, old)]
    up = [n for n, old, new, _ in b.others if newer(new, old)]
    if all(where is not None for _, _, where in down):
        pins = "; ".join(f'{n} to version = "{new}" ({where})' for n, new, where in down)
        names = ",".join(dict.fromkeys((*upgrade_names, b.name, *up)))
        return (f"{head} -upgrade takes the newest of each, so what goes down needs a pin: pin {pins}, then "
                f"tofu-solve init -upgrade={names}")
    return f"{head} -upgrade takes the newest of each, so it cannot; a constraint that excludes the newer ones can."


def rule_warning(summary: str, rule: str, why: str, held: list[tuple[str, str, list[str]]],
                 verbose: bool) -> RuleWarning:
    """One rule's warning: what it held back, in under two lines (the first
    :data:`SHOWN_SUBJECTS` subjects with the newest version kept out of each, the others
    counted), or with ``verbose`` every version it kept out of every subject."""
    if verbose:
        listed = "; ".join(f"{name} at {selected}, not {', '.join(versions)}" for name, selected, versions in held)
    else:
        listed = ", ".join(f"{name} at {selected} (kept out: {len(versions)} newer, the newest {versions[0]})"
                           if len(versions) > 1 else f"{name} at {selected} (kept out: {versions[0]})"
                           for name, selected, versions in held[:SHOWN_SUBJECTS])
        if len(held) > SHOWN_SUBJECTS:
            listed += f" and {len(held) - SHOWN_SUBJECTS} more (-verbose lists them)"
    w = RuleWarning(summary, f"{rule} held back {listed}{why}.")
    w.rule, w.why = rule, why
    w.held = tuple((n, sel, tuple(vs)) for n, sel, vs in held)
    return w


SHOWN_SUBJECTS = 1  # subjects a rule's warning names before "and N more" (two lines at most)


def _shown_subject(subject: str, res: Resolution) -> str:
    return subject if subject in res.modules else res.product.short(subject)


def policy_warnings(denied: Mapping[tuple[str, str], Refusal], res: Resolution, changed: Callable[[str], bool],
                    verbose: bool = False) -> list[WarningText]:
    """One warning per policy rule that kept a version newer than the selected one out of
    a call or provider this run (issue #39; issue #47 §5: once per rule, under two lines,
    only where the rule changed something); the full list with ``verbose``, and in
    ``-json``'s ``policy.denied``. ``denied``: the solver's record, (subject, version) ->
    rule; ``changed``: whether a rule could have changed a subject's selection (it is not
    where its lock holds it)."""
    selected = {**{p: (c.version, c.version_text) for p, c in res.modules.items()},
                **{a: (c.version, str(c.version)) for a, c in res.providers.items()}}
    # one warning per reason, by the one vocabulary of "kept out" (issue #83 §3): a rule whose
    # message names each version is one reason, as a revocation's message shared by versions is
    by_reason: dict[tuple, dict[str, dict[str, Refusal]]] = {}  # reason -> subject -> version -> its rule
    for (subject, version), rule in sorted(denied.items()):
        if subject not in selected or not changed(subject) or \
                not _newer_than(version, subject, selected[subject][0], res):
            continue
        by_reason.setdefault(of_refusal(rule).key, {}).setdefault(subject, {})[version] = rule
    out: list[WarningText] = []
    for _, subjects in sorted(by_reason.items(), key=lambda kv: (kv[0][0].value, kv[0][1])):
        held = [(_shown_subject(s, res), selected[s][1], _newest_first(list(vs), s, res))
                for s, vs in sorted(subjects.items())]
        first = sorted(subjects)[0]
        rule = subjects[first][held[0][2][0]]  # the newest version's words are shown, as in an explanation
        differs = len({r.reason for vs in subjects.values() for r in vs.values()}) > 1
        why = f": {rule.reason.rstrip('.')}" + (f" ({rule.link})" if rule.link else "") + \
            (f" (the message names each version; shown for {held[0][2][0]})" if differs else "")
        kept = of_refusal(rule)
        heading = f"the registry's revocation of {rule.subject}" if kept.why is Why.REVOCATION else rule.heading()
        out.append(rule_warning(kept.why.summary, heading, why, held, verbose))
    return out


def policy_notice_warnings(notices: list[tuple[str, str, PolicyFailure]], res: Resolution,
                           policy=None) -> list[WarningText]:
    """One warning per ``*.policy.hcl`` rule the selection fails without the rule keeping
    anything out (issue #62 §2): an ``advisory`` rule ("Policy advisory"), or a
    ``mandatory_overridable`` one ``-policy-override`` let through ("Policy overridden"),
    naming the rule at its file and line, its ``error_message`` and the subjects.
    ``notices``: (subject, selected version, failure)."""
    by_rule: dict[str, tuple[PolicyFailure, list[str]]] = {}
    for subject, version, f in notices:
        entry = by_rule.setdefault(f.heading(), (f, []))
        entry[1].append(f"{_shown_subject(subject, res)} at {version}")
    out: list[WarningText] = []
    for heading, (f, subjects) in sorted(by_rule.items()):
        summary = "Policy overridden" if f.overridden else "Policy advisory"
        committed = policy.committed_override(f.rule.label) if policy is not None and f.overridden else None
        how = (f"the override committed at {committed.cite()} let it through; without it the rule is mandatory"
               if committed is not None else "-policy-override let it through; without the override it is mandatory"
               if f.overridden else "advisory: selected because no better version passes it")
        out.append(WarningText(summary, f"{heading} fails for {', '.join(subjects)}: {f.reason} ({how})."))
    return out


def deprecation_warnings(found: list[tuple[str, str, Deprecation]]) -> list[WarningText]:
    """One warning per deprecated module version selected or locked (issue #62 §3): the
    calls at it, and the registry's reason and link. ``found``: (call path, version,
    deprecation)."""
    by_version: dict[tuple[str, str], tuple[Deprecation, list[str]]] = {}
    for path, version, d in found:
        by_version.setdefault((version, d.words()), (d, []))[1].append(path)
    return [WarningText("Deprecated module version",
                        f"{', '.join(paths)} {'is' if len(paths) == 1 else 'are'} at {version}, {d.words()}. No other "
                        "version gives as good a selection (tofu-solve outdated and why show the others).")
            for (version, _), (d, paths) in sorted(by_version.items())]


def _newer_than(version: str, subject: str, selected, res: Resolution) -> bool:
    """Whether ``version`` (as the source names it) is newer than the selected one."""
    try:
        if subject in res.modules:
            return GoVersion.parse(version).compare(selected) > 0
        return gvs.Version.parse(version).compare(selected) > 0
    except TofuSolveError:
        return False


def _newest_first(versions: list[str], subject: str, res: Resolution) -> list[str]:
    """``versions`` of ``subject`` (a call path or provider address), newest first."""

    def parse(text: str) -> GoVersion | gvs.Version:
        return GoVersion.parse(text) if subject in res.modules else gvs.Version.parse(text)

    def order(a: str, b: str) -> int:
        return parse(a).compare(parse(b))  # type: ignore[arg-type]  # both of one kind
    return sorted(versions, key=functools.cmp_to_key(order), reverse=True)


def cooldown_warnings(cooldown: Cooldown, res: Resolution, changed: Callable[[str], bool],
                      verbose: bool = False) -> list[WarningText]:
    """What the release cooldown (``-min-age``) changed in this selection: one warning for
    the versions it held back (issue #47 §5: once per run, under two lines, only where it
    changed something, the day each clears it), and young versions kept because a
    constraint pins them exactly (issue #25). ``cooldown``: its record of the run;
    ``changed`` as :func:`policy_warnings`."""
    limit = cooldown.label
    out: list[WarningText] = []
    selected = {**{p: c.version_text for p, c in res.modules.items()},
                **{a: str(c.version) for a, c in res.providers.items()}}
    # one warning for the one reason, by the one vocabulary of "kept out" (issue #83 §3): every
    # version the cooldown kept out shares it (KeptOut.key), each with its own dates
    by_reason: dict[tuple, dict[str, list]] = {}  # reason -> subject -> its HeldBack entries
    for one in cooldown.held_back.values():
        if one.subject in selected and changed(one.subject):
            key = of_held_back(one, limit, f"{format_age(one.age)} ago").key
            by_reason.setdefault(key, {}).setdefault(one.subject, []).append(one)
    for (why, rule), by_subject in by_reason.items():
        held = []
        for subject, entries in sorted(by_subject.items()):
            youngest = sorted(entries, key=lambda h: h.age)
            held.append((_shown_subject(subject, res), selected[subject],
                         [f"{h.version}, {h.note}" for h in youngest]))
        out.append(rule_warning(why.summary, rule, "", held, verbose))
    for (subject, version), pin in sorted(cooldown.young_pins.items()):
        if selected.get(subject) == version:
            kind = f'module "{subject}"' if subject in res.modules else f"provider {subject}"
            out.append(WarningText(
                "Young version pinned",
                f"{kind} is pinned exactly to {version}, released {format_age(pin.age)} ago ({pin.note}), younger "
                f"than {limit}. The pin is honoured; the cooldown keeps out only versions a constraint "
                "merely allows."))
    return out


def tag_warnings(moved_tags: Mapping[str, Mapping[str, tuple[str, str]]],
                 deleted: Mapping[str, Iterable[str]]) -> list[WarningText]:
    """Tags that moved (remote URL -> tag -> (was, now) commits) or disappeared (remote URL
    -> tags) since this machine last listed their remote."""
    out: list[WarningText] = []
    for url, moved in sorted(moved_tags.items()):
        for tag, (was, now) in sorted(moved.items()):
            out.append(WarningText("Moved git tag", f"The git tag {tag} of {redact(url)} moved: it pointed at "
                                   f"{was[:12]}, it now points at {now[:12]}."))
    for url, gone in sorted(deleted.items()):
        out.append(WarningText("Deleted git tags", f"Tags deleted from {redact(url)} since it was last listed: "
                                                   f"{', '.join(sorted(gone))}."))
    return out


def unpinned_warnings(unit, modules: Mapping) -> list[WarningText]:
    """``Calls Terragrunt's run does not pin``: locked calls deeper than the unit module's own
    (:func:`tofu_solve.terragrunt.pins.unpinnable`), which the client in Terragrunt's working
    copy still chooses for itself."""
    paths = unpinnable(dict(modules), f"{UNIT_CALL}." if unit.kind != "local" else "")
    if not paths:
        return []
    return [WarningText(
        "Calls Terragrunt's run does not pin",
        f"In {unit.config.shown}, the unit's module calls modules that call modules: "
        + ", ".join(f'"{p}" ({modules[p].version})' for p in paths)
        + ". tofu_solve_override.tf pins only the module's own calls, and the client in Terragrunt's working copy "
        "picks these for itself (the newest their constraints allow): they match the lock only while no newer version "
        "is published within their constraints.")]


def cli_config_warnings(warnings: Iterable[str]) -> list[WarningText]:
    """``CLI configuration``: what reading the CLI configuration noticed."""
    return [WarningText("CLI configuration", w) for w in warnings]


def merge_resolution_warning(merged, res: Resolution, reasons: dict[str, str],
                             dropped: dict[str, tuple[str, ...]] | None = None) -> WarningText:
    """How each conflicted block of a merged lock file was resolved (issue #60 §2): each
    side's version, the one locked, and why (the solve's reason when it moved the block
    from where the merge started it); and the hashes of a block formed from both sides that
    this run could not verify, which were left out (``dropped``, issue #67 §5).
    ``merged``: the :class:`~tofu_solve.lockfile.merge_conflict.MergedLock` the run started from."""
    lines = []
    for c in merged.conflicts:
        module, provider = res.modules.get(c.name), res.providers.get(c.name)
        now = (module.version_text if module is not None else None) if c.kind == "module" else \
            (str(provider.version) if provider is not None else None)
        sides = f"ours {c.ours or '(none)'}, theirs {c.theirs or '(none)'}"
        if now is None:
            why = "no longer required by the configuration"
        elif now == c.start:
            why = c.how + ("; it fits the rest of the selection" if c.ours != c.theirs else "")
        else:
            other = c.theirs if c.start == c.ours else c.ours
            why = (f"{c.start} does not fit the rest of the selection; the other side's" if now == other
                   else f"moved from {c.start}") + (f": {reasons[c.name]}" if reasons.get(c.name) else "")
        gone = (dropped or {}).get(c.name, ())
        if gone:
            why += (f"; {len(gone)} hash{'es' if len(gone) != 1 else ''} this run could not verify left out: "
                    + ", ".join(one_line(h, 80) for h in gone))
        lines.append(f"{c.subject}: {sides} -> {now or 'removed'} ({why})")
    return merge_conflicts_warning(len(merged.hunks), lines)


def merge_conflicts_warning(hunks: int, lines: list[str]) -> WarningText:
    """``Lock file merge conflicts resolved``: how each conflicting block was resolved."""
    return WarningText(
        "Lock file merge conflicts resolved",
        f"{LOCK_FILE_NAME} had {hunks} merge conflict hunk{'s' if hunks != 1 else ''}; tofu-solve read both sides, "
        "kept every block they agree on and solved the rest:\n" + "\n".join(lines or ["(the sides agree on every "
                                                                                        "block)"]) +
        f"\n{LOCK_FILE_NAME} is written without markers; review it and commit it.")


def blocks_restored_warning(kept: list[str]) -> WarningText:
    """``Module blocks restored in the lock file``."""
    return WarningText(
        "Module blocks restored in the lock file",
        f"{LOCK_FILE_NAME} had lost the module blocks of {', '.join(kept)}, which the last tofu-solve init "
        "recorded (.terraform/tofu-solve.json). A tool that rewrites the lock file, such as tofu providers "
        "lock or tofu init -upgrade, drops them. tofu-solve kept those versions, as locked, and wrote the "
        "blocks back; -upgrade=NAME chooses afresh.")


def policy_file_warnings(policy) -> list[WarningText]:
    """``Policy blocks not evaluated`` (each file's notes) and ``Policy checks passed over``
    (:meth:`tofu_solve.config.policy.Policy.passed_over`)."""
    return ([WarningText("Policy blocks not evaluated", note) for u in policy.units for note in u.notes]
            + [WarningText("Policy checks passed over", note) for note in policy.passed_over()])


def unsigned_warnings(providers: Iterable[str]) -> list[WarningText]:
    """``Provider checksums not signature-checked``: a registry that lists no signing key."""
    return [WarningText(
        "Provider checksums not signature-checked",
        f"The checksums of provider {p} were not signature-checked: its registry lists no signing key, which "
        "OpenTofu accepts for registry.opentofu.org (set OPENTOFU_ENFORCE_GPG_VALIDATION=true to refuse).")
        for p in providers]


def damaged_cache_warnings(names: Iterable[str]) -> list[WarningText]:
    """``Damaged cache entry replaced``."""
    return [RepairWarning("Damaged cache entry replaced",
                          f"The cached copy of {name} was damaged; it was discarded and fetched again.")
            for name in names]


def package_moved_warnings(moves: Mapping[str, tuple[str, str]], readonly: bool) -> list[WarningText]:
    """``Module package moved``: call path -> (locked location, found location)."""
    return [WarningText(
        "Module package moved",
        f'The package locked for module "{path}" was found at another location with the same identity (the same '
        f"commit, digest or checksum), and its contents were verified against the lock's h1: hash.\n"
        f"Locked: {was}\nFound:  {now}\n" + (
            "-lockfile=readonly keeps the locked location; the next tofu-solve init records the new one."
            if readonly else f"{LOCK_FILE_NAME} now records the new location."))
        for path, (was, now) in sorted(moves.items())]


def copy_replaced_warnings(paths: Iterable[str], data_dir: str) -> list[WarningText]:
    """``Installed module copy replaced``; ``data_dir``: ``.terraform`` as the root names it."""
    return [RepairWarning(
        "Installed module copy replaced",
        f'The installed copy of module "{path}" ({data_dir}/modules/{path}) no longer matched the lock file: it was '
        "edited or damaged after installation. It was reinstalled from the package, verified against the lock; the "
        "lock file is the authority.") for path in paths]


def bridge_outside_warning(directory) -> WarningText:
    """``Override bridge not written outside the root``."""
    return WarningText(
        "Override bridge not written outside the root",
        f"The local module in {directory} calls git or OCI sources with a version constraint, but it lies outside the "
        f"root module, and tofu-solve writes nothing outside it: no {OVERRIDE_FILE} was written there, "
        "so tofu init cannot load those calls. Run tofu-solve init in a root that contains that module, or pin "
        "the calls with ?ref= / ?tag=")


def bridge_unsupported_warning(version: str) -> WarningText:
    """``Override bridge needs OpenTofu 1.10``: the target ``version`` cannot load it."""
    return WarningText(
        "Override bridge needs OpenTofu 1.10",
        f"OpenTofu {version} cannot load version constraints on git or OCI module sources, and "
        f"the override bridge that makes tofu init accept them needs OpenTofu 1.10 or later, so tofu-solve did not "
        f"write {OVERRIDE_FILE}. Upgrade OpenTofu, or pin those calls with ?ref= / ?tag= instead.")


def not_handed_over_warning(target, client) -> WarningText:
    """``Not handed over``: the client found is not the product the repository uses."""
    return WarningText(
        "Not handed over",
        f"This repository uses {target.product.name} ({target.origin}), but the client found is "
        f"{client.product.name} {client.version} ({client.origin}): {client.product.command} would not read the "
        f"lock the same way, so tofu-solve did not run it and wrote the lock for {target.product.name}. Install "
        f"{target.product.command} and run {target.product.command} init -lockfile=readonly; to change the "
        f"repository's product, change {'the flag' if target.origin.startswith('-') else 'what decided it'} "
        "and run tofu-solve init (the change is listed like any lock change).")


def passed_over_policies_warning(files: list[str], named: str | None) -> WarningText:
    """The warning for policy files of the tree that apply to no root of a ``-recursive``
    run (``files``, named from where it ran; ``named``: the ``-policy`` or
    ``TOFU_SOLVE_POLICY`` value in force, which replaces the repository's files), said once
    with how to apply them (issue #84 §1)."""
    shown = ", ".join(one_line(f) for f in files[:10]) + (f" and {len(files) - 10} more" if len(files) > 10 else "")
    folders = sorted({f.rpartition("/")[0] or "." for f in files})
    flag = f"-policy={folders[0]}" if len(folders) == 1 else "-policy=DIR"
    if named:
        how = (f"-policy or TOFU_SOLVE_POLICY ({one_line(named)}) replaces the repository's policy files; name "
               "the folder that holds them all, or move these into it, to apply them.")
    else:
        how = ("Only the policy files in the directories from the repository's top down to a root module apply to "
               f"it. To apply these to every root, run with {flag} (or set TOFU_SOLVE_POLICY), or move them to the "
               "repository's top.")
    return WarningText("Policy files applied to no root module",
                       f"{len(files)} policy file{'s' if len(files) != 1 else ''} of this tree applied to no root "
                       f"module of the run: {shown}. {how}")
