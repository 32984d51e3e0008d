"""RBF units: activations, p-means spreads, EMD k-means (Carullo & Binaghi 2010, section 3.2)."""

from __future__ import annotations

import numpy as np
import pytest

from mainentity.models.emd import pack_gammas, unique_gammas
from mainentity.models.rbf import MIN_SPREAD, emd_kmeans, p_means_spreads, rbf_activations


def distances_of(points):
    points = np.asarray(points, dtype=float)
    return np.linalg.norm(points[:, None, :] - points[None, :, :], axis=2)


def test_rbf_activations_are_exp_of_minus_d_over_sigma():
    activations = rbf_activations(np.array([[0.0, 2.0, 1.0]]), np.array([1.0, 4.0, 0.25]))
    np.testing.assert_allclose(activations, [[1.0, np.exp(-0.5), np.exp(-4.0)]])


@pytest.mark.parametrize(
    ("distances", "spreads"),
    [(np.zeros((2, 3)), np.ones(2)), (np.zeros(3), np.ones(3)), (np.zeros((1, 2)), np.array([1.0, 0.0]))],
)
def test_rbf_activations_reject_bad_input(distances, spreads):
    with pytest.raises(ValueError):
        rbf_activations(distances, spreads)


def test_p_means_on_hand_worked_centroids():
    # Centroids on a line at 0, 1, 3, 7. Nearest others: 0 -> 1 (1), 3 (3); 1 -> 0 (1), 3 (2);
    # 3 -> 1 (2), 0 (3); 7 -> 3 (4), 1 (6).
    distances = distances_of([[0.0], [1.0], [3.0], [7.0]])
    np.testing.assert_allclose(p_means_spreads(distances, pi=1), [1.0, 1.0, 2.0, 4.0])
    expected = np.sqrt([(1 + 9) / 2, (1 + 4) / 2, (4 + 9) / 2, (16 + 36) / 2])
    np.testing.assert_allclose(p_means_spreads(distances, pi=2), expected)


def test_p_means_in_2d():
    # A unit square: every corner has two neighbours at 1 and one at sqrt(2).
    distances = distances_of([[0, 0], [0, 1], [1, 0], [1, 1]])
    np.testing.assert_allclose(p_means_spreads(distances, pi=2), [1.0] * 4)
    np.testing.assert_allclose(p_means_spreads(distances, pi=3), [np.sqrt(4 / 3)] * 4)


def test_p_means_with_pi_beyond_the_other_centroids_uses_them_all():
    distances = distances_of([[0.0], [1.0], [3.0]])
    np.testing.assert_allclose(p_means_spreads(distances, pi=5), p_means_spreads(distances, pi=2))


def test_p_means_degenerate_cases():
    np.testing.assert_array_equal(p_means_spreads(np.zeros((1, 1)), pi=5), [1.0])
    # Coincident centroids: zero spread floored; the self-distance is excluded by position, not value.
    spreads = p_means_spreads(distances_of([[0.0], [0.0], [2.0]]), pi=1)
    np.testing.assert_allclose(spreads, [MIN_SPREAD, MIN_SPREAD, 2.0])
    with pytest.raises(ValueError, match="pi"):
        p_means_spreads(np.zeros((2, 2)), pi=0)
    with pytest.raises(ValueError, match="square"):
        p_means_spreads(np.zeros((2, 3)), pi=1)


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_emd_kmeans_separates_two_groups_of_sets(seed):
    rng = np.random.default_rng(seed)
    low = [rng.uniform(0.0, 0.2, (rng.integers(1, 4), 1)) for _ in range(15)]
    high = [rng.uniform(0.8, 1.0, (rng.integers(1, 4), 1)) for _ in range(10)]
    medoids, labels, n_iter = emd_kmeans(low + high, 2, random_state=seed)
    assert len(set(labels[:15])) == 1 and len(set(labels[15:])) == 1 and labels[0] != labels[15]
    assert sorted(labels[medoids].tolist()) == [0, 1]  # each medoid lies in its own cluster
    assert 1 <= n_iter <= 100


def test_emd_kmeans_medoid_minimises_the_weighted_emd_sum():
    # One cluster: {0}, {0.1}, {1}. With {1} weighted heavily the medoid moves to it.
    sets = [[[0.0]], [[0.1]], [[1.0]]]
    assert emd_kmeans(sets, 1, random_state=0)[0].tolist() == [1]
    assert emd_kmeans(sets, 1, sample_weight=np.array([1.0, 1.0, 10.0]), random_state=0)[0].tolist() == [2]


def test_emd_kmeans_with_as_many_clusters_as_sets_and_duplicates():
    medoids, labels, _ = emd_kmeans([[[0.0]], [[0.5]], [[1.0]]], 3, random_state=0)
    assert sorted(medoids.tolist()) == [0, 1, 2] and sorted(labels.tolist()) == [0, 1, 2]
    medoids, _, _ = emd_kmeans(
        [[[0.0]], [[0.0]], [[1.0]]], 3, random_state=0
    )  # duplicates still give 3 seeds
    assert sorted(medoids.tolist()) == [0, 1, 2]


def test_emd_kmeans_is_reproducible_and_takes_packed_sets():
    rng = np.random.default_rng(7)
    gammas = [rng.random((rng.integers(1, 4), 1)).round(1) for _ in range(200)]
    distinct, _, counts, _ = unique_gammas(gammas)
    first = emd_kmeans(distinct, 5, sample_weight=counts, max_candidates=4, random_state=11)
    again = emd_kmeans(distinct, 5, sample_weight=counts, max_candidates=4, random_state=11)
    np.testing.assert_array_equal(first[0], again[0])
    np.testing.assert_array_equal(first[1], again[1])
    assert first[2] == again[2]
    assert len(set(first[0].tolist())) == 5


def test_emd_kmeans_rejects_bad_arguments():
    packed = pack_gammas([[[0.0]], [[1.0]]])
    with pytest.raises(ValueError, match="n_clusters"):
        emd_kmeans(packed, 3)
    with pytest.raises(ValueError, match="sample_weight"):
        emd_kmeans(packed, 1, sample_weight=np.array([-1.0, 1.0]))
    with pytest.raises(ValueError, match="max_iter"):
        emd_kmeans(packed, 1, max_iter=0)
