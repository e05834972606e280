"""Provider mirrors from the CLI configuration's ``provider_installation`` block (part of
issue #14), as OpenTofu uses them: ``internal/command/cliconfig/provider_installation.go``
(methods, include/exclude), ``internal/getproviders/multi_source.go`` (union of versions,
first method with the version), ``http_mirror_source.go`` (the network mirror protocol),
``filesystem_mirror_source.go`` (packed and unpacked layouts), ``installer.go`` (unsigned
packages lock only their own ``h1:``).
"""

from __future__ import annotations

import functools
import hashlib
import http.server
import io
import json
import threading
import zipfile
from pathlib import Path

import pytest

from tests.e2e.conftest import write_root
from tofu_solve.lockfile import parse_lock_text
from tofu_solve.lockfile.hashes import hash_dir
from tofu_solve.plugins import current_platform
from tofu_solve.world.provider_files import package_name

AWS = "registry.opentofu.org/hashicorp/aws"
ROOT = '''
terraform {
  required_providers {
    aws = {
      source  = "hashicorp/aws"
      version = "~> 5.0"
    }
  }
}
module "local" {
  source = "./local"
}
'''
MIRRORED = ("5.99.0", "5.100.0")


def _h1_of_zip(data: bytes, tmp: Path) -> str:
    zipfile.ZipFile(io.BytesIO(data)).extractall(tmp)
    return hash_dir(tmp)


@pytest.fixture
def mirror_dir(tmp_path, running):
    """A network mirror's files for hashicorp/aws (two versions, every world platform)."""
    files = running.registry.provider_files
    base = tmp_path / "mirror" / "registry.opentofu.org" / "hashicorp" / "aws"
    base.mkdir(parents=True)
    (base / "index.json").write_text(json.dumps({"versions": {v: {} for v in MIRRORED}}))
    for v in MIRRORED:
        archives = {}
        for p in ("linux_amd64", "linux_arm64", "darwin_arm64", current_platform()):
            data = files.package("hashicorp/aws", v, p)
            (base / package_name("aws", v, p)).write_bytes(data)
            archives[p] = {"url": package_name("aws", v, p),
                           "hashes": ["zh:" + hashlib.sha256(data).hexdigest()]}
        (base / f"{v}.json").write_text(json.dumps({"archives": archives}))
    return tmp_path / "mirror"


@pytest.fixture
def mirror_url(mirror_dir):
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(mirror_dir))
    handler.log_message = lambda *a: None
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/"
    httpd.shutdown()
    httpd.server_close()


def _config(isolated, running, monkeypatch, block: str) -> None:
    text = running.cli_config.read_text() + "\nprovider_installation {\n" + block + "\n}\n"
    rc = isolated / "mirror.tfrc"
    rc.write_text(text)
    monkeypatch.setenv("TF_CLI_CONFIG_FILE", str(rc))


def _root(isolated):
    return write_root(isolated / "root", ROOT, {"local/main.tf": "# nothing\n"})


def _aws_from_network_mirror(isolated, running, monkeypatch, mirror_url):
    """hashicorp/aws from the network mirror, everything else straight from its registry."""
    _config(isolated, running, monkeypatch, f'''
  network_mirror {{
    url     = "{mirror_url}"
    include = ["registry.opentofu.org/hashicorp/aws"]
  }}
  direct {{
    exclude = ["hashicorp/aws"]
  }}''')


def test_network_mirror_serves_versions_and_packages(isolated, tofu_solve, running, monkeypatch, mirror_url):
    _aws_from_network_mirror(isolated, running, monkeypatch, mirror_url)
    before = [p for _, p, _ in running.registry.log.requests]
    r = tofu_solve(_root(isolated), "init")
    assert r.code == 0, r.err
    lock = parse_lock_text(r.lock)[0].providers[AWS]
    assert lock.version == "5.100.0"  # the newest the mirror lists within ~> 5.0, not the registry's
    data = running.registry.provider_files.package("hashicorp/aws", "5.100.0", current_platform())
    assert lock.hashes == (_h1_of_zip(data, isolated / "unzipped"),)  # unsigned: its own h1 only
    after = [p for _, p, _ in running.registry.log.requests][len(before):]
    assert not any("/hashicorp/aws/" in p for p in after)  # the registry was never asked about aws
    # a warm run asks nothing, the mirror included
    r = tofu_solve(_root(isolated), "init", "-json")
    assert r.code == 0 and r.json()["network_operations"] == {}


