"""Reading one JSON configuration file (``.tf.json``, ``.tofu.json``) into its raw items, with
lines for every item."""

from __future__ import annotations

import json
import re
from typing import Any

from ..addrs.identifiers import BAD_IDENTIFIER_DETAIL, valid_identifier
from ..addrs.redact import redact
from ..errors import ConfigurationError, SourceRange
from .file_selection import _read_text
from .files import ModuleDir
from .raw import (
    _RESOURCE_BLOCKS,
    _check_module_name,
    _check_provider_name,
    _FileItems,
    _implied_local_name,
    _RawCall,
    _RawProviderBlock,
    _RawProviderReq,
    _Value,
)
from .symbols import _KEYWORD, _SYMBOLS_ARGS


def _json_line(text: str, key: str, start: int = 0) -> tuple[int, int]:
    """(1-based line, offset) of the first ``"key":`` at or after ``start``."""
    m = re.compile(r'"' + re.escape(key) + r'"\s*:').search(text, start)
    if not m:
        return 1, start
    return text.count("\n", 0, m.start()) + 1, m.start()


def _json_blocks(value: Any) -> list[dict]:
    if isinstance(value, list):
        return [v for v in value if isinstance(v, dict)]
    return [value] if isinstance(value, dict) else []


def _read_json(d: ModuleDir, name: str, display: str) -> _FileItems:
    """The items of one JSON configuration file, each with its line.

    Raises:
        ConfigurationError: not valid JSON, not an object, or a block OpenTofu refuses.
    """
    text = _read_text(d, name, display)
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as e:
        raise ConfigurationError("Invalid JSON", f"{display} is not valid JSON: {e.msg}.",
                                 SourceRange(display, e.lineno)) from None
    if not isinstance(doc, dict):
        raise ConfigurationError("Invalid JSON", f"{display} must hold a JSON object.", SourceRange(display, 1))
    f = _JsonFile(text, display, doc)
    for read in (f.modules, f.symbols, f.terraform, f.language, f.variables, f.locals, f.resources, f.providers):
        read()
    return f.items


