"""Transferable candidate features (mainentity.features.transfer) and site evidence (features.site)."""

from __future__ import annotations

import numpy as np
import pytest

from mainentity.features.candidates import page_candidates
from mainentity.features.site import HOLDS_LABEL, IS_LABEL, SITE_FEATURES, site_profile, slot_of
from mainentity.features.transfer import TRANSFER_FEATURES, candidate_features, jsonld_titles
from mainentity.records import Page, RenderedPage, TextBlock


def block(text, y, size=16.0, level=0, path=None, in_link=False):
    return TextBlock(text, "p", path or f"html[0]/body[1]/p[{int(y)}]", size, 700 if level else 400, bool(level),
                     100.0, y, 400.0, size * 1.2, in_link=in_link, heading_level=level)


def column(x, name):
    return x[:, TRANSFER_FEATURES.index(name)]


def features(blocks, title="", meta=(), url="https://quayside.example/1188204/ferry-trials/", html="", anchors=()):
    page = Page("s", "p.html", url, html, anchors=tuple(anchors))
    return candidate_features(blocks, page, RenderedPage(title, tuple(meta), tuple(blocks)))


def test_shape_and_bounds():
    blocks = [block("Quayside", 10, 24), block("Ferry trials begin", 120, 34, level=1), block("Body " * 80, 300)]
    x = features(blocks, title="Ferry trials begin | Quayside")
    assert x.shape == (3, len(TRANSFER_FEATURES))
    assert np.isfinite(x).all() and (x >= 0).all() and (x <= 4).all()
    assert column(x, "fsize_ratio").tolist() == [24 / 34, 1.0, 16 / 34]
    assert column(x, "fsize_rank").tolist() == [0.5, 1.0, 0.0]
    assert column(x, "h1").tolist() == [0.0, 1.0, 0.0]
    assert column(x, "first_h1").tolist() == [0.0, 1.0, 0.0]
    assert column(x, "title_segment_exact").tolist() == [0.0, 1.0, 0.0]
    assert column(x, "log_words")[2] == np.log(81) / np.log(101)  # log(1 + 80 words), 1 at 100 words


def test_a_title_that_is_only_the_site_name_is_no_title_evidence():
    blocks = [block("Quayside", 10, 24), block("Ferry trials begin", 120, 34, level=1)]
    x = features(blocks, title="Quayside", meta=[("og:site_name", "Quayside")])
    assert column(x, "title_segment_exact").tolist() == [0.0, 0.0]
    assert column(x, "site_name").tolist() == [1.0, 0.0]
    # the URL's slug still points at the story
    assert column(x, "url_dice").tolist() == [0.0, 0.8]


def test_a_url_segment_without_letters_is_no_name_evidence():
    # a shop's product id ("/product/9780316007023") or a diary's date names no page: the ISBN the page shows
    # beside a one-word title ("Drood") must not gain from the URL
    blocks = [block("Drood", 120, 34, level=1), block("9780316007023", 200)]
    by_id = features(blocks, title="Drood", url="https://books.example/product/9780316007023")
    assert column(by_id, "url_dice").tolist() == [0.0, 0.0]
    by_slug = features(blocks, title="Drood", url="https://books.example/product/drood-9780316007023")
    assert column(by_slug, "url_dice").tolist()[0] > 0.0


