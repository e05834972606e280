"""Conflict explanations: from a failed solve to what a user can act on in one step.

resolvelib reports the requirements that clashed when it gave up, which are often only
those of the last candidate it tried. The explanation is built from what-if solves over
the constraints the user owns (:mod:`.whatif`) instead:

1. a minimal set of those constraints that cannot hold together (every one of them takes
   part; relaxing any one would change the answer), and every further clash met while
   looking for a fix (three parties on one provider are three named constraints);
2. for each clash, the subject it is about (a provider, OpenTofu, a module package under
   ``-module-versions=shared``, a nested call with no version), each constraint with who
   imposed it (call path and version), the file and line, what every candidate version of
   each module call involved requires of the subject, identical constraints of one version
   shown once with the files that carry them, and the versions actually published when a
   constraint admits none of them;
3. suggestions that were checked by solving again with the edits applied, fewest edits
   first, then the smallest move, each with its edits as data (``file``, ``line``, ``old``,
   ``new``) for ``-json``.

This module gathers what the explanation says (:mod:`.facts`): it is the part that reads
module trees, listings and provider versions and runs the what-if solves. Turning the facts
into text and data is :mod:`.render`'s, which reads nothing. The result is a
:class:`ResolutionError` whose ``detail`` is the text and whose ``explanation`` is the same
as data.
"""

from __future__ import annotations

from pathlib import Path

from .._lazy import load
from ..addrs.provider import parse_provider_source
from ..addrs.redact import redact
from ..config.tree import ModuleTree
from ..errors import ResolutionError, TofuSolveError
from ..solver.context import Context
from ..solver.kept_out import of_unloadable
from ..solver.model import (
    CLASH,
    ROOT,
    Identity,
    Kind,
    ModuleCandidate,
    ModuleRequirement,
    short_provider,
    subject_name,
)
from ..solver.propagate import propagate
from ..solver.resolve import root_requirements
from ..versions import apparentlymart_go_versions as gvs
from ..versions.version_pick import list_module_versions
from . import render
from .facts import (
    CausesClash,
    ConstraintClash,
    ConstraintFact,
    Explanation,
    NoSuchVersion,
    PlainClash,
    SharedPackageCauses,
    SharedPackageClash,
    SideFacts,
    UnusableCall,
    UnusableVersion,
)
from .whatif import KEEPS, Suggestion, WhatIf

MAX_VERSIONS_EXAMINED = 60


# --------------------------------------------------------------------------- main entry


def explain_impossible(causes, ctx: Context, tree: ModuleTree, root_reqs: list | None = None,
                       root: Path | None = None) -> ResolutionError:
    """Turn a failed solve into a :class:`ResolutionError` with a full explanation.

    ``causes``: resolvelib's (may be empty when a dead-end pass proved the clash).
    ``root_reqs``: the root requirements the solve used; ``root``: the root directory (to
    cite the line that holds each constraint). Never raises for lack of data: what cannot
    be examined within the what-if bounds is left out, and said to be.
    """
    return render.error(gather(causes, ctx, tree, root_reqs, root))


