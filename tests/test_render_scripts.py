"""Scripts on demand (mainentity.render.scripts): skeleton pages are told apart and, with ``javascript: auto``,
rendered again with their scripts on; a page whose scripts loop keeps its first rendering."""

from __future__ import annotations

import csv
import json
import time

import psutil
import pytest

from mainentity.config import config_from_dict
from mainentity.records import Page, RenderedPage, TextBlock
from mainentity.render import RenderCache, Renderer, RenderOutcome, RenderSettings, render_pages
from mainentity.render.scripts import MAX_SKELETON_WORDS, unfinished_reason
from mainentity.render.static import read_static

BUILD = ("<script>const state = JSON.parse(document.getElementById('__NEXT_DATA__').textContent);"
         "document.getElementById('app').innerHTML = '<h1>' + state.job.title + '</h1><p>' + state.job.text + '</p>';"
         "document.title = state.job.title + ' | Careers';</script>")


def skeleton_page(title: str = "Harbour crane operator", script: str = BUILD, path: str = "job.htm") -> Page:
    """A job posting whose server HTML is a skeleton: generic title, loading placeholder, state as JSON."""
    state = {"job": {"title": title, "text": "Operate the quay cranes on the night shift. " * 8}}
    html = ("<!DOCTYPE html><html><head><title>Careers</title></head><body><header>Northport Logistics</header>"
            "<div id='app'><div class='skeleton-line'>Loading...</div></div>"
            "<noscript>You need to enable JavaScript to run this app.</noscript>"
            f"<script id='__NEXT_DATA__' type='application/json'>{json.dumps(state)}</script>{script}"
            "</body></html>")
    return Page("jobs", path, f"https://jobs.northport.example/{path}", html)


def text_page(html_extra: str = "") -> Page:
    words = "The crane lifts containers from the ship to the quay all night long. " * 8
    return Page("jobs", "about.htm", "https://jobs.northport.example/about.htm",
                f"<title>About</title><h1>About us</h1><p>{words}</p>{html_extra}")


def test_a_skeleton_is_unfinished_and_a_page_with_text_is_not():
    page = skeleton_page()
    shown = RenderedPage("Careers", (), (TextBlock("Loading...", "div", "html[0]/body[1]/div[1]/div[0]", 16, 400,
                                                   False, 8, 30, 80, 18),))
    assert unfinished_reason(page, shown) == "1 words; noscript asks for JavaScript; loading placeholder; inline state"
    # the same signs on a page that shows its text (server-rendered, state shipped too): finished
    state = "<script id='__NEXT_DATA__' type='application/json'>{}</script><noscript>Enable JavaScript</noscript>"
    page = text_page(state)
    rendered = read_static(page)
    assert sum(len(b.text.split()) for b in rendered.blocks if not b.merged) >= MAX_SKELETON_WORDS
    assert unfinished_reason(page, rendered) == ""
    # few words and no sign of scripts: a short page, not a skeleton
    short = Page("s", "a.htm", "http://s.test/a", "<title>Hi</title><p>Hello there</p>")
    assert unfinished_reason(short, read_static(short)) == ""


def test_the_static_reader_leaves_a_skeleton_to_the_renderer():
    with pytest.raises(ValueError, match="jobs/job.htm: a skeleton its scripts fill .*inline state"):
        read_static(skeleton_page())


def test_javascript_auto_is_a_render_setting_and_a_config_value():
    assert RenderSettings(javascript="auto").javascript == "auto"
    with pytest.raises(ValueError, match="javascript must be true, false or 'auto'"):
        RenderSettings(javascript="sometimes")
    assert config_from_dict({"render": {"javascript": "auto"}}).render.javascript == "auto"


@pytest.mark.browser
def test_auto_renders_a_skeleton_again_with_scripts_and_keeps_the_rest(tmp_path, monkeypatch):
    loops = skeleton_page(script="<script>while (true) {}</script>", path="loops.htm")
    pages = [skeleton_page(), loops, text_page()]
    settings = RenderSettings(javascript="auto", concurrency=2, timeout_s=10)
    outcomes = {o.page.path: o for o in render_pages(pages, settings, tmp_path)}
    built = outcomes["job.htm"]
    assert built.error == "" and built.scripts.endswith("inline state")
    assert built.rendered.title == "Harbour crane operator | Careers"
    assert [b.text for b in built.rendered.blocks if b.heading_level == 1] == ["Harbour crane operator"]
    # the looping page's scripts never finish: its first rendering (scripts off) is kept
    assert outcomes["loops.htm"].error == "" and outcomes["loops.htm"].scripts == ""
    assert "Loading..." in [b.text for b in outcomes["loops.htm"].rendered.blocks]
    assert outcomes["about.htm"].scripts == ""
    # the cache holds the raw renderings, under the keys of false (first) and true (second)
    cache = RenderCache(tmp_path)
    first = cache.get(pages[0], RenderSettings(javascript=False))
    assert first.scripts == "" and "Loading..." in [b.text for b in first.rendered.blocks]
    assert cache.get(pages[0], RenderSettings(javascript=True)).rendered == built.rendered
    assert cache.get(loops, RenderSettings(javascript=False)).rendered == outcomes["loops.htm"].rendered
    assert cache.get(loops, RenderSettings(javascript=True)) is None  # timed out: no entry, but a note
    first_loops = cache.get(loops, RenderSettings(javascript=False))
    assert "timed out after 10 s" in cache.scripts_timeout(first_loops, RenderSettings(javascript=True, timeout_s=10))
    assert cache.get(pages[2], RenderSettings(javascript=True)) is None  # finished: rendered once
    # a warm cache decides again from them and gives the same outcome as the cold one, and the looping
    # page's scripts are not run again: its note stands for the second rendering
    render = Renderer.render

    def no_scripts(self, pages, subresources=None, *, scripts=False):
        assert not scripts, "a second rendering was asked for"
        return render(self, pages, subresources, scripts=scripts)

    monkeypatch.setattr(Renderer, "render", no_scripts)
    warm = {o.page.path: o for o in render_pages(pages, settings, tmp_path)}
    assert warm["job.htm"].scripts == built.scripts and warm["job.htm"].rendered == built.rendered
    assert warm["loops.htm"] == outcomes["loops.htm"]
    assert warm["about.htm"] == outcomes["about.htm"]