class _JsonFile:
    """One JSON file being read: its text (for lines), its document, the items found."""

    def __init__(self, text: str, display: str, doc: dict):
        self.text, self.display, self.doc = text, display, doc
        self.lines = text.splitlines()
        self.items = _FileItems()

    def at(self, key: str, start: int = 0) -> tuple[int, int]:
        return _json_line(self.text, key, start)

    def here(self, line: int, context: str = "") -> SourceRange:
        # the line as written, redacted: a source URL may carry a credential (a snippet is output)
        lines = self.lines
        return SourceRange(self.display, line, context, redact(lines[line - 1]) if 0 < line <= len(lines) else "")

    def modules(self) -> None:
        doc, at, here, items = self.doc, self.at, self.here, self.items
        _, mpos = at("module")
        if "module" in doc and not _json_blocks(doc["module"]) and doc["module"] not in ({}, []):
            raise ConfigurationError("Incorrect JSON value type",
                                     'A JSON object is required here, to define the "module" blocks.',
                                     here(at("module")[0]))
        for blocks in _json_blocks(doc.get("module")):
            for name, body in blocks.items():
                line, pos = at(name, mpos)
                _check_module_name(name, here(line, f'module "{name}"'))
                call = _RawCall(name, here(line, f'module "{name}"'))
                if isinstance(body, list):
                    body = body[0] if body and isinstance(body[0], dict) else {}
                if not isinstance(body, dict):
                    raise ConfigurationError("Invalid module block", f'Module "{name}" must be a JSON object.',
                                             here(line))
                for k, v in body.items():
                    call.args[k] = _Value(v, here(at(k, pos)[0], f'module "{name}"'), True)
                for lb in _json_blocks(body.get("lifecycle")):
                    if "enabled" in lb:
                        call.enabled = _Value(lb["enabled"], here(at("enabled", pos)[0], f'module "{name}"'), True)
                call.args.pop("lifecycle", None)
                items.calls.append(call)

    def symbols(self) -> None:
        doc, at, here, items = self.doc, self.at, self.here, self.items
        _, spos = at("symbols")
        for blocks in _json_blocks(doc.get("symbols")):
            for name, body in blocks.items():
                line, pos = at(name, spos)
                ctx = f'symbols "{name}"'
                if not valid_identifier(name):
                    raise ConfigurationError("Invalid symbol name", BAD_IDENTIFIER_DETAIL, here(line, ctx))
                call = _RawCall(name, here(line, ctx))
                if isinstance(body, list):
                    body = body[0] if body and isinstance(body[0], dict) else {}
                if not isinstance(body, dict):
                    raise ConfigurationError("Incorrect JSON value type",
                                             'A JSON object is required here, to define the "symbols" block.',
                                             here(line))
                for k, v in body.items():
                    if k not in _SYMBOLS_ARGS:
                        raise ConfigurationError("Unsupported argument",
                                                 f'An argument named "{k}" is not expected here.',
                                                 here(at(k, pos)[0], ctx))
                    call.args[k] = _Value(v, here(at(k, pos)[0], ctx), True)
                if "source" not in call.args:
                    raise ConfigurationError("Missing required argument",
                                             'The argument "source" is required, but no definition was found.',
                                             call.where)
                items.symbol_calls.append(call)

    def terraform(self) -> None:
        doc, at, here, items = self.doc, self.at, self.here, self.items
        _, tpos = at("terraform")
        for tb in _json_blocks(doc.get("terraform")):
            if "required_version" in tb:
                items.required_versions.append(_Value(tb["required_version"], here(at("required_version", tpos)[0]),
                                                      True))
            rline, rpos = at("required_providers", tpos)
            for rp in _json_blocks(tb.get("required_providers")):
                items.required_providers_blocks.append(here(rline))
                for name, v in rp.items():
                    items.provider_reqs.append(_RawProviderReq(name, _Value(v, here(at(name, rpos)[0]), True)))

    def language(self) -> None:
        doc, at, here, items = self.doc, self.at, self.here, self.items
        _, lpos = at("language")
        for lb in _json_blocks(doc.get("language")):
            if "experiments" in lb:
                where = here(at("experiments", lpos)[0], "language")
                if not isinstance(lb["experiments"], list):
                    raise ConfigurationError("Invalid expression", "A static list expression is required.", where)
                items.experiments += [(e if isinstance(e, str) and _KEYWORD.match(e) else None, where)
                                      for e in lb["experiments"]]
            for cw in _json_blocks(lb.get("compatible_with")):
                if "opentofu" in cw:
                    items.compat.append(_Value(cw["opentofu"], here(at("opentofu", lpos)[0]), True))

    def variables(self) -> None:
        at, here, items = self.at, self.here, self.items
        _, vpos = at("variable")
        for vb in _json_blocks(self.doc.get("variable")):
            for name, body in vb.items():
                if isinstance(body, dict):
                    items.variables[name] = _Value(body.get("default"), here(at(name, vpos)[0]), True)
                    if "const" in body:
                        items.const[name] = body["const"]

    def locals(self) -> None:
        _, lopos = self.at("locals")
        for lb in _json_blocks(self.doc.get("locals")):
            for name, v in lb.items():
                self.items.locals[name] = _Value(v, self.here(self.at(name, lopos)[0]), True)

    def resources(self) -> None:
        """Of resource, data and ephemeral blocks, the provider each implies (its
        ``provider`` argument, else the type's prefix)."""
        for kind in _RESOURCE_BLOCKS:
            _, rpos = self.at(kind)
            for rb in _json_blocks(self.doc.get(kind)):
                for type_, named in rb.items():
                    cited = self.here(self.at(type_, rpos)[0])
                    bodies = [b for v in (named.values() if isinstance(named, dict) else []) for b in _json_blocks(v)]
                    for body in bodies or [{}]:
                        ref = body.get("provider")
                        local = ref.split(".")[0] if isinstance(ref, str) and ref else _implied_local_name(type_)
                        self.items.implied_providers.append((local, cited))

    def providers(self) -> None:
        at, here, items = self.at, self.here, self.items
        _, ppos = at("provider")
        for pb in _json_blocks(self.doc.get("provider")):
            for name in pb:
                _check_provider_name(name, here(at(name, ppos)[0]))
                items.implied_providers.append((name, here(at(name, ppos)[0])))
            for name, body in pb.items():
                for b in _json_blocks(body):
                    items.provider_blocks.append(_RawProviderBlock(name, b, here(at(name, ppos)[0]), True))
                    if "version" in b:
                        items.legacy_provider_versions.append(
                            (name, _Value(b["version"], here(at("version", at(name, ppos)[1])[0]), True)))
