"""Which files of a module directory are configuration, as OpenTofu selects them (reference §8):
``.tf``, ``.tf.json``, ``.tofu``, ``.tofu.json`` sorted by name, hidden and backup names ignored,
``X.tofu`` hiding ``X.tf``; override files apart. And reading one of them."""

from __future__ import annotations

import os

from ..addrs.product import OPENTOFU, Product
from ..errors import ConfigurationError, SourceRange
from ..output_edge import has_control, one_line
from .files import ModuleDir, module_dir

_EXTENSIONS = (".tofu.json", ".tf.json", ".tofu", ".tf")


def _ext(name: str) -> str | None:
    for e in _EXTENSIONS:
        if name.endswith(e) and len(name) > len(e):
            return e
    return None


def _ignored(name: str) -> bool:
    return name.startswith(".") or name.endswith("~") or (name.startswith("#") and name.endswith("#"))


def _is_override(name: str) -> bool:
    base = name[: -len(_ext(name) or "")]
    return base == "override" or base.endswith("_override")


def _filter_tofu_alternatives(names: list[str], product: Product = OPENTOFU) -> list[str]:
    """OpenTofu: a ``.tofu``/``.tofu.json`` file replaces its ``.tf``/``.tf.json`` namesake.
    Terraform: ``.tofu`` files are not configuration at all."""
    if not product.reads_tofu_files:
        return [n for n in names if not n.endswith((".tofu", ".tofu.json"))]
    present = set(names)
    out = []
    for n in names:
        if n.endswith(".tf") and n[:-3] + ".tofu" in present:
            continue
        if n.endswith(".tf.json") and n[:-8] + ".tofu.json" in present:
            continue
        out.append(n)
    return out


OWN_OVERRIDE_FILE = "tofu_solve_override.tf"


def config_file_names(directory: str | os.PathLike | ModuleDir,
                      product: Product = OPENTOFU) -> tuple[list[str], list[str]]:
    """(primary, override) configuration file names of ``directory``, in load order, as
    ``product`` reads them (OpenTofu: ``.tofu`` replaces ``.tf``; Terraform: ``.tf`` and
    ``.tf.json`` only); tofu-solve's own ``tofu_solve_override.tf`` is left out.

    Raises:
        ConfigurationError: the directory cannot be read; a configuration file's name holds a
            control or invisible character ("Invalid file name").
    """
    try:
        entries = module_dir(directory).entries()
    except OSError as e:
        raise ConfigurationError("Failed to read module directory",
                                 f"Module directory {os.fspath(directory)} does not exist or cannot be read "
                                 f"({e.strerror}).") from None
    primary: list[str] = []
    override: list[str] = []
    for name, is_dir in entries:
        if _ignored(name) or _ext(name) is None or is_dir:
            continue
        if has_control(name):  # no message could quote it on one line: refused by name (issue #80 §2)
            raise ConfigurationError("Invalid file name",
                                     f"The configuration file {one_line(name)} in {one_line(os.fspath(directory))} "
                                     "has a control or invisible character in its name: tofu-solve reads no such "
                                     "file. Rename it.")
        if name == OWN_OVERRIDE_FILE:
            continue  # tofu-solve's own bridge for tofu (tofu_solve.workdir.overrides): never read back
        (override if _is_override(name) else primary).append(name)
    return _filter_tofu_alternatives(primary, product), _filter_tofu_alternatives(override, product)


def _read_text(d: ModuleDir, name: str, display: str) -> str:
    try:
        return d.read_text(name, display)
    except UnicodeDecodeError:
        raise ConfigurationError("Invalid file encoding", f"{display} is not valid UTF-8.",
                                 SourceRange(display, 1)) from None
    except OSError as e:
        raise ConfigurationError("Failed to read file", f"{display} could not be read ({e.strerror}).") from None