def gather(causes, ctx: Context, tree: ModuleTree, root_reqs: list | None = None,
           root: Path | None = None) -> Explanation:
    """The facts of the explanation (:class:`~.facts.Explanation`): the what-if solves, then
    each subject's parties with what their versions require. All of the explanation's
    reading happens here."""
    ctx = ctx.view(locks=ctx.locks, fetch_budget=ctx.fetch_budget)  # nothing will be locked: picks are not read ahead
    reqs = root_reqs if root_reqs is not None else root_requirements(tree, ctx)
    # What the what-if solves will ask about, read at once and in parallel: every candidate
    # version of the root calls (a dead-end pass that reads them; its result is not needed).
    propagate(reqs, ctx, fetch=True)
    wi = WhatIf(ctx, reqs, root)
    first = wi.minimal_clash(wi.levers) if wi.levers else None
    suggestions, clashes = wi.suggestions([first]) if first else ([], [])
    keeps: dict[str, Suggestion] = {}
    if clashes:
        for what, kinds in KEEPS.items():  # the best fix of each kind, when one exists (issue #24)
            s = wi.keeping(kinds, clashes, suggestions)
            if s is not None:
                keeps[what] = s
                if s not in suggestions:
                    suggestions.append(s)
        suggestions.sort(key=Suggestion.rank)
    subjects: list = []
    if clashes:
        groups: dict = {}  # subject -> clashes about it
        for clash in clashes:
            for ident in _clash_subjects(clash, wi):
                groups.setdefault(ident, []).append(clash)
        for ident, on_subject in groups.items():
            levers = []
            for clash in on_subject:
                levers += [lv for lv in clash if lv not in levers]
            levers.sort(key=lambda lv: lv.index)
            subjects.append(_subject_of_clash(ident, levers, ctx, wi))
    else:
        groups = {}
        for info in causes:
            groups.setdefault(info.requirement.identifier, []).append(info)
        for ident, infos in groups.items():
            if ident.kind is Kind.PACKAGE:
                subjects.append(_shared_package_causes(ident, infos, ctx))
            elif ident.kind in (Kind.PROVIDER, Kind.OPENTOFU):
                subjects.append(_causes_clash(ident, infos, ctx))
            elif ident.kind is Kind.UNUSABLE:
                r = infos[0].requirement
                call = getattr(ctx.calls.get(r.call_path), "call", None)
                where = getattr(call, "constraint_where", None) or getattr(call, "where", None)
                subjects.append(UnusableVersion(ident, subject_name(ident), r.call_path, r.version, r.kept,
                                                str(where) if where is not None else ""))
            else:
                req = next((i.requirement for i in infos if isinstance(i.requirement, ModuleRequirement)), None)
                subjects.append(_no_such_version(ident, req, ctx))
    moved = wi.held_by_lock()
    subjects = _one_per_unusable_call(subjects)
    return Explanation(subjects, clashes, suggestions, moved or None, wi.exhausted, wi.attempts,
                       tuple(ctx.options.upgrade_targets), keeps)


# --------------------------------------------------------------------------- the parties


def _chain(call_path: str, ctx: Context) -> list[ModuleRequirement]:
    """The calls from the root down to ``call_path`` (those known)."""
    parts = call_path.split(".") if call_path else []
    out = []
    for i in range(1, len(parts) + 1):
        r = ctx.calls.get(".".join(parts[:i]))
        if r is not None:
            out.append(r)
    return out


def _chain_text(call_path: str, ctx: Context) -> str:
    steps = ["root"]
    for r in _chain(call_path, ctx):
        c = r.constraint.text if r.constraint else "any version"
        src = r.call.source.for_display if hasattr(r.call.source, "for_display") else redact(str(r.call.source))
        inside = "" if r.origin.call_path == ROOT else f" in {r.origin.call_path} {r.origin.version}"
        steps.append(f'{r.call_path.rsplit(".", 1)[-1]} ({src} "{c}", {r.call.version_where or r.call.where}{inside})')
    return " -> ".join(steps)


def _subject_reqs_of_tree(tree: ModuleTree, ident, ctx: Context) -> list:
    if ident.kind is Kind.PROVIDER:
        return [r for _, r in tree.providers if str(r.address) == ident.name]
    if ident.kind is Kind.OPENTOFU:
        return [c for _, c in tree.core if c.counts_for(ctx.options.target.triple, ctx.options.target.terraform)]
    return []


def _constraint_text(r) -> str:
    c = getattr(r, "constraint", None)
    return c.text if c is not None else "(any version)"


def _display(req: ModuleRequirement) -> str:
    src = req.call.source
    return src.for_display if hasattr(src, "for_display") else str(src)


def _origin_fact(r, name: str, who: str = "") -> ConstraintFact:
    """A requirement as the constraint its origin (root, local module, module version) imposes."""
    o = r.origin
    via = getattr(r, "via", "")  # Terraform 1.17: the variable or local a provider requirement read
    return ConstraintFact(name, _constraint_text(r), o.call_path, o.version, str(o.where) if o.where else None,
                          o.where.file if o.where else None, o.where.line if o.where else None, who or o.describe(),
                          (f" at {o.where}" if o.where else "") + (f", from {via}" if via else ""))


def _candidates(req: ModuleRequirement, ctx: Context) -> list[ModuleCandidate]:
    """The call's candidates, newest first, at most :data:`MAX_VERSIONS_EXAMINED`.

    Raises:
        TofuSolveError: they cannot be listed (callers say so in ``not_examined``).
    """
    return ctx.module_candidates(req)[:MAX_VERSIONS_EXAMINED]


