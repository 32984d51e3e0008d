"""The auto render policy (mainentity.render_few and the predict path's use of it): which pages are
rendered, how each is answered, and that rendering every page gives the answers it always gave."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from conftest import SAMPLE_SHOP

from mainentity.records import Document, Page, Prediction
from mainentity.render.static import read_static
from mainentity.render_few import RenderFewSettings, answer_pages


def product_page(site: str, i: int, name: str | None = None) -> Page:
    name = f"Walnut Chair Model {i}" if name is None else name
    html = (f"<html><head><title>{name} | {site}</title></head><body><nav><a href='/'>Home</a> "
            f"<a href='/c/'>Chairs</a></nav><main><h1>{name}</h1><p>Solid wood, {i} colours.</p>"
            f"<p>Price {10 + i}.00</p></main><footer>About {site}</footer></body></html>")
    return Page(site, f"p/{i}.html", f"https://{site}/p/{i}.html", html)


def laid_out(page: Page) -> Document:
    """A stand-in for rendering: the static reading with a box for every block (one line each)."""
    reading = read_static(page)
    blocks = tuple(replace(block, x=10.0, y=20.0 * k, width=400.0, height=18.0)
                   for k, block in enumerate(reading.blocks))
    return Document(page, replace(reading, blocks=blocks, segments=(), width=1024.0, height=768.0))


class Stages:
    """Counting stand-ins of the predict path's stages: rendering, the site-level model, the static model."""

    def __init__(self, static_scores: dict[str, float] | None = None, margins: dict[str, float] | None = None):
        self.rendered: list[str] = []
        self.static_scores = static_scores or {}
        self.margins = margins or {}

    def render(self, pages):
        self.rendered.extend(page.path if page.site_id == "shop.example" else page.site_id for page in pages)
        return [laid_out(page) for page in pages]

    @staticmethod
    def predict(documents):
        """The first h1 block's text, with its box (as the general recogniser answers these pages)."""
        answers = []
        for document in documents:
            h1 = [block for block in document.rendered.blocks if block.heading_level == 1]
            box = (h1[0].x, h1[0].y, h1[0].width, h1[0].height) if h1 else None
            answers.append(Prediction(document.page.site_id, document.page.path, document.page.url,
                                      h1[0].text if h1 else "", 0.97, box))
        return answers

    def predict_static(self, documents):
        return [(Prediction(d.page.site_id, d.page.path, d.page.url, d.rendered.title.split(" | ")[0],
                            self.static_scores[d.page.site_id]), self.margins.get(d.page.site_id, 1.0))
                for d in documents]

    def answer(self, pages, cached=None, predict_beside=None, **settings):
        return list(answer_pages(pages, render=self.render, predict=self.predict, read_static=read_static,
                                 predict_static=self.predict_static if self.static_scores else None,
                                 settings=RenderFewSettings(**settings), cached=cached,
                                 predict_beside=predict_beside))


def test_a_large_site_renders_a_sample_and_reads_the_rest_through_the_slot():
    pages = [product_page("shop.example", i) for i in range(30)]
    stages = Stages()
    predictions = stages.answer(pages)
    assert [p.main_entity for p in predictions] == [f"Walnut Chair Model {i}" for i in range(30)]
    assert len(stages.rendered) == 3  # one template: the smallest sample
    assert [p.answered_by for p in predictions].count("slot") == 27
    assert {p.path for p in predictions if p.answered_by == "rendered"} == set(stages.rendered)


def test_a_page_whose_slot_is_empty_is_rendered():
    pages = [product_page("shop.example", i) for i in range(30)]
    pages[17] = product_page("shop.example", 17, name="")
    stages = Stages()
    predictions = {p.path: p for p in stages.answer(pages)}
    assert "p/17.html" in stages.rendered
    assert predictions["p/17.html"].answered_by == "rendered"


def test_small_sites_keep_static_answers_above_the_threshold_and_render_the_rest_together():
    pages = [product_page(site, 1) for site in ("a.example", "b.example", "c.example")]
    stages = Stages({"a.example": 0.95, "b.example": 0.5, "c.example": 0.91})
    predictions = stages.answer(pages, static_threshold=0.9)
    assert [p.answered_by for p in predictions] == ["static", "rendered", "static"]
    assert stages.rendered == ["b.example"]  # one render call for the pages left
    assert all(p.main_entity == "Walnut Chair Model 1" for p in predictions)


