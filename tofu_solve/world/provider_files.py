"""Provider packages of the fixture world, served as a real provider registry serves them.

For every provider version the world lists, and every platform in :data:`PLATFORMS`:
a deterministic zip holding a small executable ``terraform-provider-<type>_v<version>_x5``
(fixed timestamps and modes, so the same world gives the same bytes), a
``terraform-provider-<type>_<version>_SHA256SUMS`` document with one line per platform,
and its detached binary OpenPGP signature (``..._SHA256SUMS.sig``), made with a key
generated when the world is built (``provider-signing-key.pgp`` in the world directory)
and published in each download answer's ``signing_keys`` (OpenTofu's provider registry
protocol, reference §10). Signing uses Sequoia (``pysequoia``); nothing here is
hand-written cryptography.

Everything is computed on request and memoized: the world lists thousands of versions.
"""

from __future__ import annotations

import functools
import hashlib
import io
import threading
import zipfile
from dataclasses import dataclass
from pathlib import Path

from .._lazy import load
from ..lockfile.hashes import hash1

PLATFORMS = ("darwin_arm64", "linux_amd64", "linux_arm64", "windows_amd64")
KEY_FILE = "provider-signing-key.pgp"
KEY_USER_ID = "tofu-solve fixture world <fixture-world@127.0.0.1>"
_ZIP_DATE = (1980, 1, 1, 0, 0, 0)
_key_lock = threading.Lock()


def signing_key(world_root: Path):
    """The world's OpenPGP key (a ``pysequoia.Tsk``), made once and kept in the world
    directory. RFC 4880 profile (v4 keys, EdDSA), which OpenTofu's and Terraform's
    ``ProtonMail/go-crypto`` verify."""
    load("pysequoia")
    import pysequoia

    path = Path(world_root) / KEY_FILE
    with _key_lock:
        if not path.exists():
            tsk = pysequoia.Tsk.generate(user_id=KEY_USER_ID, profile=pysequoia.Profile.RFC4880)
            tmp = path.with_suffix(".tmp")
            tmp.write_bytes(bytes(tsk))
            tmp.replace(path)
        return pysequoia.Tsk.from_bytes(path.read_bytes())


def package_name(type_: str, version: str, platform: str) -> str:
    return f"terraform-provider-{type_}_{version}_{platform}.zip"


def shasums_name(type_: str, version: str) -> str:
    return f"terraform-provider-{type_}_{version}_SHA256SUMS"


def package_zip(address: str, version: str, platform: str) -> bytes:
    """The deterministic package zip for ``address`` (``ns/type``) at ``version``."""
    type_ = address.split("/")[-1]
    exe = f"terraform-provider-{type_}_v{version}_x5" + (".exe" if platform.startswith("windows") else "")
    body = (f"#!/bin/sh\n# fixture provider {address} {version} {platform}: a stand-in, never run\n"
            "exit 1\n").encode()
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        info = zipfile.ZipInfo(exe, date_time=_ZIP_DATE)
        info.create_system = 3
        info.external_attr = 0o100755 << 16
        info.compress_type = zipfile.ZIP_DEFLATED
        zf.writestr(info, body)
    return buf.getvalue()


@dataclass(frozen=True)
class SignedSums:
    document: bytes
    signature: bytes


class ProviderFiles:
    """Packages, checksums and signatures of one world (thread-safe, memoized)."""

    def __init__(self, world_root: Path):
        self.world_root = Path(world_root)
        self._tsk = None
        self._lock = threading.Lock()

    def _key(self):
        with self._lock:
            if self._tsk is None:
                self._tsk = signing_key(self.world_root)
            return self._tsk

    @property
    def public_key_armor(self) -> str:
        return str(self._key().extract_certificate())

    @property
    def key_id(self) -> str:
        return self._key().extract_certificate().fingerprint[-16:].upper()

    @functools.lru_cache(maxsize=4096)  # noqa: B019 (one per fixture world, kept while the world is served)
    def package(self, address: str, version: str, platform: str) -> bytes:
        return package_zip(address, version, platform)

    def package_h1(self, address: str, version: str, platform: str) -> str:
        """The ``h1:`` of the package unpacked (``dirhash.HashZip`` of its zip), as
        registry.opentofu.org's ``packages`` field gives it: of the package :meth:`package`
        gives now (a test that replaces a package at its version gets the field a registry
        would serve for it)."""
        with zipfile.ZipFile(io.BytesIO(self.package(address, version, platform))) as zf:
            names = [i.filename for i in zf.infolist()]
            return hash1(names, lambda n: b"" if n.endswith("/") else zf.read(n))

    @functools.lru_cache(maxsize=1024)  # noqa: B019 (one per fixture world, kept while the world is served)
    def sums(self, address: str, version: str) -> SignedSums:
        load("pysequoia")
        import pysequoia

        type_ = address.split("/")[-1]
        lines = [f"{hashlib.sha256(self.package(address, version, p)).hexdigest()}  "
                 f"{package_name(type_, version, p)}\n" for p in PLATFORMS]
        document = "".join(lines).encode()
        signature = pysequoia.sign(self._key().signer(), document, mode=pysequoia.SignatureMode.DETACHED,
                                   armor=False)
        return SignedSums(document, bytes(signature))