def test_network_mirror_package_already_unpacked_still_authenticates(isolated, tofu_solve, running, monkeypatch,
                                                                    mirror_url):
    """A mirrored package found unpacked in the cache without its recorded hashes (a run
    stopped between unpacking and recording, or a concurrent one) is checked against the
    mirror's hashes through the zip checksum kept beside it, not refused for lack of it."""
    import shutil
    _aws_from_network_mirror(isolated, running, monkeypatch, mirror_url)
    root = _root(isolated)
    r = tofu_solve(root, "init")
    assert r.code == 0, r.err
    first = r.lock
    recorded = list((isolated / "cache").rglob("provider-packages"))
    assert recorded
    for d in recorded:
        shutil.rmtree(d)
    (root / ".terraform.lock.hcl").unlink()
    r = tofu_solve(root, "init")
    assert r.code == 0, r.err
    assert r.lock == first


def test_mirror_hashes_must_match(isolated, tofu_solve, running, monkeypatch, mirror_dir, mirror_url):
    doc = mirror_dir / "registry.opentofu.org/hashicorp/aws/5.100.0.json"
    data = json.loads(doc.read_text())
    for a in data["archives"].values():
        a["hashes"] = ["zh:" + "0" * 64]
    doc.write_text(json.dumps(data))
    _config(isolated, running, monkeypatch, f'  network_mirror {{\n    url = "{mirror_url}"\n  }}')
    r = tofu_solve(_root(isolated), "init")
    assert r.code == 1 and "matches none of the hashes the mirror reports" in r.err


@pytest.mark.parametrize("layout", ["packed", "unpacked"])
def test_filesystem_mirror_layouts(layout, isolated, tofu_solve, running, monkeypatch):
    files = running.registry.provider_files
    base = isolated / "fsmirror" / "registry.opentofu.org" / "hashicorp" / "aws"
    base.mkdir(parents=True)
    plat = current_platform()
    data = files.package("hashicorp/aws", "5.99.0", plat)
    if layout == "packed":
        (base / package_name("aws", "5.99.0", plat)).write_bytes(data)
    else:
        zipfile.ZipFile(io.BytesIO(data)).extractall(base / "5.99.0" / plat)
    _config(isolated, running, monkeypatch, f'''
  filesystem_mirror {{
    path    = "{isolated / 'fsmirror'}"
    include = ["hashicorp/aws"]
  }}''')
    r = tofu_solve(_root(isolated), "init")
    assert r.code == 0, r.err
    lock = parse_lock_text(r.lock)[0].providers[AWS]
    assert lock.version == "5.99.0" and lock.hashes == (_h1_of_zip(data, isolated / "unzipped"),)


@pytest.mark.parametrize("block,message", [
    ('  network_mirror {\n    url = "http://mirror.example.com/"\n  }', "must use https"),
    ('  direct {\n    include = ["*/aws"]\n  }', "is not a provider pattern"),
    ('  carrier_pigeon {\n  }', 'unknown installation method "carrier_pigeon"'),
    ('  direct {\n    exclude = ["hashicorp/aws"]\n  }', "No provider_installation method of the CLI configuration "
                                                         "handles registry.opentofu.org/hashicorp/aws"),
])
def test_installation_block_errors(block, message, isolated, tofu_solve, running, monkeypatch):
    _config(isolated, running, monkeypatch, block)
    r = tofu_solve(_root(isolated), "init")
    assert r.code == 1 and message in r.err
