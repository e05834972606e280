"""git over plain HTTP: ``git http-backend`` behind a small HTTP server on 127.0.0.1."""

from __future__ import annotations

import http.server
import os
import subprocess
import threading
from urllib.parse import urlsplit

import pytest

from tests.e2e.conftest import lock_versions, write_root


def _handler(project_root: str):
    class GitHttp(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.0"

        def log_message(self, *a):
            pass

        def _cgi(self):
            parts = urlsplit(self.path)
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0)) if self.command == "POST" else b""
            env = {"GIT_PROJECT_ROOT": project_root, "GIT_HTTP_EXPORT_ALL": "1", "PATH_INFO": parts.path,
                   "QUERY_STRING": parts.query, "REQUEST_METHOD": self.command,
                   "CONTENT_TYPE": self.headers.get("Content-Type", ""), "CONTENT_LENGTH": str(len(body)),
                   "GIT_PROTOCOL": self.headers.get("Git-Protocol", ""), "PATH": os.environ.get("PATH", "")}
            out = subprocess.run(["git", "http-backend"], input=body, env=env, capture_output=True).stdout
            head, _, payload = out.partition(b"\r\n\r\n")
            status = 200
            headers = []
            for line in head.decode().split("\r\n"):
                k, _, v = line.partition(":")
                if k.lower() == "status":
                    status = int(v.strip().split()[0])
                elif k:
                    headers.append((k, v.strip()))
            self.send_response(status)
            for k, v in headers:
                self.send_header(k, v)
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        do_GET = _cgi
        do_POST = _cgi
    return GitHttp


@pytest.fixture(scope="module")
def git_http(world):
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _handler(str(world.git_dir)))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def test_git_http_source_with_version(tmp_path, tofu_solve, git_http):
    root = write_root(tmp_path / "root", f'''
        module "kms" {{
          source  = "git::{git_http}/terraform-aws-modules/terraform-aws-kms.git"
          version = "~> 3.0"
        }}
    ''')
    r = tofu_solve(root, "init")
    assert r.code == 0, r.err
    assert lock_versions(r.lock)["kms"].startswith("v3.")
    assert f'git::{git_http}/terraform-aws-modules/terraform-aws-kms.git?ref=v3.' in r.lock
