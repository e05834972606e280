"""Checking a provider's ``SHA256SUMS`` signature, as OpenTofu's installer does
(``internal/getproviders/package_authentication.go`` ``signatureAuthentication``): the
detached signature must verify against one of the keys the registry lists in
``signing_keys``. Verification is Sequoia's (``pysequoia``); nothing here is hand-written
cryptography.

OpenTofu's one exception (``ShouldEnforceGPGValidationForProvider``, opentofu#266): when the
registry lists no key for a provider of the main registry (``registry.opentofu.org``), the
signature is not checked, with a warning, unless ``OPENTOFU_ENFORCE_GPG_VALIDATION=true``;
the document's hashes are recorded all the same, as reported by the origin registry.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping

from .._lazy import load
from ..errors import IntegrityError

log = logging.getLogger(__name__)


MAIN_REGISTRY = "registry.opentofu.org"
ENFORCE_ENV = "OPENTOFU_ENFORCE_GPG_VALIDATION"


def verify_shasums(document: bytes, signature: bytes, armored_keys: tuple[str, ...], what: str,
                   host: str = "", env: Mapping[str, str] | None = None) -> bool:
    """Verify ``signature`` (detached, binary or armored) over ``document``.

    Args:
        host: the provider's registry host (the no-key exception applies to the main one).
        env: where ``OPENTOFU_ENFORCE_GPG_VALIDATION`` is read.

    Returns:
        True when the signature was verified, False when OpenTofu's no-key exception
        skipped it (a warning is logged).

    Raises:
        IntegrityError: no key where one is required, a key that does not parse, or no key
            verifies the signature ("Failed to authenticate provider package").
    """
    load("pysequoia")
    import pysequoia

    if not armored_keys:
        if host == MAIN_REGISTRY and (env or {}).get(ENFORCE_ENV) != "true":
            log.warning("Skipping GPG validation of %s: the registry provided no signing keys (opentofu#266)", what)
            return False
        raise IntegrityError("Failed to authenticate provider package",
                             f"The registry lists no signing key for {what}: the provider is not signed with a "
                             "valid signing key; please contact the provider author.")
    certs = []
    for armor in armored_keys:
        try:
            certs.append(pysequoia.Cert.from_bytes(armor.encode()))
        except Exception:  # pysequoia raises plain exceptions for malformed keys
            raise IntegrityError("Failed to authenticate provider package",
                                 f"A signing key the registry lists for {what} is not a valid OpenPGP key.") from None
    try:
        sig = pysequoia.Sig.from_bytes(signature)
        pysequoia.verify(bytes=document, store=lambda _ids: certs, signature=sig)
    except Exception:  # RuntimeError/ValueError from Sequoia; its text carries a Rust backtrace
        raise IntegrityError("Failed to authenticate provider package",
                             f"The signature of the SHA256SUMS document for {what} does not verify against any "
                             "signing key the registry lists: the checksums may have been tampered with.") from None
    return True
