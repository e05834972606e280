"""tofu-solve: locked, verified, transitively consistent module versions for OpenTofu."""

__version__ = "0.1.0"

from .errors import TofuSolveError  # noqa: E402

__all__ = ["TofuSolveError", "__version__"]
