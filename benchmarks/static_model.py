"""The static general model: the general recogniser trained on pages read without a browser.

"Render few, read many": a page is read from its HTML alone (:func:`mainentity.render.static.read_static`,
no layout, boxes ``nan``) and answered by a general recogniser trained on such static documents of the
same labeled pages as the shipped model (``configs/general-static.yaml``: the data and parameters of
``configs/general.yaml``). Its calibrated score says how likely that answer is right; only a page whose
score is below a threshold needs the browser. This script measures that, and ships the model.

For each leave-one-dataset-out protocol of ``configs/benchmark-cross-site.yaml`` (``lodo-<dataset>``: trained
on four of the five shared datasets, tested on the fifth; the shops on a seeded 150-page sample, their pages
answered as pages of one site), the general recogniser is fitted on the static
documents of the training pages and, alongside, on their renderings (render cache: Chromium starts only
for pages not in it), and answers the test pages each way. Printed per protocol:

- ROUGE-1 F1 and exact match of the static and the rendered answers against the labels
  (:mod:`mainentity.evaluation.metrics`, best label alternative);
- the coverage/accuracy curve of the static answers' calibrated score: for each threshold ``t``, the
  share of pages with score >= ``t`` (answered statically), F1 and exact match of those pages' static
  answers against the rendered model's answers and against the labels, and F1 and exact match over all
  pages when those below ``t`` take the rendered answer (``mixed``); ``loss`` is the rendered F1 minus
  the mixed F1;
- the same at the shipped ``static_threshold`` (:class:`mainentity.render_few.RenderFewSettings`) for each
  ``static_margin`` ``m``: a page stands on its static answer when its score reaches the threshold or its
  answer's lead over the runner-up (``margin``, log-odds) reaches ``m``; ``mixed ECE`` is the expected
  calibration error of the mixed answers' scores (the static model's calibrated score where the static answer
  stands, the rendered model's where the page is rendered) against exact match.

A page whose static read failed has no static answer (always rendered); one whose rendering failed has
an empty rendered answer (wrong). The shipped static model itself is built by the one training path:
``python train.py configs/general-static.yaml --ship`` (``render.reader: static``).

Usage::

    python benchmarks/static_model.py [--protocol LABEL ...] [--out FILE.md]

runs every protocol, or those named.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from mainentity._files import write_text_atomic
from mainentity.config import Config, load_benchmark_config, load_config
from mainentity.evaluation.metrics import exact_match, expected_calibration_error, rouge1, score_page
from mainentity.loading import load_run_pages, page_key
from mainentity.pipeline import build_recognizer, iter_documents
from mainentity.recognizers.doubt import DOUBT_SIGNALS
from mainentity.records import Document, Page
from mainentity.render.static import read_static
from mainentity.render_few import RenderFewSettings
from mainentity.sitedump import SubresourceSources

REPO = Path(__file__).resolve().parents[1]
CONFIG = REPO / "configs" / "general-static.yaml"
BENCHMARK = REPO / "configs" / "benchmark-cross-site.yaml"
PROTOCOLS = ("lodo-christianbook", "lodo-booksamillion", "lodo-readability", "lodo-fundus", "lodo-postlight")
THRESHOLDS = (0.0, 0.5, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95, 0.99)
MARGINS = (2.0, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0, float("inf"))


@dataclass(frozen=True)
class PageResult:
    """One test page of a protocol: its labels, its static answer and score, its rendered answer."""

    labels: tuple[str, ...]
    static: str
    score: float  # calibrated; nan when the static read failed
    margin: float  # the static answer's lead over the runner-up (log-odds); nan when the static read failed
    rendered: str
    rendered_score: float  # the rendered model's calibrated score; 0 when the rendering failed


def static_documents(pages: Sequence[Page], sources: SubresourceSources) -> tuple[dict, list[float]]:
    """Static documents by page key (pages whose read failed left out), and each read's CPU time (ms)."""
    documents, times = {}, []
    for page in pages:
        start = time.process_time()
        try:
            documents[page_key(page)] = Document(page, read_static(page, sources.for_page(page)))
        except ValueError as error:
            print(f"static read failed: {error}", file=sys.stderr)
        times.append((time.process_time() - start) * 1000)
    return documents, times


def rendered_documents(pages: Sequence[Page], config: Config, sources: SubresourceSources) -> dict:
    """Rendered documents by page key (through the render cache; failed pages left out)."""
    return {page_key(page): document
            for page, document, _ in iter_documents(pages, needs_render=True, render=config.render,
                                                    subresources=sources)
            if document is not None}


