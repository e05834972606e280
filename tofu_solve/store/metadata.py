"""Module trees of (package, version, subdir), cached on disk (see :mod:`tofu_solve.config.tree`)."""

from __future__ import annotations

from ..addrs.product import OPENTOFU, Product
from ..config.tree import SCHEMA, ModuleTree, tree_from_dict, tree_to_dict
from ..errors import ConfigurationError, SourceRange
from .cache import Cache, key_of


class MetadataStore:
    """Module trees of (package, version, subdir), cached on disk.

    A package that fails to load is cached as its error (summary, detail, file, line), so
    the solver can skip that version with the reason, without fetching again.
    """

    def __init__(self, cache: Cache, product: Product = OPENTOFU):
        self.cache = cache
        self.product = product  # the same package reads differently for OpenTofu and Terraform

    def _key(self, package: str, version: str, subdir: str) -> str:
        suffix = "" if self.product is OPENTOFU else f"\n{self.product.command}"
        return key_of(f"{package}\n{version}\n{subdir}{suffix}")

    def get(self, package: str, version: str, subdir: str):
        """The cached tree, a cached :class:`ConfigurationError`, or None when unknown."""
        d = self.cache.read_json("metadata", self._key(package, version, subdir))
        if not d or d.get("schema") != SCHEMA:
            return None
        if "error" in d:
            e = d["error"]
            return ConfigurationError(e["summary"], e["detail"],
                                      SourceRange(e["file"], e["line"]) if e.get("file") else None)
        return tree_from_dict(d, self.product)

    def put(self, package: str, version: str, subdir: str, value) -> None:
        if isinstance(value, ModuleTree):
            data = tree_to_dict(value)
        else:
            data = {"schema": SCHEMA, "error": {"summary": value.summary, "detail": value.detail,
                                                 "file": value.where.file if value.where else None,
                                                 "line": value.where.line if value.where else None}}
        self.cache.write_json("metadata", self._key(package, version, subdir), data)
