"""An explanation's facts (:mod:`.facts`) as the error a user sees: text for people, the same
as data for ``-json``. Reads nothing: every file, listing and what-if result it shows was
gathered before (:mod:`.analysis`), so it can be tested from facts alone.
"""

from __future__ import annotations

from ..errors import ResolutionError
from ..solver.kept_out import Why, merged, newest_first, version_range
from ..solver.model import OPENTOFU, subject_name
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


def error(expl: Explanation) -> ResolutionError:
    """The :class:`ResolutionError` for ``expl``: ``detail`` is the text, ``explanation``
    the data (``kind``, ``subjects``, ``clashes``, ``suggestions``, ``what_if_solves``)."""
    data: dict = {"kind": "conflict", "subjects": [], "clashes": [], "suggestions": []}
    summary = "No consistent set of versions"
    text: list[str] = []
    for subject in expl.subjects:
        lines, d = subject_part(subject)
        if d.get("kind") == "no such version":  # OpenTofu's words for a call that matches nothing
            summary = "Unresolvable module version constraint"
            data["kind"] = "no such version"
        if text:
            text.append("")
        text += lines
        data["subjects"].append(d)
    if expl.clashes:
        text.append("")
        text.append("These cannot hold together:" if len(expl.clashes) == 1 else
                    "Each of these sets cannot hold together:")
        for clash in expl.clashes:
            text.append("  - " + "; ".join(lv.short() for lv in clash))
            data["clashes"].append([{"kind": lv.kind, "name": lv.name, "constraint": lv.text, "file": lv.file,
                                     "line": lv.line} for lv in clash])
    advice, data["suggestions"] = [], []
    fewest = min((len(sg.edits) for sg in expl.suggestions), default=0)
    for i, sg in enumerate(expl.suggestions):
        first = i == 0 and len(expl.suggestions) > 1 and len(sg.edits) == fewest
        labels = (["fewest edits"] if first else []) + \
            [f"keeps {what}" for what, best in expl.keeps.items() if best is sg]
        advice.append(sg.summary() + (f" [{'; '.join(labels)}]" if labels else ""))
        data["suggestions"].append({**sg.as_dict(), "keeps": [w.removeprefix("the ") for w, best in expl.keeps.items()
                                                              if best is sg], "fewest_edits": first})
    if expl.held_by_lock:
        moved = expl.held_by_lock
        names = ",".join(dict.fromkeys((*expl.upgrade_targets, *moved)))
        summary_lock = (f"keep the configuration and let the lock move {', '.join(moved)}: the versions "
                        f".terraform.lock.hcl holds make this impossible; run tofu-solve init -upgrade={names}.")
        advice.insert(0, summary_lock)
        data["suggestions"].insert(0, {"summary": summary_lock, "edits": [],
                                       "upgrade": list(dict.fromkeys((*expl.upgrade_targets, *moved)))})
    if any(d.get("subject") == subject_name(OPENTOFU) for d in data["subjects"]):
        advice.append("or solve for another OpenTofu release with -tofu-version=X.Y.Z.")
    if advice:
        text += ["", "What would work:"] + [f"  - {a}" for a in advice]
    elif expl.exhausted:
        text += ["", "No change to the version constraints of this configuration was found to work within the "
                 f"search bounds ({expl.what_if_solves} what-if solves)."]
    elif expl.clashes:
        text += ["", "No change to the version constraints of this configuration makes it solvable: the clash is "
                 "inside the module versions published."]
    data["what_if_solves"] = expl.what_if_solves
    if not text:
        text = ["No version of the module calls and providers satisfies every constraint."]
    return ResolutionError(summary, "\n".join(text), explanation=data)


def subject_part(subject) -> tuple[list[str], dict]:
    """One subject's lines and data."""
    match subject:
        case ConstraintClash():
            return _constraint_clash(subject)
        case CausesClash():
            return _causes_clash(subject)
        case SharedPackageClash():
            return _shared_package_clash(subject)
        case SharedPackageCauses():
            return _shared_package_causes(subject)
        case UnusableCall(call=call, by_version=by_version):
            said = merged(by_version)  # a reason many versions share, said once with their range (#83 §3)
            lines = [f'No version of module "{call}" that its constraint allows can be used:']
            lines += [f"  - {s.sentence()}" for s in said]
            by_text: dict[str, list[str]] = {}  # -json: each version's own words
            for version in newest_first(list(by_version)):
                by_text.setdefault(by_version[version].text, []).append(version)
            return lines, {"subject": f'module call "{call}"', "kind": "unusable",
                           "reasons": {", ".join(version_range(vs)): r for r, vs in by_text.items()},
                           "kept_out": [s.as_data() for s in said]}
        case UnusableVersion(kept=kept):
            at = f" (the call at {subject.where})" if subject.where else ""
            lines = [f'Module "{subject.call_path}" {subject.version}{at} cannot be used: {kept.text}']
            if kept.why is Why.POLICY:  # what would work (issue #84 §2)
                lines.append("  A version or source the rule allows would: change the call"
                             + (f" at {subject.where}" if subject.where else "")
                             + ("" if "-policy-override=" in kept.text else
                                ", or ask the policy's owners for an exception"))
            return (lines, {"subject": subject.name, "kind": "unusable", "reason": kept.text, "why": kept.why.value,
                            "where": subject.where or None})
        case NoSuchVersion():
            return _no_such_version(subject)
        case PlainClash(levers=levers):
            return (["These constraints cannot all be met together:"] + [f"  - {lv.short()}" for lv in levers],
                    {"subject": "clash", "kind": "conflict"})
    raise TypeError(f"not an explanation subject: {subject!r}")