@pytest.fixture
def launches(monkeypatch):
    """The renderers that launched a Chromium, one entry per launch (relaunches included)."""
    launched, launch = [], Renderer._launch

    async def counted(self):
        launched.append(self)
        await launch(self)

    monkeypatch.setattr(Renderer, "_launch", counted)
    return launched


@pytest.mark.browser
def test_the_second_rendering_runs_in_the_same_chromium_and_closes_its_tabs(tmp_path, launches, monkeypatch):
    settings = RenderSettings(javascript="auto", concurrency=2, timeout_s=10)
    closed, close_idle_tabs = [], Renderer.close_idle_tabs

    def counted(self, scripts):
        closed.append((scripts, n := close_idle_tabs(self, scripts)))
        return n

    monkeypatch.setattr(Renderer, "close_idle_tabs", counted)
    with Renderer(settings) as renderer:
        outcomes = {o.page.path: o for o in render_pages([skeleton_page(), text_page()], settings, tmp_path,
                                                         renderer=renderer)}
        assert outcomes["job.htm"].scripts.endswith("inline state")
        assert outcomes["job.htm"].rendered.title == "Harbour crane operator | Careers"
        assert outcomes["about.htm"].scripts == ""
        # the scripts-on tab was closed once the second rendering was done; the scripts-off tabs stay open
        assert closed == [(True, 1)]
        assert renderer.close_idle_tabs(scripts=True) == 0 and renderer.close_idle_tabs(scripts=False) >= 1
        # a later skeleton opens a scripts-on tab again
        (again,) = render_pages([skeleton_page(path="job2.htm")], settings, tmp_path, renderer=renderer)
        assert again.scripts.endswith("inline state")
    assert launches == [renderer]


@pytest.mark.browser
def test_a_looping_page_keeps_its_first_rendering_within_the_timeout(tmp_path, launches):
    """Under auto, a page whose scripts loop costs its scripts-off rendering plus the timeout, keeps the
    first rendering, and its renderer process is gone with its tab: no core stays busy, later pages render."""
    settings = RenderSettings(javascript="auto", concurrency=1, timeout_s=4)
    loops = skeleton_page(script="<script>while (true) {}</script>", path="loops.htm")
    with Renderer(settings) as renderer:
        list(render_pages([text_page()], settings, None, renderer=renderer))  # Chromium up, a tab open
        started = time.perf_counter()
        (outcome,) = render_pages([loops], settings, tmp_path, renderer=renderer)
        elapsed = time.perf_counter() - started
        assert outcome.error == "" and outcome.scripts == ""
        assert "Loading..." in [b.text for b in outcome.rendered.blocks]
        assert settings.timeout_s <= elapsed < settings.timeout_s + 3.0
        time.sleep(1.0)  # the looping tab's context is closed in the background
        renderers = [p for p in psutil.Process().children(recursive=True) if "--type=renderer" in _cmdline(p)]
        before = {p.pid: _cpu_s(p) for p in renderers}
        time.sleep(2.0)
        busy = {pid: _cpu_s(p) - before[pid] for p in renderers if (pid := p.pid) in before}
        assert max(busy.values(), default=0.0) < 0.5, busy
        (after,) = render_pages([skeleton_page()], settings, tmp_path, renderer=renderer)
        assert after.scripts.endswith("inline state")
    assert launches == [renderer]


def _cmdline(process: psutil.Process) -> list[str]:
    try:
        return process.cmdline()
    except psutil.Error:  # ended meanwhile
        return []


def _cpu_s(process: psutil.Process) -> float:
    try:
        times = process.cpu_times()
    except psutil.Error:  # ended meanwhile: it uses no CPU any more
        return 0.0
    return times.user + times.system