def fitted(config: Config, documents: dict, pages: Sequence[Page], seed: int, **override):
    """The configured general recogniser fitted on the documents of ``pages`` that it has."""
    recognizer = build_recognizer(config).set_params(random_state=seed, **override)
    return recognizer.fit([documents[page_key(page)] for page in pages if page_key(page) in documents])


def answers(recognizer, documents: dict, pages: Sequence[Page]) -> dict:
    """``page key -> (answer, score, margin)`` of the test pages the recogniser has documents of (one call)."""
    present = [documents[page_key(page)] for page in pages if page_key(page) in documents]
    predictions, signals = recognizer.predict_with_signals(present)
    margins = signals[:, DOUBT_SIGNALS.index("margin")]
    return {page_key(document.page): (prediction.main_entity, prediction.score, float(margin))
            for document, prediction, margin in zip(present, predictions, margins, strict=True)}


def run_protocol(folds, config: Config, static: dict, rendered: dict, seed: int) -> list[PageResult]:
    """Every test page of a protocol's folds, answered by the static and the rendered model."""
    results = []
    for train, test in folds:
        static_answers = answers(fitted(config, static, train, seed), static, test)
        rendered_answers = answers(fitted(config, rendered, train, seed), rendered, test)
        for page in test:
            answer, score, margin = static_answers.get(page_key(page), ("", float("nan"), float("nan")))
            rendered_answer, rendered_score, _ = rendered_answers.get(page_key(page), ("", 0.0, float("nan")))
            results.append(PageResult(page.main_entity, answer, score, margin, rendered_answer, rendered_score))
    return results


def label_scores(answers_: Sequence[str], results: Sequence[PageResult]) -> tuple[float, float]:
    """Mean ROUGE-1 F1 and exact match of answers against the pages' labels (nan for no page)."""
    if not results:
        return float("nan"), float("nan")
    scores = [score_page(answer, result.labels) for answer, result in zip(answers_, results, strict=True)]
    return float(np.mean([s["rouge1_f"] for s in scores])), float(np.mean([s["exact"] for s in scores]))


def threshold_rows(results: Sequence[PageResult]) -> list[dict]:
    """The coverage/accuracy curve of the static score (see the module docstring), one row per threshold."""
    return [{"t": threshold, **gate_row(results, threshold, float("inf"))} for threshold in THRESHOLDS]


def margin_rows(results: Sequence[PageResult], threshold: float) -> list[dict]:
    """The same at ``threshold`` for each static margin of :data:`MARGINS`, one row per margin."""
    return [{"m": margin, **gate_row(results, threshold, margin)} for margin in MARGINS]


def gate_row(results: Sequence[PageResult], threshold: float, margin: float) -> dict:
    """Coverage and scores when a page stands on its static answer at ``score >= threshold`` or
    ``margin >= margin`` (nan, no static answer, reaches neither) and the others take the rendered one."""
    rendered_f1, rendered_exact = label_scores([r.rendered for r in results], results)
    stands = [r.score >= threshold or r.margin >= margin for r in results]
    static = [r for r, kept in zip(results, stands, strict=True) if kept]
    mixed = [r.static if kept else r.rendered for r, kept in zip(results, stands, strict=True)]
    mixed_scores = [r.score if kept else r.rendered_score for r, kept in zip(results, stands, strict=True)]
    f1, exact = label_scores([r.static for r in static], static)
    mixed_f1, mixed_exact = label_scores(mixed, results)
    mixed_right = [score_page(answer, r.labels)["exact"] for answer, r in zip(mixed, results, strict=True)]
    return {"coverage": len(static) / len(results), "mixed_ece": expected_calibration_error(mixed_scores, mixed_right),
            "agree_f1": float(np.mean([rouge1(r.static, r.rendered)[2] for r in static])) if static else np.nan,
            "agree_exact": float(np.mean([exact_match(r.static, r.rendered) for r in static])) if static else np.nan,
            "f1": f1, "exact": exact, "mixed_f1": mixed_f1, "mixed_exact": mixed_exact,
            "loss_f1": rendered_f1 - mixed_f1, "loss_exact": rendered_exact - mixed_exact}


