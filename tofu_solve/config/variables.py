"""Input variable values for early evaluation, collected as ``tofu init`` collects them.

OpenTofu (1.8 and later) evaluates ``source`` and ``version`` before init, and a root
module's variables may then come from outside the configuration. The sources and their
precedence are OpenTofu's ``internal/command/meta_vars.go`` ``collectVariableValues``
(reference §13); a later source overrides an earlier one:

1. ``TF_VAR_<name>`` environment variables (raw strings);
2. ``terraform.tfvars``, then ``terraform.tfvars.json``, in the root module's directory;
3. ``*.auto.tfvars`` and ``*.auto.tfvars.json``, in lexical order of file name;
4. ``-var NAME=VALUE`` (a raw string) and ``-var-file=FILE``, in command-line order.

A variable given none of these falls back to its ``default``. Only the root module's
variables are set this way; a child module's come from its call's arguments.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .. import confined
from ..errors import ConfigurationError, SourceRange
from . import hcl


@dataclass(frozen=True)
class InputValue:
    """A value given for a root module variable.

    Attributes:
        value: the literal value (str, number, bool, list, dict, None).
        origin: where it came from, for messages (``terraform.tfvars``, ``TF_VAR_x``, ``-var``).
        where: the file and line, for values read from a file.
    """

    value: Any
    origin: str
    where: SourceRange | None = None


def _read_tfvars(path: Path, display: str, found: bool = True) -> dict[str, InputValue]:
    """The values of a variables file; ``found``: one the root module holds
    (``terraform.tfvars``, ``*.auto.tfvars``), read only from inside its repository
    (:mod:`tofu_solve.confined`), not one ``-var-file`` names."""
    try:
        text = confined.read_text(path, display) if found else path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise ConfigurationError("Invalid file encoding", f"{display} is not valid UTF-8.",
                                 SourceRange(display, 1)) from None
    except OSError as e:
        raise ConfigurationError("Failed to read variables file",
                                 f"Given variables file {display} does not exist or cannot be read "
                                 f"({e.strerror}).") from None
    out: dict[str, InputValue] = {}
    if display.endswith(".json"):
        try:
            doc = json.loads(text)
        except json.JSONDecodeError as e:
            raise ConfigurationError("Invalid JSON", f"{display} is not valid JSON: {e.msg}.",
                                     SourceRange(display, e.lineno)) from None
        except RecursionError:
            raise ConfigurationError("Configuration nested too deeply", f"{display} nests values too deeply.",
                                     SourceRange(display, 1)) from None
        if not isinstance(doc, dict):
            raise ConfigurationError("Invalid variables file", f"{display} must hold a JSON object.",
                                     SourceRange(display, 1))
        for name, value in doc.items():
            out[name] = InputValue(value, display, SourceRange(display, _json_key_line(text, name)))
        return out
    body = hcl.parse_lazily(text, display)
    hcl.force(body)  # every argument: a syntax error anywhere is this file's (no parser for plain values)
    for block in body.blocks:
        raise ConfigurationError("Unexpected block", f'Blocks are not allowed in a variables file ("{block.type}").',
                                 SourceRange(display, block.line))
    for a in body.attributes:
        try:
            value = a.expr.literal()
        except hcl.NotLiteral:
            raise ConfigurationError("Variables not allowed",
                                     f"The value of {a.name} in {display} must be a literal: variables and "
                                     "functions may not be used here.", SourceRange(display, a.line)) from None
        out[a.name] = InputValue(value, display, SourceRange(display, a.line))
    return out


def _json_key_line(text: str, key: str) -> int:
    pos = text.find(json.dumps(key))
    return text.count("\n", 0, pos) + 1 if pos >= 0 else 1


def collect_input_values(root: str | os.PathLike, env: Mapping[str, str],
                         cli: Sequence[tuple[str, str]] = ()) -> dict[str, InputValue]:
    """The root module's variable values from every source, later ones winning.

    Args:
        root: the root module directory (where ``terraform.tfvars`` and ``*.auto.tfvars`` are).
        env: the environment (``TF_VAR_*``).
        cli: ``("var", "NAME=VALUE")`` and ``("var-file", "PATH")`` in command-line order;
            relative paths are relative to ``root``.

    Raises:
        ConfigurationError: a malformed ``-var``, a missing or invalid variables file.
    """
    root = Path(root)
    values: dict[str, InputValue] = {}
    for key, raw in sorted(env.items()):
        if key.startswith("TF_VAR_") and len(key) > len("TF_VAR_"):
            values[key[len("TF_VAR_"):]] = InputValue(raw, f"the environment variable {key}")
    for name in ("terraform.tfvars", "terraform.tfvars.json"):
        if (root / name).is_file():
            values.update(_read_tfvars(root / name, name))
    try:
        auto = sorted(n for n in os.listdir(root) if n.endswith((".auto.tfvars", ".auto.tfvars.json")))
    except OSError:
        auto = []
    for name in auto:
        if (root / name).is_file():
            values.update(_read_tfvars(root / name, name))
    for kind, arg in cli:
        if kind == "var":
            name, eq, raw = arg.partition("=")
            if not eq or not name.strip():
                raise ConfigurationError(
                    "Invalid -var option",
                    f'The given -var option "{arg}" is not correctly specified. Must be a variable name and value '
                    'separated by an equals sign, like -var="key=value".')
            values[name.strip()] = InputValue(raw, "a -var option")
        else:
            path = Path(arg) if os.path.isabs(arg) else root / arg
            values.update(_read_tfvars(path, arg, found=False))
    return values
