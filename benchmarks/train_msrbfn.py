"""Benchmark: seconds to train the MS-RBFN on a dataset the size of swde-book-christianbook's 2/3 split.

Target (issue 2): under 60 s for about 670 pages of 150-250 text blocks on a 2-core machine, once the
pages are rendered. Two sources of data:

- synthetic (default): ``--pages`` x ``--blocks`` blocks with the paper's three textblock features
  (f_intitle as title-length fractions, f_fsize from common CSS sizes over 48 px, f_fbold) and one
  anchor-text feature; about 95 % of the gamma sets are the zero set and the rest hold the g_dice values
  2C / (|a| + |b|) of 1-4 anchors; one main-entity block per page.
- ``--cache-dir DIR``: the rendered pages of a dataset site from the render cache
  (:func:`mainentity.render.cache.render_pages`, which renders what is not cached yet), featurised as
  :class:`mainentity.recognizers.msrbfn.MSRBFNRecognizer` does; ``--dataset`` names the site directory.

Prints the seconds of each training phase (``MSRBFN.fit_seconds_``) and the total.

Usage::

    python benchmarks/train_msrbfn.py                      # synthetic, 670 pages x 200 blocks
    python benchmarks/train_msrbfn.py --pages 100          # a smaller synthetic run
    python benchmarks/train_msrbfn.py --cache-dir .cache/render \\
        --dataset ../shared/datasets/swde-book-christianbook/sites/christianbook
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

from mainentity.features.textblock import TEXTBLOCK_FEATURES
from mainentity.models.msrbfn_network import MSRBFN

#: CSS font sizes (px) the synthetic blocks draw from, and those of main-entity blocks.
_FONT_SIZES = np.array([10, 11, 12, 13, 14, 16, 18])
_HEADING_SIZES = np.array([20, 22, 24, 28, 32])


def synthetic_data(n_pages: int, n_blocks: int, seed: int = 0):
    """Textblock features, gamma sets and labels shaped like a rendered product-page dataset.

    Returns
    -------
    X : ndarray of shape (n_pages * n_blocks, 3)
    gammas : list of ndarrays of shape (n_anchors, 1)
    y : ndarray of bool, shape (n_pages * n_blocks,)
    """
    rng = np.random.default_rng(seed)
    X_pages, gammas, y_pages = [], [], []
    for _ in range(n_pages):
        title_length = rng.integers(20, 60)
        n_anchors = rng.integers(0, 5)
        main = rng.integers(n_blocks)
        in_title = np.where(rng.random(n_blocks) < 0.1, rng.integers(1, 15, n_blocks) / title_length, 0.0)
        sizes = rng.choice(_FONT_SIZES, n_blocks)
        bold = rng.random(n_blocks) < 0.2
        in_title[main] = rng.integers(title_length // 2, title_length + 1) / title_length
        sizes[main] = rng.choice(_HEADING_SIZES)
        bold[main] = rng.random() < 0.8
        X_pages.append(np.column_stack([np.minimum(in_title, 1.0), sizes / 48.0, bold]))
        y = np.zeros(n_blocks, dtype=bool)
        y[main] = True
        y_pages.append(y)
        for block in range(n_blocks):
            rows = max(n_anchors, 1)
            gamma = np.zeros((rows, 1))
            if n_anchors and (block == main or rng.random() < 0.05):
                # g_dice = 2C / (|a| + |b|) with |a| = C + extra_a terms, |b| = C + extra_b terms.
                common = rng.integers(2 if block == main else 0, 5, rows)
                extra = rng.integers(0, 6, rows) + rng.integers(0, 4, rows)
                total = 2 * common + extra
                gamma[:, 0] = np.divide(2 * common, total, out=np.zeros(rows), where=total > 0)
            gammas.append(gamma)
    return np.vstack(X_pages), gammas, np.concatenate(y_pages)


def cached_data(cache_dir: Path, site_dir: Path, n_pages: int):
    """Features (F = all, G = {dice}) and labels of the first ``n_pages`` pages of a site dump.

    Incoming anchors come from every page of the dump; pages are rendered through the cache.
    """
    from mainentity.features.labels import main_entity_labels
    from mainentity.linkgraph import with_incoming_anchors
    from mainentity.recognizers.msrbfn import page_features
    from mainentity.render import cache  # written by the render helper (issue 1)
    from mainentity.render.settings import RenderSettings
    from mainentity.sitedump import SubresourceSources, read_site_dump

    dump = read_site_dump(site_dir)
    pages = with_incoming_anchors(dump.pages)[:n_pages]
    X_pages, gammas, y_pages = [], [], []
    sources = SubresourceSources.of_dumps([dump])
    for outcome in cache.render_pages(pages, RenderSettings(), cache_dir=cache_dir, subresources=sources):
        if outcome.rendered is None:
            print(f"skip {outcome.error}", file=sys.stderr)
            continue
        blocks, X, page_gammas = page_features(outcome.page, outcome.rendered, TEXTBLOCK_FEATURES, ("dice",))
        X_pages.append(X)
        gammas.extend(page_gammas)
        y_pages.append(main_entity_labels([block.text for block in blocks], outcome.page.main_entity))
    return np.vstack(X_pages), gammas, np.concatenate(y_pages)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=670, help="number of training pages (default 670)")
    parser.add_argument("--blocks", type=int, default=200, help="synthetic blocks per page (default 200)")
    parser.add_argument("--m1", type=int, default=50)
    parser.add_argument("--m2", type=int, default=50)
    parser.add_argument("--pi", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--cache-dir", type=Path, help="render cache directory (real pages instead of synthetic)"
    )
    parser.add_argument("--dataset", type=Path, help="site directory of a dataset, with --cache-dir")
    args = parser.parse_args(argv)

    start = time.perf_counter()
    if args.cache_dir is not None:
        if args.dataset is None:
            parser.error("--cache-dir needs --dataset (a dataset's sites/<site-id> directory)")
        X, gammas, y = cached_data(args.cache_dir, args.dataset, args.pages)
        source = f"{args.dataset} via cache {args.cache_dir}"
    else:
        X, gammas, y = synthetic_data(args.pages, args.blocks, seed=args.seed)
        source = f"synthetic, {args.pages} pages x {args.blocks} blocks"
    print(f"data: {source}: {len(X)} blocks, {int(y.sum())} main entity, {time.perf_counter() - start:.2f} s")

    model = MSRBFN(m1=args.m1, m2=args.m2, pi=args.pi, random_state=args.seed)
    start = time.perf_counter()
    model.fit(X, y, gammas)
    total = time.perf_counter() - start
    for phase, seconds in model.fit_seconds_.items():
        print(f"{phase:>14}: {seconds:7.2f} s")
    print(
        f"{'total fit':>14}: {total:7.2f} s  (M1={len(model.spreads_theta_)}, M2={len(model.spreads_gamma_)})"
    )
    accuracy = float(np.mean(model.predict(X, gammas) == y))
    print(f"training accuracy {accuracy:.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