def test_a_title_segment_that_a_link_home_shows_names_the_site():
    """A lone page: no site evidence, a domain word ("longform") too short for the name; the header's link
    to the site's root ("Longform Quarterly") is what names the title's second segment the site."""
    blocks = [block("Longform Quarterly", 10, 20, in_link=True),
              block("Winter Orchards and the Growers Who Save Them", 80, 44, level=1)]
    url, title = "https://longform.example/essays/winter-orchards", "Winter Orchards | Longform Quarterly"
    candidates = page_candidates(RenderedPage(title, (), tuple(blocks)))
    assert [c.text for c in candidates] == [*(b.text for b in blocks), title, "Winter Orchards"]  # + <title>'s

    def columns(home_link_texts):
        page = Page("s", "p.html", url, "", home_link_texts=home_link_texts)
        x = candidate_features(candidates, page, RenderedPage(title, (), tuple(blocks)))
        return {name: column(x, name).tolist() for name in ("site_name", "holds_site_name", "title_segment_exact")}

    assert columns(()) == {"site_name": [0.0, 0.0, 0.0, 0.0], "holds_site_name": [0.0, 0.0, 0.0, 0.0],
                           "title_segment_exact": [1.0, 0.0, 1.0, 1.0]}
    named = {"site_name": [1.0, 0.0, 0.0, 0.0], "holds_site_name": [0.0, 0.0, 1.0, 0.0],
             "title_segment_exact": [0.0, 0.0, 0.0, 1.0]}
    assert columns(("Longform Quarterly",)) == named
    assert columns(("Longform Quarterly logo",)) == named  # a logo's alt: the name and a few letters more
    # a link home that holds only part of a segment, or much more than it, names nothing
    assert columns(("Home",)) == columns(("Longform Quarterly, essays and reviews since 1998",)) == columns(())


def test_a_short_site_name_names_the_site_only_whole():
    """v8.dev's titles end in "V8", a name of two characters that its header's link home shows and its
    domain is. It names the text "V8" and the title that holds it as a segment, not a text that merely
    starts with it. On another host, only the link home makes it the site's name."""
    blocks = [block("V8", 10, 20, in_link=True), block("Faster spread elements", 80, 44, level=1),
              block("V8 release v9.4", 200, 16)]
    title = "Faster spread elements · V8"
    candidates = page_candidates(RenderedPage(title, (), tuple(blocks)))
    assert [c.text for c in candidates][:4] == [*(b.text for b in blocks), title]

    def columns(url, home_link_texts=()):
        page = Page("s", "p.html", url, "", home_link_texts=home_link_texts)
        x = candidate_features(candidates, page, RenderedPage(title, (), tuple(blocks)))
        return {name: column(x, name).tolist()[:4] for name in ("site_name", "holds_site_name")}

    named = {"site_name": [1.0, 0.0, 0.0, 0.0], "holds_site_name": [0.0, 0.0, 0.0, 1.0]}
    assert columns("https://v8.dev/blog/spread-elements") == named
    assert columns("https://blog.example/spread-elements", ("V8",)) == named
    assert columns("https://blog.example/spread-elements") == {"site_name": [0.0] * 4, "holds_site_name": [0.0] * 4}


def test_dice_features_match_their_definition():
    blocks = [block("Know Your Bible", 100, level=1), block("Home", 10, in_link=True)]
    html = '<script type="application/ld+json">{"@type": "Book", "name": "Know Your Bible Today"}</script>'
    x = features(blocks, title="Know Your Bible - Shop", html=html, anchors=["Know your bible"])
    assert column(x, "title_dice").tolist() == [2 * 3 / (3 + 4), 0.0]
    assert column(x, "jsonld_dice").tolist() == [2 * 3 / (3 + 4), 0.0]
    assert column(x, "anchor_dice").tolist() == [1.0, 0.0]
    assert column(x, "in_link").tolist() == [0.0, 1.0]


def test_the_title_meta_tag_that_copies_the_title_is_no_second_meta_title():
    """Kommersant's ``<title>`` and ``title`` tag hold one summary the page does not show; og:title and
    twitter:title its shown headline. Only the og and twitter tags are meta titles: the summary scores no
    meta_dice, the headline all of it."""
    summary = "Our critic on the harbour council's vote over the ferry contract"
    blocks = [block("Rough Waters", 900, 40, level=1), block("The council met again on Tuesday. " * 6, 1000)]
    meta = [("title", summary), ("og:title", "Rough Waters"), ("twitter:title", "Rough Waters")]
    x = features(blocks, title=summary, meta=meta)
    assert column(x, "meta_dice").tolist() == [1.0, 0.0]
    rendered = RenderedPage(summary, tuple(meta), tuple(blocks))
    candidates = page_candidates(rendered)
    x = candidate_features(candidates, Page("s", "p.html", "https://harbour.example/doc/7715044", ""), rendered)
    assert [c.text for c in candidates][-1] == summary and column(x, "meta_dice")[-1] == 0.0
    # a ``title`` tag that says something else than the ``<title>`` is a statement of its own
    x = features(blocks, title=summary, meta=[("title", "Rough Waters")])
    assert column(x, "meta_dice").tolist() == [1.0, 0.0]


