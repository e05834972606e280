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

The result is a :class:`ResolutionError` whose ``detail`` is the text and whose
``explanation`` is the same as data.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..errors import ResolutionError, TofuSolveError
from ..addrs.redact import redact
from ..config.tree import ModuleTree
from ..versions import goversions as gvs
from ..versions.selection import list_module_versions
from ..versions.constraints import module_constraint
from ..solver.context import Context
from ..solver.model import ROOT, ModuleCandidate, ModuleRequirement, short_provider as _short_provider, subject_name as _subject_name

MAX_VERSIONS_EXAMINED = 60
_ANY_RELEASE = module_constraint(">= 0.0.0")  # looks beyond a call's own constraint


# --------------------------------------------------------------------------- subjects


@dataclass
class Side:
    """One module call's position on a subject, summarized over its candidate versions."""

    call_path: str
    req: ModuleRequirement | None
    # version text -> the requirements that version puts on the subject (AND)
    per_version: dict[str, list] = field(default_factory=dict)
    order: list[str] = field(default_factory=list)  # newest first


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
        steps.append(f'{r.call_path.rsplit(".", 1)[-1]} ({src} "{c}", {r.call.where}{inside})')
    return " -> ".join(steps)


def _subject_reqs_of_tree(tree: ModuleTree, ident, ctx: Context) -> list:
    if ident[0] == "provider":
        return [r for _, r in tree.providers if str(r.address) == ident[1]]
    if ident[0] == "opentofu":
        return [c for _, c in tree.core if c.counts_for(ctx.options.target.triple)]
    return []


def _constraint_text(r) -> str:
    c = getattr(r, "constraint", None)
    return c.text if c is not None else "(any version)"


def _satisfiable(ident, constraints: list, ctx: Context) -> list:
    """The subject's versions that meet every constraint (newest first)."""
    if ident[0] == "provider":
        spec = tuple(s for c in constraints if c is not None for s in c.spec)
        versions = ctx.provider_versions(_address(ident[1]))
        lock = ctx.locks.providers.get(ident[1])
        out = [v for v in reversed(versions) if gvs.meets(spec, v)]
        if lock is not None and not ctx.options.upgrade:
            out = [v for v in out if str(v) == lock.version]
        return out
    if ident[0] == "opentofu":
        t = ctx.options.target.version
        return [t] if all(c.allows(t) for c in constraints if c is not None) else []
    return []


def _address(text: str):
    from ..addrs.provider import parse_provider_source
    return parse_provider_source(text)


def _tree(cand: ModuleCandidate, ctx: Context):
    try:
        return ctx.tree(cand)
    except TofuSolveError:
        return None


def _candidates(req: ModuleRequirement, ctx: Context, all_versions: bool) -> list[ModuleCandidate]:
    try:
        if not all_versions:
            return ctx.module_candidates(req)
        avail = ctx.available(req)
        listing = list_module_versions(None if req.constraint is None else _ANY_RELEASE, [a.label for a in avail])
        by_label = {a.label: a for a in avail}
        return [ModuleCandidate(req.call_path, req.call.source, by_label[v.original],
                                ctx.package_address(req.call.source)) for v in listing.matching]
    except TofuSolveError:
        return []


def _versions_with_reqs(req: ModuleRequirement, ident, ctx: Context, all_versions: bool):
    """(version text, requirements on the subject), newest first, read lazily."""
    for cand in _candidates(req, ctx, all_versions)[:MAX_VERSIONS_EXAMINED]:
        tree = _tree(cand, ctx)
        if isinstance(tree, ModuleTree):
            yield cand.version_text, _subject_reqs_of_tree(tree, ident, ctx)


def _side_for(call_path: str, ident, ctx: Context) -> Side:
    req = ctx.calls.get(call_path)
    side = Side(call_path, req)
    if req is None:
        return side
    for v, reqs in _versions_with_reqs(req, ident, ctx, False):
        side.per_version[v] = reqs
        side.order.append(v)
    return side



# --------------------------------------------------------------------------- main entry


