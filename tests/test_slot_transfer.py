"""Per-site sampling and slot transfer (mainentity.slot_transfer): templates, samples, locators.

The first tests use hand-made records; those marked ``browser`` render the sample shop (through the
session's render cache) and predict it with the shipped general model.
"""

from __future__ import annotations

import dataclasses
import html
import importlib.util
import random

import pytest
from conftest import SAMPLE_SHOP

from mainentity.pipeline import iter_documents
from mainentity.records import Document, Page, Prediction, RenderedPage, TextBlock
from mainentity.sitedump import SubresourceSources, read_site_dump
from mainentity.slot_transfer.locators import SlotLocator, apply_locator, fit_locators, locate
from mainentity.slot_transfer.site import transfer_site
from mainentity.slot_transfer.templates import choose_sample, cluster_templates, sample_size, url_shape

SHOP_SITE = SAMPLE_SHOP / "sites" / "sample-shop"
HAS_STATIC = importlib.util.find_spec("mainentity.render.static") is not None


def shop_pages() -> list[Page]:
    return list(read_site_dump(SHOP_SITE).pages)


#: What serves the sample shop's stylesheet to both readers.
SHOP_SOURCES = SubresourceSources.of_dumps([read_site_dump(SHOP_SITE)])


# --- templates ------------------------------------------------------------------------------------------------


def test_shop_pages_cluster_by_template_whatever_their_order():
    pages = shop_pages()
    templates = cluster_templates(pages)
    groups = sorted((len(t.pages), t.pages[0].path.rsplit("/", 1)[0]) for t in templates)
    assert groups == [(1, "pages"), (1, "pages/journal"), (5, "pages/c/garden"), (5, "pages/journal"),
                      (30, "pages/p")]
    shuffled = pages[:]
    random.Random(0).shuffle(shuffled)
    assert cluster_templates(shuffled) == templates
    assert all(list(t.pages) == sorted(t.pages, key=lambda p: p.path) for t in templates)


def test_url_shape_generalises_numbers_and_slugs():
    assert url_shape("https://x.example/c/kitchen/") == ("c", "kitchen")
    assert url_shape("https://x.example/c/home-and-garden/index.html") == ("c", "*", "index.html")
    assert url_shape("https://x.example/item/123?id=9&page=2") == ("item", "#", "?id", "?page")


def test_sample_sizes_adapt_and_samples_are_spread():
    assert [sample_size(n, fraction=0.1, min_pages=3, max_pages=10) for n in (2, 20, 55, 500)] == [2, 3, 6, 10]
    pages = shop_pages()
    sample = choose_sample(cluster_templates(pages))
    assert {key[1]: len(chosen) for key, chosen in sample.items()} == {
        "pages/c/garden/index.html": 3, "pages/index.html": 1, "pages/journal/balcony-herb-garden.html": 3,
        "pages/journal/index.html": 1, "pages/p/ashgrove-enamel-kettle.html": 3}
    products = sample[("sample-shop", "pages/p/ashgrove-enamel-kettle.html")]
    in_order = sorted(p.path for p in pages if p.path.startswith("pages/p/"))
    assert [p.path for p in products] == [in_order[5], in_order[15], in_order[25]]  # the middles of thirds
    with pytest.raises(ValueError, match="min_pages"):
        sample_size(10, min_pages=0)


# --- locators on hand-made pages ------------------------------------------------------------------------------


def product(i: int, name: str | None = None, size: float = 32.0, extra: int = 0, title: str | None = None):
    """A rendered product page: navigation, ``extra`` banners, then the name in an h1 in div[1+extra]."""
    name = f"Tin cup {i}" if name is None else name
    blocks = [TextBlock("Home", "a", "html[0]/body[1]/div[0]/a[0]", 14.0, 400, False, 0, 0, 40, 16, in_link=True)]
    blocks += [TextBlock(f"Sale {k}", "p", f"html[0]/body[1]/div[{1 + k}]/p[0]", 20.0, 700, True, 0, 30, 40, 20)
               for k in range(extra)]
    blocks.append(TextBlock(name, "h1", f"html[0]/body[1]/div[{1 + extra}]/h1[0]", size, 700, True, 0, 90 + 30 * extra,
                            300, 38, heading_level=1))
    page = Page("shop", f"p{i}.html", f"https://shop.example/p{i}.html", "")
    return Document(page, RenderedPage(f"{name} | Shop" if title is None else title, (), tuple(blocks)))