def test_the_segments_a_shorter_title_leaves_out_name_a_section():
    """NRK's ``<title>`` is its og:title with " – OL Paris 2024" (a section no other evidence names) after it:
    that segment names the site's section, so the whole title holds a site name and is no title segment; the
    og:title is one still. Without the og:title nothing says so."""
    title = "Tide turns at the harbour – Ferry Week"
    blocks = [block("Watch the report", 120, 20), block("The ferry sailed at dawn. " * 6, 300)]

    def columns(meta):
        rendered = RenderedPage(title, tuple(meta), tuple(blocks))
        candidates = page_candidates(rendered)
        x = candidate_features(candidates, Page("s", "p.html", "https://quay.example/v/41", ""), rendered)
        return {c.text: tuple(column(x, name)[i] for name in ("title_segment_exact", "site_name", "holds_site_name"))
                for i, c in enumerate(candidates) if c.kind == "title"}

    with_og = columns([("og:title", "Tide turns at the harbour")])
    assert with_og == {title: (0.0, 0.0, 1.0), "Tide turns at the harbour": (1.0, 0.0, 0.0),
                       "Ferry Week": (0.0, 1.0, 0.0)}
    assert columns([]) == {title: (1.0, 0.0, 0.0), "Tide turns at the harbour": (1.0, 0.0, 0.0),
                           "Ferry Week": (1.0, 0.0, 0.0)}


def test_a_text_that_starts_with_a_joining_mark_continues_another():
    blocks = [block("Old Towns", 100, 30, level=1), block(": A Quiet Place to Stay", 100, 30, level=1),
              block(" - Size M", 140), block("C++ in depth", 180), block("(Paperback)", 200), block("-5% today", 220)]
    # the second half of a heading split over spans, a variant after a dash; a name, a note in brackets are not
    assert column(features(blocks), "continues").tolist() == [0.0, 1.0, 1.0, 0.0, 0.0, 1.0]


def test_jsonld_titles_skip_the_publisher_and_bad_json():
    html = ('<script type="application/ld+json">{"@type": "NewsArticle", "headline": "Tides rise",'
            ' "publisher": {"@type": "Organization", "name": "Quayside"}}</script>'
            '<script type="application/ld+json">{not json</script>')
    assert jsonld_titles(html) == ["Tides rise"]


def test_site_features_tell_template_text_from_the_varying_slot():
    pages = [[block("Home", 10, path="nav"), block(f"Book number {i}", 100, level=1, path="h1"),
              block("Add to cart", 200, path="cart")] for i in range(5)]
    profile = site_profile(pages)
    x = profile.features(pages[2])
    names = list(SITE_FEATURES)
    assert x[:, names.index("has_site")].tolist() == [1.0, 1.0, 1.0]
    assert x[:, names.index("template_share")].tolist() == [1.0, 0.0, 1.0]
    assert x[:, names.index("slot_variety")].tolist() == [0.0, 1.0, 0.0]
    # a site of one page has no evidence: all zeros
    assert not site_profile(pages[:1]).features(pages[0]).any()


def test_a_slot_of_few_repeated_texts_is_a_label_and_its_holder_is_voted_on_apart():
    formats = ["(Paperback)", "(Hardcover)", "(Paperback)", "(Large Print)", "(Paperback)"]
    pages = []
    for i, fmt in enumerate(formats):
        title = block(f"Book number {i}", 100, 28, level=2, path="main/h2[0]")
        note = block(fmt, 100, 16, path="main/h2[0]/span[0]")
        pages.append([title, note, TextBlock(f"{title.text} {fmt}", "h2", "main/h2[0]", 28.0, 700, True, 100.0,
                                             100.0, 400.0, 34.0, heading_level=2, merged=True)])
    profile = site_profile(pages)
    # 3 texts over 5 pages: a label; the titles (5 texts over 5 pages) are not
    assert profile.label_slots == {slot_of(pages[0][1])}
    slots = profile.vote_slots(pages[0], list(map(slot_of, pages[0])))
    # "(Paperback)" is on 3 pages: a label text; "(Hardcover)" (page 1) is on one
    assert slots == [slot_of(pages[0][0]), slot_of(pages[0][1]) + IS_LABEL, slot_of(pages[0][2]) + HOLDS_LABEL]
    assert profile.vote_slots(pages[1], list(map(slot_of, pages[1])))[1] == slot_of(pages[1][1])
    # on two pages the slot is too rare to tell; with a text per page it is the entity's slot
    assert not site_profile(pages[:2]).label_slots
    assert not site_profile([page[:1] + [block(f"Note {i}", 100, 16, path="main/h2[0]/span[0]")]
                             for i, page in enumerate(pages)]).label_slots


