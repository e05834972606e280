"""tofu-solve: locked, verified, transitively consistent module versions for OpenTofu."""

from ._version import __version__

from .errors import TofuSolveError  # noqa: E402

__all__ = ["TofuSolveError", "__version__"]
