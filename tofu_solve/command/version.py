"""``tofu-solve version``: the version, as ``tofu version`` prints it."""

from __future__ import annotations

from .._version import __version__
from ..settings import Settings
from .views.report_views import VersionView


def run(args, settings: Settings) -> int:
    """The command: ``args`` as the parser left them."""
    VersionView(args.json).version(__version__)
    return 0