def _side(call_path: str, ident, name: str, ctx: Context) -> tuple[SideFacts | None, list]:
    """What each candidate version of ``call_path`` (at most :data:`MAX_VERSIONS_EXAMINED`,
    newest first) requires of the subject, and those constraints as values (for
    :func:`_unmatched_notes`); (None, []) when the call is unknown."""
    req = ctx.calls.get(call_path)
    if req is None:
        return None, []
    within = f'"{req.constraint.text}"' if req.constraint else "any version"
    via = f", via {_chain_text(call_path, ctx)}" if "." in call_path else ""
    side = SideFacts(call_path, _display(req), within, str(req.call.version_where or req.call.where), via)
    constraints = []
    try:
        candidates = _candidates(req, ctx)
    except TofuSolveError as e:
        side.not_examined["listing"] = e.summary
        candidates = []
    for cand in candidates:
        v = cand.version_text
        try:
            tree = ctx.tree(cand)
        except TofuSolveError as e:
            side.not_examined[v] = e.summary
            continue
        if not isinstance(tree, ModuleTree):  # a version whose configuration is broken (cached as its error)
            side.not_examined[v] = getattr(tree, "summary", "unreadable")
            continue
        on_subject = _subject_reqs_of_tree(tree, ident, ctx)
        side.order.append(v)
        side.per_version[v] = []
        for r in on_subject:
            w = getattr(r, "where", None)
            side.per_version[v].append(ConstraintFact(name, _constraint_text(r), call_path, v, str(w) if w else None,
                                                      w.file if w else None, w.line if w else None))
            constraints.append(getattr(r, "constraint", None))
    return side, constraints


def _unmatched_notes(ident, constraints: list, ctx: Context) -> list[str]:
    """For a provider: the constraints that admit no published version, with what is published."""
    if ident.kind is not Kind.PROVIDER:
        return []
    try:
        versions = ctx.provider_versions(parse_provider_source(ident.name))
    except TofuSolveError:
        return []
    released = [v for v in versions if not v.prerelease]
    out = []
    given = list(dict.fromkeys(c for c in constraints if c is not None))
    for c in given:
        if not any(gvs.meets(c.spec, v) for v in versions):
            span = f"{released[0]} to {released[-1]}" if len(released) > 1 else \
                (str(released[0]) if released else "none")
            out.append(f'no published version of {short_provider(ident.name)} matches "{c.text}" '
                       f"(published: {span}, {len(released)} releases)")
    if not out:
        out += _policy_notes(ident.name, [v for v in released if all(gvs.meets(c.spec, v) for c in given)],
                             given, ctx)
    return out


def _policy_notes(address: str, admitted: list, given: list, ctx: Context) -> list[str]:
    """When the policy refuses every version the constraints admit (issue #69 §3): each
    refusing rule, its file and line and its message, with the override that would admit
    them where the rule allows one."""
    policy = ctx.options.policy
    if policy is None or not admitted or not policy.decides_versions:
        return []
    load("tofu_solve.solver.locks")
    from ..solver.locks import policy_denial
    load("tofu_solve.config.policy")
    from ..config.policy import Denial, PolicyFailure

    rules: dict[str, tuple[Denial, list]] = {}
    for v in admitted:
        found = policy_denial(policy, Kind.PROVIDER, address, v)
        if found is None:
            return []  # some version passes: the policy is not what stops the solve
        rules.setdefault(found.heading(), (found, []))[1].append(v)
    which = " AND ".join(f'"{c.text}"' for c in given)
    # what is refused, said plainly (issue #84 §2: "every version ... that no constraint admits" read backwards)
    versions = f"every version of {short_provider(address)} that {which} allows" if which else \
        f"every released version of {short_provider(address)}"
    out = []
    for rule, vs in rules.values():
        span = f"{vs[0]} to {vs[-1]}" if len(vs) > 1 else str(vs[0])
        lift = isinstance(rule, PolicyFailure) and rule.level == "mandatory_overridable"
        label = rule.rule.label if isinstance(rule, PolicyFailure) else ""
        read = _what_the_rule_read(rule.rule, policy, address) if isinstance(rule, PolicyFailure) else ""
        out.append(f"{versions} ({span}) is refused by {rule.cite()}"
                   + (f" (-policy-override={label} admits them)" if lift else "") + read)
    return out


