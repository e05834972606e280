"""Terragrunt stacks (issue #73 §1, §3): the units a ``terragrunt.stack.hcl`` generates.

``terragrunt stack generate`` (``pkg/config/stack.go`` ``generateComponent``) copies each
``unit`` block's ``source`` directory, a catalog unit, into
``.terragrunt-stack/<path>`` (``<path>`` with ``no_dot_terragrunt_stack``) with every file,
hidden ones included (``copyFiles``: ``CopyFolderContentsWithFilter`` with a filter that
keeps everything; only the files it copied last time are removed first, by its manifest),
and writes the block's ``values`` there as ``terragrunt.values.hcl``, which the unit reads
as ``values.*``.

So a catalog unit in the repository is where a stack's units are locked: its
``.terraform.lock.hcl``, ``tofu_solve_override.tf`` and ``version`` pin are committed there
and copied into every unit generated from it, on every generate, on a fresh clone too,
without committing ``.terragrunt-stack`` (the workaround of Terragrunt issue #4314). One
lock serves every instance: the instances must therefore agree on the module and its range
("Stack units disagree" otherwise). A catalog in another repository (a ``git::`` source)
cannot be written to; its instances are named and left out.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import confined
from ..errors import ConfigurationError, SourceRange
from . import STACK_FILE
from .read import FileReader, NeedsTerragrunt, UnitReader

STACK_DIR = ".terragrunt-stack"
"""Where a stack's units are generated (``inthclparse.GeneratedComponentPath``)."""

MAX_STACK_FILES = 1000
"""At most this many stack files are read per repository (a bound on a pull request's tree)."""


@dataclass(frozen=True)
class StackInstance:
    """One ``unit`` block of a stack file.

    Attributes:
        stack_file: the ``terragrunt.stack.hcl``.
        name: the block's label.
        catalog: the catalog unit's directory its local ``source`` names (None: a remote
            source, which tofu-solve does not fetch).
        source: the ``source`` as written (evaluated).
        generated: the directory ``stack generate`` writes the unit to.
        values: the block's ``values`` (empty when it has none).
        where: the block's line.
    """

    stack_file: Path
    name: str
    catalog: Path | None
    source: str
    generated: Path
    values: Mapping[str, Any] = field(default_factory=dict)
    where: SourceRange | None = None


def read_stack(file: Path, environ: Mapping[str, str], display_base: Path | None = None) -> list[StackInstance]:
    """The ``unit`` blocks of the stack file ``file`` (its ``locals`` and Terragrunt's
    functions evaluated for the stack's directory; ``stack`` blocks, nested stacks, are not
    followed).

    Raises:
        ConfigurationError: the file does not read, a block lacks ``source`` or ``path``.
        NeedsTerragrunt: a value only Terragrunt's run knows.
    """
    unit = UnitReader(file.parent, environ, display_base, config_name=STACK_FILE)
    reader = FileReader(unit, file, include=None)
    out = []
    for b in reader.body.blocks_of("unit"):
        attrs = {a.name: a for a in b.body.attributes}
        for required in ("source", "path"):
            if required not in attrs:
                raise ConfigurationError("Missing required argument", f'The argument "{required}" is required in a '
                                         "unit block.", reader.here(b.line))
        source = reader.value(attrs["source"].expr, attrs["source"].line)
        path = reader.value(attrs["path"].expr, attrs["path"].line)
        values = reader.value(attrs["values"].expr, attrs["values"].line) if "values" in attrs else {}
        no_dot = reader.value(attrs["no_dot_terragrunt_stack"].expr, attrs["no_dot_terragrunt_stack"].line) \
            if "no_dot_terragrunt_stack" in attrs else False
        if not isinstance(source, str) or not isinstance(path, str) or not isinstance(values, dict):
            raise ConfigurationError("Invalid unit block", "source and path are strings and values an object.",
                                     reader.here(b.line))
        if os.path.isabs(path) or ".." in Path(path).parts:
            raise ConfigurationError("Invalid unit path", f'path "{path}" must stay inside the stack\'s directory.',
                                     reader.here(attrs["path"].line))
        local = source.startswith(("./", "../", "/")) or source in (".", "..")
        catalog = Path(os.path.normpath(source if os.path.isabs(source) else file.parent / source)) if local else None
        generated = file.parent / path if no_dot is True else file.parent / STACK_DIR / path
        out.append(StackInstance(file, b.labels[0] if b.labels else "", catalog, source, generated, values,
                                 reader.here(b.line, f'unit "{b.labels[0] if b.labels else ""}"')))
    return out


def stack_files(top: Path) -> list[Path]:
    """The ``terragrunt.stack.hcl`` files under ``top`` (hidden directories, Terragrunt's
    output among them, not entered), at most :data:`MAX_STACK_FILES`."""
    found: list[Path] = []
    for dirpath, dirnames, filenames in os.walk(top):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d != "node_modules")
        if STACK_FILE in filenames:
            found.append(Path(dirpath) / STACK_FILE)
            if len(found) >= MAX_STACK_FILES:
                break
    return found


def instances_of(catalog: Path, environ: Mapping[str, str], display_base: Path | None = None) -> list[StackInstance]:
    """Every stack unit of the repository ``catalog`` is in that is generated from
    ``catalog`` (a stack file that does not read is skipped: its own run reports it)."""
    top = Path(confined.boundary(str(catalog)))
    out: list[StackInstance] = []
    for f in stack_files(top):
        try:
            instances = read_stack(f, environ, display_base)
        except (ConfigurationError, NeedsTerragrunt):
            continue
        out.extend(i for i in instances if i.catalog is not None and os.path.samefile(i.catalog, catalog)
                   if i.catalog.is_dir())
    return out


__all__ = ["STACK_DIR", "StackInstance", "instances_of", "read_stack", "stack_files"]
