"""How far the general recogniser's score can be trusted on sites it never saw.

For each leave-one-dataset-out protocol of ``configs/benchmark-cross-site.yaml`` (``lodo-<dataset>``: trained
on four of the five shared datasets, tested on the fifth), the general recogniser of ``configs/general.yaml``
is fitted on the training pages only (its calibrator on held-out folds of those pages: whole sites, or
with ``--folds datasets`` each training dataset in turn) and answers the test pages. Printed per protocol: ROUGE-1 F1
and exact match of the answers, their mean score, the expected calibration error (10 equal-width bins,
against exact match: :func:`mainentity.evaluation.metrics.expected_calibration_error`) and the wrong
answers scored >= 0.9.

With ``--methods``, the same held-out answers of the training pages (their signals of doubt,
:func:`mainentity.recognizers.doubt.doubt_signals`) fit each calibrator the recogniser offers
(``calibration``: isotonic regression on the score, Platt scaling of the score, a logistic regression on
all the signals, the same with counterfactual wrong answers), and the test pages are scored by each: the
choice of the default is made on these figures. ``--dump DIR`` keeps those signals per protocol
(``DIR/<protocol>.npz``).

Usage::

    python benchmarks/calibration.py [--folds datasets|sites] [--protocol LABEL ...] [--methods] [--dump DIR]
                                     [--out FILE.md]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from mainentity._files import write_text_atomic
from mainentity.config import load_benchmark_config, load_config
from mainentity.evaluation.metrics import expected_calibration_error, score_page
from mainentity.loading import load_run_pages, page_key
from mainentity.pipeline import RenderedDocuments, build_recognizer, render_all
from mainentity.recognizers.general import CALIBRATION_FOLDS

REPO = Path(__file__).resolve().parents[1]
CONFIG = REPO / "configs" / "general.yaml"
BENCHMARK = REPO / "configs" / "benchmark-cross-site.yaml"
PROTOCOLS = ("lodo-christianbook", "lodo-booksamillion", "lodo-readability", "lodo-fundus", "lodo-postlight")
METHODS = ("isotonic", "platt", "signals", "counterfactual")


def figures(scores, exact, f1) -> dict:
    """The protocol's row: pages, ROUGE-1 F1, exact match, mean score, ECE, wrong answers scored >= 0.9."""
    scores, exact = np.asarray(scores, dtype=float), np.asarray(exact, dtype=float)
    wrong_sure = int(np.sum((exact == 0) & (scores >= 0.9)))
    return {"n_pages": len(scores), "rouge1_f": float(np.mean(f1)), "exact": float(exact.mean()),
            "mean_score": float(scores.mean()), "ece": expected_calibration_error(scores, exact),
            "wrong_ge_0.9": f"{wrong_sure} of {int(np.sum(exact == 0))} ({wrong_sure / len(scores):.1%})"}


def run_protocol(folds, documents: dict, config, seed: int, methods: bool, calibration_folds: str,
                 ) -> tuple[dict, dict, dict]:
    """Fit and answer every fold; return the recogniser's figures, each method's, and the signals."""
    scores, exact, f1 = [], [], []
    by_method: dict = {method: [] for method in METHODS}
    dump: dict = {"train_signals": [], "train_correct": [], "train_counterfactual": [], "test_signals": [],
                  "test_correct": []}
    for train, test in folds:
        recognizer = build_recognizer(config).set_params(random_state=seed, calibration_folds=calibration_folds)
        recognizer.fit([documents[page_key(p)] for p in train if page_key(p) in documents])
        present = [documents[page_key(p)] for p in test if page_key(p) in documents]
        for document, prediction in zip(present, recognizer.predict(present), strict=True):
            row = score_page(prediction.main_entity, document.page.main_entity)
            scores.append(prediction.score)
            exact.append(row["exact"])
            f1.append(row["rouge1_f"])
        if methods:
            test_signals = recognizer.answer_signals(present)
            fold_exact = exact[len(exact) - len(present):]
            dump["train_signals"].append(recognizer.calibration_signals_)
            dump["train_correct"].append(recognizer.calibration_correct_)
            dump["train_counterfactual"].append(recognizer.calibration_counterfactual_)
            dump["test_signals"].append(test_signals)
            dump["test_correct"].append(np.array(fold_exact))
            for method in METHODS:
                calibrator = recognizer.set_params(calibration=method)._fit_calibrator(
                    recognizer.calibration_signals_, recognizer.calibration_correct_,
                    recognizer.calibration_counterfactual_)
                recognizer.calibrator_ = calibrator
                by_method[method] += [recognizer._probability(s) if np.isfinite(s).all() else 0.0
                                      for s in test_signals]
    per_method = {method: figures(by_method[method], exact, f1) for method in METHODS} if methods else {}
    return figures(scores, exact, f1), per_method, {key: np.concatenate(value) for key, value in dump.items()
                                                   if value}


def table(rows: dict) -> list[str]:
    """Markdown table of ``label -> figures``."""
    keys = ["n_pages", "rouge1_f", "exact", "mean_score", "ece", "wrong_ge_0.9"]
    lines = ["| | " + " | ".join(keys) + " |", "| --- |" + " ---: |" * len(keys)]
    for label, row in rows.items():
        lines.append(f"| {label} | " + " | ".join(f"{row[k]:.3f}" if isinstance(row[k], float) else str(row[k])
                                                  for k in keys) + " |")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--protocol", action="append", choices=PROTOCOLS, help="run only this protocol (repeatable)")
    parser.add_argument("--folds", choices=CALIBRATION_FOLDS, default="sites",
                        help="the calibrator's held-out folds (the recogniser's calibration_folds)")
    parser.add_argument("--methods", action="store_true", help="also score the test pages with each calibrator")
    parser.add_argument("--dump", type=Path, help="keep the held-out and test signals here (one .npz per protocol)")
    parser.add_argument("--out", type=Path, help="also write the tables to this Markdown file")
    args = parser.parse_args(argv)
    config = load_config(CONFIG)
    bench = load_benchmark_config(BENCHMARK)
    rows: dict = {}
    lines = ["# Calibration of the general recogniser on the cross-site protocol", "",
             f"`python benchmarks/calibration.py --folds {args.folds}" + (" --methods" if args.methods else "")
             + "`; ECE over 10 equal-width score bins against exact match; wrong_ge_0.9: wrong answers scored "
             ">= 0.9, of all wrong answers (share of all pages).", ""]
    for label, data in bench.datasets:
        if label not in (args.protocol or PROTOCOLS):
            continue
        run_pages = load_run_pages(data, random_state=bench.seed)
        pages = list({page_key(p): p for fold in run_pages.folds for part in fold for p in part}.values())
        documents, _ = render_all(pages, RenderedDocuments(config.render, run_pages.subresources), desc=label)
        documents = {page_key(document.page): document for document in documents}
        rows[label], per_method, dump = run_protocol(run_pages.folds, documents, config, bench.seed, args.methods,
                                                     args.folds)
        section = [f"## {label}", "", *table({"shipped configuration": rows[label],
                                               **{f"calibration={m}": r for m, r in per_method.items()}}), ""]
        print("\n".join(section), flush=True)
        lines += section
        if args.dump and dump:
            args.dump.mkdir(parents=True, exist_ok=True)
            np.savez(args.dump / f"{label.replace('>', '')}.npz", **dump)
    if args.out:
        write_text_atomic(args.out, "\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
