"""Names that OpenTofu requires to be identifiers, and the call paths built from them.

A module call's name becomes a segment of its call path, a key of ``modules.json``, a
``module`` lock label and a directory under ``.terraform/modules``; a name such as
``../../victim`` or ``a.b`` must therefore never get that far. OpenTofu rejects it while
decoding the block (``internal/configs/module_call.go`` ``decodeModuleBlock``:
``hclsyntax.ValidIdentifier``, summary "Invalid module instance name", detail
``badIdentifierDetail`` from ``internal/configs/named_values.go``).
"""

from __future__ import annotations

BAD_IDENTIFIER_DETAIL = ("A name must start with a letter or underscore and may contain only letters, digits, "
                         "underscores, and dashes.")


def valid_identifier(name: str) -> bool:
    """hclsyntax's ``ValidIdentifier``: a Unicode ID_Start letter or ``_``, then ID_Continue
    characters or ``-`` (so ``a.b``, ``../x``, ``""``, ``1a`` and ``-a`` are refused)."""
    if not isinstance(name, str) or not name or name[0] == "-":
        return False
    return name.replace("-", "_").isidentifier()


SYMBOLS_PREFIX = "symbols:"


def symbols_segment(name: str) -> str:
    """The call-path segment of ``symbols "name"`` (``symbols:name``): OpenTofu installs a
    symbol library as a module whose path ends in it (``internal/configs/config_build.go``
    ``symbolLoader``, branch ``symbol_libraries_experiment_2``), so ``modules.json`` keys it
    ``symbols:lib``, ``vpc.symbols:lib`` or ``symbols:lib.symbols:inner``."""
    return SYMBOLS_PREFIX + name


def is_symbols_segment(segment: str) -> bool:
    """Whether a call-path segment names a symbol library (``symbols:lib``)."""
    return segment.startswith(SYMBOLS_PREFIX)


def valid_call_path(path: str) -> bool:
    """A module call path (``vpc``, ``vpc.nested``, ``vpc.symbols:lib``): identifiers joined
    by dots, each optionally ``symbols:``-prefixed (a symbol library's segment)."""
    return isinstance(path, str) and all(valid_identifier(p.removeprefix(SYMBOLS_PREFIX)) for p in path.split("."))
