"""RBF units: activations, the p-means spreads, and the EMD-based k-means that places gamma centroids.

Carullo & Binaghi (2010), section 3.2; Moody & Darken (1989) for the RBF network and the p-means
(here pi-means, since p is the page) heuristic.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state

from mainentity.models.emd import PackedGammas, pack_gammas, pairwise_emd

#: Spreads below this are raised to it, so exp(-d / sigma) stays defined for coincident centroids.
MIN_SPREAD = 1e-6


def rbf_activations(distances: np.ndarray, spreads: np.ndarray) -> np.ndarray:
    """Activations exp(-d / sigma) of RBF units, with d the (not squared) distance to the centroid.

    Parameters
    ----------
    distances : ndarray of shape (n_samples, n_units)
        Distance of each sample to each unit's centroid (Euclidean for theta units, EMD for gamma units).
    spreads : ndarray of shape (n_units,)
        Spread sigma of each unit, > 0.

    Returns
    -------
    activations : ndarray of shape (n_samples, n_units)
        Values in (0, 1]; 1 at the centroid.

    Raises
    ------
    ValueError
        If the shapes do not match or a spread is not positive.

    References
    ----------
    .. [1] Carullo & Binaghi (2010), KDIR, section 3.2: phi_i(theta) = exp(-||theta - mu_i|| / sigma_i),
       psi_j(gamma) = exp(-emd(gamma, mu_j) / sigma_j).

    Examples
    --------
    >>> rbf_activations(np.array([[0.0, 1.0], [2.0, 0.5]]), np.array([1.0, 0.5]))
    array([[1.        , 0.13533528],
           [0.13533528, 0.36787944]])
    """
    distances = np.asarray(distances, dtype=np.float64)
    spreads = np.asarray(spreads, dtype=np.float64)
    if distances.ndim != 2 or spreads.shape != (distances.shape[1],):
        raise ValueError(
            f"distances must have shape (n_samples, n_units) and spreads (n_units,); "
            f"got {distances.shape} and {spreads.shape}"
        )
    if not (spreads > 0).all():
        raise ValueError(f"spreads must be > 0; got {spreads}")
    return np.exp(-distances / spreads)


def p_means_spreads(centroid_distances: np.ndarray, pi: int, min_spread: float = MIN_SPREAD) -> np.ndarray:
    """Spreads by the p-means heuristic: RMS distance from each centroid to its pi nearest others.

    sigma_i = sqrt(mean over the pi centroids j != i nearest to i of d(mu_i, mu_j)^2).

    When pi is at least the number of other centroids, all of them are used. A lone centroid has no
    neighbour to scale by and gets spread 1.0 (the scale of features in [0, 1]). Spreads below
    ``min_spread`` (coincident centroids) are raised to it.

    Parameters
    ----------
    centroid_distances : ndarray of shape (n_units, n_units)
        Symmetric distances between the centroids (Euclidean, or EMD for gamma centroids).
    pi : int
        Number of nearest neighbours, >= 1.
    min_spread : float, default 1e-6
        Floor of the spreads, > 0.

    Returns
    -------
    spreads : ndarray of shape (n_units,)
        Spreads sigma_i >= ``min_spread``.

    Raises
    ------
    ValueError
        If the matrix is not square and non-empty, ``pi < 1`` or ``min_spread <= 0``.

    References
    ----------
    .. [1] Moody & Darken (1989), Neural Computation 1, 281-294 (the p nearest-neighbour heuristic).
    .. [2] Carullo & Binaghi (2010), KDIR, section 3.2, training phase 1.

    Examples
    --------
    >>> centroids = np.array([0.0, 1.0, 3.0])
    >>> p_means_spreads(np.abs(np.subtract.outer(centroids, centroids)), pi=1)
    array([1., 1., 2.])
    """
    distances = np.asarray(centroid_distances, dtype=np.float64)
    if distances.ndim != 2 or distances.shape[0] != distances.shape[1] or distances.shape[0] == 0:
        raise ValueError(f"centroid_distances must be a non-empty square matrix; got shape {distances.shape}")
    if pi < 1:
        raise ValueError(f"pi must be >= 1; got {pi}")
    if min_spread <= 0:
        raise ValueError(f"min_spread must be > 0; got {min_spread}")
    n_units = distances.shape[0]
    if n_units == 1:
        return np.ones(1)
    others = distances[~np.eye(n_units, dtype=bool)].reshape(n_units, n_units - 1)
    nearest = np.sort(others, axis=1)[:, : min(pi, n_units - 1)]
    return np.maximum(np.sqrt(np.mean(nearest**2, axis=1)), min_spread)


def emd_kmeans(
    gammas: PackedGammas | Sequence,
    n_clusters: int,
    sample_weight: np.ndarray | None = None,
    max_iter: int = 100,
    max_candidates: int = 256,
    random_state=None,
) -> tuple[np.ndarray, np.ndarray, int]:
    """EMD-based k-means (k-medoids) of gamma sets: each centroid is the medoid of its cluster.

    The centroid of a cluster of sets is its medoid, the member set with the least weighted sum of EMDs
    to the other members, rather than a Wasserstein barycenter: a medoid is an observed set (works in
    any number of anchor features and is cheap to store), and finding it needs only the EMDs that the
    assignment step uses anyway, where a free-support barycenter solves an optimal-transport problem
    per member per iteration. Lloyd-style iterations: assign each set to its nearest medoid, then move
    each medoid; stop when the medoids no longer change. Seeding is k-means++ with the EMD. A cluster
    with more than ``max_candidates`` members draws that many random candidates (plus the current
    medoid) instead of trying all members, keeping an iteration linear in the number of sets.

    Parameters
    ----------
    gammas : PackedGammas or sequence of array-like of shape (n_anchors_i, n_anchor_features)
        The sets to cluster (typically the distinct ones from :func:`~mainentity.models.emd.unique_gammas`).
    n_clusters : int
        K = M2, 1 <= K <= n_sets.
    sample_weight : ndarray of shape (n_sets,), optional
        Weight of each set (e.g. how many blocks have it); default all 1.
    max_iter : int, default 100
        Maximum number of assignment/update iterations.
    max_candidates : int, default 256
        Most candidate medoids tried per cluster and iteration.
    random_state : int, RandomState or None
        Seeds the k-means++ draws and the candidate samples.

    Returns
    -------
    medoids : ndarray of int, shape (n_clusters,)
        Index in ``gammas`` of each cluster's medoid.
    labels : ndarray of int, shape (n_sets,)
        Cluster of each set (its nearest medoid).
    n_iter : int
        Iterations run (assignment and medoid update), in [1, max_iter].

    Raises
    ------
    ValueError
        If ``n_clusters`` is not in [1, n_sets], a weight is negative or all are 0, or ``max_iter`` or
        ``max_candidates`` < 1.

    Warns
    -----
    ConvergenceWarning
        If the medoids still moved at ``max_iter``.

    References
    ----------
    .. [1] Carullo & Binaghi (2010), KDIR, section 3.2, training phase 1 ("an EMD-based K-Means").
    .. [2] Arthur & Vassilvitskii (2007), k-means++: the advantages of careful seeding.

    Examples
    --------
    >>> sets = [[[0.0]], [[0.1]], [[0.0], [0.2]], [[1.0]], [[0.9], [1.0]]]
    >>> medoids, labels, n_iter = emd_kmeans(sets, 2, random_state=0)
    >>> labels.tolist() in ([0, 0, 0, 1, 1], [1, 1, 1, 0, 0])
    True
    """
    packed = gammas if isinstance(gammas, PackedGammas) else pack_gammas(gammas)
    n_sets = len(packed)
    if not 1 <= n_clusters <= n_sets:
        raise ValueError(f"n_clusters must be in [1, {n_sets}] (the number of sets); got {n_clusters}")
    if max_iter < 1 or max_candidates < 1:
        raise ValueError(f"max_iter and max_candidates must be >= 1; got {max_iter} and {max_candidates}")
    weight = np.ones(n_sets) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    if weight.shape != (n_sets,) or (weight < 0).any() or weight.sum() <= 0:
        raise ValueError("sample_weight must have one non-negative weight per set, not all 0")
    rng = check_random_state(random_state)
    medoids = _kmeans_plus_plus(packed, n_clusters, weight, rng)
    for n_iter in range(1, max_iter + 1):
        labels = pairwise_emd(packed, packed.take(medoids)).argmin(axis=1)
        moved = medoids.copy()
        for cluster in range(n_clusters):
            members = np.flatnonzero(labels == cluster)
            if len(members) == 0:
                continue
            candidates = members
            if len(members) > max_candidates:
                candidates = rng.choice(members, max_candidates, replace=False)
            # The current medoid first, so that it stays on ties and the iteration settles.
            candidates = np.concatenate([[medoids[cluster]], candidates[candidates != medoids[cluster]]])
            cost = pairwise_emd(packed.take(candidates), packed.take(members)) @ weight[members]
            moved[cluster] = candidates[np.argmin(cost)]
        if np.array_equal(moved, medoids):
            return medoids, labels, n_iter
        medoids = moved
    warnings.warn(
        f"EMD k-means did not converge in max_iter={max_iter} iterations", ConvergenceWarning, stacklevel=2
    )
    return medoids, pairwise_emd(packed, packed.take(medoids)).argmin(axis=1), max_iter


def _kmeans_plus_plus(packed: PackedGammas, n_clusters: int, weight: np.ndarray, rng) -> np.ndarray:
    """k-means++ seeding with the EMD: each next seed drawn with probability ~ weight * d^2."""
    medoids = [rng.choice(len(packed), p=weight / weight.sum())]
    closest = pairwise_emd(packed.take(medoids), packed)[0]
    for _ in range(1, n_clusters):
        score = weight * closest**2
        if score.sum() > 0:
            seed = rng.choice(len(packed), p=score / score.sum())
        else:  # every set coincides with a seed already: take any other set
            seed = rng.choice(np.setdiff1d(np.arange(len(packed)), medoids))
        medoids.append(seed)
        closest = np.minimum(closest, pairwise_emd(packed.take([seed]), packed)[0])
    return np.array(medoids, dtype=np.intp)