def test_the_rendered_pages_of_a_small_site_are_profiled_with_its_statically_answered_pages():
    """The site's evidence (the text its template repeats, its slots) is counted over every page of a small
    site: its rendered pages are predicted beside the static readings of those answered statically, so that
    answering one page statically does not take it out of its siblings' evidence."""
    pages = [product_page("a.example", i) for i in (1, 2, 3)]
    stages = Stages({"a.example": 0.5})
    stages.predict_static = lambda documents: [
        (Prediction(d.page.site_id, d.page.path, d.page.url, "Walnut Chair Model 1",
                    0.99 if d.page.path == "p/1.html" else 0.5), 1.0) for d in documents]
    calls = []

    def predict_beside(documents, beside):
        calls.append(([(d.page.path, d.rendered.width) for d in documents],
                      [(d.page.path, d.rendered.width) for d in beside]))
        return Stages.predict(documents)

    predictions = {p.path: p for p in stages.answer(pages, static_threshold=0.9, predict_beside=predict_beside)}
    assert stages.rendered == ["a.example", "a.example"]
    # the two rendered pages (laid out 1024 px wide) beside the static reading of the third
    assert calls == [([("p/2.html", 1024.0), ("p/3.html", 1024.0)], [("p/1.html", read_static(pages[0]).width)])]
    assert read_static(pages[0]).width != 1024.0
    assert [predictions[p].answered_by for p in ("p/1.html", "p/2.html", "p/3.html")] == [
        "static", "rendered", "rendered"]
    assert predictions["p/2.html"].main_entity == "Walnut Chair Model 2"
    # a site with no statically answered page is predicted as before
    calls.clear()
    stages = Stages({"b.example": 0.5})
    stages.answer([product_page("b.example", i) for i in (1, 2)], static_threshold=0.9, predict_beside=predict_beside)
    assert calls == []


def test_a_static_answer_far_ahead_of_its_runner_up_stands_whatever_its_score():
    """The calibrated score says whether the answer is right; a margin over the runner-up of at least
    ``static_margin`` log-odds says rendering is unlikely to change it (its docstring), so the page is not
    rendered."""
    pages = [product_page(site, 1) for site in ("a.example", "b.example", "c.example")]
    stages = Stages({"a.example": 0.4, "b.example": 0.4, "c.example": 0.4},
                    margins={"a.example": 6.0, "b.example": 4.9, "c.example": float("nan")})
    predictions = stages.answer(pages, static_threshold=0.85, static_margin=5.0)
    assert [p.answered_by for p in predictions] == ["static", "rendered", "rendered"]
    assert stages.rendered == ["b.example", "c.example"]
    stages = Stages({"a.example": 0.4}, margins={"a.example": 6.0})
    assert [p.answered_by for p in stages.answer(pages[:1], static_margin=float("inf"))] == ["rendered"]


def test_the_static_margin_must_not_be_negative():
    with pytest.raises(ValueError, match="static_margin must be >= 0"):
        RenderFewSettings(static_margin=-1.0)


def test_a_static_answer_that_is_part_of_a_heading_is_rendered():
    """A headline set as two block spans in one h1: read without layout, "Winter Orchards" may be a line of
    it or a title beside a note; only rendering tells, so however confident the static answer, the page is
    rendered (the general model's pages of the kind: tests/test_cases.py essay_pages)."""
    heading = ("<h1><span style='display:block'>Winter Orchards</span>"
               "<span style='display:block'>and the Growers</span></h1>")
    split = replace(product_page("a.example", 1), html=f"<title>Winter Orchards | a.example</title>{heading}")
    plain = product_page("b.example", 1)
    stages = Stages({"a.example": 0.999, "b.example": 0.999})
    predictions = stages.answer([split, plain], static_threshold=0.9)
    assert [p.answered_by for p in predictions] == ["rendered", "static"] and stages.rendered == ["a.example"]


def test_a_static_answer_that_is_also_a_whole_heading_is_not_rendered_for_being_a_part():
    """The headline whole in its h1 and again as the second line of a smaller sticky heading after the
    section's name (as on nytimes.com, or before "Back to video" on vox.com): the page states it whole, so
    it is no line of a longer heading and the sure static answer stands."""
    sticky = ("<h2><span style='display:block'>World</span>"
              "<span style='display:block'>Winter Orchards</span></h2><h1>Winter Orchards</h1>")
    page = replace(product_page("a.example", 1), html=f"<title>Winter Orchards | a.example</title>{sticky}")
    stages = Stages({"a.example": 0.999})
    assert [p.answered_by for p in stages.answer([page], static_threshold=0.9)] == ["static"]
    assert stages.rendered == []