def _what_the_rule_read(rule, policy, address: str) -> str:
    """What a provider rule that refuses every version turned on (issue #84 §2): each
    ``attrs`` argument with its value and the provider block it is written in, each
    ``input`` with its value and where that came from; and what would change the verdict.
    "" when it reads neither (the version alone decides)."""
    import json

    parts, inputs = [], []
    configs = [c for c in policy.provider_configs if c.address == address]
    for root, name in rule.reads():
        if root == "attrs":
            if not configs:  # judged as the provider's default configuration, every argument null
                parts.append(f"attrs.{name} = null (the root module has no provider block for it: its default "
                             "configuration)")
            for c in configs:
                alias = f' (alias "{c.alias}")' if c.alias else ""
                at = f", {c.where}" if c.where is not None else ""
                value = c.attrs.get(name)
                shown = json.dumps(value) if isinstance(value, str | int | float | bool | list | dict) else "unknown"
                parts.append(f'attrs.{name} = {shown} in provider "{c.local_name}"{alias}{at}')
        elif root == "input" and name in rule.scope.inputs:
            origin = rule.scope.input_origins.get(name, "")
            parts.append(f"input.{name} = {json.dumps(rule.scope.inputs[name])}" + (f" (from {origin})" if origin
                                                                                   else ""))
            inputs.append(name)
    if not parts:
        return ""
    fix = "; no version can pass it while these stand: change the configuration" + (
        f", or give {' and '.join(f'-policy-input {n}=VALUE' for n in inputs)}" if inputs else "")
    return f"; the rule read {'; '.join(parts)}{fix}"


def _clash_subjects(clash, wi) -> list:
    """What a clash is about: the subjects resolvelib (or the dead-end pass) named when only
    the clash's constraints held."""
    out = wi.attempt(frozenset(lv.index for lv in wi.levers) - {lv.index for lv in clash})
    idents = []
    if out.pruning is not None and out.pruning.empty:
        for path in out.pruning.empty:
            for v, kill in out.pruning.dead.get(path, {}).items():
                s = kill.subject
                if s.kind is Kind.UNUSABLE:
                    err = kill.req
                    call = wi.ctx.calls.get(path)
                    wi.unusable.setdefault(s, {})[v] = of_unloadable(
                        err.summary, err.detail, getattr(err, "where", None),
                        call.call.where if call is not None else None)
                if s not in idents:
                    idents.append(s)
    for info in out.causes:
        ident = info.requirement.identifier
        if ident.kind is Kind.UNUSABLE:
            r = info.requirement
            wi.unusable.setdefault(ident, {})[r.version] = r.kept
        if ident not in idents:
            idents.append(ident)
    if not idents:
        idents.append(CLASH)
    return idents


# --------------------------------------------------------------------------- one subject each


def _one_per_unusable_call(subjects: list) -> list:
    """The versions of one call that are each unusable are one subject (each version is its
    own identity to the solver); their reasons are merged where they are said
    (:func:`~tofu_solve.solver.kept_out.merged`)."""
    out: list = []
    first: dict[str, UnusableCall] = {}
    for s in subjects:
        if isinstance(s, UnusableCall) and s.call in first:
            for version, kept in s.by_version.items():
                first[s.call].by_version.setdefault(version, kept)
            continue
        if isinstance(s, UnusableCall):
            first[s.call] = s
        out.append(s)
    return out


def _subject_of_clash(ident, levers: list, ctx: Context, wi):
    """One subject of a clash, with exactly the parties (levers) of the clashes about it."""
    name = subject_name(ident)
    if ident.kind is Kind.MODULE:
        req = ctx.calls.get(ident.name)
        if req is not None:
            return _no_such_version(ident, req, ctx)
    if ident.kind is Kind.PACKAGE:
        return _shared_package_clash(ident, levers, ctx, wi)
    if ident.kind is Kind.UNUSABLE:
        return UnusableCall(ident, name, ident.name, dict(wi.unusable.get(ident, {})))
    if ident.kind is Kind.CLASH:
        return PlainClash(list(levers))
    target = None
    if ident.kind is Kind.OPENTOFU:
        t = ctx.options.target
        target = f"{t} ({t.origin})"
    direct, constraints, sides = [], [], []
    for lv in levers:
        r = wi.reqs[lv.index]
        if (lv.kind is Kind.PROVIDER and ident == Identity.provider(lv.name)) or \
                (lv.kind is Kind.OPENTOFU and ident.kind is Kind.OPENTOFU):
            who = "the root module" if r.origin.call_path == ROOT else f'the local module "{r.origin.call_path}"'
            direct.append((lv.text, _origin_fact(r, name, who)))
            constraints.append(r.constraint)
    for lv in levers:
        if lv.kind is not Kind.MODULE:
            continue
        side, on_subject = _side(lv.name, ident, name, ctx)
        if side is None or not any(side.per_version.values()):
            continue
        sides.append(side)
        constraints += on_subject
    return ConstraintClash(ident, name, target, direct, sides, _unmatched_notes(ident, constraints, ctx))


