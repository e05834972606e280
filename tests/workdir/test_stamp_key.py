"""Issue #83 §1: what the warm path's stamp is keyed on, where the key is made
(``workdir.stamp._key``): the policy's inputs from the environment decide a run as much as
its flags (issue #69 §2), so a changed ``TFPOLICY_INPUT_*`` is never answered from the stamp."""

from __future__ import annotations

from tofu_solve.workdir import stamp


def test_a_policy_input_from_the_environment_changes_the_key(tmp_path):
    base = {"HOME": str(tmp_path), "PATH": "/usr/bin:/bin"}
    key = stamp._key(str(tmp_path), ["init"], {**base, "TFPOLICY_INPUT_region": "eu-west-1"})
    assert key != stamp._key(str(tmp_path), ["init"], {**base, "TFPOLICY_INPUT_region": "us-east-1"})
    assert key != stamp._key(str(tmp_path), ["init"], base)
    # what no run reads does not change it
    assert stamp._key(str(tmp_path), ["init"], base) == stamp._key(str(tmp_path), ["init"], {**base, "EDITOR": "vi"})