def explain_impossible(causes, ctx: Context, tree: ModuleTree, root_reqs: list | None = None,
                       root: Path | None = None) -> ResolutionError:
    """Turn a failed solve into a :class:`ResolutionError` with a full explanation.

    ``causes``: resolvelib's (may be empty when a dead-end pass proved the clash).
    ``root_reqs``: the root requirements the solve used; ``root``: the root directory (to
    cite the line that holds each constraint). Never raises for lack of data: what cannot
    be examined within the what-if bounds is left out, and said to be.
    """
    from ..solver.resolve import root_requirements
    from .whatif import WhatIf

    from ..solver.propagate import propagate

    ctx.likely_provider = None  # nothing will be locked: what-if picks are not read ahead
    reqs = root_reqs if root_reqs is not None else root_requirements(tree, ctx)
    # What the what-if solves will ask about, read at once and in parallel: every candidate
    # version of the root calls (a dead-end pass that reads them; its result is not needed).
    propagate(reqs, ctx, fetch=True)
    wi = WhatIf(ctx, reqs, root)
    first = wi.minimal_clash(wi.levers) if wi.levers else None
    suggestions, clashes = wi.suggestions([first]) if first else ([], [])
    data: dict = {"kind": "conflict", "subjects": [], "clashes": [], "suggestions": []}
    summary = "No consistent set of versions"
    text: list[str] = []
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
            summary = _add_subject(_explain_subject(ident, levers, ctx, wi), text, data, summary)
        text.append("")
        text.append("These cannot hold together:" if len(clashes) == 1 else
                    "Each of these sets cannot hold together:")
        for clash in clashes:
            text.append("  - " + "; ".join(lv.short() for lv in clash))
            data["clashes"].append([{"kind": lv.kind, "name": lv.name, "constraint": lv.text, "file": lv.file,
                                     "line": lv.line} for lv in clash])
    else:
        groups = {}
        for info in causes:
            groups.setdefault(info.requirement.identifier, []).append(info)
        for ident, infos in groups.items():
            if ident[0] in ("provider", "opentofu", "package"):
                part = _explain_from_causes(ident, infos, ctx, wi)
            elif ident[0] == "unusable":
                part = _explain_unusable(ident, infos, ctx)
            else:
                part = _explain_module(ident, infos, ctx)
            summary = _add_subject(part, text, data, summary)
    advice = [sg.summary() for sg in suggestions]
    data["suggestions"] = [sg.as_dict() for sg in suggestions]
    moved = wi.held_by_lock()
    if moved:
        names = ",".join(moved)
        summary_lock = (f"keep the configuration and let the lock move {', '.join(moved)}: the versions "
                        f".terraform.lock.hcl holds make this impossible; run tofu-solve init -upgrade={names}.")
        advice.insert(0, summary_lock)
        data["suggestions"].insert(0, {"summary": summary_lock, "edits": [], "upgrade": moved})
    if any(d.get("subject") == _subject_name(("opentofu",)) for d in data["subjects"]):
        advice.append("or solve for another OpenTofu release with -tofu-version=X.Y.Z.")
    if advice:
        text += ["", "What would work:"] + [f"  - {a}" for a in advice]
    elif wi.exhausted:
        text += ["", "No change to the version constraints of this configuration was found to work within the "
                 f"search bounds ({wi.attempts} what-if solves)."]
    elif clashes:
        text += ["", "No change to the version constraints of this configuration makes it solvable: the clash is "
                 "inside the module versions published."]
    data["what_if_solves"] = wi.attempts
    if not text:
        text = ["No version of the module calls and providers satisfies every constraint."]
    return ResolutionError(summary, "\n".join(text), explanation=data)


def _add_subject(part: tuple[list[str], dict], text: list[str], data: dict, summary: str) -> str:
    """Append one subject's text and data; returns the error summary (OpenTofu's
    "Unresolvable module version constraint" when a call matches no version at all)."""
    lines, d = part
    if d.get("kind") == "no such version":
        summary = "Unresolvable module version constraint"
        data["kind"] = "no such version"
    if text:
        text.append("")
    text += lines
    data["subjects"].append(d)
    return summary


