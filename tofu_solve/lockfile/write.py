"""Writing ``.terraform.lock.hcl`` byte for byte as OpenTofu formats it, plus module blocks.

Format (reference §6, ``depsfile/locks_file.go`` ``SaveLocksToBytes`` and hclwrite):
the two header comment lines; then each block preceded by one blank line; provider blocks
sorted by (host, namespace, type); attributes ``version``, ``constraints`` (when
non-empty), ``hashes`` (when non-empty); ``=`` aligned across consecutive single-line
attributes, the multi-line ``hashes = [`` never aligned; hashes one per line, four spaces,
trailing comma. Module blocks follow the provider blocks, sorted by call path, with
``version`` (omitted for a package that has none, such as an archive URL), ``source``,
``constraints`` and ``hashes`` in the same layout, then ``package`` or ``floating``.

Writes are atomic: a temporary file in the same directory, fsync, then ``os.replace``.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from .entries import LockFile, ModuleLock, ProviderLock
from .replacefile import write_atomic

HEADER = ('# This file is maintained automatically by "tofu init".\n'
          "# Manual edits may be lost in future updates.\n")


def hcl_string(s: str) -> str:
    """``s`` as an HCL quoted string literal, escaped as hclwrite escapes it."""
    out = []
    for c in s:
        if c == '"':
            out.append('\\"')
        elif c == "\\":
            out.append("\\\\")
        elif c == "\n":
            out.append("\\n")
        elif c == "\r":
            out.append("\\r")
        elif c == "\t":
            out.append("\\t")
        elif ord(c) < 0x20:
            out.append(f"\\u{ord(c):04x}")
        else:
            out.append(c)
    text = "".join(out)
    return '"' + text.replace("${", "$${").replace("%{", "%%{") + '"'


def _block(kind: str, label: str, attrs: list[tuple[str, str]], hashes: tuple[str, ...],
           after: Sequence[tuple[str, str]] = ()) -> str:
    """A block: ``attrs`` (quoted strings, ``=`` aligned), ``hashes``, then ``after``
    (values written as given, aligned among themselves: hclwrite aligns each run of
    single-line attributes, and the multi-line ``hashes`` ends one)."""
    lines = [f"{kind} {hcl_string(label)} {{"]
    width = max((len(k) for k, _ in attrs), default=0)
    for k, v in attrs:
        lines.append(f"  {k.ljust(width)} = {hcl_string(v)}")
    if hashes:
        lines.append("  hashes = [")
        for h in sorted(set(hashes)):
            lines.append(f"    {hcl_string(h)},")
        lines.append("  ]")
    width = max((len(k) for k, _ in after), default=0)
    for k, v in after:
        lines.append(f"  {k.ljust(width)} = {v}")
    lines.append("}")
    return "\n".join(lines) + "\n"


def format_provider_lock(lock: ProviderLock) -> str:
    """One provider block as OpenTofu writes it (ends with a newline)."""
    attrs = [("version", lock.version)]
    if lock.constraints:
        attrs.append(("constraints", lock.constraints))
    return _block("provider", str(lock.address), attrs, lock.hashes)


def format_module_lock(lock: ModuleLock) -> str:
    """One module block (ends with a newline): ``version``, ``source``, ``constraints``,
    ``hashes``, then ``package = "<immutable address>"`` or ``floating = true`` after the
    hashes, as OpenTofu's draft module-installation RFC (PR #4071) lays them out."""
    attrs = ([("version", lock.version)] if lock.version else []) + [("source", lock.source)]
    if lock.constraints:
        attrs.append(("constraints", lock.constraints))
    after = [("package", hcl_string(lock.package))] if lock.package else \
        [("floating", "true")] if lock.floating else []
    return _block("module", lock.path, attrs, lock.hashes, after)


def format_lock_file(locks: LockFile, keep_raw_providers: bool = True, header: str = HEADER) -> str:
    """The whole file: the header, the ``module`` blocks (by call path), then the
    ``provider`` blocks as ``tofu init`` writes them (by address). Provider blocks read from
    disk are written back as they were read when ``keep_raw_providers`` (tofu-solve does not
    own them).

    Module blocks come first because tools that edit the file line by line take everything
    from one ``provider`` line to the next as that provider's block: Renovate's terraform
    lock-file updater (``lib/modules/manager/terraform/lockfile/util.ts`` ``extractLocks``)
    writes a provider's new version and hashes into any module block that follows it.
    OpenTofu reads blocks in any order (``internal/depsfile/locks_file.go``). ``header``:
    the comment lines the target's own init writes (:attr:`tofu_solve.addrs.product.Product.lock_header`)."""
    out = [header]
    for path in sorted(locks.modules):
        out.append("\n")
        out.append(format_module_lock(locks.modules[path]))
    for lock in sorted(locks.providers.values(), key=lambda p: (p.address.host, p.address.namespace,
                                                                p.address.type)):
        out.append("\n")
        out.append(lock.raw + "\n" if keep_raw_providers and lock.raw else format_provider_lock(lock))
    return "".join(out)


def write_lock_file(path: str | os.PathLike, locks: LockFile, header: str = HEADER) -> bool:
    """Write ``locks`` (below ``header``) to ``path`` atomically, only when the text changes.

    Returns True when the file was written.
    """
    text = format_lock_file(locks, header=header)
    p = Path(path)
    try:
        if p.read_text(encoding="utf-8") == text:
            return False
    except FileNotFoundError:
        pass
    write_atomic(p, text)
    return True
