"""The shipped general model's answers and scores on the made-up pages of today's browsers, alone and in
their small sites: does the calibrated score flag the answers that are wrong?

    python benchmarks/lone_page_scores.py

The pages are those of ``tests/test_cases.py`` (shadow DOM docs, a heading split over block spans, a slide
deck as positioned text, code shown as text, two ``og:title`` metas, a careers page built by its script),
rendered with scripts off (render cache: the per-user one), answered first as a dump of their first page
alone (no site evidence), then as their whole small site. Prints one Markdown row per kind: the lone
answer, whether it is right, its score, and the scores of the site's answers.
"""

from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))

import test_cases  # noqa: E402

from mainentity.config import default_cache_dir  # noqa: E402
from mainentity.model_store import load_trained_model  # noqa: E402


def main() -> None:
    model = load_trained_model(None)
    cache = default_cache_dir()
    print("| pages | lone answer | right | lone score | site scores |")
    print("| --- | --- | --- | ---: | --- |")
    for make in (*test_cases.BROWSER_KINDS, test_cases.job_pages):
        pages = make()
        (alone,) = test_cases.answer(model, pages[:1], cache)
        site = test_cases.answer(model, pages, cache)
        right = alone.main_entity in pages[0].main_entity
        answer = alone.main_entity.replace("|", "\\|")  # a whole <title> holds the table's separator
        print(f"| {make.__name__} | {answer} | {'yes' if right else 'no'} | {alone.score:.3f} | "
              f"{', '.join(f'{p.score:.3f}' for p in site)} |")


if __name__ == "__main__":
    main()