def _clash_subjects(clash, wi) -> list:
    """What a clash is about: the subjects resolvelib (or the dead-end pass) named when only
    the clash's constraints held."""
    out = wi.attempt(frozenset(lv.index for lv in wi.levers) - {lv.index for lv in clash})
    idents = []
    if out.pruning is not None and out.pruning.empty:
        for path in out.pruning.empty:
            for v, kill in out.pruning.dead.get(path, {}).items():
                s = kill.subject
                if s[0] == "unusable":
                    err = kill.req
                    call = wi.ctx.calls.get(path)
                    at = f" ({err.where})" if getattr(err, "where", None) else \
                        (f" (called at {call.call.where})" if call is not None else "")
                    wi.unusable.setdefault(s, {})[v] = f"{err.summary}: {err.detail}{at}"
                if s not in idents:
                    idents.append(s)
    for info in out.causes:
        ident = info.requirement.identifier
        if ident[0] == "unusable":
            r = info.requirement
            wi.unusable.setdefault(ident, {})[r.version] = r.reason
        if ident not in idents:
            idents.append(ident)
    if not idents:
        idents.append(("clash",))
    return idents


def _req_entry(r, ident, ctx: Context) -> dict:
    o = r.origin
    return {"subject": _subject_name(ident), "constraint": _constraint_text(r),
            "imposed_by": o.call_path or "root", "module_version": o.version,
            "file": o.where.file if o.where else None, "line": o.where.line if o.where else None}


def _grouped_constraints(reqs: list) -> str:
    """One version's constraints on a subject, each distinct constraint once with the files
    that carry it: ``">= 6.28" (versions.tf:5, modules/fargate-profile/versions.tf:5)``."""
    by_text: dict = {}
    for r in reqs:
        by_text.setdefault(_constraint_text(r), []).append(str(r.where) if getattr(r, "where", None) else "?")
    return " AND ".join(f'"{t}" ({", ".join(sorted(set(w)))})' for t, w in sorted(by_text.items())) \
        or "no constraint"


def _side_lines(side: Side, name: str) -> tuple[list[str], dict]:
    uniq: dict = {}
    for v in side.order:
        uniq.setdefault(_grouped_constraints(side.per_version[v]), []).append(v)
    lines = [f"      {', '.join(_compress(vs))}: {key}" for key, vs in uniq.items()]
    return lines, uniq


def _unmatched_notes(ident, constraints: list, ctx: Context) -> list[str]:
    """For a provider: the constraints that admit no published version, with what is published."""
    if ident[0] != "provider":
        return []
    try:
        versions = ctx.provider_versions(_address(ident[1]))
    except TofuSolveError:
        return []
    released = [v for v in versions if not v.prerelease]
    out = []
    for c in dict.fromkeys(c for c in constraints if c is not None):
        if not any(gvs.meets(c.spec, v) for v in versions):
            span = f"{released[0]} to {released[-1]}" if len(released) > 1 else \
                (str(released[0]) if released else "none")
            out.append(f'no published version of {_short_provider(ident[1])} matches "{c.text}" '
                       f"(published: {span}, {len(released)} releases)")
    return out


