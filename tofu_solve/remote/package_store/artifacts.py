"""The store's artifacts, in the formats OpenTofu reads (issue #49): a module package's
deterministic zip and the image manifests that carry a package's zip layer."""

from __future__ import annotations

import io
import json
import shutil
import stat
import zipfile
from collections.abc import Mapping
from pathlib import Path

from ...lockfile.hashes import VCS_DIRS
from ..oci import IMAGE_MANIFEST

MODULE_ARTIFACT = "application/vnd.opentofu.modulepkg"
PROVIDER_ARTIFACT = "application/vnd.opentofu.provider"
PROVIDER_TARGET = "application/vnd.opentofu.provider-target"
PROVIDER_PACKAGE = "application/vnd.opentofu.providerpkg"  # a provider-target manifest's zip layer
ZIP_LAYER = "archive/zip"
EMPTY_CONFIG = "application/vnd.oci.empty.v1+json"
EMPTY_JSON = b"{}"
ANNOTATION = "dev.tofu-solve."  # our annotations' prefix: origin, version, identity, h1
ZIP_TIME = (1980, 1, 1, 0, 0, 0)  # the earliest time a zip entry can hold: the same bytes from every job


def package_zip(root: Path, comment: bytes = b"") -> bytes:
    """The package directory as a zip, the same bytes for the same files on every machine:
    names sorted, times fixed, modes 0644 or 0755, version-control directories left out
    (as the ``h1:`` leaves them out), links stored as the files they point to (as the
    ``h1:`` reads them). ``comment``, the zip's comment, gives the same files other bytes
    (a digest the registry holds a corrupt copy of is avoided so). Raises OSError."""
    buf = io.BytesIO()
    files: list[tuple[str, Path]] = []
    for path in root.rglob("*"):
        rel = path.relative_to(root)
        if rel.parts[0] in VCS_DIRS or path.is_dir():
            continue
        files.append((rel.as_posix(), path))
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, path in sorted(files):
            info = zipfile.ZipInfo(name, ZIP_TIME)
            mode = 0o755 if path.stat().st_mode & stat.S_IXUSR else 0o644
            info.external_attr = (stat.S_IFREG | mode) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(info, path.read_bytes(), compresslevel=6)
        zf.comment = comment
    return buf.getvalue()


def image_manifest(artifact: str, layer: dict, config: dict, annotations: Mapping[str, str],
                    layer_artifact: str = "") -> bytes:
    """An image manifest of ``artifact`` with one ``archive/zip`` layer (of
    ``layer_artifact``, when given: OpenTofu's provider packages need it)."""
    zip_layer = {"mediaType": ZIP_LAYER, **layer}
    if layer_artifact:
        zip_layer["artifactType"] = layer_artifact
    doc = {"schemaVersion": 2, "mediaType": IMAGE_MANIFEST, "artifactType": artifact,
           "config": {"mediaType": EMPTY_CONFIG, **config}, "layers": [zip_layer]}
    if annotations:
        doc["annotations"] = dict(sorted(annotations.items()))
    return json.dumps(doc, separators=(",", ":"), sort_keys=True).encode()


def empty_dir(directory: Path) -> None:
    """Remove everything inside ``directory`` (what a rejected artifact unpacked)."""
    for child in directory.iterdir():
        if child.is_dir() and not child.is_symlink():
            shutil.rmtree(child)
        else:
            child.unlink()
