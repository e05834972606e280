"""A real OCI registry (Debian's ``docker-registry``, CNCF distribution) on 127.0.0.1, and
helpers that push OpenTofu module packages (and broken ones) through oras."""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import shutil
import socket
import subprocess
import time
import zipfile
from dataclasses import dataclass
from pathlib import Path

import requests

from tests.conftest import require_tool

REGISTRY_BIN = "/usr/bin/docker-registry"
ARTIFACT = "application/vnd.opentofu.modulepkg"
MANIFEST = "application/vnd.oci.image.manifest.v1+json"
INDEX = "application/vnd.oci.image.index.v1+json"
EMPTY = "application/vnd.oci.empty.v1+json"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class OciRegistry:
    host: str
    data: Path
    auth: tuple[str, str] | None = None

    def _session(self):
        s = requests.Session()
        if self.auth:
            s.auth = self.auth
        return s

    def put_blob(self, repo: str, data: bytes) -> str:
        digest = "sha256:" + hashlib.sha256(data).hexdigest()
        s = self._session()
        r = s.post(f"http://{self.host}/v2/{repo}/blobs/uploads/")
        r.raise_for_status()
        loc = r.headers["Location"]
        loc = loc if loc.startswith("http") else f"http://{self.host}{loc}"
        sep = "&" if "?" in loc else "?"
        s.put(f"{loc}{sep}digest={digest}", data=data,
              headers={"Content-Type": "application/octet-stream"}).raise_for_status()
        return digest

    def put_manifest(self, repo: str, ref: str, manifest: dict, media: str = MANIFEST) -> str:
        body = json.dumps(manifest).encode()
        self._session().put(f"http://{self.host}/v2/{repo}/manifests/{ref}", data=body,
                            headers={"Content-Type": media}).raise_for_status()
        return "sha256:" + hashlib.sha256(body).hexdigest()

    def push_module(self, repo: str, tag: str, files: dict[str, str], artifact_type: str = ARTIFACT,
                    layers: int = 1, created: str | None = None, config_created: str | None = None) -> str:
        """Push a module package the way ``oras push --artifact-type application/vnd.opentofu.modulepkg
        repo:tag mod.zip:archive/zip`` does; returns the manifest digest."""
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w") as zf:
            for name, text in files.items():
                zf.writestr(name, text)
        blob = buf.getvalue()
        layer_digest = self.put_blob(repo, blob)
        config = b"{}" if config_created is None else json.dumps({"created": config_created}).encode()
        config_digest = self.put_blob(repo, config)
        manifest = {"schemaVersion": 2, "mediaType": MANIFEST, "artifactType": artifact_type,
                    "config": {"mediaType": EMPTY if config_created is None else
                               "application/vnd.oci.image.config.v1+json", "digest": config_digest,
                               "size": len(config)},
                    "layers": [{"mediaType": "archive/zip", "digest": layer_digest, "size": len(blob)}] * layers}
        if created is not None:  # as oras push writes it
            manifest["annotations"] = {"org.opencontainers.image.created": created}
        return self.put_manifest(repo, tag, manifest)

    def push_index(self, repo: str, tag: str, child_digest: str) -> str:
        index = {"schemaVersion": 2, "mediaType": INDEX,
                 "manifests": [{"mediaType": MANIFEST, "digest": child_digest, "size": 1}]}
        return self.put_manifest(repo, tag, index, INDEX)

    def blob_path(self, digest: str) -> Path:
        hexd = digest.split(":", 1)[1]
        return self.data / "docker/registry/v2/blobs/sha256" / hexd[:2] / hexd / "data"


@contextlib.contextmanager
def run_registry(tmp: Path, htpasswd_user: tuple[str, str] | None = None):
    """Start ``docker-registry`` on loopback with a config of our own; stop it after."""
    require_tool(Path(REGISTRY_BIN).exists(), "Debian's docker-registry", "docker-registry")
    port = free_port()
    data = tmp / "data"
    data.mkdir(parents=True, exist_ok=True)
    cfg = ["version: 0.1", "log: {level: warn}",
           f"storage: {{filesystem: {{rootdirectory: {data}}}, delete: {{enabled: true}}}}",
           f"http: {{addr: 127.0.0.1:{port}, secret: any-test-secret}}"]
    if htpasswd_user:
        import bcrypt
        user, pw = htpasswd_user
        (tmp / "htpasswd").write_text(f"{user}:{bcrypt.hashpw(pw.encode(), bcrypt.gensalt(rounds=4)).decode()}\n")
        cfg.append(f"auth: {{htpasswd: {{realm: basic-realm, path: {tmp / 'htpasswd'}}}}}")
    (tmp / "config.yml").write_text("\n".join(cfg) + "\n")
    proc = subprocess.Popen([REGISTRY_BIN, "serve", str(tmp / "config.yml")], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 15
        while True:
            try:
                if requests.get(f"http://127.0.0.1:{port}/v2/", timeout=1).status_code in (200, 401):
                    break
            except requests.RequestException:
                pass
            if time.monotonic() > deadline or proc.poll() is not None:
                raise RuntimeError("docker-registry did not start")
            time.sleep(0.05)
        yield OciRegistry(f"127.0.0.1:{port}", data, htpasswd_user)
    finally:
        proc.terminate()
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:
            proc.kill()
        shutil.rmtree(data, ignore_errors=True)
