"""Per-site sampling and slot transfer against rendering every page, with the shipped general model.

For each dataset (default: christianbook and the sample shop), every page is rendered once (through the
render cache of the general model's config, so reruns are cheap) and predicted with the shipped general
model ("always"); then :func:`mainentity.slot_transfer.site.transfer_site` renders a sample of each
template, fits the slot locators and reads the other pages statically. Prints per dataset:

- the templates and the locators found; pages rendered (count and %);
- ROUGE-1 F1 and exact match against the labels of "always" and of slot transfer
  (:func:`mainentity.evaluation.metrics.score_page`);
- the agreement of the slot answers with the "always" answers (exact string equality);
- ms per page of the static part (clustering, static reading, locators) over all pages.

``--static rendered`` reads each page "statically" from its rendering (the renderer's text blocks stand
for the static reader's: the locators' logic alone, for when :mod:`mainentity.render.static` is absent);
``--static html`` (the default when it exists) uses :func:`mainentity.render.static.read_static`.

Usage::

    python benchmarks/slot_transfer.py [DATASET ...] [--static html|rendered] [--max-pages N]
"""

from __future__ import annotations

import argparse
import importlib.util
from statistics import mean

from mainentity.evaluation.metrics import score_page
from mainentity.loading import load_pages
from mainentity.model_store import load_trained_model
from mainentity.pipeline import iter_documents
from mainentity.slot_transfer.site import transfer_site

DEFAULT_DATASETS = ("../shared/datasets/swde-book-christianbook", "datasets/sample-shop")


def _scores(predictions, pages) -> tuple[float, float]:
    """Mean ROUGE-1 F1 and exact match of predictions against the labeled pages' labels."""
    rows = [score_page(p.main_entity, page.main_entity) for p, page in zip(predictions, pages, strict=True)
            if page.main_entity]
    return mean(r["rouge1_f"] for r in rows), mean(r["exact"] for r in rows)


def run_dataset(dataset: str, model, static: str, max_pages: int | None) -> None:
    loaded = load_pages([dataset], anchor_url_pattern=model.config.data.anchor_url_pattern)
    by_site: dict[str, list] = {}
    for page in loaded.pages:
        by_site.setdefault(page.site_id, []).append(page)
    for site_id, pages in sorted(by_site.items()):
        print(f"## {site_id} ({dataset}); static reading: {static}")
        run_site(pages[:max_pages], model, static, loaded.subresources)


def static_readers(static: str, documents: dict, sources) -> dict:
    """``transfer_site``'s readers: page -> its static reading (:func:`mainentity.render.static.read_static`)
    and (page, slot paths) -> its reading there only, as ``predict`` reads; or page -> its rendering."""
    if static == "html":
        from mainentity.render.static import read_static  # noqa: PLC0415 - optional until merged

        return {"read_static": lambda page: read_static(page, sources.for_page(page)),
                "read_within": lambda page, paths: read_static(page, sources.for_page(page), within=paths)}
    return {"read_static": lambda page: documents[(page.site_id, page.path)].rendered}


def run_site(pages, model, static: str, sources) -> None:
    documents = {(d.page.site_id, d.page.path): d for _, d, _ in
                 iter_documents(pages, needs_render=True, render=model.config.render, subresources=sources)
                 if d is not None}
    n_failed = len(pages) - len(documents)
    pages = [p for p in pages if (p.site_id, p.path) in documents]
    always = model.recognizer.predict([documents[(p.site_id, p.path)] for p in pages])
    transfer = transfer_site(pages, lambda ps: [documents[(p.site_id, p.path)] for p in ps],
                             model.recognizer.predict, **static_readers(static, documents, sources))
    slot_keys = [(p.site_id, p.path) for p in pages if (p.site_id, p.path) not in transfer.rendered]
    by_key = {(p.site_id, p.path): p for p in transfer.predictions}
    always_by_key = {(p.site_id, p.path): p for p in always}
    agree = sum(by_key[k].main_entity == always_by_key[k].main_entity for k in slot_keys)
    n = len(pages)
    print(f"- {n} pages ({n_failed} failed to render, left out)")
    for template in transfer.templates:
        locator = transfer.locators.get(template.key)
        what = ("all rendered (sample)" if len(template.pages) <= sum(
            (p.site_id, p.path) in transfer.sampled for p in template.pages) else "no locator" if locator is None else
                f"{len(locator.slots)} slot(s): " + "; ".join(f"{s.kind} {s.tag} h{s.heading_level} "
                                                              f"{s.font_size}px {s.font_weight}"
                                                              for s in locator.slots)
                + f", score {locator.score:.3f}, in_title {locator.in_title}")
        print(f"- template {template.key[1]}: {len(template.pages)} pages, {what}")
    print(f"- rendered: {len(transfer.rendered)} of {n} ({100 * len(transfer.rendered) / n:.1f}%), "
          f"first sample {len(transfer.sampled)}, later rounds and fallbacks "
          f"{len(transfer.rendered) - len(transfer.sampled)}; {transfer.n_rounds} round(s) of fitting")
    r_always, e_always = _scores(always, pages)
    r_slot, e_slot = _scores(transfer.predictions, pages)
    print(f"- always:        ROUGE-1 F1 {r_always:.4f}  exact {e_always:.4f}")
    print(f"- slot transfer: ROUGE-1 F1 {r_slot:.4f}  exact {e_slot:.4f}  "
          f"(difference {r_slot - r_always:+.4f} / {e_slot - e_always:+.4f})")
    print(f"- slot answers equal to the always answers: {agree} of {len(slot_keys)}"
          + (f" ({100 * agree / len(slot_keys):.2f}%)" if slot_keys else ""))
    seconds = transfer.cluster_seconds + transfer.static_seconds
    print(f"- static part: {1000 * seconds / n:.2f} ms per page ({seconds:.2f} s for {n} pages): clustering "
          f"{1000 * transfer.cluster_seconds / n:.2f}, static reading and locators "
          f"{1000 * transfer.static_seconds / n:.2f}\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("datasets", nargs="*", default=list(DEFAULT_DATASETS))
    has_static = importlib.util.find_spec("mainentity.render.static") is not None
    parser.add_argument("--static", choices=("html", "rendered"), default="html" if has_static else "rendered")
    parser.add_argument("--max-pages", type=int, default=None, help="first N pages of each site only")
    args = parser.parse_args(argv)
    model = load_trained_model(None)
    for dataset in args.datasets:
        run_dataset(dataset, model, args.static, args.max_pages)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
