"""Where the shared datasets' labels disagree on titles the page does not show, and what training makes of it.

Two tables per run, over the labeled pages of each dataset as the renderer reads them (render cache):

1. **Worded apart.** Pages whose first visible ``<h1>`` (not in a link) and one of their titles (``<title>``,
   ``og:title``/``twitter:title``, or a segment a delimiter cuts from one) state the same story in other words:
   token Dice at least 0.3, neither text holding the other. Which of the two do the labels follow (a label
   equal to the text, or within token Dice 0.8 of it, as
   :func:`~mainentity.features.labels.main_entity_labels` matches)?
2. **Training labels.** Pages whose labeled candidates
   (:func:`~mainentity.features.candidates.page_candidates`) include a title the page does not show, and what
   :func:`~mainentity.features.labels.shown_main_entity_labels` does with them: only the shown candidates stay
   labeled (the page shows a label too), the label moves to the visible ``<h1>`` that states it, or the
   unshown title stays (no visible heading states it).

Usage (repository root, ``../shared`` beside it or its ``datasets`` folder in ``MAINENTITY_DATASETS``; a few
minutes on a warm render cache)::

    python benchmarks/label_conventions.py [DATASET ...] [--out FILE.md]
"""

from __future__ import annotations

import argparse
import os
from collections import Counter
from pathlib import Path

import numpy as np

from mainentity.config import RenderConfig
from mainentity.features.anchortext import dice_matrix
from mainentity.features.candidates import is_unshown_title, page_candidates, title_strings
from mainentity.features.labels import main_entity_labels, shown_main_entity_labels
from mainentity.features.title_segments import split_title
from mainentity.loading import load_pages
from mainentity.pipeline import iter_documents
from mainentity.text import normalize_text

REPO = Path(__file__).resolve().parents[1]
#: The shared labeled datasets: ``../shared/datasets`` beside the repository unless ``MAINENTITY_DATASETS`` names
#: another folder.
SHARED = Path(os.environ.get("MAINENTITY_DATASETS", REPO.parent / "shared" / "datasets"))
DEFAULT_DATASETS = tuple(str(SHARED / name) for name in (
    "swde-book-christianbook", "swde-book-booksamillion", "readability-realworld", "fundus-half", "postlight-half"))
#: Least token Dice between the ``<h1>`` and a title for the two to state the same story.
MIN_SAME_STORY = 0.3


def worded_apart(rendered) -> tuple[str, str] | None:
    """The first visible ``<h1>`` and the title text that states its story in other words (best token Dice >=
    :data:`MIN_SAME_STORY`, neither holding the other), or ``None``."""
    h1 = next((b.text for b in rendered.blocks if b.heading_level == 1 and not b.hidden and not b.in_link
               and b.text.strip()), None)
    if h1 is None:
        return None
    wordings = list(dict.fromkeys(t for title in title_strings(rendered) for t in (title, *split_title(title))))
    key = normalize_text(h1)
    wordings = [w for w in wordings if normalize_text(w) not in key and key not in normalize_text(w)]
    if not wordings:
        return None
    dice = dice_matrix([h1], wordings)[0]
    best = int(np.argmax(dice))
    return (h1, wordings[best]) if dice[best] >= MIN_SAME_STORY else None


def follows(text: str, labels) -> bool:
    """Whether the labels name ``text`` (equal after normalisation, or token Dice >= 0.8)."""
    return bool(main_entity_labels([text], labels)[0])


def training_label_kind(candidates, labels) -> str | None:
    """What :func:`shown_main_entity_labels` does on a page whose labels include an unshown title, else ``None``."""
    y = main_entity_labels([c.text for c in candidates], labels)
    unshown = np.array([is_unshown_title(c) for c in candidates], dtype=bool)
    if not (y & unshown).any():
        return None
    if (y & ~unshown).any():
        return "shown label kept, unshown title unlabeled"
    moved = shown_main_entity_labels(candidates, y, labels)
    return "moved to the visible <h1>" if (moved & ~unshown).any() else "unshown title kept (no heading states it)"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("datasets", nargs="*", default=DEFAULT_DATASETS)
    parser.add_argument("--out", type=Path, help="also write the tables to this Markdown file")
    args = parser.parse_args(argv)
    apart_rows, training_rows = [], []
    kinds = ("shown label kept, unshown title unlabeled", "moved to the visible <h1>",
             "unshown title kept (no heading states it)")
    for dataset in args.datasets:
        loaded = load_pages([dataset])
        pages = [page for page in loaded.pages if page.main_entity]
        apart, training = Counter(), Counter()
        for page, document, _ in iter_documents(pages, needs_render=True, render=RenderConfig(),
                                                subresources=loaded.subresources):
            if document is None:
                continue
            pair = worded_apart(document.rendered)
            if pair is not None:
                h1, title = (follows(text, page.main_entity) for text in pair)
                apart[{(True, False): "h1", (False, True): "title", (True, True): "both"}.get((h1, title),
                                                                                             "neither")] += 1
            kind = training_label_kind(page_candidates(document.rendered), page.main_entity)
            if kind is not None:
                training[kind] += 1
        name = Path(dataset).name
        apart_rows.append(f"| {name} | {len(pages)} | {sum(apart.values())} | "
                          + " | ".join(str(apart[k]) for k in ("h1", "title", "both", "neither")) + " |")
        training_rows.append(f"| {name} | {len(pages)} | " + " | ".join(str(training[k]) for k in kinds) + " |")
    lines = ["Pages whose first visible `<h1>` and a title word the same story apart: which one the labels follow.",
             "", "| dataset | labeled pages | worded apart | labels follow the h1 | the title | both | neither |",
             "| --- | ---: | ---: | ---: | ---: | ---: | ---: |", *apart_rows, "",
             "Pages labeled on a title they do not show, and the training labels `shown_main_entity_labels` gives.",
             "", "| dataset | labeled pages | " + " | ".join(kinds) + " |", "| --- | ---: | ---: | ---: | ---: |",
             *training_rows]
    print("\n".join(lines))
    if args.out:
        heading = ["# Label conventions of the shared datasets", "",
                   "`python benchmarks/label_conventions.py` (labeled pages as Chromium renders them).", ""]
        args.out.write_text("\n".join(heading + lines) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