def _explain_subject(ident, levers: list, ctx: Context, wi) -> tuple[list[str], dict]:
    """One subject of a clash, with exactly the parties (levers) of the clashes about it."""
    name = _subject_name(ident)
    if ident[0] == "module":
        req = ctx.calls.get(ident[1])
        if req is not None:
            class _Info:  # the shape _explain_module reads
                requirement = req
            return _explain_module(ident, [_Info()], ctx)
    if ident[0] == "package":
        return _explain_package_levers(ident, levers, ctx, wi)
    if ident[0] == "unusable":
        by_reason: dict = {}
        for v, reason in wi.unusable.get(ident, {}).items():
            by_reason.setdefault(reason, []).append(v)
        lines = [f'No version of module "{ident[1]}" that its constraint allows can be used:']
        lines += [f"  - {', '.join(_compress(vs))}: {reason}" for reason, vs in by_reason.items()]
        return lines, {"subject": f'module call "{ident[1]}"', "kind": "unusable",
                       "reasons": {", ".join(_compress(vs)): r for r, vs in by_reason.items()}}
    if ident[0] == "clash":
        lines = ["These constraints cannot all be met together:"]
        return lines + [f"  - {lv.short()}" for lv in levers], {"subject": "clash", "kind": "conflict"}
    lines = [f"The constraints on {name} cannot all be met:"]
    if ident[0] == "opentofu":
        t = ctx.options.target
        lines.append(f"  - this configuration is solved for OpenTofu {t.version} ({t.origin})")
    reqs_data = []
    constraints = []
    for lv in levers:
        r = wi.reqs[lv.index]
        direct = (lv.kind == "provider" and ident == ("provider", lv.name)) or \
            (lv.kind == "opentofu" and ident[0] == "opentofu")
        if direct:
            where = f" at {r.origin.where}" if r.origin.where else ""
            who = "the root module" if r.origin.call_path == ROOT else f'the local module "{r.origin.call_path}"'
            lines.append(f'  - "{lv.text}" required by {who}{where}')
            reqs_data.append(_req_entry(r, ident, ctx))
            constraints.append(r.constraint)
    findings = []
    for lv in levers:
        if lv.kind != "module":
            continue
        side = _side_for(lv.name, ident, ctx)
        if side.req is None or not any(side.per_version.values()):
            continue
        within = f'"{side.req.constraint.text}"' if side.req.constraint else "any version"
        via = f", via {_chain_text(side.call_path, ctx)}" if "." in side.call_path else ""
        lines.append(f'  - module "{side.call_path}" ({_display(side.req)} {within} at {side.req.call.where}{via}) '
                     "requires, by version:")
        side_lines, uniq = _side_lines(side, name)
        lines += side_lines
        for v in side.order:
            for r in side.per_version[v]:
                w = getattr(r, "where", None)
                reqs_data.append({"subject": name, "constraint": _constraint_text(r), "imposed_by": side.call_path,
                                  "module_version": v, "file": w.file if w else None, "line": w.line if w else None})
                constraints.append(getattr(r, "constraint", None))
        if len(uniq) == 1 and side.order:
            vr = f"{side.order[-1]} to {side.order[0]}" if len(side.order) > 1 else side.order[0]
            findings.append(f"every version of {side.call_path} within {within} ({vr}) requires {name} "
                            f"{next(iter(uniq))}")
    notes = _unmatched_notes(ident, constraints, ctx)
    lines += [f"  - {n}" for n in notes]
    return lines, {"subject": name, "kind": "conflict", "requirements": reqs_data, "findings": findings,
                   "unmatched": notes}


def _explain_package_levers(ident, levers: list, ctx: Context, wi) -> tuple[list[str], dict]:
    """A module package that must take one version (``-module-versions=shared``)."""
    pkg = ident[1]
    lines = [f"With -module-versions=shared, every call of {pkg} must use one version, but:"]
    entries = []
    for lv in levers:
        if lv.kind != "module":
            continue
        r = wi.reqs[lv.index]
        try:
            own = ctx.package_address(r.call.source) == pkg
        except TofuSolveError:
            own = False
        if own:
            lines.append(f'  - module "{lv.name}" asks for "{lv.text}" ({lv.at})')
            entries.append({"call": lv.name, "constraint": lv.text, "file": lv.file, "line": lv.line})
            continue
        per_version: dict = {}
        order = []
        for cand in _candidates(r, ctx, False)[:MAX_VERSIONS_EXAMINED]:
            if not ctx.tree_known(cand):
                continue
            t = _tree(cand, ctx)
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
            order.append(cand.version_text)
        if not order:
            continue
        lines.append(f'  - module "{lv.name}" ({_display(r)} "{lv.text}" at {lv.at}) calls it, by version:')
        for key, vs in per_version.items():
            lines.append(f"      {', '.join(_compress(vs))}: {key}")
        entries.append({"call": lv.name, "constraint": lv.text, "file": lv.file, "line": lv.line,
                        "by_version": {", ".join(_compress(vs)): key for key, vs in per_version.items()}})
    return lines, {"subject": _subject_name(ident), "kind": "conflict", "requirements": entries}