def predicted(document: Document, score: float = 0.9) -> Prediction:
    h1 = document.rendered.blocks[-1]
    return Prediction("shop", document.page.path, document.page.url, h1.text, score, (h1.x, h1.y, h1.width, h1.height))


def fit(documents, score=0.9):
    return fit_locators({"t": documents}, {(d.page.site_id, d.page.path): predicted(d, score) for d in documents})


def test_a_locator_leaves_open_the_indices_that_vary_and_keeps_the_style():
    documents = [product(0), product(1, extra=1), product(2, extra=2)]
    (slot,) = fit(documents)["t"].slots
    assert slot == SlotLocator("block", (("html", 0), ("body", 1), ("div", None), ("h1", 0)), "h1", 1, 32.0, 700, 3)
    locator = fit(documents)["t"]
    assert locator.in_title and locator.n_pages == 3
    # each page read with the locator of the two others: 3 of 3, (3 + 0.99 * 20) / (3 + 20)
    assert locator.agreement == pytest.approx(22.8 / 23) and locator.score == pytest.approx(0.9 * 22.8 / 23)
    # the third page's index is seen on no other page: 2 of 3 when left out
    assert fit([product(0), product(1), product(2, extra=2)])["t"].agreement == pytest.approx(21.8 / 23)
    other = product(7, extra=3)
    assert apply_locator(locator, other.page, other.rendered).main_entity == "Tin cup 7"


def test_no_slot_answer_when_the_slot_is_empty_restyled_or_out_of_the_title():
    locator = fit([product(0), product(1), product(2)])["t"]
    for changed in (product(5, name=" "), product(5, size=18.0), product(5, title="Shop")):
        assert apply_locator(locator, changed.page, changed.rendered) is None
    two = product(6)
    rendered = dataclasses.replace(two.rendered, blocks=(*two.rendered.blocks, dataclasses.replace(
        two.rendered.blocks[-1], text="Tin cup 6 deluxe", dom_path="html[0]/body[1]/div[1]/h1[0]")))
    assert locate(locator, rendered) is None  # the slot holds two texts
    assert locate(locator, two.rendered) == "Tin cup 6"


def test_a_slot_text_that_titles_naming_the_page_do_not_hold_is_refused():
    """Titles vary (one generic), so a slot answer need not be in the title; but a page whose title names
    its product and whose slot says something else ("Sold out") is rendered."""
    sample = [product(0), product(1, title="Shop"), product(2, title="Buy Tin cup 2 online | Shop")]
    locator = fit(sample)["t"]
    assert not locator.in_title and locator.title_boilerplate == frozenset({"shop", "buy", "online"})
    sold_out = product(5, name="Sold out", title="Tin cup 5 | Shop")
    assert apply_locator(locator, sold_out.page, sold_out.rendered) is None
    # a generic title says nothing of the page: the slot is trusted, as on the sample's second page
    for title in ("Shop", "Buy online | Shop"):
        generic = product(5, name="Sold out", title=title)
        assert apply_locator(locator, generic.page, generic.rendered).main_entity == "Sold out"
    # titles that do not name their pages (most sampled answers share no word with them): no such check
    unrelated = fit([product(i, title=f"Item {'xyz'[i]} | Shop") for i in range(3)])["t"]
    assert unrelated.title_boilerplate is None
    assert apply_locator(unrelated, sold_out.page, sold_out.rendered).main_entity == "Sold out"


def test_no_locator_on_an_unconfident_sample_or_a_slot_that_does_not_reproduce_it():
    documents = [product(0), product(1), product(2)]
    assert fit(documents, score=0.4) == {}
    # an answer the locator cannot tell apart from another text in its slot
    clash = product(3)
    again = dataclasses.replace(clash.rendered.blocks[-1], text="Tin cup 3 again", y=500.0)
    clash = Document(clash.page, dataclasses.replace(clash.rendered, blocks=(*clash.rendered.blocks, again)))
    assert fit([*documents, clash]) == {}