def test_on_a_large_site_a_slot_whose_recurring_texts_fill_half_its_pages_is_a_label():
    # a shop of 60 books: the heading's span holds one of 4 bindings, or a unique subtitle before it on 20 pages
    bindings = ["(Paperback)", "(Hardcover)", "(Mass Market Paperback)", "(Audio CD)", "(Large Print)",
                "(Board Book)", "(Library Binding)", "(Paperback - Revised Ed.)", "(Hardcover - Anniv. Ed.)"]
    pages = []
    for i in range(60):
        note = bindings[i % len(bindings)] if i % 3 else f": Subtitle number {i} {bindings[i % 2]}"
        pages.append([block(f"Book number {i}", 100, 28, level=2, path="main/h2[0]"),
                      block(note, 100, 28, path="main/h2[0]/span[0]")])
    profile = site_profile(pages)
    span = slot_of(pages[1][1])
    # 9 + 20 distinct texts (more than LABEL_MAX_VALUES), but the bindings recur on 40 of the 60 pages
    assert profile.label_slots == {span}
    assert profile.vote_slots(pages[1], [slot_of(c) for c in pages[1]])[1] == span + IS_LABEL
    assert profile.vote_slots(pages[0], [slot_of(c) for c in pages[0]])[1] == span  # a subtitle: no label text
    # the titles' slot, 60 texts on 60 pages, is no label; nor is a title slot where one title repeats
    titles = [[block("Same book" if i < 2 else f"Book {i}", 100, 28, path="main/h2[0]")] for i in range(20)]
    assert not site_profile(titles).label_slots


def test_a_generator_default_title_names_no_page():
    deck = [block("Quarterly Review of the Northern Fleet", 60, 40)]
    candidates = page_candidates(RenderedPage("PowerPoint  presentation", (), tuple(deck)))
    x = candidate_features(candidates, Page("s", "d.html", "https://files.example/d.html", ""),
                           RenderedPage("PowerPoint  presentation", (), tuple(deck)))
    assert [c.text for c, name in zip(candidates, column(x, "site_name"), strict=True) if name] == [
        "PowerPoint presentation"]  # a candidate's white space is collapsed (features.name_text)


def test_boxes_that_are_not_finite_are_missing_not_empty():
    from mainentity.features.candidates import page_candidates

    nan, inf = float("nan"), float("inf")
    odd = TextBlock("Odd", "p", "html[0]/body[1]/p[0]", 16.0, 400, False, nan, nan, inf, 20.0)
    rendered = RenderedPage("", (), (odd, block("Fine", 10)))
    candidates = page_candidates(rendered)
    x = candidate_features(candidates, Page("s", "p.html", "", ""), rendered)
    layout = [TRANSFER_FEATURES.index(name) for name in ("y_fold", "above_fold", "x_centre", "width")]
    assert np.isnan(x[0, layout]).all() and np.isfinite(x[1]).all()
    # the height is finite: lines is known; the box-less block is a text of the page
    assert column(x, "lines")[0] == pytest.approx(20.0 / 19.2 / 10.0) and column(x, "in_page")[0] == 1.0
    assert np.isfinite(np.delete(x[0], layout)).all()