def _explain_from_causes(ident, infos, ctx: Context, wi):
    """Without a clash among the user's constraints (the conflict is inside fixed module
    versions, or the what-if bounds were reached): what resolvelib saw, grouped."""
    if ident[0] == "package":
        return _explain_package(ident, infos, ctx)
    name = _subject_name(ident)
    lines = [f"The constraints on {name} cannot all be met:"]
    reqs, seen = [], set()
    for info in infos:
        r = info.requirement
        key = (r.origin.call_path, str(r.origin.where), _constraint_text(r))
        if key not in seen:
            seen.add(key)
            reqs.append(r)
    for r in reqs:
        where = f" at {r.origin.where}" if r.origin.where else ""
        lines.append(f'  - "{_constraint_text(r)}" required by {r.origin.describe()}{where}')
    notes = _unmatched_notes(ident, [getattr(r, "constraint", None) for r in reqs], ctx)
    lines += [f"  - {n}" for n in notes]
    return lines, {"subject": name, "kind": "conflict", "requirements": [_req_entry(r, ident, ctx) for r in reqs],
                   "unmatched": notes}


def _display(req: ModuleRequirement) -> str:
    src = req.call.source
    return src.for_display if hasattr(src, "for_display") else str(src)


def _owning_call(call_path: str, ctx: Context) -> str:
    """The remote module call a (possibly local-submodule) path belongs to."""
    parts = call_path.split(".")
    for i in range(len(parts), 0, -1):
        p = ".".join(parts[:i])
        if p in ctx.calls:
            return p
    return call_path


def _compress(versions: list[str]) -> list[str]:
    if len(versions) <= 3:
        return versions
    return [f"{versions[-1]} to {versions[0]}"]


def _explain_package(ident, infos, ctx: Context):
    name = _subject_name(ident)
    lines = [f"With -module-versions=shared, every call of {ident[1]} must use one version, but:"]
    entries = []
    for info in infos:
        r = info.requirement
        call = ctx.calls.get(r.origin.call_path)
        c = call.constraint.text if call and call.constraint else "any version"
        where = f"{call.call.where}" if call else "?"
        inside = "" if not call or call.origin.call_path == ROOT else f" in {call.origin.call_path} {call.origin.version}"
        lines.append(f'  "{r.origin.call_path}" asks for "{c}" ({where}{inside}) and was tried at {r.version}')
        entries.append({"call": r.origin.call_path, "constraint": c, "tried": r.version,
                        "file": call.call.where.file if call else None, "line": call.call.where.line if call else None})
    calls = [ctx.calls.get(e["call"]) for e in entries]
    if all(calls):
        common = None
        for c in calls:
            avail = [a.label for a in ctx.available(c)]
            ok = {v.string for v in list_module_versions(c.constraint, avail).matching}
            common = ok if common is None else common & ok
        if not common:
            lines.append("")
            lines.append("No version satisfies all of these constraints together. What would work: make the "
                         "constraints overlap, or drop -module-versions=shared to let each call choose its own "
                         "version, as tofu init does.")
    return lines, {"subject": name, "kind": "conflict", "requirements": entries}


def _explain_unusable(ident, infos, ctx: Context):
    r = infos[0].requirement
    lines = [f'Module "{r.call_path}" {r.version} cannot be used: {r.reason}']
    return lines, {"subject": _subject_name(ident), "kind": "unusable", "reason": r.reason}


def _explain_module(ident, infos, ctx: Context):
    """A module call with no candidate at all (its constraint matches nothing)."""
    call_path = ident[1]
    req = next((i.requirement for i in infos if isinstance(i.requirement, ModuleRequirement)), None)
    if req is None:
        return [f'No version of module call "{call_path}" is possible.'], {"subject": call_path, "kind": "conflict"}
    try:
        err = ctx.no_match_error(req)
        detail = err.detail
    except TofuSolveError as e:
        detail = e.detail
    where = req.call.version_where or req.call.where
    inside = "" if req.origin.call_path == ROOT else f" (in {req.origin.describe()})"
    lines = [f"{detail}", f"  at {where}{inside}", f"  via {_chain_text(call_path, ctx)}"]
    return lines, {"subject": _subject_name(ident), "kind": "no such version", "call": call_path,
                   "file": where.file, "line": where.line}