def grouped_constraints(facts: list[ConstraintFact]) -> str:
    """One version's constraints on a subject, each distinct constraint once with the files
    that carry it: ``">= 6.28" (versions.tf:5, modules/fargate-profile/versions.tf:5)``."""
    by_text: dict = {}
    for f in facts:
        by_text.setdefault(f.constraint, []).append(f.where or "?")
    return " AND ".join(f'"{t}" ({", ".join(sorted(set(w)))})' for t, w in sorted(by_text.items())) \
        or "no constraint"


def _side_lines(side: SideFacts) -> tuple[list[str], dict]:
    uniq: dict = {}
    for v in side.order:
        uniq.setdefault(grouped_constraints(side.per_version[v]), []).append(v)
    return [f"      {', '.join(version_range(vs))}: {key}" for key, vs in uniq.items()], uniq


def _constraint_clash(c: ConstraintClash) -> tuple[list[str], dict]:
    lines = [f"The constraints on {c.name} cannot all be met:"]
    if c.target is not None:
        lines.append(f"  - this configuration is solved for {c.target}")
    reqs_data = []
    for written, fact in c.direct:
        lines.append(f'  - "{written}" required by {fact.who}{fact.at}')
        reqs_data.append(fact.as_data())
    findings = []
    for side in c.sides:
        lines.append(f'  - module "{side.call_path}" ({side.display} {side.within} at {side.at}{side.via}) '
                     "requires, by version:")
        side_lines, uniq = _side_lines(side)
        lines += side_lines
        for v in side.order:
            reqs_data += [f.as_data() for f in side.per_version[v]]
        if len(uniq) == 1 and side.order:
            vr = f"{side.order[-1]} to {side.order[0]}" if len(side.order) > 1 else side.order[0]
            findings.append(f"every version of {side.call_path} within {side.within} ({vr}) requires {c.name} "
                            f"{next(iter(uniq))}")
    lines += [f"  - {n}" for n in c.unmatched]
    data: dict[str, object] = {"subject": c.name, "kind": "conflict", "requirements": reqs_data,
                               "findings": findings, "unmatched": c.unmatched}
    not_examined = {s.call_path: s.not_examined for s in c.sides if s.not_examined}
    if not_examined:
        data["not_examined"] = not_examined
    return lines, data


def _causes_clash(c: CausesClash) -> tuple[list[str], dict]:
    lines = [f"The constraints on {c.name} cannot all be met:"]
    lines += [f'  - "{f.constraint}" required by {f.who}{f.at}' for f in c.requirements]
    lines += [f"  - {n}" for n in c.unmatched]
    return lines, {"subject": c.name, "kind": "conflict", "requirements": [f.as_data() for f in c.requirements],
                   "unmatched": c.unmatched}


def _shared_package_clash(c: SharedPackageClash) -> tuple[list[str], dict]:
    lines = [f"With -module-versions=shared, every call of {c.package} must use one version, but:"]
    entries = []
    for lv, display, per_version in c.parties:
        if per_version is None:
            lines.append(f'  - module "{lv.name}" asks for "{lv.text}" ({lv.at})')
            entries.append({"call": lv.name, "constraint": lv.text, "file": lv.file, "line": lv.line})
            continue
        lines.append(f'  - module "{lv.name}" ({display} "{lv.text}" at {lv.at}) calls it, by version:')
        for key, vs in per_version.items():
            lines.append(f"      {', '.join(version_range(vs))}: {key}")
        entries.append({"call": lv.name, "constraint": lv.text, "file": lv.file, "line": lv.line,
                        "by_version": {", ".join(version_range(vs)): key for key, vs in per_version.items()}})
    return lines, {"subject": c.name, "kind": "conflict", "requirements": entries}


def _shared_package_causes(c: SharedPackageCauses) -> tuple[list[str], dict]:
    lines = [f"With -module-versions=shared, every call of {c.package} must use one version, but:"]
    for e, place in zip(c.entries, c.places, strict=False):
        lines.append(f'  "{e["call"]}" asks for "{e["constraint"]}" ({place}) and was tried at {e["tried"]}')
    if c.no_overlap:
        lines.append("")
        lines.append("No version satisfies all of these constraints together. What would work: make the "
                     "constraints overlap, or drop -module-versions=shared to let each call choose its own "
                     "version, as tofu init does.")
    return lines, {"subject": c.name, "kind": "conflict", "requirements": c.entries}


def _no_such_version(c: NoSuchVersion) -> tuple[list[str], dict]:
    if c.detail is None:
        return [f'No version of module call "{c.call_path}" is possible.'], {"subject": c.call_path, "kind": "conflict"}
    lines = [f"{c.detail}", f"  at {c.at}{c.inside}", f"  via {c.via}"]
    return lines, {"subject": c.name, "kind": "no such version", "call": c.call_path, "file": c.file, "line": c.line}
