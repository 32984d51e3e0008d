"""`mainentity annotate` end to end: Debian's Chromium drives the app, the manifest on disk is checked."""

from __future__ import annotations

import json
import math
import shutil

import pytest
from annotate_browser import app_in_chromium, shown_path, wait_for_page
from conftest import SAMPLE_SHOP

from mainentity.config import RenderConfig

pytest.importorskip("starlette", reason="annotate needs the annotate extra: pip install 'mainentity[annotate]'")

from mainentity.annotate.session import AnnotationSession, predict_answers  # noqa: E402

pytestmark = pytest.mark.browser

SITE = SAMPLE_SHOP / "sites" / "sample-shop"
PAGES = {
    "pages/index.html": "Harbor Lane Goods",
    "pages/p/ashgrove-enamel-kettle.html": "Ashgrove Enamel Kettle",
    "pages/p/saltmarsh-stoneware-mugs-set-of-4.html": "Saltmarsh Stoneware Mugs, Set of 4",
    "pages/p/bread-butter-board-oiled-walnut.html": "Bread & Butter Board: Oiled Walnut",
}


@pytest.fixture
def dump(tmp_path):
    """The sample shop's files with a manifest of four unlabeled pages, one bad line and unknown fields."""
    site = tmp_path / "shop"
    shutil.copytree(SITE, site)
    lines = [json.dumps({"path": path, "url": f"https://shop.example/{path.removeprefix('pages/')}",
                         "main_entity": [], "reviewer": {"id": 7}}) for path in PAGES]
    lines.insert(2, "{not json")
    (site / "manifest.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return site


def manifest(site) -> dict[str, dict]:
    entries = {}
    for line in (site / "manifest.jsonl").read_text(encoding="utf-8").splitlines():
        if line != "{not json":
            entry = json.loads(line)
            entries[entry["path"]] = entry
    return entries


def click_box(page, text: str) -> None:
    """Click the middle of the outlined text block whose text is ``text``, as a person would."""
    outline = page.locator(f"#boxes .box:not(.model)[title={json.dumps(text)}]").first
    for _ in range(100):  # the outlines are drawn anew when a write is answered: find the current one
        box = outline.bounding_box()
        if box is not None:
            break
        page.wait_for_timeout(20)
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)


def drag_select(page, selector: str, start: int, end: int) -> None:
    """Select characters [start, end) of an element's text by dragging the mouse over them."""
    x1, y1, x2, y2 = page.evaluate(
        """([selector, start, end]) => {
            const node = document.querySelector(selector).firstChild;
            const range = document.createRange();
            range.setStart(node, start); range.setEnd(node, start + 1);
            const a = range.getBoundingClientRect();
            range.setStart(node, end - 1); range.setEnd(node, end);
            const b = range.getBoundingClientRect();
            return [a.left + 1, (a.top + a.bottom) / 2, b.right - 1, (b.top + b.bottom) / 2];
        }""",
        [selector, start, end],
    )
    page.mouse.move(x1, y1)
    page.mouse.down()
    page.mouse.move(x2, y2, steps=8)
    page.mouse.up()


def wait_saved(tab, site, path, check, timeout_s: float = 15.0) -> dict:
    """Poll the manifest until ``check(entry)`` holds for the page: the tab sends its writes in the
    background, and waiting through Playwright lets the request guard of :func:`open_app` pass them."""
    for _ in range(int(timeout_s / 0.05)):
        entry = manifest(site)[path]
        if check(entry):
            return entry
        tab.wait_for_timeout(50)
    raise AssertionError(f"{path}: manifest entry {entry} never satisfied the check; the app says "
                         f"{tab.text_content('#message')!r}")


