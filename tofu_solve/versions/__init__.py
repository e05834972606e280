"""OpenTofu's two version languages, exactly.

* Module ``version`` arguments use hashicorp/go-version (:mod:`.hashicorp_go_version`), with
  OpenTofu's npm-style prerelease gate on registry versions (:mod:`.version_pick`).
* Provider ``version`` arguments use apparentlymart/go-versions Ruby-style constraints
  (:mod:`.apparentlymart_go_versions`), and must also parse with go-version.

Public API::

    module_constraint("~> 1.2").allows("1.9.0")               # True
    provider_constraint("~> 1").allows("2.0.0")               # False
    select_module_version("~> 1.2", ["1.2.0", "1.3.0-beta"])  # "1.2.0"
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import exports

if TYPE_CHECKING:
    from .apparentlymart_go_versions import Version as ProviderVersion
    from .constraints import ModuleConstraint, ProviderConstraint, module_constraint, provider_constraint
    from .hashicorp_go_version import GoConstraints, GoVersion
    from .version_pick import (
        ModuleVersionListing,
        list_module_versions,
        pick_module_version,
        select_module_version,
        select_provider_version,
    )

# Imported from their modules when first used (PEP 562): naming one version parser costs only
# that parser (the warm path's hand-over needs GoVersion alone).
__getattr__ = exports(__name__, globals(), {
    "ProviderVersion": ".apparentlymart_go_versions:Version", "ModuleConstraint": ".constraints",
    "ProviderConstraint": ".constraints", "module_constraint": ".constraints", "provider_constraint": ".constraints",
    "GoConstraints": ".hashicorp_go_version", "GoVersion": ".hashicorp_go_version",
    "ModuleVersionListing": ".version_pick", "list_module_versions": ".version_pick",
    "pick_module_version": ".version_pick",
    "select_module_version": ".version_pick", "select_provider_version": ".version_pick",
})


__all__ = [
    "GoConstraints",
    "GoVersion",
    "ModuleConstraint",
    "ModuleVersionListing",
    "ProviderConstraint",
    "ProviderVersion",
    "list_module_versions",
    "module_constraint",
    "pick_module_version",
    "provider_constraint",
    "select_module_version",
    "select_provider_version",
]
