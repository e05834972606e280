"""Which OpenTofu release a configuration is solved for.

``-tofu-version=X.Y.Z`` if given; else the version ``tofu version`` reports when ``tofu``
is on PATH; else the newest OpenTofu release tofu-solve knows (``data/opentofu_versions.json``).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from ..errors import ConfigurationError, InvalidVersion
from .goversion import GoVersion


@dataclass(frozen=True)
class TargetVersion:
    """The OpenTofu version solved for, and where it came from (``flag``, ``tofu on PATH``,
    ``newest known``)."""

    version: GoVersion
    origin: str

    @property
    def triple(self) -> tuple[int, int, int]:
        s = self.version.segments
        return (s[0], s[1], s[2])


def known_releases() -> list[str]:
    data = json.loads(resources.files("tofu_solve").joinpath("data/opentofu_versions.json").read_text())
    return data["versions"]


def _installed_tofu() -> str | None:
    exe = shutil.which("tofu")
    if not exe:
        return None
    try:
        out = subprocess.run([exe, "version"], capture_output=True, text=True, timeout=20).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    m = re.search(r"OpenTofu v(\S+)", out)
    return m.group(1) if m else None


VERSION_FILES = (".opentofu-version", ".tofu-version")  # tenv and tofuenv, in that order of preference


def version_file(root: Path) -> tuple[Path, str] | None:
    """The nearest ``.opentofu-version`` or ``.tofu-version`` file in ``root`` or a parent
    directory (as tenv and tofuenv look them up), with the exact version it names; None when
    there is none or it names no exact version (``latest``, ``min-required``...)."""
    for d in [root, *root.parents]:
        for name in VERSION_FILES:
            p = d / name
            try:
                text = p.read_text(encoding="utf-8").strip()
            except (OSError, UnicodeDecodeError):
                continue
            word = text.split()[0] if text else ""
            try:
                GoVersion.parse(word.removeprefix("v"))
            except InvalidVersion:
                return None
            return p, word.removeprefix("v")
    return None


def target_version(flag: str | None, root: Path | None = None) -> TargetVersion:
    """The OpenTofu version to solve for: ``-tofu-version``, else ``tofu version`` of the
    ``tofu`` on PATH, else the version a ``.opentofu-version`` / ``.tofu-version`` file in
    ``root`` or above names, else the newest release tofu-solve knows.

    Raises ConfigurationError for an invalid ``-tofu-version``."""
    if flag:
        try:
            return TargetVersion(GoVersion.parse(flag), "-tofu-version")
        except InvalidVersion:
            raise ConfigurationError("Invalid OpenTofu version", f"-tofu-version={flag} is not a version.") from None
    installed = _installed_tofu()
    if installed:
        try:
            return TargetVersion(GoVersion.parse(installed), "tofu on PATH")
        except InvalidVersion:
            pass
    found = version_file(Path(root).resolve()) if root is not None else None
    if found is not None:
        return TargetVersion(GoVersion.parse(found[1]), f"{found[0].name} in {found[0].parent}")
    newest = max((GoVersion.parse(v) for v in known_releases()), key=lambda v: v)
    return TargetVersion(newest, "newest release known to tofu-solve")