def test_a_merged_block_and_its_first_text_node_share_a_path_but_not_a_slot():
    documents = []
    for i in range(3):
        document = product(i)
        h1 = document.rendered.blocks[-1]
        merged = dataclasses.replace(h1, text=f"{h1.text} (Mug)", merged=True)
        documents.append(Document(document.page, dataclasses.replace(document.rendered, blocks=(
            *document.rendered.blocks, merged), title=f"{merged.text} | Shop")))
    answers = {(d.page.site_id, d.page.path): Prediction("shop", d.page.path, "", d.rendered.blocks[-1].text, 0.9,
                                                         (0.0, 90.0, 300.0, 38.0)) for d in documents}
    locator = fit_locators({"t": documents}, answers)["t"]  # without the merged flag, two texts: no locator
    assert [slot.merged for slot in locator.slots] == [True]
    assert locate(locator, documents[0].rendered) == "Tin cup 0 (Mug)"


def test_a_template_with_two_slots_on_its_sample_gets_both():
    plain = [product(0), product(1)]
    spans = []
    for i in (2, 3):
        document = product(i)
        h1 = document.rendered.blocks[-1]
        span = dataclasses.replace(h1, tag="span", heading_level=0, font_size=26.0, dom_path="html[0]/body[1]/span[1]")
        spans.append(Document(document.page, dataclasses.replace(document.rendered, blocks=(
            *document.rendered.blocks[:-1], span))))
    locator = fit(plain + spans)["t"]
    assert [(slot.tag, slot.n_pages) for slot in locator.slots] == [("h1", 2), ("span", 2)]


def test_a_hesitant_sample_keeps_the_locator_of_the_slot_most_answers_came_from():
    """Three sampled pages answer the heading's text alone, one its heading merged with a note: the two slots
    overlap on that page, so no locator reproduces all four; the majority's locator is kept, and its agreement
    counts the page it does not reproduce."""
    documents = [product(i) for i in range(4)]
    h1 = documents[3].rendered.blocks[-1]
    merged = dataclasses.replace(h1, text=f"{h1.text} (Mug)", merged=True)
    documents[3] = Document(documents[3].page, dataclasses.replace(documents[3].rendered, blocks=(
        *documents[3].rendered.blocks, merged), title=f"{merged.text} | Shop"))
    answers = {(d.page.site_id, d.page.path): predicted(d) for d in documents[:3]}
    answers[("shop", "p3.html")] = Prediction("shop", "p3.html", "", merged.text, 0.9, (0.0, 90.0, 300.0, 38.0))
    locator = fit_locators({"t": documents}, answers)["t"]
    assert [(slot.merged, slot.n_pages) for slot in locator.slots] == [(False, 3)]
    assert locator.agreement == pytest.approx((3 + 19.8) / (4 + 20)) and locator.score == pytest.approx(0.9 * 22.8 / 24)
    other = product(7)
    assert apply_locator(locator, other.page, other.rendered).main_entity == "Tin cup 7"
    # no majority (two of four answers from each slot): no locator, the template is rendered
    answers[("shop", "p2.html")] = dataclasses.replace(answers[("shop", "p3.html")], path="p2.html")
    assert fit_locators({"t": documents}, answers) == {}


# --- the sample shop, rendered ----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def general_model():
    from mainentity.model_store import load_trained_model

    return load_trained_model(None)


@pytest.fixture(scope="module")
def shop_documents(general_model, render_cache_dir):
    """Every sample-shop page rendered, by ``(site_id, path)``."""
    render = dataclasses.replace(general_model.config.render, cache_dir=str(render_cache_dir))
    documents = {(d.page.site_id, d.page.path): d
                 for _, d, _ in iter_documents(shop_pages(), needs_render=True, render=render,
                                               subresources=SHOP_SOURCES)}
    assert all(document is not None for document in documents.values())
    return documents


def renderer_of(documents, general_model, render_cache_dir):
    """Pages -> documents: from ``documents``, or rendered through the cache when not there (changed pages)."""
    render = dataclasses.replace(general_model.config.render, cache_dir=str(render_cache_dir))

    def render_pages(pages):
        missing = [page for page in pages if (page.site_id, page.path) not in documents
                   or documents[(page.site_id, page.path)].page != page]
        fresh = {(d.page.site_id, d.page.path): d for _, d, _ in iter_documents(
            missing, needs_render=True, render=render, subresources=SHOP_SOURCES)}
        return [fresh.get((p.site_id, p.path)) or documents[(p.site_id, p.path)] for p in pages]

    return render_pages


