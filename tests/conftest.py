"""Shared fixtures: paths of the repository, the embedded sample and the shared datasets."""

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED_DATASETS = REPO.parent / "shared" / "datasets"
SAMPLE_SHOP = REPO / "datasets" / "sample-shop"


@pytest.fixture(scope="session", autouse=True)
def user_cache_home(tmp_path_factory):
    """The per-user cache folder (``$XDG_CACHE_HOME``) of the whole session: a temporary one, never the
    user's own. A model names no cache directory, so commands that predict with a model use this one."""
    home = tmp_path_factory.mktemp("user-cache")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_CACHE_HOME", str(home))
        yield home


@pytest.fixture(scope="session")
def render_cache_dir(user_cache_home):
    """One render cache for the whole test session (the per-user one), so each page is rendered once."""
    from mainentity.config import default_cache_dir

    return Path(default_cache_dir())


def use_render_cache(monkeypatch, home) -> Path:
    """Make the per-user cache live under ``home`` for one test (a cold cache); return its render cache."""
    from mainentity.config import default_cache_dir

    monkeypatch.setenv("XDG_CACHE_HOME", str(home))
    return Path(default_cache_dir())


@pytest.fixture(scope="session")
def shared_datasets():
    """The labeled datasets beside the repository (../shared/datasets); skip when absent."""
    if not SHARED_DATASETS.is_dir():
        pytest.skip(f"shared datasets not found at {SHARED_DATASETS}")
    return SHARED_DATASETS
