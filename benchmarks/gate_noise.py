"""The noise of the accuracy gate's figures: its fold scores under several deals of the sites into folds.

``tests/test_accuracy_gate.py`` trains the general recogniser on 5 folds of whole sites of the five shared datasets
(the shops cut to 150 pages each) and checks ROUGE-1 F1 and exact match per dataset against floors. Which sites
share a fold, and the recogniser's seed, move those figures; the floors sit under the measured values by the
range this script prints: the gate's :func:`fold_scores` for each seed (the deal and the recogniser's random
state), then per dataset the range over the seeds.

Usage (repository root, ``../shared`` beside it; about 5 minutes per seed on 2 cores, warm render cache)::

    python benchmarks/gate_noise.py [--seeds 0 1 2 3 4] [--render-cache DIR]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))

from test_accuracy_gate import DATASETS, fold_scores, gate_documents  # noqa: E402

from mainentity.config import default_cache_dir  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2, 3, 4])
    parser.add_argument("--render-cache", type=Path, default=Path(default_cache_dir()))
    parser.add_argument("--shared", type=Path, default=REPO.parent / "shared" / "datasets")
    args = parser.parse_args(argv)
    documents = gate_documents(args.shared, args.render_cache)
    scores = {}
    for seed in args.seeds:
        scores[seed] = fold_scores(documents, seed)
        print(f"seed {seed}: " + "  ".join(f"{short} {f1:.3f} / {exact:.3f}"
                                           for short, (f1, exact) in scores[seed].items()), flush=True)
    print("range over the seeds (ROUGE-1 F1, exact):")
    for short in DATASETS:
        f1s, exacts = [scores[s][short][0] for s in args.seeds], [scores[s][short][1] for s in args.seeds]
        print(f"  {short}: {max(f1s) - min(f1s):.3f} ({min(f1s):.3f}-{max(f1s):.3f}), "
              f"{max(exacts) - min(exacts):.3f} ({min(exacts):.3f}-{max(exacts):.3f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
