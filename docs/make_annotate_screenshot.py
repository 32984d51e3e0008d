"""Make ``docs/annotate.png``: `mainentity annotate` on the sample shop with the shipped general model.

    python docs/make_annotate_screenshot.py [-o docs/annotate.png]

The sample shop's site dump is copied to a temporary directory and its labels are emptied there (the
committed manifest is never touched); the general model answers every page; the app is served on a
free loopback port and driven with Debian's Chromium: the three least confident pages are accepted
with Enter, then the model's answer block of the fourth is clicked. The window is saved as a 256-colour PNG.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))

from annotate_browser import app_in_chromium, shown_path  # noqa: E402

from mainentity.annotate.session import AnnotationSession, predict_answers  # noqa: E402
from mainentity.model_store import load_trained_model  # noqa: E402

SITE = REPO / "datasets" / "sample-shop" / "sites" / "sample-shop"


def unlabeled_copy(target: Path) -> Path:
    """A copy of the sample shop whose manifest keeps every line but no label."""
    site = target / "sample-shop"
    shutil.copytree(SITE, site)
    lines = []
    for line in (site / "manifest.jsonl").read_text(encoding="utf-8").splitlines():
        entry = json.loads(line)
        entry["main_entity"], entry["label_in_page"] = [], False
        lines.append(json.dumps(entry, ensure_ascii=False))
    (site / "manifest.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return site


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-o", "--output", default=str(REPO / "docs" / "annotate.png"))
    args = parser.parse_args(argv)
    from PIL import Image

    with tempfile.TemporaryDirectory() as tmp:
        site = unlabeled_copy(Path(tmp))
        model = load_trained_model(None)
        answers = predict_answers(None, site, tmp)
        session = AnnotationSession(site, render=model.config.render, answers=answers, model_name="general")
        shot = Path(tmp) / "window.png"
        with app_in_chromium(session) as (_, _, page, foreign):
            page.set_viewport_size({"width": 1400, "height": 860})
            for _ in range(3):
                path = shown_path(page)
                page.keyboard.press("Enter")
                page.wait_for_function("p => document.body.dataset.page !== p", arg=path)
            path = shown_path(page)
            answer = answers[path].text
            box = page.locator(f"#boxes .box:not(.model)[title={json.dumps(answer)}]").first.bounding_box()
            page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
            page.screenshot(path=str(shot))
        if foreign:
            raise RuntimeError(f"the app requested something else than itself: {foreign}")
        with Image.open(shot) as image:
            image.convert("RGB").quantize(256).save(args.output, optimize=True)
    print(f"wrote {args.output} ({Path(args.output).stat().st_size // 1024} KiB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