def test_rows_say_which_pages_were_rendered_again_with_scripts_on(tmp_path):
    """The predict path's rows: ``answered_by`` is ``scripts`` for a page whose kept rendering ran its scripts
    (the document says so), ``rendered`` for the others, and the written row carries it."""
    from mainentity.config import config_from_dict
    from mainentity.model_store import TrainedModel
    from mainentity.pipeline import KnownDocuments, predict_pages
    from mainentity.prediction_writer import PredictionWriter, prediction_row
    from mainentity.recognizers.baselines import FirstH1Recognizer
    from mainentity.records import Document

    built, about = skeleton_page(), text_page()
    h1 = TextBlock("Harbour crane operator", "h1", "html[0]/body[1]/div[1]/h1[0]", 32, 700, True, 8, 30, 300, 37,
                   heading_level=1)
    documents = [Document(built, RenderedPage("Harbour crane operator | Careers", (), (h1,)),
                          scripts="1 words; noscript asks for JavaScript; inline state"),
                 Document(about, read_static(about))]
    model = TrainedModel(None, config_from_dict({"render": {"javascript": "auto"}}), FirstH1Recognizer(), {})
    rows = {p.path: p for p in predict_pages(model, [built, about], read=KnownDocuments(documents),
                                            render_policy="always")}
    assert (rows["job.htm"].main_entity, rows["job.htm"].answered_by) == ("Harbour crane operator", "scripts")
    assert (rows["about.htm"].main_entity, rows["about.htm"].answered_by) == ("About us", "rendered")
    assert prediction_row(rows["job.htm"])["answered_by"] == "scripts"
    with PredictionWriter(tmp_path / "rows.csv") as writer:
        for prediction in rows.values():
            writer.write(prediction)
    written = (tmp_path / "rows.csv").read_text().splitlines()
    assert written[1].startswith("jobs,job.htm,https://jobs.northport.example/job.htm,Harbour crane operator,")
    written_by = {row["path"]: row["answered_by"] for row in csv.DictReader(written)}
    assert written_by == {"job.htm": "scripts", "about.htm": "rendered"}


def test_a_worst_page_answered_from_its_scripts_on_rendering_is_shown_with_its_scripts_on(tmp_path, monkeypatch):
    """The evaluation report's screenshots (runs.screenshot_worst_pages) show each page as it was read."""
    import pandas as pd

    from mainentity import runs
    from mainentity.config import RenderConfig
    from mainentity.records import Prediction

    asked = {}
    monkeypatch.setattr(Renderer, "start", lambda self: None)  # no Chromium: the screenshots are only asked for
    monkeypatch.setattr(Renderer, "screenshot", lambda self, page, path, **kw: asked.update({page.path: kw["scripts"]}))
    built, about = skeleton_page(), text_page()
    predictions = [Prediction("jobs", "job.htm", built.url, "Harbour crane operator", answered_by="scripts"),
                   Prediction("jobs", "about.htm", about.url, "About us", answered_by="rendered")]
    worst = pd.DataFrame({"site_id": ["jobs", "jobs"], "path": ["job.htm", "about.htm"]})
    render = RenderConfig(javascript="auto")
    assert runs.screenshot_worst_pages(worst, [built, about], predictions, tmp_path, render, None) == 2
    assert asked == {"job.htm": True, "about.htm": False}


def test_the_annotation_app_shows_a_page_as_its_kept_rendering_read_it(tmp_path, monkeypatch):
    """Under auto, the annotation app's screenshot of a page read from its scripts-on rendering (whose boxes
    the app draws) is taken with the page's scripts on; the other pages' with them off. No Chromium: the
    renderings come from the cache, and the screenshots are only asked for."""
    import dataclasses

    from mainentity.annotate.session import AnnotationSession
    from mainentity.config import RenderConfig
    from mainentity.pipeline import render_settings

    site = tmp_path / "site"
    site.mkdir()
    for page in (skeleton_page(), text_page()):
        (site / page.path).write_text(page.html, encoding="utf-8")
    render = RenderConfig(javascript="auto", cache_dir=str(tmp_path / "cache"))
    session = AnnotationSession(site, render=render)
    cache, settings = RenderCache(render.cache_path()), render_settings(render)
    built, about = session.page("job.htm"), session.page("about.htm")
    skeleton = RenderedPage("Careers", (), (TextBlock("Loading...", "div", "html[0]/body[1]/div[1]/div[0]", 16, 400,
                                                      False, 8, 30, 80, 18),))
    h1 = TextBlock("Harbour crane operator", "h1", "html[0]/body[1]/div[1]/h1[0]", 32, 700, True, 8, 30, 300, 37,
                   heading_level=1)
    for page, keyed, rendered in ((built, False, skeleton), (built, True, RenderedPage("T", (), (h1,))),
                                  (about, False, read_static(about))):
        cache.put(RenderOutcome(page, rendered), dataclasses.replace(settings, javascript=keyed),
                  session.subresources.for_page(page))
    asked = {}
    monkeypatch.setattr(Renderer, "start", lambda self: None)
    monkeypatch.setattr(Renderer, "screenshot", lambda self, page, path, **kw: asked.update({page.path: kw["scripts"]}))
    try:
        session.screenshot("job.htm"), session.screenshot("about.htm")
    finally:
        session.close()
    assert asked == {"job.htm": True, "about.htm": False}