def test_click_select_type_keys_and_undo_write_the_manifest(dump, render_cache_dir):
    paths = list(PAGES)
    session = AnnotationSession(dump, render=RenderConfig(cache_dir=str(render_cache_dir)))
    with app_in_chromium(session) as (url, _, page, foreign):
        # 1. clicking a block makes its text the label; Enter saves it and moves on
        assert shown_path(page) == paths[0]
        assert page.input_value("#label-input") == ""
        click_box(page, PAGES[paths[0]])
        assert page.input_value("#label-input") == PAGES[paths[0]]
        page.keyboard.press("Enter")
        entry = wait_saved(page, dump, paths[0], lambda e: e["main_entity"])
        assert entry["main_entity"] == [PAGES[paths[0]]] and entry["label_in_page"] is True
        assert entry["reviewer"] == {"id": 7} and entry["url"] == "https://shop.example/index.html"

        # 2. selecting part of a block's text labels that part; `a` adds alternatives
        wait_for_page(page, paths[1])
        click_box(page, "Ashgrove Enamel Kettle")
        assert page.text_content("#block-text") == "Ashgrove Enamel Kettle"
        drag_select(page, "#block-text", len("Ashgrove "), len("Ashgrove Enamel Kettle"))
        assert page.input_value("#label-input") == "Enamel Kettle"
        page.keyboard.press("a")
        click_box(page, "Ashgrove Enamel Kettle")  # while the first is being written: keys queue up
        page.keyboard.press("a")
        wait_saved(page, dump, paths[1], lambda e: e["main_entity"] == ["Enamel Kettle", "Ashgrove Enamel Kettle"])
        page.wait_for_selector("#label-list li:nth-child(2)")
        page.keyboard.press("j")

        # 3. `s` skips
        wait_for_page(page, paths[2])
        page.keyboard.press("s")
        entry = wait_saved(page, dump, paths[2], lambda e: e.get("skipped") is True)
        assert entry["main_entity"] == []

        # 4. typing an alternative in the text box; Enter there saves it
        wait_for_page(page, paths[3])
        page.fill("#label-input", "  Bread &  Butter Board ")
        page.press("#label-input", "Enter")
        wait_saved(page, dump, paths[3], lambda e: e["main_entity"] == ["Bread & Butter Board"])
        page.wait_for_function("() => document.getElementById('progress-text').textContent.startsWith("
                               "'3 labeled · 1 skipped · 0 left')")

        # 5. `u` undoes this tab's changes, last first, and shows the page undone
        page.keyboard.press("u")
        wait_saved(page, dump, paths[3], lambda e: e["main_entity"] == [])
        page.keyboard.press("u")
        entry = wait_saved(page, dump, paths[2], lambda e: "skipped" not in e)
        wait_for_page(page, paths[2])
        page.keyboard.press("k")
        wait_for_page(page, paths[1])
        page.wait_for_selector("#label-list li:nth-child(2)")
        assert page.locator("#label-list li").all_text_contents() == ["Enamel Kettle×", "Ashgrove Enamel Kettle×"]
    assert foreign == []
    lines = (dump / "manifest.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(lines) == 5 and lines[2] == "{not json"  # every other line kept as it was


def test_two_tabs_never_overwrite_each_other(dump, render_cache_dir):
    paths = list(PAGES)
    session = AnnotationSession(dump, render=RenderConfig(cache_dir=str(render_cache_dir)))
    with app_in_chromium(session) as (url, context, first, foreign):
        second = context.new_page()
        second.goto(url)
        assert shown_path(first) == shown_path(second) == paths[0]
        click_box(first, PAGES[paths[0]])
        first.keyboard.press("Enter")
        wait_saved(first, dump, paths[0], lambda e: e["main_entity"] == [PAGES[paths[0]]])

        # the second tab read the page before the first saved: its change is refused, not written
        second.fill("#label-input", "Harbor Lane")
        second.press("#label-input", "Enter")
        second.wait_for_function("() => document.getElementById('message').textContent.includes('Another tab')")
        assert manifest(dump)[paths[0]]["main_entity"] == [PAGES[paths[0]]]
        assert second.locator("#label-list li").all_text_contents() == [PAGES[paths[0]] + "×"]

        # on other pages both tabs' labels are kept
        wait_for_page(first, paths[1])
        second.keyboard.press("Escape")  # leave the text box, where j would be typed
        second.keyboard.press("j")
        wait_for_page(second, paths[1])
        second.keyboard.press("j")
        wait_for_page(second, paths[2])
        click_box(first, "Ashgrove Enamel Kettle")
        click_box(second, PAGES[paths[2]])
        first.keyboard.press("Enter")
        second.keyboard.press("Enter")
        wait_saved(first, dump, paths[1], lambda e: e["main_entity"] == ["Ashgrove Enamel Kettle"])
        wait_saved(second, dump, paths[2], lambda e: e["main_entity"] == [PAGES[paths[2]]])
        assert manifest(dump)[paths[0]]["main_entity"] == [PAGES[paths[0]]]
    assert foreign == []


def test_model_answers_are_preselected_with_their_score_lowest_first(dump, tmp_path):
    answers = predict_answers(None, dump, tmp_path)  # the shipped general model
    assert set(PAGES) <= set(answers)  # and an error row for the bad manifest line
    by_score = sorted(PAGES, key=lambda path: answers[path].score)
    session = AnnotationSession(dump, answers=answers, model_name="general")
    with app_in_chromium(session) as (url, _, page, foreign):
        first = shown_path(page)
        assert page.input_value("#order") == "confidence"
        assert first == by_score[0]
        assert page.input_value("#label-input") == answers[first].text
        score = float(page.text_content("#model-score").removeprefix("score "))
        assert math.isclose(score, answers[first].score, abs_tol=0.005)
        assert page.locator("#boxes .box.model").count() == 1
        page.keyboard.press("Enter")
        wait_saved(page, dump, first, lambda e: e["main_entity"] == [answers[first].text])
        wait_for_page(page, by_score[1])
        page.select_option("#order", "manifest")
        position = f"{list(PAGES).index(by_score[1]) + 1} / {len(PAGES)}"  # the same page, in the dump's order
        page.wait_for_function("p => document.getElementById('position').textContent === p", arg=position)
    assert foreign == []


def test_skip_keeps_labels_a_loading_page_shows_nothing_of_the_last_and_fit_to_width(dump, render_cache_dir):
    import re

    paths = list(PAGES)
    session = AnnotationSession(dump, render=RenderConfig(cache_dir=str(render_cache_dir)))
    with app_in_chromium(session) as (url, _, page, foreign):
        # `s` on a labeled page keeps its label, says so, and the page still counts as labeled
        assert shown_path(page) == paths[0]
        click_box(page, PAGES[paths[0]])
        page.keyboard.press("Enter")
        wait_saved(page, dump, paths[0], lambda e: e["main_entity"])
        wait_for_page(page, paths[1])
        page.keyboard.press("k")
        wait_for_page(page, paths[0])
        page.keyboard.press("s")
        wait_for_page(page, paths[1])
        assert page.text_content("#message").startswith(f"Not skipped: the page keeps its label ({PAGES[paths[0]]})")
        assert manifest(dump)[paths[0]] | {"label_in_page": True} == {
            "path": paths[0], "url": "https://shop.example/index.html", "main_entity": [PAGES[paths[0]]],
            "reviewer": {"id": 7}, "label_in_page": True}
        assert page.text_content("#progress-text").startswith("1 labeled · 0 skipped · 3 left")

        # while the next page is read, the panel shows its path and nothing of the page before
        held = []
        page.route(re.compile(r"/api/page\?"), lambda route: held.append(route))
        page.keyboard.press("j")
        page.wait_for_selector("body[data-loading]", state="attached")
        assert page.text_content("#page-path") == paths[2] and page.text_content("#page-url") == ""
        assert page.locator("#label-list li").all_text_contents() == ["reading and rendering the page…"]
        assert page.locator("#boxes .box").count() == 0 and page.get_attribute("#shot-img", "src") is None
        for _ in range(200):
            if held:
                break
            page.wait_for_timeout(20)
        held[0].continue_()
        wait_for_page(page, paths[2])
        assert page.text_content("#page-url") == "https://shop.example/p/saltmarsh-stoneware-mugs-set-of-4.html"

        # a narrow window: f fits the page to the pane's width; clicks still pick the block under them
        page.set_viewport_size({"width": 720, "height": 800})
        page.keyboard.press("f")
        shot, pane = page.locator("#shot").bounding_box(), page.locator("#shot-pane").bounding_box()
        assert shot["width"] <= pane["width"] < 1024
        click_box(page, PAGES[paths[2]])
        assert page.input_value("#label-input") == PAGES[paths[2]]
        page.keyboard.press("f")
        assert page.locator("#shot").bounding_box()["width"] >= 1024
    assert foreign == []
