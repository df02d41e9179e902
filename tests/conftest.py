"""Shared fixtures: the fixture dataset's site, built once per test session."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

DATASET = Path(__file__).parent / "fixtures" / "dataset"


@pytest.fixture(scope="session")
def built_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Build tests/fixtures/dataset with `errdex build` once; returns the output folder (the site root)."""
    from generator.cli import main

    out = tmp_path_factory.mktemp("site") / "site"
    code = main(["build", "--out", str(out), "--data", str(DATASET), "--quiet"])
    assert code == 0, "the fixture site failed to build"
    return out


@pytest.fixture(scope="session")
def bless() -> bool:
    """ERRDEX_BLESS=1 rewrites golden snapshots instead of comparing against them."""
    return os.environ.get("ERRDEX_BLESS") == "1"