def test_chromium_is_not_asked_for_when_every_page_has_a_static_answer():
    pages = [product_page(site, 2) for site in ("a.example", "b.example")]
    stages = Stages({"a.example": 0.99, "b.example": 0.99})
    stages.render = lambda batch: pytest.fail(f"rendered {batch}")
    assert [p.answered_by for p in stages.answer(pages)] == ["static", "static"]


def test_without_a_static_model_small_sites_are_rendered():
    stages = Stages()
    predictions = stages.answer([product_page("a.example", 3), product_page("b.example", 4)])
    assert stages.rendered == ["a.example", "b.example"] and {p.answered_by for p in predictions} == {"rendered"}


def test_a_page_the_render_cache_holds_is_answered_from_its_rendering_not_read_statically(monkeypatch):
    """A warm cache: a cached page's rendering costs a file read and gives always' answer, so its static
    reading (~60 ms of CSS cascade and walk on a lone page) is not made, whatever its static score."""
    import mainentity.render_few as render_few

    pages = [product_page(site, 1) for site in ("a.example", "b.example", "c.example")]
    stages = Stages({"a.example": 0.99, "b.example": 0.99, "c.example": 0.5})
    read = []
    monkeypatch.setattr(render_few, "_static_answers", lambda pages, *args: (read.extend(pages) or {
        (p.site_id, p.path): Prediction(p.site_id, p.path, p.url, "Walnut Chair Model 1", 0.99, answered_by="static")
        for p in pages if p.site_id == "a.example"}, {}))
    predictions = stages.answer(pages, cached=lambda batch: {("b.example", "p/1.html")})
    assert [p.answered_by for p in predictions] == ["static", "rendered", "rendered"]
    assert [page.site_id for page in read] == ["a.example", "c.example"]  # b's cached rendering: no static read
    assert stages.rendered == ["b.example", "c.example"]


def test_a_large_site_goes_through_slot_transfer_however_much_the_render_cache_holds():
    """Read through the locator, a page costs less than its cached rendering (booksamillion, 2000 pages all
    cached: 1.03x trafilatura read from the cache against 0.64x through the slot), and answers as well."""
    pages = [product_page("shop.example", i) for i in range(30)]
    stages = Stages()
    everything = {(page.site_id, page.path) for page in pages}
    answered = [p.answered_by for p in stages.answer(pages, cached=lambda batch: everything)]
    assert answered.count("slot") == 27 and len(stages.rendered) == 3


def test_settings_are_validated():
    with pytest.raises(ValueError, match="static_threshold must be in"):
        RenderFewSettings(static_threshold=1.5)
    with pytest.raises(ValueError, match="min_site_pages must be >= 2"):
        RenderFewSettings(min_site_pages=1)


@pytest.mark.browser
def test_auto_on_the_sample_shop_gives_the_answers_of_always(tmp_path):
    """The sample shop (42 pages, 5 templates): fewer pages rendered, the same answers as rendering all; on a
    cache that rendering all filled, the same rows (a site of 10+ pages goes through slot transfer)."""
    from mainentity.cli import main

    rows = {}
    for policy, cache in (("always", "full"), ("auto", "cold"), ("auto-warm", "full")):
        out = tmp_path / f"{policy}.jsonl"  # auto-warm: auto on the cache always filled
        assert main(["predict", str(SAMPLE_SHOP), "-o", str(out), "--render", policy.removesuffix("-warm"),
                     "--cache-dir", str(tmp_path / cache)]) == 0
        rows[policy] = {row["path"]: row for row in map(json.loads, out.read_text().splitlines())}
    assert {row["answered_by"] for row in rows["always"].values()} == {"rendered"}
    answered = [row["answered_by"] for row in rows["auto"].values()]
    assert answered.count("slot") >= 20 and answered.count("rendered") + answered.count("slot") == 42
    assert rows["auto-warm"] == rows["auto"]  # one site of 42 pages: slot transfer, its samples read from the cache
    for policy in ("auto", "auto-warm"):
        assert {path: row["main_entity"] for path, row in rows[policy].items()} == {
            path: row["main_entity"] for path, row in rows["always"].items()}


