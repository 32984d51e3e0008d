"""Shared fixtures: paths of the repository, the embedded sample and the shared datasets."""

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED_DATASETS = REPO.parent / "shared" / "datasets"
SAMPLE_SHOP = REPO / "datasets" / "sample-shop"


@pytest.fixture(scope="session")
def render_cache_dir(tmp_path_factory):
    """One render cache for the whole test session, so each page is rendered once."""
    return tmp_path_factory.mktemp("render-cache")


@pytest.fixture(scope="session")
def shared_datasets():
    """The labeled datasets beside the repository (../shared/datasets); skip when absent."""
    if not SHARED_DATASETS.is_dir():
        pytest.skip(f"shared datasets not found at {SHARED_DATASETS}")
    return SHARED_DATASETS
