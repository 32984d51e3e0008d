"""EMD between gamma sets (Rubner et al. 2000; Carullo & Binaghi 2010, section 3.2)."""

from __future__ import annotations

import numpy as np
import ot
import pytest

from mainentity.models.emd import emd, emd_to_centroids, pack_gammas, pairwise_emd, unique_gammas


def random_sets(rng, n_sets, n_features, max_rows=5):
    return [rng.random((rng.integers(1, max_rows + 1), n_features)).round(2) for _ in range(n_sets)]


def test_emd_hand_worked_1d():
    # Half the mass of {0, 1} moves 0.5 each way onto 0.5.
    assert emd([[0.0], [1.0]], [[0.5]]) == pytest.approx(0.5)
    # {0, 0, 1} -> {1}: two thirds of the mass travel 1.
    assert emd([[0.0], [0.0], [1.0]], [[1.0]]) == pytest.approx(2 / 3)


def test_emd_uses_the_euclidean_ground_distance_not_squared():
    assert emd([[0.0, 0.0]], [[3.0, 4.0]]) == pytest.approx(5.0)


def test_emd_is_zero_on_equal_distributions_and_symmetric():
    rng = np.random.default_rng(0)
    a, b = rng.random((3, 2)), rng.random((5, 2))
    assert emd(a, a) == pytest.approx(0.0, abs=1e-12)
    assert emd(a, a[::-1]) == pytest.approx(0.0, abs=1e-12)
    assert emd([[0.2]], [[0.2], [0.2]]) == pytest.approx(0.0, abs=1e-12)
    assert emd(a, b) == pytest.approx(emd(b, a))
    assert emd(a, b) > 0


@pytest.mark.parametrize("bad", [[], [[]], [0.0, 1.0], [[np.nan]]])
def test_emd_rejects_malformed_sets(bad):
    with pytest.raises(ValueError, match="gamma_a"):
        emd(bad, [[0.0]])


def test_emd_rejects_different_feature_counts():
    with pytest.raises(ValueError, match="different numbers of anchor features"):
        emd([[0.0]], [[0.0, 1.0]])


@pytest.mark.parametrize("n_features", [1, 2])
def test_pairwise_emd_matches_ot_emd2(n_features):
    rng = np.random.default_rng(n_features)
    sets_a, sets_b = random_sets(rng, 12, n_features), random_sets(rng, 7, n_features)
    sets_a.append(np.zeros((3, n_features)))  # repeated rows merge into one weight
    distances = pairwise_emd(pack_gammas(sets_a), pack_gammas(sets_b))
    expected = [[emd(a, b) for b in sets_b] for a in sets_a]
    np.testing.assert_allclose(distances, expected, atol=1e-12)


def test_pairwise_emd_1d_equals_the_closed_form_of_pot():
    rng = np.random.default_rng(3)
    a, b = rng.random(4), rng.random(6)
    expected = ot.wasserstein_1d(a, b, p=1)
    assert pairwise_emd(pack_gammas([a[:, None]]), pack_gammas([b[:, None]]))[0, 0] == pytest.approx(expected)


def test_pairwise_emd_chunks_give_the_same_result(monkeypatch):
    rng = np.random.default_rng(4)
    packed = pack_gammas(random_sets(rng, 30, 1))
    whole = pairwise_emd(packed, packed)
    monkeypatch.setattr("mainentity.models.emd._CHUNK_ELEMENTS", 50)
    np.testing.assert_array_equal(pairwise_emd(packed, packed), whole)
    np.testing.assert_allclose(np.diag(whole), 0.0, atol=1e-12)
    np.testing.assert_allclose(whole, whole.T, atol=1e-12)


def test_unique_gammas_merge_sets_with_the_same_distribution():
    gammas = [
        np.zeros((1, 1)),
        np.zeros((3, 1)),  # {0, 0, 0} is {0}
        np.array([[1.0], [0.0]]),
        np.array([[0.0], [1.0]]),  # same set, other order
        np.array([[0.0], [0.0], [1.0], [1.0]]),  # same proportions
        np.array([[0.0], [0.0], [1.0]]),  # other proportions
    ]
    distinct, inverse, counts, first = unique_gammas(gammas)
    assert len(distinct) == 3
    assert inverse.tolist() == [0, 0, 1, 1, 1, 2]
    assert counts.tolist() == [2, 3, 1]
    assert first.tolist() == [0, 2, 5]
    np.testing.assert_allclose(distinct.weights[2], [2 / 3, 1 / 3])


def test_emd_to_centroids_equals_emd_per_set():
    rng = np.random.default_rng(5)
    gammas = random_sets(rng, 20, 1, max_rows=3) + [np.zeros((2, 1))] * 30
    centroids = random_sets(rng, 4, 1)
    expected = [[emd(gamma, centroid) for centroid in centroids] for gamma in gammas]
    np.testing.assert_allclose(emd_to_centroids(gammas, centroids), expected, atol=1e-12)


def test_emd_to_centroids_rejects_mismatched_features():
    with pytest.raises(ValueError, match="different numbers of anchor features"):
        emd_to_centroids([np.zeros((1, 2))], [np.zeros((1, 1))])
    with pytest.raises(ValueError, match=r"gammas\[1\]"):
        emd_to_centroids([np.zeros((1, 1)), np.zeros((0, 1))], [np.zeros((1, 1))])
