"""Typos caught where the user made them (issue #60 §4): an argument of a module block that
the selected module does not declare. OpenTofu accepts such a block at ``init`` and refuses
it at ``plan`` ("Unsupported argument"); a misspelt ``version`` (``verison = "~> 21.0"``) is
worse, since ``init`` then takes the newest version silently. The check runs once the
selection is known, against the variables each selected module declares, and names the
nearest valid name by OpenTofu's own "did you mean" rule
(:func:`tofu_solve.errors.name_suggestion`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ..config.tree import ModuleTree
from ..errors import SourceRange, name_suggestion

#: A module block's meta-arguments (``internal/configs/module_call.go`` ``moduleBlockSchema``),
#: the first names a misspelling is compared with, in OpenTofu's order of attributes.
META_ARGUMENTS = ("source", "version", "count", "for_each", "depends_on", "providers")
#: Names a JSON module object may hold besides arguments: a nested block and a comment.
_NOT_ARGUMENTS = ("lifecycle", "//")


@dataclass(frozen=True)
class UnknownArgument:
    """An argument of the module call at ``call_path`` that the module selected for it
    (``module``, ``version``) does not declare, written at ``where``; ``suggestion``: the
    meta-argument or declared variable one or two edits away."""

    call_path: str
    name: str
    where: SourceRange
    module: str
    version: str
    suggestion: str


def unknown_arguments(root: ModuleTree, selected: Mapping[str, tuple[str, str, ModuleTree]]) -> list[UnknownArgument]:
    """Each argument of the root module's remote calls (its local modules' too: code the user
    edits) that the selected module does not declare and that is one or two edits from a
    meta-argument or a variable it does declare: a typo, said with what was meant. An
    undeclared argument near no valid name is left to OpenTofu's ``plan`` ("Unsupported
    argument"): a module whose variables could not be read would otherwise be blamed.

    Args:
        root: the root module's tree.
        selected: call path -> (the package as people name it, the version, its module tree)
            for each selected call whose contents were read.
    """
    out = []
    for rc in root.remote_calls:
        path = ".".join(rc.rel_path)
        chosen = selected.get(path)
        if chosen is None or rc.call.symbols:
            continue
        module, version, tree = chosen
        declared = set(tree.variables)
        for name, where in rc.call.arguments:
            if name in META_ARGUMENTS or name in _NOT_ARGUMENTS or name in declared:
                continue
            near = name_suggestion(name, (*META_ARGUMENTS, *tree.variables))
            if near is not None:
                out.append(UnknownArgument(path, name, where, module, version, near))
    return out


__all__ = ["META_ARGUMENTS", "UnknownArgument", "unknown_arguments"]