def report(label: str, results: Sequence[PageResult]) -> list[str]:
    """Markdown lines of one protocol: static and rendered scores, then the threshold table."""
    static_f1, static_exact = label_scores([r.static for r in results], results)
    rendered_f1, rendered_exact = label_scores([r.rendered for r in results], results)
    lines = [f"## {label}", "",
             f"{len(results)} test pages; ROUGE-1 F1 / exact match against the labels: static "
             f"{static_f1:.3f} / {static_exact:.3f}, rendered {rendered_f1:.3f} / {rendered_exact:.3f}; "
             f"{sum(np.isnan(r.score) for r in results)} static reads failed.", "",
             "| t | static share | F1 vs rendered | exact vs rendered | F1 | exact | mixed F1 | mixed exact "
             "| F1 loss | exact loss |",
             "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for row in threshold_rows(results):
        lines.append("| " + " | ".join(f"{row[key]:.3f}" if key != "t" else f"{row[key]:.2f}" for key in (
            "t", "coverage", "agree_f1", "agree_exact", "f1", "exact", "mixed_f1", "mixed_exact", "loss_f1",
            "loss_exact")) + " |")
    threshold = RenderFewSettings().static_threshold
    lines += ["", f"At the shipped static threshold {threshold:.2f}, a page also standing on its static answer when "
              "its margin reaches m:", "",
              "| m | static share | F1 vs rendered | exact vs rendered | mixed F1 | mixed exact | F1 loss "
              "| exact loss | mixed ECE |",
              "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for row in margin_rows(results, threshold):
        lines.append("| " + " | ".join(f"{row[key]:.3f}" if key != "m" else f"{row[key]:g}" for key in (
            "m", "coverage", "agree_f1", "agree_exact", "mixed_f1", "mixed_exact", "loss_f1", "loss_exact",
            "mixed_ece")) + " |")
    return [*lines, ""]


def lowest_margin(results_by_protocol: dict[str, Sequence[PageResult]], threshold: float,
                  max_loss: float = 0.005, max_ece: float = 0.05) -> float:
    """How ``static_margin`` is chosen: the lowest margin of :data:`MARGINS` at which, on every protocol given,
    the mixed answers lose at most ``max_loss`` ROUGE-1 F1 against rendering every page, and their scores' ECE
    stays at most ``max_ece`` or, where the threshold alone gives more, no higher than that (``inf`` when no
    margin does): a static answer scored under the threshold keeps the static model's score, and the
    render-few answers' scores must stay as calibrated as they were."""
    bounds = [(results, max(max_ece, gate_row(results, threshold, float("inf"))["mixed_ece"]))
              for results in results_by_protocol.values()]  # each protocol's ECE bound, from the threshold alone

    def holds(margin: float) -> bool:
        rows = [(gate_row(results, threshold, margin), bound) for results, bound in bounds]
        return all(row["loss_f1"] <= max_loss and row["mixed_ece"] <= bound for row, bound in rows)

    return next((margin for margin in MARGINS if holds(margin)), float("inf"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--protocol", action="append", choices=PROTOCOLS, help="run only this protocol (repeatable)")
    parser.add_argument("--out", type=Path, help="also write the tables to this Markdown file")
    args = parser.parse_args(argv)
    config = load_config(CONFIG)
    bench = load_benchmark_config(BENCHMARK)
    results_by_protocol: dict[str, list[PageResult]] = {}
    lines = ["# The static general model on the cross-site protocol", "",
             f"`python benchmarks/static_model.py{' --out ' + str(args.out) if args.out else ''}`; thresholds on "
             "the static model's calibrated score; mixed: pages below the threshold take the rendered answer.", ""]
    for label, data in bench.datasets:
        if label not in (args.protocol or PROTOCOLS):
            continue
        run_pages = load_run_pages(data, random_state=bench.seed)
        folds = run_pages.folds
        pages = list({page_key(p): p for fold in folds for part in fold for p in part}.values())
        static, _ = static_documents(pages, run_pages.subresources)
        rendered = rendered_documents(pages, config, run_pages.subresources)
        results_by_protocol[label] = run_protocol(folds, config, static, rendered, bench.seed)
        table = report(label, results_by_protocol[label])
        print("\n".join(table), flush=True)
        lines += table
    threshold = RenderFewSettings().static_threshold
    pick = (f"The static margin by the rule (within 0.005 ROUGE-1 F1 of rendering every page, the mixed scores' ECE "
            f"at most 0.05 or no higher than the threshold alone gives, on every protocol run; threshold "
            f"{threshold:.2f}): {lowest_margin(results_by_protocol, threshold):g} (shipped: "
            f"{RenderFewSettings().static_margin:g}).")
    print(pick)
    lines += [pick, ""]
    if args.out:
        write_text_atomic(args.out, "\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
