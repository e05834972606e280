"""Checking a provider's ``SHA256SUMS`` signature, as OpenTofu's installer does
(``internal/getproviders/package_authentication.go`` ``signatureAuthentication``): the
detached signature must verify against one of the keys the registry lists in
``signing_keys``. Verification is Sequoia's (``pysequoia``); nothing here is hand-written
cryptography.
"""

from __future__ import annotations

from ..errors import IntegrityError


def verify_shasums(document: bytes, signature: bytes, armored_keys: tuple[str, ...], what: str) -> None:
    """Verify ``signature`` (detached, binary or armored) over ``document``.

    Raises:
        IntegrityError: no key given, a key that does not parse, or no key verifies the
            signature ("Failed to authenticate provider package").
    """
    import pysequoia

    if not armored_keys:
        raise IntegrityError("Failed to authenticate provider package",
                             f"The registry lists no signing key for {what}, so its SHA256SUMS document cannot be "
                             "verified.")
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