def _shared_package_clash(ident, levers: list, ctx: Context, wi) -> SharedPackageClash:
    """A module package that must take one version (``-module-versions=shared``): each
    party, and for those that call it from inside what their versions (already read) ask."""
    pkg = ident.name
    facts = SharedPackageClash(ident, subject_name(ident), pkg)
    for lv in levers:
        if lv.kind is not Kind.MODULE:
            continue
        r = wi.reqs[lv.index]
        try:
            own = ctx.package_address(r.call.source) == pkg
        except TofuSolveError:
            own = False
        if own:
            facts.parties.append((lv, None, None))
            continue
        per_version: dict = {}
        try:
            candidates = _candidates(r, ctx)
        except TofuSolveError:
            candidates = []  # a listing that fails is the solve's error to report, not the explanation's
        for cand in candidates:
            if not ctx.tree_known(cand):
                continue
            try:
                t = ctx.tree(cand)
            except TofuSolveError:
                continue
            if not isinstance(t, ModuleTree):
                continue
            inner = []
            for rc in t.remote_calls:
                try:
                    if ctx.package_address(rc.call.source) == pkg:
                        inner.append(rc)
                except TofuSolveError:
                    continue
            key = " AND ".join(sorted({f'"{rc.call.version.text if rc.call.version else "any version"}" '
                                       f'(module "{".".join((lv.name,) + rc.rel_path)}", {rc.call.where})'
                                       for rc in inner})) or "does not call it"
            per_version.setdefault(key, []).append(cand.version_text)
        if per_version:
            facts.parties.append((lv, _display(r), per_version))
    return facts


def _causes_clash(ident, infos, ctx: Context) -> CausesClash:
    """A provider or OpenTofu as resolvelib saw it: each distinct constraint once."""
    name = subject_name(ident)
    reqs, seen = [], set()
    for info in infos:
        r = info.requirement
        key = (r.origin.call_path, str(r.origin.where), _constraint_text(r))
        if key not in seen:
            seen.add(key)
            reqs.append(r)
    notes = _unmatched_notes(ident, [getattr(r, "constraint", None) for r in reqs], ctx)
    return CausesClash(ident, name, [_origin_fact(r, name) for r in reqs], notes)


def _shared_package_causes(ident, infos, ctx: Context) -> SharedPackageCauses:
    entries, places, calls = [], [], []
    for info in infos:
        r = info.requirement
        call = ctx.calls.get(r.origin.call_path)
        c = call.constraint.text if call and call.constraint else "any version"
        where = f"{call.call.where}" if call else "?"
        inside = "" if not call or call.origin.call_path == ROOT else \
            f" in {call.origin.call_path} {call.origin.version}"
        places.append(where + inside)
        entries.append({"call": r.origin.call_path, "constraint": c, "tried": r.version,
                        "file": call.call.where.file if call else None, "line": call.call.where.line if call else None})
        calls.append(call)
    no_overlap = False
    known_calls = [c for c in calls if c is not None]
    if len(known_calls) == len(calls):
        common = None
        for known in known_calls:
            avail = [a.label for a in ctx.available(known)]
            ok = {v.string for v in list_module_versions(known.constraint, avail).matching}
            common = ok if common is None else common & ok
        no_overlap = not common
    return SharedPackageCauses(ident, subject_name(ident), ident.name, entries, places, no_overlap)


def _no_such_version(ident, req: ModuleRequirement | None, ctx: Context) -> NoSuchVersion:
    """A module call with no candidate at all (its constraint matches nothing)."""
    call_path = ident.name
    if req is None:
        return NoSuchVersion(ident, call_path, call_path, None, "", "", "", None, None)
    try:
        detail = ctx.no_match_error(req).detail
    except TofuSolveError as e:
        detail = e.detail
    where = req.call.version_where or req.call.where
    inside = "" if req.origin.call_path == ROOT else f" (in {req.origin.describe()})"
    return NoSuchVersion(ident, subject_name(ident), call_path, detail, str(where), inside,
                         _chain_text(call_path, ctx), where.file, where.line)
