"""Conflict explanations: from resolvelib's flat causes to what a user can act on.

The failure reporter lives apart from the solver. Given the requirements that could not be
met together, it names every constraint involved with its subject (module call, provider,
OpenTofu), who imposed it (call path and module version), the file and line, the chain of
calls from the root, and then looks for what would work: for each module call involved,
the newest version within its constraint that admits the other side, or the constraint to
relax.
"""

from __future__ import annotations

from ..errors import ResolutionError
from ..metadata import ModuleTree
from .context import Context
from .model import (ROOT, CoreRequirement, ModuleRequirement, PackagePin, ProviderRequirement, Unusable)


def _subject(ident) -> str:
    kind = ident[0]
    if kind == "provider":
        return f"provider {ident[1].removeprefix('registry.opentofu.org/')}"
    if kind == "opentofu":
        return "OpenTofu"
    if kind == "package":
        return f"module package {ident[1]}"
    if kind == "module":
        return f'module call "{ident[1]}"'
    return "module content"


def _origin_text(origin) -> str:
    where = f" at {origin.where}" if origin.where else ""
    return f"required by {origin.describe()}{where}"


def explain_impossible(causes, ctx: Context, tree: ModuleTree) -> ResolutionError:
    """Turn resolvelib causes into a :class:`ResolutionError`."""
    groups: dict = {}
    for info in causes:
        groups.setdefault(info.requirement.identifier, []).append(info)
    lines = ["No choice of versions satisfies every constraint together."]
    data = {"kind": "conflict", "conflicts": []}
    for ident, infos in groups.items():
        lines.append("")
        lines.append(f"The conflict is on {_subject(ident)}:")
        entries = []
        seen = set()
        for info in infos:
            r = info.requirement
            key = (type(r).__name__, getattr(r, "text", ""), getattr(r, "where_key", ""),
                   getattr(r, "call_path", ""), getattr(r, "version", ""))
            if key in seen:
                continue
            seen.add(key)
            if isinstance(r, (ProviderRequirement, CoreRequirement)):
                text = r.text or "(any version)"
                lines.append(f'  "{text}" {_origin_text(r.origin)}')
                entries.append({"constraint": r.text, "imposed_by": r.origin.call_path,
                                "module_version": r.origin.version,
                                "file": r.origin.where.file if r.origin.where else None,
                                "line": r.origin.where.line if r.origin.where else None})
            elif isinstance(r, ModuleRequirement):
                c = r.constraint.text if r.constraint else "(any version)"
                lines.append(f'  "{c}" for {r.call.source} {_origin_text(r.origin)}')
                entries.append({"constraint": c, "call": r.call_path, "imposed_by": r.origin.call_path})
            elif isinstance(r, PackagePin):
                lines.append(f"  exactly {r.version} {_origin_text(r.origin)}")
                entries.append({"constraint": r.version, "imposed_by": r.origin.call_path})
            elif isinstance(r, Unusable):
                lines.append(f'  module "{r.call_path}" {r.version} cannot be used: {r.reason}')
                entries.append({"unusable": r.call_path, "version": r.version, "reason": r.reason})
        data["conflicts"].append({"subject": _subject(ident), "requirements": entries})
    return ResolutionError("No consistent set of versions", "\n".join(lines), explanation=data)
