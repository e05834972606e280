"""Static evaluation of ``source`` and ``version``: literals, ``var.NAME`` with a literal default,
``local.NAME`` with a literal value, and string templates of those (reference §8)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ..addrs.product import OPENTOFU, Product
from ..errors import ConfigurationError
from . import hcl
from .raw import _Value
from .variables import InputValue

_JSON_TEMPLATE_RE = re.compile(r"\$\{\s*([A-Za-z_][\w-]*(?:\.[A-Za-z_][\w-]*)+)\s*\}")


# --------------------------------------------------------------------------- evaluation


class _NotConstant(Exception):
    """A variable not declared ``const = true`` read before init for Terraform; :meth:`_Scope.static`
    reports it at the argument that needed the value, as Terraform does."""


def _declared(table: dict, kind: str, prefix: str, name: str, what: str, v: _Value) -> Any:
    """``table[name]``, the declaration a ``var.NAME`` or ``local.NAME`` reference names.

    Raises:
        ConfigurationError: "Reference to undeclared input variable" (or local value) at ``v``.
    """
    target = table.get(name)
    if target is None:
        raise ConfigurationError(f"Reference to undeclared {kind}",
                                 f"{what} refers to {prefix}.{name}, which is not declared in this module.", v.where)
    return target


class _Scope:
    def __init__(self, variables: dict[str, _Value], locals_: dict[str, _Value],
                 inputs: Mapping[str, InputValue] | None = None, const: Mapping[str, Any] | None = None,
                 product: Product = OPENTOFU):
        self.const = const or {}
        self.product = product
        self.variables = variables
        self.locals = locals_
        self.inputs = inputs or {}

    def static(self, v: _Value, what: str, depth: int = 0) -> Any:
        """Evaluate ``v`` statically. Raises ConfigurationError naming ``what``."""
        if depth == 0:
            try:
                return self._static(v, what, 0)
            except _NotConstant:  # Terraform: at the argument that needed the value
                kind = re.match(r"The (source|version) of module ", what)
                raise ConfigurationError(f"Unknown module {kind.group(1)}" if kind else "Variables not allowed",
                                         "Only literal values and const variables can be evaluated during init.",
                                         v.where) from None
        return self._static(v, what, depth)

    def provenance(self, v: _Value) -> str:
        """What a non-literal ``v`` read and where that value came from, for messages:
        ``var.aws_floor (-var)``, ``var.aws_floor (its default, variables.tf:3)``,
        ``local.floor (locals.tf:2)``; each reference of a template, joined by ", "."""
        refs: list[tuple[str, ...]] = []
        if v.is_json:
            refs = [tuple(m.group(1).split(".")) for m in _JSON_TEMPLATE_RE.finditer(v.raw)] \
                if isinstance(v.raw, str) else []
        elif v.raw is not None:
            ref = v.raw.traversal()
            refs = [ref] if ref is not None else [p for p in (v.raw.template_parts() or []) if isinstance(p, tuple)]
        out = []
        for ref in refs:
            name = ".".join(ref)
            if len(ref) == 2 and ref[0] == "var":
                given = self.inputs.get(ref[1])
                target = self.variables.get(ref[1])
                out.append(f"{name} ({given.origin})" if given is not None else
                           f"{name} (its default, {target.where})" if target is not None else name)
            elif len(ref) == 2 and ref[0] == "local" and ref[1] in self.locals:
                out.append(f"{name} ({self.locals[ref[1]].where})")
            else:
                out.append(name)
        return ", ".join(out)

    def _static(self, v: _Value, what: str, depth: int) -> Any:
        if depth > 10:
            raise ConfigurationError("Unsupported expression", f"{what} refers to itself.", v.where)
        if v.is_json:
            if isinstance(v.raw, str) and "${" in v.raw:
                return self._json_template(v, what, depth)
            return v.raw
        if v.raw is None:
            return None
        try:
            return v.raw.literal()
        except hcl.NotLiteral:
            pass
        ref = v.raw.traversal()
        if ref is not None:
            return self._ref(ref, v, what, depth)
        parts = v.raw.template_parts()
        if parts is not None:
            out = []
            for p in parts:
                out.append(p if isinstance(p, str) else self._str(self._ref(p, v, what, depth), v, what))
            return "".join(out)
        raise self._unsupported(v, what)

    def _json_template(self, v: _Value, what: str, depth: int) -> str:
        out, pos = [], 0
        for m in _JSON_TEMPLATE_RE.finditer(v.raw):
            out.append(v.raw[pos:m.start()])
            out.append(self._str(self._ref(tuple(m.group(1).split(".")), v, what, depth), v, what))
            pos = m.end()
        out.append(v.raw[pos:])
        text = "".join(out)
        if "${" in text:
            raise self._unsupported(v, what)
        return text

    @staticmethod
    def _str(value: Any, v: _Value, what: str) -> str:
        if isinstance(value, bool) or value is None or isinstance(value, (list, dict)):
            raise ConfigurationError("Invalid value", f"{what} must be a string.", v.where)
        return str(value)

    def _ref(self, ref: tuple[str, ...], v: _Value, what: str, depth: int) -> Any:
        if len(ref) == 2 and ref[0] == "var":
            target = _declared(self.variables, "input variable", "var", ref[1], what, v)
            const = self.const.get(ref[1])
            if self.product.static_needs_const and const is not True:
                raise _NotConstant(ref[1])  # Terraform 1.15: only `const = true` variables
            if const is False:
                # internal/configs/static_scope.go GetInputVariable (PR #3946): OpenTofu refuses
                # only a variable declared `const = false`; one without `const` is read as before
                raise ConfigurationError(
                    "Unable to use variable in static context",
                    f'The variable "{ref[1]}" cannot be used in a static context, because it is declared as '
                    '"const = false".', v.where)
            given = self.inputs.get(ref[1])
            if given is not None:  # TF_VAR_*, *.tfvars, -var: OpenTofu's early evaluation
                return given.value
            if target.raw is None:
                raise ConfigurationError(
                    "Variables not allowed",
                    f"{what} uses var.{ref[1]}, which has no value: give it with -var, TF_VAR_{ref[1]}, "
                    "terraform.tfvars or a *.auto.tfvars file, or a literal default.", v.where)
            return self.static(target, f"The default of var.{ref[1]}", depth + 1)
        if len(ref) == 2 and ref[0] == "local":
            local = _declared(self.locals, "local value", "local", ref[1], what, v)
            return self.static(local, f"local.{ref[1]}", depth + 1)
        raise self._unsupported(v, what)

    @staticmethod
    def _unsupported(v: _Value, what: str) -> ConfigurationError:
        text = v.raw if v.is_json else v.raw.text
        if isinstance(text, str) and not v.is_json and re.match(r"\s*sensitive\s*\(", text):
            # internal/configs/static_evaluator.go: a sensitive value is refused as such
            m = re.fullmatch(r'The (source|version) of module "([^"]+)"', what)
            ident = f"module.{m.group(2)}.{m.group(1)}" if m else what
            return ConfigurationError("Sensitive value not allowed",
                                      f"Sensitive values, or values derived from sensitive values, cannot be used as "
                                      f"{ident}.", v.where)
        return ConfigurationError(
            "Unsupported expression",
            f"{what} must be known before init, but it is {text!r}. Only literal values, var.NAME with a "
            "literal default, local.NAME with a literal value, and strings made of those can be used.",
            v.where)
