"""The two products a configuration can be solved for: OpenTofu and Terraform.

They share the module and lock-file formats and differ in a few facts that reach every
stage, each kept here as data (issue #26):

* the default registry host of module and provider source addresses:
  ``registry.opentofu.org`` (opentofu/registry-address ``DefaultModuleRegistryHost``,
  ``DefaultProviderRegistryHost``) or ``registry.terraform.io`` (hashicorp/terraform-registry-address);
* which files are configuration: OpenTofu reads ``.tofu``/``.tofu.json`` and lets them
  replace their ``.tf``/``.tf.json`` namesakes; Terraform reads ``.tf`` and ``.tf.json`` only;
* which version constraints count: OpenTofu 1.12 honours ``required_version`` only in
  ``.tofu`` files plus ``language { compatible_with }``; Terraform honours
  ``required_version`` in every file and has no ``language`` block;
* the lock file's header comment (``internal/depsfile/locks_file.go`` in each);
* from which release an override file's ``version = null`` unsets a module call's
  ``version`` (the override bridge): OpenTofu 1.10, Terraform 1.15.5
  (hashicorp/terraform#38632);
* which variables a module call's ``source`` and ``version`` may use before init: OpenTofu
  any variable not declared ``const = false`` (``internal/configs/static_scope.go``
  ``GetInputVariable``, PR #3946), Terraform 1.15 only those declared ``const = true``
  ("Only literal values and const variables can be evaluated during init.").
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Product:
    """An OpenTofu-lineage client. ``name`` as it prints itself (``OpenTofu``, ``Terraform``),
    ``command`` its executable's usual name, ``registry_host`` the default registry host,
    ``reads_tofu_files`` whether ``.tofu``/``.tofu.json`` files are configuration,
    ``bridge_from`` the first release that loads the override bridge (major, minor, patch),
    ``static_needs_const`` whether a variable read before init must be declared ``const = true``
    (Terraform) rather than merely not ``const = false`` (OpenTofu), ``provider_expressions_from``
    the first release whose ``required_providers`` may read const variables and locals
    (Terraform 1.17.0, hashicorp/terraform#39153; None: no release of the product)."""

    name: str
    command: str
    registry_host: str
    reads_tofu_files: bool
    bridge_from: tuple[int, int, int]
    static_needs_const: bool = False
    provider_expressions_from: tuple[int, int, int] | None = None

    @property
    def lock_header(self) -> str:
        """The two comment lines ``<command> init`` writes at the top of the lock file."""
        return (f'# This file is maintained automatically by "{self.command} init".\n'
                "# Manual edits may be lost in future updates.\n")

    def short(self, address: str) -> str:
        """``address`` (a provider or module package address) without this product's
        default registry host, as the product itself displays it."""
        return address.removeprefix(self.registry_host + "/")

    def __str__(self) -> str:
        return self.name


OPENTOFU = Product("OpenTofu", "tofu", "registry.opentofu.org", True, (1, 10, 0))
TERRAFORM = Product("Terraform", "terraform", "registry.terraform.io", False, (1, 15, 5), static_needs_const=True,
                    provider_expressions_from=(1, 17, 0))


def product_named(word: str) -> Product | None:
    """``tofu``/``opentofu`` -> OpenTofu, ``terraform`` -> Terraform (any case); else None."""
    w = word.strip().lower()
    if w in ("tofu", "opentofu"):
        return OPENTOFU
    if w == "terraform":
        return TERRAFORM
    return None
