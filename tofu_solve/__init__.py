"""tofu-solve: locked, verified, transitively consistent module versions for OpenTofu.

The library API (imported on first use, so ``import tofu_solve`` stays cheap)::

    from tofu_solve import InitOptions, Settings, run_init
    result = run_init(InitOptions(root="."), Settings.from_environ(os.environ))

``run_init`` and ``InitOptions`` (:mod:`tofu_solve.command.init`), ``check``
(:mod:`tofu_solve.command.check`), ``solve`` (:mod:`tofu_solve.explain`: the solver with
conflict explanations), ``Settings`` (:mod:`tofu_solve.settings`) and the error hierarchy
(:mod:`tofu_solve.errors`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._lazy import exports
from ._version import __version__

if TYPE_CHECKING:
    from .errors import (
        ConfigurationError,
        IntegrityError,
        LockFileError,
        NetworkError,
        ResolutionError,
        TofuSolveError,
    )

_LAZY = {
    **dict.fromkeys(("ConfigurationError", "IntegrityError", "LockFileError", "NetworkError", "ResolutionError",
                     "TofuSolveError"), "tofu_solve.errors"),  # lazy too: a warm init's fast path needs none
    "run_init": "tofu_solve.command.init",
    "InitOptions": "tofu_solve.command.init",
    "InitResult": "tofu_solve.command.init",
    "check": "tofu_solve.command.check",
    "solve": "tofu_solve.explain",
    "Settings": "tofu_solve.settings",
}

__all__ = ["ConfigurationError", "InitOptions", "InitResult", "IntegrityError", "LockFileError", "NetworkError",
           "ResolutionError", "Settings", "TofuSolveError", "__version__", "check", "run_init", "solve"]


__getattr__ = exports(__name__, globals(), _LAZY)
