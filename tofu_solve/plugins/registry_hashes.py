"""OpenTofu 1.12's registry hashes: a downloaded provider package checked against the
``packages`` field of its registry's answer, and the hashes of every platform that field
gives the lock (``rfc/20251027-provider-registry-hashes.md``).

Rules, from OpenTofu v1.12.0:

* ``internal/getproviders/package_authentication.go`` ``registryPackageAuthentication``:
  with no ``packages`` field nothing is checked; otherwise the field must have the
  package's own platform, a positive ``package_size`` equal to the zip's size, and at
  least one ``zh:`` hash, each equal to the answer's ``shasum``. Every platform's ``h1:``
  and ``zh:`` hash (``PreferredHashes``) is then "reported by the registry".
* ``internal/providercache/installer.go`` (lines 740-760): hashes reported by the registry
  reach the lock only where signing is not required for the provider
  (``ShouldEnforceGPGValidationForProvider``: its host is registry.opentofu.org and
  ``OPENTOFU_ENFORCE_GPG_VALIDATION`` is not ``true``); elsewhere only the signed
  ``SHA256SUMS`` checksums do.
* OpenTofu before 1.12, and Terraform, ignore the field: :func:`reads_registry_hashes`.

One deliberate difference, stricter: where the field gives an ``h1:`` for the package's own
platform, the unpacked package must hash to it. OpenTofu records both the registry's and
its own ``h1:`` and so takes a registry's wrong hash for the other platforms into the lock
unnoticed; tofu-solve refuses the package, naming both.
"""

from __future__ import annotations

from collections.abc import Mapping

from ..addrs.product import OPENTOFU
from ..errors import IntegrityError
from ..remote.registry import ProviderDownload
from .signatures import ENFORCE_ENV, MAIN_REGISTRY

FIRST_RELEASE = (1, 12, 0)
"""The first OpenTofu release that reads ``packages`` (opentofu#3868, in v1.12.0-beta1)."""


def reads_registry_hashes(target) -> bool:
    """Whether the client solved for (a :class:`tofu_solve.versions.target.TargetVersion`)
    reads the ``packages`` field: OpenTofu 1.12 and later."""
    return target.product is OPENTOFU and target.triple >= FIRST_RELEASE


def signing_required(host: str, env: Mapping[str, str]) -> bool:
    """OpenTofu's ``ShouldEnforceGPGValidationForProvider``: every host but the main
    registry, and the main registry too under ``OPENTOFU_ENFORCE_GPG_VALIDATION=true``."""
    return host != MAIN_REGISTRY or env.get(ENFORCE_ENV) == "true"


def _failed(meta: ProviderDownload, problem: str) -> IntegrityError:
    """OpenTofu's words (``internal/command/init.go``: "Failed to install provider", "Error
    while installing PROVIDER vVERSION: ...")."""
    return IntegrityError("Failed to install provider",
                          f"Error while installing {meta.provider.for_display} v{meta.version}: {problem}. Nothing "
                          "was installed or locked from it.")


def check_package(meta: ProviderDownload, zip_size: int, h1: str) -> None:
    """Check one downloaded package (its zip's size in bytes, its unpacked ``h1:``)
    against ``meta.packages``; nothing to check when the answer has no such field.

    Raises:
        IntegrityError: the field lacks the package's platform, its size is not positive
            or not the zip's, its ``zh:`` hashes are missing or not the answer's
            ``shasum``, or its ``h1:`` hashes do not include the package's own.
    """
    if not meta.packages:
        return
    entry = meta.packages.get(meta.platform)
    if entry is None:
        raise _failed(meta, f'registry response missing package with platform "{meta.platform}"')
    if entry.size <= 0:
        raise _failed(meta, f"registry response has invalid package size {entry.size}")
    if zip_size != entry.size:
        raise _failed(meta, f"registry response indicates a package of size {entry.size}, but received a package "
                            f"of size {zip_size}")
    zh = entry.scheme("zh:")
    for z in zh:
        if z[3:] != meta.shasum:
            raise _failed(meta, f'registry response expected sha256sum is "{meta.shasum}", which does not match the '
                                f'platform\'s value of "{z[3:]}"')
    if not zh:
        raise _failed(meta, "registry response does not contain matching sha256sum package entry and is invalid")
    h1s = entry.scheme("h1:")
    if h1s and h1 not in h1s:
        raise _failed(meta, f"registry response gives the {meta.platform} package the hash {', '.join(h1s)}, but "
                            f"the package unpacks to {h1}; the registry's hashes for the other platforms cannot be "
                            "trusted either")


def reported_hashes(meta: ProviderDownload, env: Mapping[str, str]) -> tuple[str, ...]:
    """The hashes of every platform the answer's ``packages`` gives, sorted, where they
    reach the lock (signing not required for the provider: :func:`signing_required`); ()
    otherwise. Call only after :func:`check_package` passed."""
    if not meta.packages or signing_required(meta.provider.host, env):
        return ()
    return tuple(sorted({h for entry in meta.packages.values() for h in entry.hashes}))


def platform_hashes(meta: ProviderDownload, platform: str) -> tuple[str, str] | None:
    """(``h1:``, ``zh:``) the field gives ``platform``'s package, when it gives one of each
    and its ``zh:`` is the answer's ``shasum`` (``meta`` is that platform's answer): what
    ``-platform`` records for a platform whose package it does not download; else None."""
    entry = meta.packages.get(platform) if meta.packages else None
    if entry is None or entry.size <= 0 or meta.platform != platform:
        return None
    h1s, zh = entry.scheme("h1:"), entry.scheme("zh:")
    if len(h1s) != 1 or not zh or any(z[3:] != meta.shasum for z in zh):
        return None
    return h1s[0], f"zh:{meta.shasum}"


__all__ = ["FIRST_RELEASE", "check_package", "platform_hashes", "reads_registry_hashes", "reported_hashes",
           "signing_required"]
