"""Conflict explanations: from resolvelib's flat causes to what a user can act on.

resolvelib reports the requirements that clashed when it gave up, which are often only
those of the last candidate it tried. This module looks at the whole picture instead:

1. it groups the clashing requirements by subject (a provider, OpenTofu, a module package
   under ``-module-versions=shared``, or a module call with no usable version);
2. for every module call that imposed one of them, it reads the constraint *every*
   candidate version within the call's own constraint puts on the subject, so it can say
   "every version of vpc within ~> 6.1 requires hashicorp/aws >= 6.0", not just what
   6.1.0 said;
3. it names each constraint with who imposed it (call path and version), the file and
   line, and the chain of calls from the root;
4. it looks for what would work: a root constraint whose removal admits a solution, and,
   for each module call, the newest version (outside its constraint if need be) that
   admits the other side ("relax ``~> 6.1`` at main.tf:12: vpc 6.0.0 is the newest version
   that admits hashicorp/aws ~> 5.0").

The result is a :class:`ResolutionError` whose ``detail`` is the text and whose
``explanation`` is the same as data (``-json``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..errors import ResolutionError, TofuSolveError
from ..netutil import redact
from ..metadata import ModuleTree
from ..versions import goversions as gvs
from ..versions.selection import list_module_versions
from ..versions.constraints import module_constraint
from .context import Context
from .model import (ROOT, ModuleCandidate, ModuleRequirement)

MAX_VERSIONS_EXAMINED = 60
_ANY_RELEASE = module_constraint(">= 0.0.0")  # looks beyond a call's own constraint


# --------------------------------------------------------------------------- subjects


def _short_provider(addr: str) -> str:
    return addr.removeprefix("registry.opentofu.org/")


def _subject_name(ident) -> str:
    kind = ident[0]
    if kind == "provider":
        return f"provider {_short_provider(ident[1])}"
    if kind == "opentofu":
        return "the OpenTofu version"
    if kind == "package":
        return f"module package {ident[1]}"
    if kind == "module":
        return f'module call "{ident[1]}"'
    return f'module "{ident[1]}" {ident[2]}'


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
    from ..provider_addr import parse_provider_source
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


def explain_impossible(causes, ctx: Context, tree: ModuleTree) -> ResolutionError:
    """Turn resolvelib causes into a :class:`ResolutionError` with a full explanation."""
    groups: dict = {}
    for info in causes:
        groups.setdefault(info.requirement.identifier, []).append(info)
    text: list[str] = []
    data = {"kind": "conflict", "subjects": []}
    summary = "No consistent set of versions"
    for ident, infos in groups.items():
        if ident[0] in ("provider", "opentofu"):
            t, d = _explain_shared_subject(ident, infos, ctx)
        elif ident[0] == "package":
            t, d = _explain_package(ident, infos, ctx)
        elif ident[0] == "unusable":
            t, d = _explain_unusable(ident, infos, ctx)
        else:
            t, d = _explain_module(ident, infos, ctx)
            if d.get("kind") == "no such version":
                summary = "Unresolvable module version constraint"
                data["kind"] = "no such version"
        if text:
            text.append("")
        text += t
        data["subjects"].append(d)
    return ResolutionError(summary, "\n".join(text), explanation=data)


def _req_entry(r, ident, ctx: Context) -> dict:
    o = r.origin
    return {"subject": _subject_name(ident), "constraint": _constraint_text(r),
            "imposed_by": o.call_path or "root", "module_version": o.version,
            "file": o.where.file if o.where else None, "line": o.where.line if o.where else None}


def _explain_shared_subject(ident, infos, ctx: Context):
    """A provider or OpenTofu on which the imposed constraints cannot all hold."""
    name = _subject_name(ident)
    reqs = []
    seen = set()
    for info in infos:
        r = info.requirement
        key = (r.origin.call_path, str(r.origin.where), _constraint_text(r))
        if key not in seen:
            seen.add(key)
            reqs.append(r)
    root_reqs = [r for r in reqs if r.origin.call_path == ROOT]
    module_paths = []
    for r in reqs:
        if r.origin.call_path != ROOT and _owning_call(r.origin.call_path, ctx) not in module_paths:
            module_paths.append(_owning_call(r.origin.call_path, ctx))
    lines = [f"The constraints on {name} cannot all be met:"]
    if ident[0] == "opentofu":
        t = ctx.options.target
        lines.append(f"  - this configuration is solved for OpenTofu {t.version} ({t.origin})")
    for r in root_reqs:
        where = f" at {r.origin.where}" if r.origin.where else ""
        lines.append(f'  - "{_constraint_text(r)}" required by the root module{where}')
    data = {"subject": name, "kind": "conflict", "requirements": [_req_entry(r, ident, ctx) for r in reqs],
            "findings": [], "suggestions": []}

    fixed = [r.constraint for r in root_reqs]
    sides = [_side_for(p, ident, ctx) for p in module_paths]
    findings = []
    for side in sides:
        if side.req is None:
            continue
        within = f'"{side.req.constraint.text}"' if side.req.constraint else "any version"
        via = f", via {_chain_text(side.call_path, ctx)}" if "." in side.call_path else ""
        lines.append(f'  - module "{side.call_path}" ({_display(side.req)} {within} at {side.req.call.where}{via}) '
                     "requires, by version:")
        uniq: dict = {}
        for v in side.order:
            key = " AND ".join(sorted({f'"{_constraint_text(r)}" ({r.where})' for r in side.per_version[v]})) \
                or "no constraint"
            uniq.setdefault(key, []).append(v)
        for key, vs in uniq.items():
            label = ", ".join(_compress(vs))
            lines.append(f"      {label}: {key}")
        if len(uniq) == 1 and side.order:
            vr = f"{side.order[-1]} to {side.order[0]}" if len(side.order) > 1 else side.order[0]
            findings.append(f"every version of {side.call_path} within {within} ({vr}) requires {name} "
                            f"{next(iter(uniq))}")
    # does anything within the call constraints work with the root constraints?
    suggestions = []
    if not _combinations_ok(ident, fixed, sides, ctx):
        for r in root_reqs:
            others = [x.constraint for x in root_reqs if x is not r]
            ok = _combinations_ok(ident, others, sides, ctx, want_example=True)
            if ok:
                pick = ", ".join(f"{p} {v}" for p, v in ok[1].items())
                works = f"{pick} would work with {name} {ok[0]}" if pick else f"{name} {ok[0]} would work"
                suggestions.append(f'relax "{_constraint_text(r)}" at {r.origin.where}: without it {works}.')
        for side in sides:
            if side.req is None:
                continue
            others = [s for s in sides if s is not side]
            found = None
            for v, vreqs in _versions_with_reqs(side.req, ident, ctx, True):
                cons = fixed + [r.constraint for r in vreqs]
                ok = _combinations_ok(ident, cons, others, ctx, want_example=True)
                if ok:
                    found = (v, ok)
                    break
            if found:
                v, ok = found
                within = side.req.constraint.text if side.req.constraint else "(any version)"
                inside = side.req.constraint is not None and side.req.constraint.allows(v)
                where = side.req.call.version_where or side.req.call.where
                if inside:
                    suggestions.append(f"{side.call_path} {v} is the newest version within \"{within}\" that admits "
                                       f"the other constraints on {name}.")
                else:
                    suggestions.append(f'relax "{within}" at {where}: {side.call_path} {v} is the newest version '
                                       f"that admits the other constraints on {name} ({ok[0]} would be selected).")
            else:
                suggestions.append(f"no version of {side.call_path} admits the other constraints on {name}.")
    if ident[0] == "opentofu":
        suggestions.append("or solve for another OpenTofu release with -tofu-version=X.Y.Z.")
    if ident[0] == "provider" and ident[1] in ctx.locks.providers and not ctx.options.upgrade:
        lock = ctx.locks.providers[ident[1]]
        suggestions.append(f"{name} is locked at {lock.version} in .terraform.lock.hcl; run tofu-solve init -upgrade "
                           "(and tofu init -upgrade) to allow another version.")
    if suggestions:
        lines.append("")
        lines.append("What would work:")
        lines += [f"  - {s}" for s in suggestions]
    data["findings"] = findings
    data["suggestions"] = suggestions
    return lines, data


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


def _combinations_ok(ident, fixed: list, sides: list[Side], ctx: Context, want_example: bool = False):
    """Whether one version per side plus ``fixed`` leaves a version of the subject.
    Returns (subject version, {call: version}) when ``want_example``, else a bool."""
    options = []
    for side in sides:
        uniq = {}
        for v in side.order:
            key = tuple(sorted(_constraint_text(r) for r in side.per_version[v]))
            uniq.setdefault(key, (v, [r.constraint for r in side.per_version[v]]))
        options.append([(side.call_path, v, cons) for v, cons in uniq.values()] or [(side.call_path, None, [])])

    def rec(i, cons, picked):
        if i == len(options):
            ok = _satisfiable(ident, cons, ctx)
            return (ok[0], dict(picked)) if ok else None
        for call, v, c in options[i]:
            r = rec(i + 1, cons + c, picked + ([(call, v)] if v else []))
            if r:
                return r
        return None
    found = rec(0, list(fixed), [])
    if want_example:
        return found
    return found is not None


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