def static_of(render_pages):
    """Page -> static reading: the static reader when it exists, else the page's rendering."""
    if HAS_STATIC:
        from mainentity.render.static import read_static

        sources = SHOP_SOURCES
        return lambda page: read_static(page, sources.for_page(page))
    return lambda page: render_pages([page])[0].rendered


def transfer(pages, general_model, shop_documents, render_cache_dir, **kwargs):
    render_pages = renderer_of(shop_documents, general_model, render_cache_dir)
    return transfer_site(pages, render_pages, general_model.recognizer.predict, static_of(render_pages), **kwargs)


@pytest.mark.browser
def test_locators_reproduce_every_sampled_answer_of_the_shop(general_model, shop_documents, render_cache_dir):
    pages = shop_pages()
    result = transfer(pages, general_model, shop_documents, render_cache_dir)
    keys = {template.key[1]: template.key for template in result.templates}
    products, categories = keys["pages/p/ashgrove-enamel-kettle.html"], keys["pages/c/garden/index.html"]
    assert {products, categories} <= set(result.locators)
    read = static_of(renderer_of(shop_documents, general_model, render_cache_dir))
    sample_predictions = {(p.site_id, p.path): p for p in general_model.recognizer.predict(
        [shop_documents[key] for key in sorted(result.sampled)])}
    by_page = {(p.site_id, p.path): template.key for template in result.templates for p in template.pages}
    for key in sorted(result.sampled):
        locator = result.locators.get(by_page[key])
        if locator is not None:
            answer = apply_locator(locator, shop_documents[key].page, read(shop_documents[key].page))
            assert answer is not None and answer.main_entity == sample_predictions[key].main_entity, key
    labels = {(p.site_id, p.path): p.main_entity for p in pages}
    read_pages = [p for p in result.predictions if (p.site_id, p.path) not in result.rendered]
    assert len(read_pages) >= 15 and all(p.main_entity in labels[(p.site_id, p.path)] for p in read_pages)
    for page in read_pages:  # no box; the score of its template's locator: the mean sampled score x agreement
        locator = result.locators[by_page[(page.site_id, page.path)]]
        assert page.bbox is None and page.score == locator.score
        assert 0.0 < locator.score <= locator.agreement < 1.0  # a probability times a leave-one-out estimate


@pytest.mark.browser
@pytest.mark.skipif(not HAS_STATIC, reason="the static reader reads a page at its slots")
def test_pages_read_at_their_slots_only_answer_as_pages_read_whole(general_model, shop_documents, render_cache_dir):
    """Given ``read_within``, the pages a locator reads are read where its slots are only: the same answers
    and the same pages rendered as with every page read whole (a page that falls back is read again in the
    next round, with that round's locator)."""
    from mainentity.render.static import read_static

    pages = shop_pages()
    whole = transfer(pages, general_model, shop_documents, render_cache_dir)
    asked = []

    def read_within(page, paths):
        asked.append(page.path)
        return read_static(page, SHOP_SOURCES.for_page(page), within=paths)

    parts = transfer(pages, general_model, shop_documents, render_cache_dir, read_within=read_within)
    assert parts.predictions == whole.predictions and parts.rendered == whole.rendered
    read = {(p.site_id, p.path) for p in pages} - whole.rendered
    assert {(pages[0].site_id, path) for path in asked} >= read and len(read) >= 15


@pytest.mark.browser
def test_a_site_with_two_templates_gets_two_locators(general_model, shop_documents, render_cache_dir):
    # product pages with the name in an <h1> (one of the shop's three product templates) and category pages
    pages = [p for p in shop_pages() if p.path.startswith("pages/c/")
             or (p.path.startswith("pages/p/") and f"<h1>{html.escape(p.main_entity[0])}</h1>" in p.html)]
    assert len(pages) == 15
    result = transfer(pages, general_model, shop_documents, render_cache_dir)
    assert len(result.templates) == 2 and len(result.locators) == 2
    assert sorted(len(locator.slots) for locator in result.locators.values()) == [1, 1]
    assert len(result.rendered) == 6  # 3 of each template; every other page read from its slot


