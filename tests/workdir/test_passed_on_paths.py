"""Issue #81 §4: the paths only the client reads (``-backend-config=FILE``, ``-plugin-dir``)
are read from where the user stands (the directory after ``-chdir``, as OpenTofu reads
them), and passed on rebased onto the root the client's init runs in: unchanged for one root,
``../FILE`` for a root below it under ``-recursive``."""

from __future__ import annotations

from tofu_solve.workdir.flags import rebased


def test_one_root_passes_every_flag_on_as_written(tmp_path):
    flags = ["-backend-config=prod.hcl", "-backend-config=key=a/b", "-plugin-dir=plugins", "-input=false",
             "-backend-config=/etc/backend.hcl"]
    assert rebased(flags, str(tmp_path), str(tmp_path)) == flags


def test_a_root_below_reads_the_file_the_user_named(tmp_path):
    top, root = tmp_path, tmp_path / "envs" / "prod"
    root.mkdir(parents=True)
    (top / "backend.hcl").write_text('bucket = "b"\n')
    out = rebased(["-backend-config=backend.hcl", "-backend-config=key=x.tfstate", "-plugin-dir=plugins",
                   "-lock=false"], str(top), str(root))
    assert out == ["-backend-config=../../backend.hcl", "-backend-config=key=x.tfstate",
                   "-plugin-dir=../../plugins", "-lock=false"]
    assert (root / out[0].split("=", 1)[1]).resolve() == (top / "backend.hcl").resolve()
