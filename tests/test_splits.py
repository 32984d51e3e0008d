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
