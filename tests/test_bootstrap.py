"""Tests of mainentity.evaluation.bootstrap: percentile bootstrap intervals over pages."""

from __future__ import annotations

import math

import numpy as np
import pytest

from mainentity.evaluation import bootstrap
from mainentity.evaluation.bootstrap import add_ci_columns, bootstrap_ci, bootstrap_means
from mainentity.evaluation.report import SUMMARY_METRICS, evaluate_predictions, per_site, summarize
from mainentity.records import Prediction


@pytest.mark.parametrize("seed", [0, 1, 2, 3, 4])
def test_ci_contains_the_mean(seed):
    values = np.random.default_rng(seed).beta(2, 5, size=80)
    low, high = bootstrap_ci(values, random_state=seed)
    assert low < values.mean() < high
    assert 0.0 <= low < high <= 1.0


def test_ci_narrows_with_more_pages():
    rng = np.random.default_rng(7)
    small = rng.beta(2, 5, size=50)
    large = rng.beta(2, 5, size=800)
    width_small = np.subtract(*bootstrap_ci(small)[::-1])
    width_large = np.subtract(*bootstrap_ci(large)[::-1])
    # the width shrinks like 1 / sqrt(n_pages): 16 times the pages, about a quarter of the width
    assert width_large < 0.4 * width_small
    assert width_large > 0.1 * width_small


def test_ci_is_deterministic_for_a_seed():
    values = np.random.default_rng(3).random(60)
    assert bootstrap_ci(values, random_state=11) == bootstrap_ci(values, random_state=11)
    assert bootstrap_ci(values, random_state=11) != bootstrap_ci(values, random_state=12)


def test_ci_widens_with_confidence():
    values = np.random.default_rng(5).random(100)
    low_90, high_90 = bootstrap_ci(values, confidence=0.90)
    low_99, high_99 = bootstrap_ci(values, confidence=0.99)
    assert low_99 < low_90 and high_90 < high_99


def test_ci_covers_true_mean_about_95_percent():
    # pages with Beta(2, 5) scores, true mean 2/7; 400 simulated evaluations of 60 pages each
    true_mean = 2 / 7
    rng = np.random.default_rng(2024)
    n_trials = 400
    covered = 0
    for trial in range(n_trials):
        values = rng.beta(2, 5, size=60)
        low, high = bootstrap_ci(values, n_resamples=500, random_state=trial)
        covered += low <= true_mean <= high
    coverage = covered / n_trials
    # percentile intervals under-cover slightly at small n; sd of the estimate is about 0.012
    assert 0.89 <= coverage <= 0.985


def test_ci_of_constant_values_is_a_point():
    assert bootstrap_ci([0.25] * 10) == (0.25, 0.25)
    assert bootstrap_ci([1.0]) == (1.0, 1.0)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"values": []}, "non-empty"),
        ({"values": [0.1, float("nan")]}, "finite"),
        ({"values": [[0.1, 0.2]]}, "1-D"),
        ({"values": [0.1], "confidence": 1.0}, "confidence"),
        ({"values": [0.1], "n_resamples": 0}, "n_resamples"),
        ({"values": [0.1], "n_resamples": 2.5}, "n_resamples"),
    ],
)
def test_ci_rejects_bad_input(kwargs, message):
    with pytest.raises(ValueError, match=message):
        bootstrap_ci(**kwargs)


def test_bootstrap_means_pairs_columns_and_matches_1d():
    values = np.random.default_rng(9).random(30)
    paired = bootstrap_means(np.column_stack([values, 1 - values]), n_resamples=200, random_state=4)
    assert paired.shape == (200, 2)
    np.testing.assert_allclose(paired.sum(axis=1), 1.0)  # same pages resampled in both columns
    np.testing.assert_allclose(paired[:, 0], bootstrap_means(values, n_resamples=200, random_state=4),
                               rtol=1e-12)


def test_bootstrap_means_in_chunks(monkeypatch):
    values = np.arange(5, dtype=float)
    expected_shape = (7,)
    monkeypatch.setattr(bootstrap, "_CHUNK_CELLS", 10)  # two resamples per chunk
    means = bootstrap_means(values, n_resamples=7, random_state=0)
    assert means.shape == expected_shape
    assert np.all((means >= 0) & (means <= 4))
    np.testing.assert_array_equal(means, bootstrap_means(values, n_resamples=7, random_state=0))
    # each mean is the mean of 5 integers drawn from 0..4
    np.testing.assert_allclose(means * 5, np.round(means * 5), atol=1e-9)  # a sum of 0 is possible


def _per_page(n_pages: int = 40, seed: int = 0):
    rng = np.random.default_rng(seed)
    labels, predictions = {}, []
    for i in range(n_pages):
        site = "a.example" if i % 4 else "b.example"
        label = f"Book number {i}"
        labels[(site, str(i))] = [label]
        right = rng.random() < 0.6
        predictions.append(Prediction(site, str(i), "u", label if right else f"Home page {i}",
                                      candidates=(label, "Cart") if right else ("Cart",)))
    return evaluate_predictions(predictions, labels, system="msrbfn", dataset="toy")


def test_add_ci_columns():
    per_page = _per_page()
    summary = add_ci_columns(summarize(per_page), per_page, n_resamples=300, random_state=1)
    row = summary.iloc[0]
    for metric in SUMMARY_METRICS:
        assert row[f"{metric}_low"] <= row[metric] <= row[f"{metric}_high"]
    assert summary.attrs["confidence"] == 0.95
    # each interval is the bootstrap_ci of the page values with the same seed
    # (equal up to summation order of the means)
    assert (summary["exact_low"].iloc[0], summary["exact_high"].iloc[0]) == pytest.approx(bootstrap_ci(
        per_page["exact"], n_resamples=300, random_state=1))
    assert (summary["h_f1_mean_low"].iloc[0], summary["h_f1_mean_high"].iloc[0]) == pytest.approx(
        bootstrap_ci(per_page["h_f1"], n_resamples=300, random_state=1))
    # the macro F1 interval comes from resampled macro P and R, not from per-page F1s
    assert summary["h_f1_low"].iloc[0] != summary["h_f1_mean_low"].iloc[0]


def test_add_ci_columns_per_site_and_empty_groups():
    per_page = _per_page()
    per_page.attrs["unlabeled"] = [("msrbfn", "toy", "c.example", "x")]
    sites = add_ci_columns(per_site(per_page), per_page, by=("system", "dataset", "site_id"),
                           n_resamples=200)
    assert list(sites["site_id"]) == ["a.example", "b.example", "c.example"]
    a_site = per_page[per_page["site_id"] == "a.example"]
    assert (sites["rouge1_f_low"].iloc[0], sites["rouge1_f_high"].iloc[0]) == pytest.approx(
        bootstrap_ci(a_site["rouge1_f"], n_resamples=200))
    assert math.isnan(sites["exact_low"].iloc[2]) and math.isnan(sites["exact_high"].iloc[2])


def test_add_ci_columns_rejects_missing_columns():
    per_page = _per_page(8)
    with pytest.raises(ValueError, match="jaccard"):
        add_ci_columns(summarize(per_page), per_page.drop(columns=["jaccard"]))
