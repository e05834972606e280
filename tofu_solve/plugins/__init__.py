"""OpenTofu provider *plugins*: their packages, signatures and lock entries.

Not to be confused with :mod:`tofu_solve.providers`, the solver's per-source *candidate*
providers. This stage runs after the solve: for every selected provider it fetches what
``tofu init`` would (the registry's package answer, the signed ``SHA256SUMS``, the zip for
each target platform), verifies them as OpenTofu's installer does, and builds the
``provider`` lock block ``tofu init`` would write itself.
"""

from .packages import ProviderPackages, current_platform, parse_platform
from .provider_locks import ProviderLockPlan, plan_provider_locks

__all__ = ["ProviderLockPlan", "ProviderPackages", "current_platform", "parse_platform", "plan_provider_locks"]
