import pytest

from mainentity.records import Page
from mainentity.splits import split_pages


def make_pages(n_sites, n_per_site):
    return [Page(f"site{s}", f"{i}.html", "", "") for s in range(n_sites) for i in range(n_per_site)]


@pytest.mark.parametrize("seed", [0, 1, 7])
def test_random_split_is_disjoint_complete_and_seeded(seed):
    pages = make_pages(3, 10)
    train, test = split_pages(pages, random_state=seed)
    assert len(train) == 20 and len(test) == 10
    assert set(train).isdisjoint(test) and set(train) | set(test) == set(pages)
    assert split_pages(pages, random_state=seed) == (train, test)


def test_by_site_split_keeps_sites_apart():
    train, test = split_pages(make_pages(6, 4), method="by-site", train_fraction=0.5, random_state=2)
    assert {p.site_id for p in train}.isdisjoint({p.site_id for p in test})
    assert len({p.site_id for p in train}) == 3


def test_bad_split_arguments():
    with pytest.raises(ValueError, match="at least 2 sites"):
        split_pages(make_pages(1, 5), method="by-site")
    with pytest.raises(ValueError, match="unknown split method"):
        split_pages(make_pages(1, 5), method="by-page")
    with pytest.raises(ValueError, match=r"train_fraction must be in \(0, 1\)"):
        split_pages(make_pages(1, 5), train_fraction=1.0)


def test_none_split_trains_on_every_page():
    pages = make_pages(2, 3)
    assert split_pages(pages, method="none") == (pages, [])


@pytest.mark.parametrize("seed", [0, 3])
def test_site_folds_test_every_site_once_and_never_train_on_it(seed):
    from mainentity.splits import site_folds

    pages = make_pages(7, 3)
    folds = site_folds(pages, 3, random_state=seed)
    assert len(folds) == 3
    tested = [page for _, test in folds for page in test]
    assert sorted(tested, key=pages.index) == pages
    for train, test in folds:
        assert {p.site_id for p in train}.isdisjoint({p.site_id for p in test})
        assert len(train) + len(test) == len(pages)
    with pytest.raises(ValueError, match="n_folds must be in"):
        site_folds(pages, 8)


def test_max_test_pages_samples_the_test_datasets_only():
    from conftest import SAMPLE_SHOP

    from mainentity.config import DataConfig
    from mainentity.loading import load_run_pages

    data = DataConfig(datasets=(str(SAMPLE_SHOP),), split="none", test_datasets=(str(SAMPLE_SHOP),))
    (train, test), = load_run_pages(data).folds
    (train_cut, test_cut), = load_run_pages(DataConfig(**{**data.__dict__, "max_test_pages": 10})).folds
    assert len(train_cut) == len(train) == len(test) == 42 and len(test_cut) == 10
    assert {(p.site_id, p.path) for p in test_cut} <= {(p.site_id, p.path) for p in test}
    # a seeded sample: the same pages every run
    (_, again), = load_run_pages(DataConfig(**{**data.__dict__, "max_test_pages": 10})).folds
    assert [p.path for p in again] == [p.path for p in test_cut]
