"""Immutable package addresses (issue #25): what a module lock entry's ``package`` records."""

from __future__ import annotations

import pytest

from tofu_solve.addrs.immutable import (
    immutable_address,
    package_problem,
    pinned_reference,
)

C40 = "0123456789abcdef0123456789abcdef01234567"
D64 = "sha256:" + "cd" * 32


@pytest.mark.parametrize("address,reference,expected", [
    # git: the tag or branch replaced by the commit; subdirectory kept; other query kept
    ("git::https://example.com/vpc.git?ref=v1.2.0", C40, f"git::https://example.com/vpc.git?ref={C40}"),
    ("git::https://example.com/vpc.git//modules/x?ref=v1.2.0", C40,
     f"git::https://example.com/vpc.git//modules/x?ref={C40}"),
    ("git::https://example.com/vpc.git?depth=1&ref=main", C40,
     f"git::https://example.com/vpc.git?depth=1&ref={C40}"),
    ("github.com/org/repo?ref=v1", C40, f"git::https://github.com/org/repo.git?ref={C40}"),
    # credentials never reach the lock
    ("git::https://u:secret@example.com/vpc.git?ref=v1", C40, f"git::https://example.com/vpc.git?ref={C40}"),
    # OCI: the tag replaced by the manifest digest
    ("oci://registry.example.com/modules/vpc?tag=1.0.0", D64, f"oci://registry.example.com/modules/vpc?digest={D64}"),
    ("oci://registry.example.com/modules/vpc//sub", D64, f"oci://registry.example.com/modules/vpc//sub?digest={D64}"),
    # an archive is immutable only with its checksum
    ("https://example.com/m.zip?checksum=sha256:" + "ab" * 32, None,
     "https://example.com/m.zip?checksum=sha256:" + "ab" * 32),
    ("https://example.com/m.zip", None, None),
    ("s3::https://s3.amazonaws.com/bucket/m.zip", None, None),
    ("git::https://example.com/vpc.git?ref=v1.2.0", None, None),  # commit unknown
    ("git::https://example.com/vpc.git?ref=v1.2.0", "v1.2.0", None),  # not a commit id
    ("oci://registry.example.com/modules/vpc", "latest", None),
    ("./local", None, None),
    ("not a source ::", C40, None),
])
def test_immutable_address(address, reference, expected):
    got = immutable_address(address, reference)
    assert got == expected
    if got is not None:
        assert package_problem(got) is None
        # what the package is fetched by: the commit or digest; an archive by its checksum
        assert pinned_reference(got) == (None if "checksum=" in got else reference)
