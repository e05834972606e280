"""LIMITS_PLACEHOLDER"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

# --------------------------------------------------------------------------- bounds

MiB = 1 << 20


@dataclass(frozen=True)
class Limits:
    """Bounds on what the outside world can make tofu-solve download, unpack and wait for.

    Attributes (each set by the environment variable named in brackets):
        download_bytes: one package download, compressed [TOFU_SOLVE_MAX_DOWNLOAD_BYTES],
            default 512 MiB.
        document_bytes: one registry answer or checksum document
            [TOFU_SOLVE_MAX_DOCUMENT_BYTES], default 8 MiB.
        extracted_bytes: everything one archive unpacks to [TOFU_SOLVE_MAX_EXTRACTED_BYTES],
            default 1 GiB.
        file_bytes: one unpacked file [TOFU_SOLVE_MAX_FILE_BYTES], default 256 MiB.
        entries: entries in one archive [TOFU_SOLVE_MAX_ARCHIVE_ENTRIES], default 100,000.
        deadline: seconds one download or registry request may take in all, however
            slowly the server drips its bytes [TOFU_SOLVE_DOWNLOAD_DEADLINE], default 300.

    The largest public module packages unpack to a few tens of MiB, far below these.
    """

    download_bytes: int = 512 * MiB
    document_bytes: int = 8 * MiB
    extracted_bytes: int = 1024 * MiB
    file_bytes: int = 256 * MiB
    entries: int = 100_000
    deadline: float = 300.0

    ENV = {"download_bytes": "TOFU_SOLVE_MAX_DOWNLOAD_BYTES", "document_bytes": "TOFU_SOLVE_MAX_DOCUMENT_BYTES",
           "extracted_bytes": "TOFU_SOLVE_MAX_EXTRACTED_BYTES", "file_bytes": "TOFU_SOLVE_MAX_FILE_BYTES",
           "entries": "TOFU_SOLVE_MAX_ARCHIVE_ENTRIES", "deadline": "TOFU_SOLVE_DOWNLOAD_DEADLINE"}

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> "Limits":
        """The limits, each overridden by its environment variable when set.

        Raises:
            ConfigurationError: a variable that is not a positive number, naming it.
        """
        from .errors import ConfigurationError

        values = {}
        for name, var in cls.ENV.items():
            raw = env.get(var)
            if not raw:
                continue
            try:
                value = float(raw) if name == "deadline" else int(raw)
            except ValueError:
                value = 0
            if value <= 0:
                raise ConfigurationError("Invalid environment variable",
                                         f"{var} must be a positive {'number' if name == 'deadline' else 'integer'}"
                                         f", not {raw!r}.")
            values[name] = value
        return cls(**values)