@pytest.mark.browser
def test_a_page_whose_slot_is_empty_is_rendered(general_model, shop_documents, render_cache_dir):
    pages = [p for p in shop_pages() if p.path.startswith("pages/p/")
             and f"<h1>{html.escape(p.main_entity[0])}</h1>" in p.html]
    baseline = transfer(pages, general_model, shop_documents, render_cache_dir)
    target = next(p for p in pages if (p.site_id, p.path) not in baseline.rendered)
    emptied = dataclasses.replace(target, html=target.html.replace(f"<h1>{html.escape(target.main_entity[0])}</h1>",
                                                                   "<h1></h1>"))
    changed = [emptied if p.path == target.path else p for p in pages]
    result = transfer(changed, general_model, shop_documents, render_cache_dir)
    assert (target.site_id, target.path) in result.rendered
    assert len(result.rendered) == len(baseline.rendered) + 1
    locator = result.locators[result.templates[0].key]
    assert apply_locator(locator, emptied, static_of(renderer_of(shop_documents, general_model,
                                                                 render_cache_dir))(emptied)) is None


def sold_out_transfer(general_model, shop_documents, render_cache_dir):
    """A product page whose ``<title>`` still names the product while its heading slot says "Sold out" (a
    fresh-clone reviewer's page), through slot transfer with the shop's other product pages: the page, the
    baseline transfer (unchanged pages) and the transfer with that page changed."""
    pages = [p for p in shop_pages() if p.path.startswith("pages/p/")]
    baseline = transfer(pages, general_model, shop_documents, render_cache_dir)
    target = next(p for p in pages if (p.site_id, p.path) not in baseline.rendered
                  and f"<h1>{html.escape(p.main_entity[0])}</h1>" in p.html
                  and f"<title>{html.escape(p.main_entity[0])} |" in p.html)
    sold_out = dataclasses.replace(target, html=target.html.replace(
        f"<h1>{html.escape(target.main_entity[0])}</h1>", "<h1>Sold out</h1>"))
    changed = [sold_out if p.path == target.path else p for p in pages]
    return target, baseline, transfer(changed, general_model, shop_documents, render_cache_dir)


@pytest.mark.browser
def test_a_product_whose_name_slot_says_sold_out_is_rendered(general_model, shop_documents, render_cache_dir):
    """Read through the slot, the answer would be "Sold out": the page goes to Chromium, and only it."""
    target, baseline, result = sold_out_transfer(general_model, shop_documents, render_cache_dir)
    assert (target.site_id, target.path) in result.rendered
    assert len(result.rendered) == len(baseline.rendered) + 1  # that page only


@pytest.mark.browser
def test_a_product_whose_name_slot_says_sold_out_answers_its_title(general_model, shop_documents, render_cache_dir):
    target, _, result = sold_out_transfer(general_model, shop_documents, render_cache_dir)
    (answer,) = [p for p in result.predictions if p.path == target.path]
    # the product's name is the part of its <title> before the shop's name, a candidate with no box where the
    # page does not show it (features.candidates.title_segment_candidates)
    assert answer.main_entity == target.main_entity[0], answer.main_entity


@pytest.mark.browser
def test_a_variant_the_sample_missed_is_learned_in_a_further_round(general_model, shop_documents, render_cache_dir):
    # the shop's product pages: one template whose name slot has three variants (h1, styled div, bold span)
    pages = [p for p in shop_pages() if p.path.startswith("pages/p/")]
    one_round = transfer(pages, general_model, shop_documents, render_cache_dir, max_rounds=1)
    (locator,) = one_round.locators.values()
    assert len(locator.slots) == 2 and len(one_round.rendered) == 13  # 3 sampled, the 10 of the third variant
    adaptive = transfer(pages, general_model, shop_documents, render_cache_dir)
    (locator,) = adaptive.locators.values()
    assert adaptive.n_rounds == 2 and len(locator.slots) == 3
    assert len(adaptive.rendered) == 6 and one_round.sampled == adaptive.sampled
    labels = {(p.site_id, p.path): p.main_entity for p in pages}
    assert all(p.main_entity in labels[(p.site_id, p.path)] for p in adaptive.predictions)