def test_a_whole_title_that_neither_the_largest_text_nor_the_url_supports_is_unsupported():
    nav = block("Welcome", 10, 14, path="html[0]/body[1]/nav[0]/a[0]", in_link=True)
    heading = block("Annual Report of the Harbour Trust", 120, 32, level=1)
    body = block("The Trust's income rose by four per cent over the year. " * 4, 300)
    no_slug = "https://harbourtrust.example/index.php?p=12"
    x = features([nav, heading, body], title="Welcome", url=no_slug)
    assert column(x, "title_unsupported").tolist() == [1.0, 0.0, 0.0]  # the nav link is the whole title
    # the same title shown as the heading is supported by it; the heading is not a title then either
    x = features([nav, heading, body], title="Annual Report of the Harbour Trust", url=no_slug)
    assert column(x, "title_unsupported").tolist() == [0.0, 0.0, 0.0]
    # a whole title the page does not show (a candidate of kind title): supported by the heading's terms
    rendered = RenderedPage("Harbour Trust annual report", (), (nav, heading, body))
    candidates = page_candidates(rendered)
    x = candidate_features(candidates, Page("s", "p.html", "https://harbourtrust.example/report", ""), rendered)
    assert candidates[-1].kind == "title" and candidates[-1].width == 0
    dice_url = 2 * 1 / (4 + 1)  # {harbour, trust, annual, report} against {report}
    dice_heading = 2 * 4 / (4 + 6)  # against {annual, report, of, the, harbour, trust}
    assert column(x, "title_unsupported")[-1] == 1.0 - max(dice_url, dice_heading)
    assert column(x, "title_unsupported")[:-1].tolist() == [0.0] * (len(candidates) - 1)


def test_a_line_of_a_taller_heading_is_a_part_and_a_piece_on_one_line_is_not():
    first = TextBlock("Winter Orchards", "span", "html[0]/body[1]/h1[0]/span[0]", 44, 700, True, 8, 100, 400, 53,
                      heading_level=1)
    second = TextBlock("and the Growers Who Save Them", "span", "html[0]/body[1]/h1[0]/span[1]", 30, 700, True, 8,
                       153, 500, 36, heading_level=1)
    whole = TextBlock("Winter Orchards and the Growers Who Save Them", "h1", "html[0]/body[1]/h1[0]", 44, 700, True,
                      8, 100, 500, 89, heading_level=1, kind="heading")
    body = block("A story told slowly. " * 20, 300)
    x = candidate_features([first, second, whole, body], Page("s", "p.html", "https://s.example/p", ""),
                           RenderedPage("Winter Orchards | Longform", (), (first, second, body), segments=(whole,)))
    assert column(x, "whole_share").round(3).tolist() == [round(15 / 45, 3), round(29 / 45, 3), 1.0, 1.0]
    # a title beside a smaller format note on the same line: neither is a line of the other
    title = TextBlock("Know Your Bible", "h2", "html[0]/body[1]/h2[0]", 28, 700, True, 8, 100, 200, 34,
                      heading_level=2)
    note = TextBlock("Know Your Bible (Paperback)", "h2", "html[0]/body[1]/h2[0]", 28, 700, True, 8, 100, 300, 34,
                     heading_level=2, merged=True)
    x = candidate_features([title, note], Page("s", "p.html", "https://s.example/p", ""),
                           RenderedPage("Know Your Bible", (), (title, note)))
    assert column(x, "whole_share").tolist() == [1.0, 1.0]


def test_a_hosts_last_label_names_the_site_of_a_blog_under_it():
    """A blog at maplehiker.quillhost.example: the platform's bar "Quillhost Blogs" names the site (the host's
    last label "quillhost"; the whole host, "maplehikerquillhost", names nothing the page shows), so the
    title's last segment is no title evidence and the post's title is an exact segment (" @ " cuts it)."""
    blocks = [block("Quillhost Blogs", 10, 28, level=1), block("Autumn maples on the ridge trail", 200, 22, level=2)]
    title = "Autumn maples on the ridge trail @ Maple Hiker :: Quillhost Blogs ::"

    def columns(url):
        x = features(blocks, title=title, url=url)
        return {name: column(x, name).tolist() for name in ("site_name", "title_segment_exact")}

    assert columns("https://maplehiker.quillhost.example/post/100") == {"site_name": [1.0, 0.0],
                                                                       "title_segment_exact": [0.0, 1.0]}
    assert columns("https://maplehiker.example/post/100") == {"site_name": [0.0, 0.0],
                                                             "title_segment_exact": [1.0, 1.0]}