@pytest.mark.browser
def test_auto_keeps_the_model_abstention_threshold(tmp_path):
    """An answer read without the model (slot or static) below the model's abstain_below gets no answer. A cold
    cache: on the session's, which other tests filled with every page's rendering, every page is rendered."""
    import mainentity

    with mainentity.load_model(render_policy="auto", cache_dir=tmp_path / "cache") as model:
        # a threshold that some of the shipped model's rendered answers reach (they teach the slots) and
        # some read answers do not
        model.recognizer.set_params(abstain_below=0.9)
        predictions = model.predict(mainentity.read_site_dump(SAMPLE_SHOP / "sites" / "sample-shop"))
    read = [p for p in predictions if p.answered_by in ("slot", "static")]
    assert read and all(p.main_entity == "" for p in read if p.score < 0.9)
    assert all(p.candidates for p in read)  # the text is kept for review


def test_a_warm_run_reads_no_lone_page_statically_again(tmp_path, monkeypatch):
    """Lone pages answered from their static reading: the second run reads the stored readings (a static
    reading costs about a trafilatura extraction, reading it back a seventh of that) and writes the same rows."""
    import mainentity.render.static_cache as static_cache
    from mainentity.cli import main

    crawl = tmp_path / "crawl"
    crawl.mkdir()
    for host, name in (("kettles.test", "Copper Kettle"), ("lamps.test", "Brass Desk Lamp"), ("news.test", "Harbour")):
        (crawl / f"{host}.html").write_text(
            f'<!doctype html><title>{name} | {host}</title><link rel="canonical" href="http://{host}/item">'
            f"<nav><a href='/'>Home</a> <a href='/about'>About</a></nav><h1>{name}</h1><p>{name} is here.</p>")
    rows = []
    for run in ("cold", "warm"):
        if run == "warm":
            monkeypatch.setattr(static_cache, "read_static", lambda page, files=None: pytest.fail(f"{page.path} read"))
        out = tmp_path / f"{run}.jsonl"
        command = ["predict", str(crawl), "-o", str(out), "--render", "auto", "--cache-dir", str(tmp_path / "c")]
        assert main(command) == 0
        rows.append(out.read_text().splitlines())
    assert rows[1] == rows[0] and len(rows[0]) == 3
    assert any(json.loads(row)["answered_by"] == "static" for row in rows[0])


def blog_post(i: int, title: str, heading: bool = True) -> Page:
    """A post of a small blog whose name is set large in its header on every page."""
    html = (f"<!DOCTYPE html><html><head><title>{title} – Harbor Notes</title></head><body><header>"
            "<div style='font-size:44px;font-weight:bold'>Harbor Notes</div><nav><a href='/'>Home</a> "
            f"<a href='/about'>About</a></nav></header><main>{f'<h1>{title}</h1>' if heading else ''}"
            f"<p>Posted in Boats. {title} was a long day on the water with the crew and the old ketch.</p>"
            "<p>More words about the harbour, the tides and the pier, so the post has a body.</p></main>"
            "<footer>© Harbor Notes</footer></body></html>")
    return Page("harbor.example", f"p{i}.html", f"https://harbor.example/p{i}.html", html)


@pytest.mark.browser
def test_a_small_sites_rendered_page_keeps_the_evidence_of_its_statically_answered_siblings(tmp_path):
    """A blog of three posts, its name set large in the header of each; one post shows its title in
    ``<title>`` only, so ``auto`` renders it and answers the two others statically. Profiled alone, the
    rendered post answered the blog's name (what its template repeats on every page, which only the other
    pages show); profiled beside the static readings of its siblings it answers as ``always`` does."""
    import mainentity

    pages = [blog_post(1, "Mending the Jib"), blog_post(2, "Winter Haul-Out"),
             blog_post(3, "Night Sail to Port Vell", heading=False)]
    answers = {}
    for policy in ("always", "auto"):
        with mainentity.load_model(render_policy=policy, cache_dir=tmp_path / policy) as model:
            answers[policy] = [(p.main_entity, p.answered_by) for p in model.predict(pages)]
    assert answers["auto"] == [("Mending the Jib", "static"), ("Winter Haul-Out", "static"),
                               ("Night Sail to Port Vell", "rendered")]
    assert [text for text, _ in answers["always"]] == [text for text, _ in answers["auto"]]
