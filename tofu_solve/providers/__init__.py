"""Per-source *candidate providers*: list the versions a module source offers and fetch one.

(Not OpenTofu provider plugins: those are :mod:`tofu_solve.addrs.provider` (addresses) and
:mod:`tofu_solve.plugins` (packages).)

Each kind of source sits behind the same small protocol, :class:`base.CandidateProvider`:
``versions(source) -> list[AvailableVersion]`` and ``fetch(source, available) -> Package``.
The solver sees only that protocol.
"""

from .base import AvailableVersion, CandidateProvider, ConfigFiles, Package
from .git_tags import GitCandidates
from .pinned import PinnedCandidates
from .registry_versions import RegistryCandidates

__all__ = ["AvailableVersion", "CandidateProvider", "ConfigFiles", "GitCandidates", "Package", "PinnedCandidates",
           "RegistryCandidates"]
