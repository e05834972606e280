"""Shared test fixtures: the conformance vectors and corpus in ../shared."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SHARED = Path(__import__("os").environ.get("TOFU_SOLVE_SHARED", REPO.parent / "shared"))
VECTORS_PATH = SHARED / "conformance" / "vectors.json"


def load_vectors() -> dict:
    """The conformance vectors. A missing file is a hard error, never a skip: CI runs with
    ../shared beside the clone."""
    if not VECTORS_PATH.exists():
        raise FileNotFoundError(
            f"{VECTORS_PATH} is missing: tests need ../shared beside the repository "
            "(or TOFU_SOLVE_SHARED pointing at it)")
    return json.loads(VECTORS_PATH.read_text())


VECTORS = load_vectors()


@pytest.fixture(scope="session")
def vectors() -> dict:
    return VECTORS
