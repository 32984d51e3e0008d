"""Train/test splits of pages: a seeded shuffle of pages, whole sites kept apart, or folds of sites."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from mainentity.records import Page


def split_pages(
    pages: Sequence[Page], *, method: str = "random", train_fraction: float = 2 / 3, random_state: int = 0
) -> tuple[list[Page], list[Page]]:
    """Split pages into a training and a test list (Carullo & Binaghi 2010, section 3.3, step 1).

    Parameters
    ----------
    pages : sequence of Page
        All labeled pages, any order.
    method : {"random", "by-site", "none"}
        ``random``: a seeded shuffle, the first ``round(train_fraction * n_pages)`` pages train.
        ``by-site``: sites are shuffled and whole sites go to training until ``train_fraction`` of the
        sites is reached, so no site is on both sides. ``none``: every page trains (a model to ship,
        or one tested on other datasets); the test list is empty.
    train_fraction : float
        In (0, 1); ignored by ``none``.
    random_state : int
        Seed of the shuffle.

    Returns
    -------
    train, test : list of Page
        Disjoint; both in the input's relative order.

    Raises
    ------
    ValueError
        On an unknown method, a fraction outside (0, 1), or a ``by-site`` split of a single site.

    Examples
    --------
    >>> pages = [Page("s", f"{i}.html", "", "") for i in range(9)]
    >>> train, test = split_pages(pages, train_fraction=2 / 3, random_state=1)
    >>> len(train), len(test)
    (6, 3)
    """
    if method == "none":
        return list(pages), []
    if not 0.0 < train_fraction < 1.0:
        raise ValueError(f"train_fraction must be in (0, 1); got {train_fraction}")
    rng = np.random.default_rng(random_state)
    if method == "random":
        order = rng.permutation(len(pages))
        in_train = set(order[: round(train_fraction * len(pages))].tolist())
        chosen = [i in in_train for i in range(len(pages))]
    elif method == "by-site":
        sites = sorted({page.site_id for page in pages})
        if len(sites) < 2:
            raise ValueError(f"a by-site split needs at least 2 sites; got {len(sites)}")
        shuffled = [sites[i] for i in rng.permutation(len(sites))]
        n_train_sites = min(max(1, round(train_fraction * len(sites))), len(sites) - 1)
        train_sites = set(shuffled[:n_train_sites])
        chosen = [page.site_id in train_sites for page in pages]
    else:
        raise ValueError(f"unknown split method {method!r}; valid: random, by-site, none")
    train = [page for page, is_train in zip(pages, chosen, strict=True) if is_train]
    test = [page for page, is_train in zip(pages, chosen, strict=True) if not is_train]
    return train, test


def site_folds(
    pages: Sequence[Page], n_folds: int = 5, *, random_state: int = 0
) -> list[tuple[list[Page], list[Page]]]:
    """K folds of whole sites: each site is tested in exactly one fold and never trained on there.

    Sites are shuffled with ``random_state`` and dealt to the folds in turn, so fold sizes differ by at
    most one site.

    Parameters
    ----------
    pages : sequence of Page
    n_folds : int, default 5
        At least 2 and at most the number of sites.
    random_state : int

    Returns
    -------
    folds : list of (train, test)
        ``n_folds`` pairs of page lists, in the input's relative order.

    Raises
    ------
    ValueError
        If ``n_folds`` is below 2 or above the number of sites.

    Examples
    --------
    >>> pages = [Page(f"s{i % 4}", f"{i}.html", "", "") for i in range(8)]
    >>> [(len(train), len(test)) for train, test in site_folds(pages, 2)]
    [(4, 4), (4, 4)]
    """
    sites = sorted({page.site_id for page in pages})
    if not 2 <= n_folds <= len(sites):
        raise ValueError(f"n_folds must be in [2, {len(sites)}] (the number of sites); got {n_folds}")
    order = np.random.default_rng(random_state).permutation(len(sites))
    fold_of = {sites[index]: rank % n_folds for rank, index in enumerate(order)}
    return [([page for page in pages if fold_of[page.site_id] != fold],
             [page for page in pages if fold_of[page.site_id] == fold]) for fold in range(n_folds)]
