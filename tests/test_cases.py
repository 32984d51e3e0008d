"""Pages the earlier model got wrong (../shared/cases) and our own pages of the same kinds, answered by
the general model that ships with the package. Start Chromium."""

from __future__ import annotations

import json
import zlib
from pathlib import Path

import pytest

from mainentity.config import RenderConfig
from mainentity.loading import with_site_anchors
from mainentity.model_store import load_trained_model
from mainentity.pipeline import iter_documents
from mainentity.records import Page

pytestmark = pytest.mark.browser

CASES = Path(__file__).resolve().parents[2] / "shared" / "cases"


@pytest.fixture(scope="module")
def general_model():
    return load_trained_model(None)


def answer(model, pages, render_cache_dir, javascript: bool | str = False):
    """The model's predictions for ``pages``, linked as a run links a site dump's pages (anchors, links home)."""
    render = RenderConfig(cache_dir=str(render_cache_dir), javascript=javascript)
    pages = with_site_anchors(pages)
    documents = [document for _, document, _ in iter_documents(pages, needs_render=True, render=render)]
    assert all(document is not None for document in documents)
    by_key = {(p.site_id, p.path): p for p in model.recognizer.predict(documents)}
    return [by_key[(page.site_id, page.path)] for page in pages]


def case_pages():
    if not CASES.is_dir():
        pytest.skip(f"no shared cases at {CASES}")
    pages = []
    for html in sorted(CASES.glob("*.html")):
        meta = json.loads(html.with_suffix(".json").read_text(encoding="utf-8"))
        pages.append(Page(html.stem, html.name, meta["url"], html.read_text(encoding="utf-8"),
                          tuple(meta["main_entity"])))
    return pages


def test_shared_cases(general_model, render_cache_dir):
    pages = case_pages()
    assert len(pages) >= 2
    for page, prediction in zip(pages, answer(general_model, pages, render_cache_dir), strict=True):
        assert prediction.main_entity in page.main_entity, (page.site_id, prediction.main_entity, prediction.candidates)


STYLE = ("<style>.sr{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)}"
         "body{font-family:serif} .cap{float:left;font-size:{cap}px;line-height:1} h2{font-size:36px}</style>")


def drop_cap_page(letter: str, rest: str, site: str) -> Page:
    """A story whose headline's first letter is a floated, aria-hidden drop cap, with a screen-reader copy."""
    html = (f"<!DOCTYPE html><html><head><title>{letter}{rest} | {site}</title>"
            f"{STYLE.replace('{cap}', '84')}</head><body>"
            f"<div style='font-size:28px;font-weight:bold'>{site}</div>"
            "<nav><a href='/'>Home</a> <a href='/news/'>News</a> <a href='/sport/'>Sport</a></nav>"
            f"<main><div style='font-size:12px'>Coast · Weather</div>"
            f"<h2><span class='cap' aria-hidden='true'>{letter}</span><span class='sr'>{letter}</span>{rest}</h2>"
            "<p style='font-size:18px'>" + "The tide came in faster than the forecast said it would. " * 6 + "</p>"
            "</main><footer>Contact · About</footer></body></html>")
    return Page("own-drop-cap", f"{letter}.html", f"https://{site.lower().replace(' ', '')}.example/story/1", html,
                (f"{letter}{rest}",))


def two_stories_page() -> Page:
    """Two full stories on one page, ``<title>`` and ``og:site_name`` only the site name, headlines as h2."""
    stories = [("Night trains return to the valley line", "/2041/night-trains-return-to-the-valley-line/"),
               ("Council votes to keep the old lido open all winter", "/2042/council-votes-to-keep-the-lido/")]
    body = "".join(
        f"<article><div style='font-size:11px;text-transform:uppercase'>Transport</div>"
        f"<h2 style='font-size:30px'>{headline}</h2><div style='font-size:12px'>By A. Writer</div>"
        "<p style='font-size:17px'>" + "Passengers will be able to board from ten in the evening. " * (5 + 3 * i)
        + "</p></article>" + ("<div style='font-size:12px;font-weight:bold'>Up next</div>" if i == 0 else "")
        for i, (headline, _) in enumerate(stories))
    html = ("<!DOCTYPE html><html><head><title>Valley Post</title><meta property='og:site_name' content='Valley Post'>"
            "</head><body><header><span style='font-size:26px;font-weight:900'>Valley Post</span>"
            "<a href='/latest/'>Latest</a> <a href='/transport/'>Transport</a></header>"
            f"<main>{body}</main><footer>© Valley Post</footer></body></html>")
    return Page("own-two-stories", "story.html", "https://valleypost.example" + stories[0][1], html, (stories[0][0],))


def test_own_pages_of_the_same_kinds(general_model, render_cache_dir):
    pages = [drop_cap_page("W", "inter storms reach the harbour early", "Bay Courier"),
             drop_cap_page("A", "n old ferry finds a new route", "Harbour Times"),
             two_stories_page()]
    for page, prediction in zip(pages, answer(general_model, pages, render_cache_dir), strict=True):
        assert prediction.main_entity == page.main_entity[0], (page.path, prediction.main_entity, prediction.candidates)
        assert 0.0 <= prediction.score <= 1.0


# The failures the issue about unseen sites lists, on sites of our own predicted whole (site evidence on)
BOOKS = [("The Quiet Orchard", "Mara Ellison", "Paperback"), ("Salt and Lantern", "Owen Pryce", "Hardcover"),
         ("A Map of Small Rivers", "Ines Moreau", "Paperback"), ("Winter Letters", "Tom Agarwal", "Large Print"),
         ("The Clockmaker's Garden", "Ruth Okafor", "Paperback")]

def bookshop_pages() -> list[Page]:
    """A bookshop the model never saw: the title's heading holds a smaller format note, a 'by Author' line
    sits below it, and a large bold navigation link repeats on every page."""
    pages = []
    for i, (title, author, fmt) in enumerate(BOOKS):
        slug = title.lower().replace(" ", "-").replace("'", "")
        related = "".join(f"<li><a href='/book/{t.lower().replace(' ', '-').replace(chr(39), '')}'>{t}</a></li>"
                          for t, _, _ in BOOKS if t != title)
        html = (f"<!DOCTYPE html><html><head><title>{title} ({fmt}) by {author} | Riverbend Books</title>"
                "<style>body{font-family:sans-serif;font-size:15px}"
                " .subtitle{font-size:16px;font-weight:400;color:#666}"
                " .deal{font-size:26px;font-weight:bold;color:#b00} h2{font-size:28px}</style></head><body>"
                "<header><a href='/' style='font-size:22px;font-weight:bold'>Riverbend Books</a>"
                " <a class='deal' href='/sale'>Summer Sale: 3 for 2</a>"
                " <a href='/fiction'>Fiction</a> <a href='/kids'>Kids</a></header>"
                "<div class='crumbs'><a href='/'>Home</a> › <a href='/fiction'>Fiction</a></div>"
                f"<main><h2>{title}<span class='subtitle'> ({fmt})</span></h2>"
                f"<div class='by' style='font-size:17px'>by <a href='/author/{i}'>{author}</a></div>"
                f"<div style='font-size:24px;font-weight:bold'>${12 + i}.99</div>"
                "<button>Add to basket</button>"
                "<p>" + f"A story of {title.lower()} and what it keeps. " * 4 + "</p>"
                f"<h3>Readers also bought</h3><ul>{related}</ul></main>"
                "<footer>Riverbend Books · Returns · Contact</footer></body></html>")
        pages.append(Page("own-bookshop", f"book/{slug}.html", f"https://riverbend.example/book/{slug}", html,
                          (title,)))
    return pages

STORIES = [("Ferry fares to rise by a third from spring", "Transport"),
           ("New library opens its doors after six years of work", "Culture"),
           ("Storm brings down power lines across the north coast", "Weather"),
           ("School meals to be free for every pupil from September", "Education")]

def news_pages() -> list[Page]:
    """A news site the model never saw: a section label over the headline, the site's name large, and a
    first paragraph that repeats the headline's words."""
    pages = []
    for headline, section in STORIES:
        slug = "-".join(headline.lower().split()[:5])
        words = headline.lower()
        html = (f"<!DOCTYPE html><html><head><title>{headline} - North Coast Herald</title>"
                "<meta property='og:site_name' content='North Coast Herald'>"
                "<style>body{font-family:Georgia,serif;font-size:16px} h1{font-size:34px;margin:4px 0}"
                " .lede{font-size:21px;line-height:1.4} .section{font-size:13px;font-weight:bold;"
                "text-transform:uppercase;color:#c00}</style></head><body>"
                "<header><div style='font-size:40px;font-weight:900'>North Coast Herald</div>"
                "<nav><a href='/'>Home</a> <a href='/news'>News</a> <a href='/sport'>Sport</a>"
                f" <a href='/{section.lower()}'>{section}</a></nav></header>"
                f"<article><a class='section' href='/{section.lower()}'>{section}</a><h1>{headline}</h1>"
                "<div style='font-size:13px'>By Staff Reporter · 3 March</div>"
                f"<p class='lede'>{headline}, officials said on Tuesday, in a change that means {words} "
                "for thousands of people along the coast who had hoped for better news this year.</p>"
                "<p>" + "Residents said they had not been told in advance. " * 8 + "</p></article>"
                "<aside><h3>Most read</h3><ol>" + "".join(f"<li><a href='/s/{j}'>{h}</a></li>" for j, (h, _)
                                                           in enumerate(STORIES) if h != headline) + "</ol></aside>"
                "<footer>© North Coast Herald</footer></body></html>")
        pages.append(Page("own-news", f"news/{slug}.html", f"https://northcoastherald.example/news/{slug}",
                          html, (headline,)))
    return pages


PRODUCTS = [("Oak Shelf", " - Size M"), ("Linen Shirt", " / Blue"), ("Walnut Desk", " - Size L"),
            ("Wool Throw", " / Blue"), ("Pine Stool", " - Size M"), ("Cotton Apron", " / Red"),
            ("Ash Bench", " - Size L"), ("Clay Vase", " / Red")]


def variant_shop_pages() -> list[Page]:
    """A shop the model never saw: the chosen variant sits beside the name in the heading, in a span of the
    heading's own size ("Oak Shelf - Size M", "Linen Shirt / Blue"); the variants recur over the shop."""
    pages = []
    for name, variant in PRODUCTS:
        slug = name.lower().replace(" ", "-")
        html = (f"<!DOCTYPE html><html><head><title>{name} | Hollow Oak Home</title>"
                "<style>body{font-family:sans-serif;font-size:15px} h1{font-size:30px}</style></head><body>"
                "<header><a href='/' style='font-size:24px;font-weight:bold'>Hollow Oak Home</a>"
                " <a href='/living'>Living</a> <a href='/bedroom'>Bedroom</a></header>"
                f"<main><h1>{name}<span class='variant'>{variant}</span></h1>"
                "<div style='font-size:22px;font-weight:bold'>$48.00</div><button>Add to basket</button>"
                f"<p>{name} made by hand in our workshop. " * 3 + "</p></main>"
                "<footer>Hollow Oak Home · Delivery · Returns</footer></body></html>")
        pages.append(Page("own-variant-shop", f"p/{slug}.html", f"https://hollowoak.example/p/{slug}", html, (name,)))
    return pages


KICKED = [("Harbour inquiry", "Two resignations and many open questions"),
          ("Old towns", "A quiet place to stay on the estuary"),
          ("Budget", "Council agrees to keep the night buses running"),
          ("Harbour inquiry", "Ferry company asked to hand over its logs")]


def kicker_news_pages() -> list[Page]:
    """A news site the model never saw: a kicker in an element of its own above each headline (labels of four
    of the five shared datasets leave such a kicker out); one headline is split into spans of one size."""
    pages = []
    for i, (kicker, headline) in enumerate(KICKED):
        slug = "-".join(headline.lower().split()[:4])
        shown = (f"<span>{headline.split(' ', 2)[0]} {headline.split(' ', 2)[1]}</span> "
                 f"<span>{headline.split(' ', 2)[2]}</span>") if i == 1 else headline
        html = (f"<!DOCTYPE html><html><head><title>{kicker}: {headline} | Estuary Post</title>"
                "<style>body{font-family:Georgia,serif;font-size:16px} h1{font-size:36px;margin:2px 0}"
                " .kicker{font-size:20px;font-weight:bold;color:#06c}</style></head><body>"
                "<header><div style='font-size:38px;font-weight:900'>Estuary Post</div>"
                "<nav><a href='/'>Home</a> <a href='/news'>News</a></nav></header>"
                f"<article><div class='kicker'>{kicker}</div><h1>{shown}</h1>"
                "<p style='font-size:19px'>What we know so far, and what happens next.</p>"
                "<p>" + "The decision was taken late on Monday. " * 8 + "</p></article>"
                "<footer>© Estuary Post</footer></body></html>")
        pages.append(Page("own-kicker-news", f"{i}/{slug}.html", f"https://estuarypost.example/{i}/{slug}", html,
                          (headline,)))
    return pages


CRUMBED = [("Harbour board: Ferry fares to rise by a tenth from March",
            "Ferry fares rise again, and commuters ask why"),
           ("Storm Ida: Coast road closed after landslip near Kirkby", "A landslip cuts the coast road in two")]


def crumb_headline_pages() -> list[Page]:
    """A publisher that sets an SEO copy of the ``<title>`` as an ``<h1>``, the last crumb of a breadcrumb trail
    in a ``<nav>``, above the story's own headline, a larger ``<h2>`` that ``og:title`` repeats (fundus's
    Tages-Anzeiger and n-tv pages; the first ``<h1>`` in a ``<nav>`` heads the navigation, not the page)."""
    pages = []
    for seo, headline in CRUMBED:
        slug = "-".join(seo.lower().replace(":", "").split()[:5])
        html = (f"<!DOCTYPE html><html><head><title>{seo} | Tidewater Courier</title>"
                f"<meta property='og:title' content='{headline}'>"
                "<style>body{font-family:Arial,sans-serif;font-size:16px} nav h1{display:inline;font-size:13px}"
                " nav a{font-size:13px;margin-right:6px} h2.headline{font-size:38px;margin:10px 0}</style></head><body>"
                "<header><div style='font-size:30px;font-weight:900'>Tidewater Courier</div></header>"
                "<nav aria-label='breadcrumb'><a href='/'>Home</a> <a href='/region/'>Region</a> "
                f"<h1>{seo}</h1></nav>"
                f"<article><h2 class='headline'>{headline}</h2>"
                "<p style='font-size:19px'>What changes, and for whom.</p>"
                "<p>" + "The board met on Tuesday evening and voted after a long debate. " * 8 + "</p></article>"
                "<footer>© Tidewater Courier</footer></body></html>")
        pages.append(Page("own-crumb-news", f"region/{slug}.html", f"https://tidewater.example/region/{slug}", html,
                          (headline,)))
    return pages


HOSTED_POSTS = ["Autumn maples on the ridge trail (2)", "A wet night at the lake hut", "Chestnut season in the valley"]


def hosted_blog_pages() -> list[Page]:
    """Posts of a blog hosted under a platform's domain (maplehiker.quillhost.example): the platform's bar
    heads every page with its name in the largest ``<h1>`` ("Quillhost Blogs"), which the ``<title>`` repeats
    as its last segment after the blog's name; the post's title is a smaller heading further down
    (readability-realworld's pixnet page answered "痞客邦 PIXNET": the host's last label names the site)."""
    pages = []
    for i, post in enumerate(HOSTED_POSTS):
        title = f"{post} @ Maple Hiker's Notes :: Quillhost Blogs ::"
        html = (f"<!DOCTYPE html><html><head><title>{title}</title><meta property='og:title' content=\"{title}\">"
                "<meta property='og:site_name' content=\"Maple Hiker's Notes\">"
                "<style>body{font-family:Arial,sans-serif;font-size:15px} .bar h1{font-size:28px;margin:4px}"
                " h2.post{font-size:22px}</style></head><body>"
                "<div class='bar'><h1>Quillhost Blogs</h1><a href='https://www.quillhost.example/'>Sign in</a></div>"
                "<div style='font-size:18px'>Maple Hiker's Notes</div>"
                "<p>Walks and huts of the northern hills, with photos.</p>"
                f"<h2 class='post'>{post}</h2><p>Posted in Trails</p>"
                "<p>" + "We left the car at the lower gate and climbed through the beeches. " * 8 + "</p>"
                "</body></html>")
        url = f"https://maplehiker.quillhost.example/post/{100 + i}"
        pages.append(Page("own-hosted-blog", f"post/{100 + i}.html", url, html, (post,)))
    return pages


THREADS = [("Which varnish for an oak table outdoors?", "Harbor Woodworkers' Forum", "[", "]"),
           ("古い桐箪笥の修理について教えてください", "木工なんでも掲示板", "\uff1c", "\uff1e")]


def bracketed_site_title_page(thread: str, site: str, opener: str, closer: str) -> Page:
    """A lone forum thread whose ``<title>`` ends in the site's name in brackets ("Thread - Topic [Site]", as
    Archive of Our Own and LWN.net set it; "Story ＜Site＞" on a Japanese fairy-tale site), the name large
    in the header's home link (readability-realworld's archive-of-our-own page answered "Archive of Our Own":
    the bracketed name was no segment of its own, so nothing said it names the site)."""
    title = f"{thread} - Finishes {opener}{site}{closer}"
    html = (f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{title}</title>"
            "<style>body{font-family:sans-serif;font-size:15px} #header h1{font-size:30px} h2{font-size:20px}"
            "</style></head><body>"
            f"<div id='header'><h1><a href='/'><span>{site}</span> <sup>beta</sup></a></h1>"
            "<ul><li><a href='/finishes'>Finishes</a></li><li><a href='/tools'>Tools</a></li></ul></div>"
            f"<div class='thread'><p>Finishes</p><h2>{thread}</h2><p>Started by oakleaf</p>"
            "<p>" + "I sanded it back to bare wood and wonder what lasts through a wet winter. " * 6 + "</p>"
            "</div></body></html>")
    slug = f"{zlib.crc32(thread.encode()):08x}"
    return Page(f"own-forum-{slug}", f"thread/{slug}.html", f"https://forum-{slug}.example/thread/{slug}", html,
                (thread,))


@pytest.mark.parametrize("thread", THREADS, ids=["en", "ja"])
def test_a_title_ending_in_the_sites_name_in_brackets_gives_the_page_its_own_name(general_model, render_cache_dir,
                                                                                   thread):
    page = bracketed_site_title_page(*thread)
    (prediction,) = answer(general_model, [page], render_cache_dir)  # a dump of one page: no site evidence
    assert prediction.main_entity == page.main_entity[0], (prediction.main_entity, prediction.candidates)


COLUMNS = [("Rough Waters", "Anna Berg on the harbour council's vote over the ferry contract"),
           ("Small Hours", "Why the night bakers of Tarrow Street are closing their ovens")]


def seo_title_column_page(headline: str, summary: str) -> Page:
    """A lone column page whose ``<title>``, and the ``title`` meta tag that copies it, give a summary the page
    never shows, while its shown headline, under the fold below an advertisement, is also its og:title and
    JSON-LD ``headline`` (fundus-half's Kommersant page, left out of training, answered its ``<title>``: the
    copy counted as a second meta title that agreed with it; the shipped model, which learned from that page,
    answered this one right before the copy was dropped too)."""
    data = json.dumps({"@context": "https://schema.org", "@type": "NewsArticle", "headline": headline})
    html = ("<!DOCTYPE html><html><head><meta charset='utf-8'>"
            f"<title>{summary}</title><meta name='title' content=\"{summary}\">"
            f"<meta property='og:title' content='{headline}'><meta name='twitter:title' content='{headline}'>"
            f"<script type='application/ld+json'>{data}</script>"
            "<style>body{font-family:Georgia,serif;font-size:16px} h1{font-size:40px}</style>"
            "</head><body><nav><a href='/'>The Harbour Review</a> <a href='/columns'>Columns</a>"
            " <a href='/city'>City</a></nav><div style='height:900px'><p>Advertisement</p></div><main><p>Column</p>"
            f"<h1>{headline}</h1>"
            "<p>By Anna Berg</p><p>" + "The council met again on Tuesday and the room was full long before six. " * 8
            + "</p></main></body></html>")
    slug = "-".join(headline.lower().split())
    return Page(f"own-column-{slug}", f"columns/{slug}.html", f"https://harbour-{slug}.example/columns/{slug}",
                html, (headline,))


@pytest.mark.parametrize("column", COLUMNS, ids=[column[0] for column in COLUMNS])
def test_a_title_copied_into_the_title_meta_tag_is_one_statement_not_two(general_model, render_cache_dir, column):
    page = seo_title_column_page(*column)
    (prediction,) = answer(general_model, [page], render_cache_dir)
    assert prediction.main_entity == page.main_entity[0], (prediction.main_entity, prediction.candidates)


SECTION_CLIPS = [("OL i Paris 2024: Tårene rant for Lene Retzius", "OL Paris 2024"),
                 ("The harbour ferry returns after the storm", "Ferry Week 2026")]


def section_title_clip_page(headline: str, section: str) -> Page:
    """A lone video page whose headline is only in its ``<title>``, with a section after it ("… – OL Paris
    2024", whose words the headline repeats), and in its og:title without the section; nothing else names
    the section (fundus-half's NRK page answered the whole ``<title>``)."""
    html = ("<!DOCTYPE html><html><head><meta charset='utf-8'>"
            f"<title>{headline} – {section}</title><meta property='og:title' content='{headline}'>"
            "<style>body{font-family:Arial,sans-serif;font-size:15px} .player{width:640px;height:360px;"
            "background:#111}</style></head><body><header><a href='/' style='font-size:30px;font-weight:900'>"
            "Kystposten</a> <a href='/sport'>Sport</a> <a href='/tv'>TV</a></header><main><div class='player'>"
            "</div><p>Se hele reportasjen.</p><p style='font-size:12px'>Publisert 5. august</p><h3>Mer fra OL</h3>"
            "<ul><li><a href='/a'>Gull i roing</a></li><li><a href='/b'>Sølv i sykling</a></li></ul></main></body>"
            "</html>")
    slug = f"{zlib.crc32(headline.encode()):08x}"
    return Page(f"own-tv-{slug}", f"tv/{slug}.html", f"https://kyst-{slug}.example/tv/{slug}", html, (headline,))


@pytest.mark.parametrize("clip", SECTION_CLIPS, ids=["repeated-words", "plain"])
def test_a_titles_section_that_the_og_title_leaves_out_is_no_part_of_the_answer(general_model, render_cache_dir,
                                                                                   clip):
    page = section_title_clip_page(*clip)
    (prediction,) = answer(general_model, [page], render_cache_dir)
    assert prediction.main_entity == page.main_entity[0], (prediction.main_entity, prediction.candidates)


CLIPS = ["Ferry fares rise for the third year in a row", "Lighthouse keeper retires after forty years",
         "Flooded road reopens after the spring storms"]


def video_news_pages() -> list[Page]:
    """A local news site's video pages: the headline is in the ``<title>`` only ("… - Local News - Salem,
    OR"); the page shows the player and its generic caption, and links to its other clips (a site suffix
    kept with the headline was the answer before)."""
    pages = []
    for i, headline in enumerate(CLIPS):
        slug = "-".join(headline.lower().split()[:4])
        others = "".join(f"<li><a href='/video/{'-'.join(clip.lower().split()[:4])}.html'>{clip}</a></li>"
                         for clip in CLIPS if clip != headline)
        html = (f"<!DOCTYPE html><html><head><title>{headline} - Local News - Salem, OR</title>"
                "<style>body{font-family:Arial,sans-serif;font-size:15px}"
                " .player{width:640px;height:360px;background:#111}</style></head><body>"
                "<header><a href='/' style='font-size:32px;font-weight:900'>Salem Daily</a>"
                " <a href='/news'>Local News</a> <a href='/video'>Video</a></header>"
                "<main><div class='player'></div><p>Watch the full report.</p>"
                f"<p style='font-size:12px'>Posted {i + 3} March</p>"
                f"<h3>More videos</h3><ul>{others}</ul></main><footer>© Salem Daily</footer></body></html>")
        pages.append(Page("own-video-news", f"video/{slug}.html", f"https://salemdaily.example/video/{slug}.html", html,
                          (headline,)))
    return pages


# A title whose headline the page shows nowhere: the title's part before its section and site is a candidate
# with no box (features.candidates.title_segment_candidates), as the whole title was.
def test_a_headline_shown_only_in_the_title_is_its_part_not_the_whole_title(general_model, render_cache_dir):
    pages = video_news_pages()
    for page, prediction in zip(pages, answer(general_model, pages, render_cache_dir), strict=True):
        assert prediction.main_entity == page.main_entity[0], (page.path, prediction.main_entity, prediction.candidates)
    alone = answer(general_model, pages[:1], render_cache_dir)[0]
    assert alone.main_entity == pages[0].main_entity[0], (alone.main_entity, alone.candidates)


RECIPES = [("Lemon Tart", "Easy 5-Ingredient Recipe", "🍋"), ("Harbor Grill Fish Stew", "Ready in 40 Minutes", "🐟")]


def recipe_page(name: str, extra: str, mark: str) -> Page:
    """A recipe blog's post: a headline that wraps the dish's name in extra words and an emoji, a recipe card
    lower down, and schema.org Recipe data that names the dish."""
    slug = name.lower().replace(" ", "-")
    data = {"@context": "https://schema.org", "@type": "Recipe", "name": name,
            "author": {"@type": "Person", "name": "Jo Baker"}, "recipeYield": "8"}
    html = (f"<!DOCTYPE html><html><head><title>{name} ({extra}) - Crumbs and Co</title>"
            f"<script type='application/ld+json'>{json.dumps(data)}</script>"
            "<style>body{font-family:sans-serif;font-size:16px} h1{font-size:34px} .card h2{font-size:22px}</style>"
            "</head><body><header><a href='/' style='font-size:26px;font-weight:bold'>Crumbs and Co</a>"
            " <a href='/recipes'>Recipes</a> <a href='/about'>About</a></header>"
            f"<article><h1>{name} ({extra}) {mark}</h1><p>By Jo Baker · 12 May</p>"
            + "<p>This is the one I make every spring when the first fruit comes in. " * 6 + "</p>"
            f"<div class='card'><h2>{name}</h2><p>Serves 8 · 40 minutes</p><ul><li>Butter</li><li>Flour</li>"
            "<li>Sugar</li></ul></div></article><footer>Crumbs and Co</footer></body></html>")
    return Page(f"own-recipe-{slug}", f"recipes/{slug}.html", f"https://crumbs.example/recipes/{slug}", html, (name,))


# A lone entity page whose headline wraps the entity's name: the name its structured data and its card give,
# shown inside the headline, is a candidate (features.candidates.title_segment_candidates' names) and wins.
@pytest.mark.parametrize("recipe", RECIPES, ids=[recipe[0] for recipe in RECIPES])
def test_an_entity_page_is_named_by_its_entity_not_its_blog_headline(general_model, render_cache_dir, recipe):
    page = recipe_page(*recipe)
    prediction = answer(general_model, [page], render_cache_dir)[0]
    assert prediction.main_entity == page.main_entity[0], (prediction.main_entity, prediction.candidates)


# The bookshop's heading holds a smaller format note in a span of its own: its few values ("(Paperback)",
# "(Hardcover)") make that span a label slot, and the heading merged with it is voted on apart from the
# title alone (SiteProfile.vote_slots), so the site vote moves the page that liked the note to its title.
# The variant shop's variants are label texts of the heading's span (SiteProfile.label_texts) and start with a
# joining mark (feature continues); the kicker sits in an element of its own, apart from the headline.
@pytest.mark.parametrize("make_pages", [bookshop_pages, news_pages, variant_shop_pages, kicker_news_pages,
                                        crumb_headline_pages,
                                        # the host's last label names "Quillhost Blogs" the site and " @ " cuts the
                                        # post's title out of the <title>; without a slug in the URL the largest
                                        # <h1> won until the training labels stopped taking titles the page does
                                        # not show over its headings (shown_main_entity_labels)
                                        hosted_blog_pages])
def test_own_sites_of_the_listed_failure_kinds(general_model, render_cache_dir, make_pages):
    pages = make_pages()
    for page, prediction in zip(pages, answer(general_model, pages, render_cache_dir), strict=True):
        assert prediction.main_entity == page.main_entity[0], (page.path, prediction.main_entity, prediction.candidates)
    alone = answer(general_model, pages[:1], render_cache_dir)[0]  # a dump of one page: no site evidence
    assert alone.main_entity == pages[0].main_entity[0], (alone.main_entity, alone.candidates)


# A lone page whose <title> says nothing of it ("Home", "Untitled", the site's name alone, in several
# languages) and whose topic is shown as its heading, with or without a URL slug that repeats it
def generic_title_page(site_id: str, url: str, title: str, heading: str, nav: tuple[str, ...], site_name: str,
                       sentence: str, *, lang: str = "en", heading_as_h1: bool = True) -> Page:
    heading_html = (f"<h1>{heading}</h1>" if heading_as_h1 else  # a shop's name line styled, not marked up
                    f"<div style='font-size:30px;font-weight:bold'>{heading}</div>")
    links = " ".join(f"<a href='/{i}'>{text}</a>" for i, text in enumerate(nav))
    html = (f"<!DOCTYPE html><html lang='{lang}'><head><meta charset='utf-8'><title>{title}</title></head>"
            "<body style='font-family:sans-serif;font-size:16px'>"
            f"<header><div style='font-size:22px;font-weight:bold'>{site_name}</div><nav>{links}</nav></header>"
            f"<main>{heading_html}<div style='font-size:13px'>12.05.2024</div><p>{sentence * 5}</p></main>"
            f"<footer style='font-size:12px'>{site_name} · {nav[-1]}</footer></body></html>")
    return Page(site_id, "page.html", url, html, (heading,))


GENERIC_TITLE_PAGES = [
    generic_title_page("own-story-home", "https://tidewrite.example/stories/the-night-ferry-to-ardmore", "Home",
                       "The Night Ferry to Ardmore", ("Home", "Stories", "Poems", "About"), "Tidewrite",
                       "She stood at the rail as the lights of the harbour fell away behind the stern. "),
    generic_title_page("own-recipe-startseite", "https://kuechenbuch.example/rezepte/apfelkuchen-mit-streuseln",
                       "Startseite", "Apfelkuchen mit Streuseln", ("Startseite", "Rezepte", "Backen", "Kontakt"),
                       "Küchenbuch", "Die Äpfel schälen, in Spalten schneiden und mit Zimt und Zucker mischen. ",
                       lang="de"),
    generic_title_page("own-shop-site-name", "https://deco-lumiere.example/produit?id=88", "La Boutique Lumière",
                       "Lampe de chevet en laiton brossé", ("Accueil", "Luminaires", "Promotions", "Panier"),
                       "La Boutique Lumière",
                       "Une lampe de chevet au pied en laiton brossé et à l'abat-jour en lin naturel. ", lang="fr",
                       heading_as_h1=False),
    generic_title_page("own-blog-sin-titulo", "https://cuadernodeviaje.example/2024/05/el-viaje-a-la-costa",
                       "Sin título", "El viaje a la costa", ("Inicio", "Archivo", "Fotos"), "Cuaderno de viaje",
                       "Salimos temprano, con el coche cargado y el mapa abierto sobre las rodillas. ", lang="es"),
    generic_title_page("own-report-welcome", "https://harbourtrust.example/index.php?p=12", "Welcome",
                       "Annual Report of the Harbour Trust 2023", ("Welcome", "Reports", "Board", "Contact"),
                       "Harbour Trust",
                       "The Trust's income rose by four per cent over the year while its costs held steady. "),
    generic_title_page("own-notes-untitled", "https://plainpages.example/notes/42", "Untitled",
                       "Field Notes on the Salt Marsh Herons", ("Back",), "",
                       "The herons returned to the marsh in the second week of March, earlier than last year. "),
    generic_title_page("own-story-japanese-home", "https://minato-hondana.example/story?id=7", "ホーム",
                       "静かな港の物語", ("ホーム", "物語", "お問い合わせ"), "港の本棚",
                       "朝の港は静かで、漁船がゆっくりと沖へ出ていった。", lang="ja"),
]


# Known limit: the generic title shown as a navigation link (or the header's site name) on a page whose URL
# has no slug still wins; one generic-title copy per training site is too few to outweigh the title
# evidence there, and more copies cost christianbook->readability pages (see generic_title_share).
# Strict: when one of these passes, move it out of the list.
# "Welcome" and "ホーム" passed from training on five datasets until the training labels stopped taking titles the
# page does not show over its headings (shown_main_entity_labels); the shown generic title now nearly ties the heading.
SHOWN_GENERIC_TITLE_WITHOUT_SLUG = {"own-shop-site-name", "own-report-welcome", "own-story-japanese-home"}


@pytest.mark.parametrize("page", [
    pytest.param(page, id=page.site_id, marks=pytest.mark.xfail(
        strict=True, reason="a shown generic title without a URL slug still wins (known limit)"))
    if page.site_id in SHOWN_GENERIC_TITLE_WITHOUT_SLUG else pytest.param(page, id=page.site_id)
    for page in GENERIC_TITLE_PAGES])
def test_a_lone_page_with_a_generic_title_is_named_by_its_heading(general_model, render_cache_dir, page):
    (prediction,) = answer(general_model, [page], render_cache_dir)  # a dump of one page: no site evidence
    assert prediction.main_entity == page.main_entity[0], (prediction.main_entity, prediction.score,
                                                            prediction.candidates)


# Pages as browsers show them today (shadow DOM, block spans in one heading, positioned text, code shown
# as text, two og:title metas), each whole and inside a small site of its template.
GUIDES = ["Configuring the build cache", "Writing your first plugin", "Migrating from version two"]


def docs_pages() -> list[Page]:
    """A documentation site built from web components: the sidebar, the heading and the article live in a
    declarative shadow root (the article's text slotted in from the light DOM); ``<title>`` is the site's
    name."""
    pages = []
    for i, guide in enumerate(GUIDES):
        slug = guide.lower().replace(" ", "-")
        sidebar = "".join(f"<li><a href='/guides/{g.lower().replace(' ', '-')}'>{g}</a></li>" for g in GUIDES)
        html = ("<!DOCTYPE html><html><head><title>Lanternkit Docs</title></head>"
                "<body style='font-family:sans-serif;margin:0'>"
                "<header style='font-size:24px;font-weight:bold;padding:10px'>Lanternkit Docs</header>"
                "<docs-layout><template shadowrootmode='open'><style>:host{display:flex;gap:24px}"
                " nav{width:220px;font-size:14px} h1{font-size:34px;margin:0 0 12px} article{font-size:17px}</style>"
                f"<nav><b>Guides</b><ul>{sidebar}</ul></nav><article><h1>{guide}</h1>"
                "<slot name='meta'></slot><slot></slot></article></template>"
                "<span slot='meta' style='font-size:13px'>Updated 3 May</span>"
                + f"<p>This guide walks through {guide.lower()} step by step with its options. </p>" * (2 + i)
                + "<p>Every example runs as shown on a fresh project.</p></docs-layout>"
                "<footer style='font-size:12px'>Lanternkit Docs · Edit this page</footer></body></html>")
        pages.append(Page("own-docs", f"guides/{slug}.html", f"https://docs.lanternkit.example/guides/{slug}",
                          html, (guide,)))
    return pages


ESSAYS = [("Winter Orchards", "and the Growers Who Save Them"), ("The Last Ferryman", "of the Upper Lakes"),
          ("Bread Before Dawn", "in a Village That Never Sleeps")]


def essay_pages() -> list[Page]:
    """A magazine whose display headline is two ``display: block`` spans in one ``<h1>``, no space between
    them; the ``<title>`` holds only the first line."""
    pages = []
    for first, second in ESSAYS:
        slug = first.lower().replace(" ", "-")
        html = (f"<!DOCTYPE html><html><head><title>{first} | Longform Quarterly</title><style>"
                "body{font-family:Georgia,serif} .l1{display:block;font-size:44px} .l2{display:block;font-size:30px}"
                " .kicker{font-size:13px;text-transform:uppercase} p{font-size:18px}</style></head><body>"
                "<header><a href='/' style='font-size:20px;font-weight:bold'>Longform Quarterly</a>"
                " <a href='/essays'>Essays</a> <a href='/archive'>Archive</a></header>"
                f"<main><div class='kicker'>Essay</div><h1><span class='l1'>{first}</span><span class='l2'>{second}"
                "</span></h1><div style='font-size:13px'>By R. Lindqvist</div>"
                + f"<p>{first} is a story told slowly, over a season and many conversations. </p>" * 4
                + "</main><footer>Longform Quarterly · Subscribe</footer></body></html>")
        pages.append(Page("own-essays", f"essays/{slug}.html", f"https://longform.example/essays/{slug}", html,
                          (f"{first} {second}",)))
    return pages


DECKS = [("Quarterly Review", "of the Northern Fleet"), ("Harbour Dredging Plan", "for the Next Five Years"),
         ("Results of the Tern", "Nesting Survey 2024")]


def deck_pages() -> list[Page]:
    """Slide decks shown as HTML, pdf2htmlEX style: every line an absolutely positioned ``div`` drawn at
    four times its size and scaled down; the title is the largest text, over two lines; the ``<title>``
    is the generator's default."""
    pages = []
    for i, (first, second) in enumerate(DECKS):
        lines = [(first, 160, 60), (second, 160, 108)] + [
            (f"{point} for the {first.split()[-1].lower()} team", 72, 200 + 30 * j)
            for j, point in enumerate(["Costs and savings", "What changed since last year", "Risks we see ahead",
                                       "Decisions needed this quarter", "Next steps and owners"])]
        divs = "".join(f"<div class='t' style='left:64px;top:{top}px;font-size:{size}px'>{text}</div>"
                       for text, size, top in lines)
        html = ("<!DOCTYPE html><html><head><meta charset='utf-8'><title>PowerPoint Presentation</title><style>"
                ".pf{position:relative;width:960px;height:540px;margin:8px auto;box-shadow:0 0 4px #999}"
                " .t{position:absolute;white-space:nowrap;transform:matrix(0.25,0,0,0.25,0,0);transform-origin:0 0;"
                "line-height:1.2;font-family:sans-serif}</style></head><body>"
                f"<div id='page-container'><div class='pf' id='pf{i + 1}'>{divs}</div>"
                "<div class='pf'><div class='t' style='left:64px;top:60px;font-size:96px'>Thank you</div></div>"
                "</div></body></html>")
        slug = first.lower().replace(" ", "-")
        pages.append(Page("own-decks", f"decks/{slug}.html", f"https://files.fleet.example/decks/{slug}.html",
                          html, (f"{first} {second}",)))
    return pages


NEWS_1999 = ["Dam repairs to start before the spring floods", "Mill town votes to reopen its old station",
             "River pilots warn of low water in August"]


def old_news_pages() -> list[Page]:
    """A 1999 news site whose ad code, written by ``document.write`` with a ``</SCRIPT>`` inside a string,
    ends its script early: the rest of the code becomes text right after the headline."""
    pages = []
    for i, headline in enumerate(NEWS_1999):
        slug = "-".join(headline.lower().split()[:4])
        html = (f"<html><head><title>{headline} - Valley Gazette</title></head><body bgcolor='#ffffff'>"
                "<table width='100%'><tr><td><font size='5'><b>Valley Gazette</b></font></td></tr></table>"
                f"<font face='Arial' size='5'><b>{headline}<script language='JavaScript'>if (show_ads) document.write("
                "'<SCRIPT SRC=\"http://ads.valleygazette.example/js.ng/Nation' + ad_query + '\"></SCRIPT>'); //-->"
                "</script></b></font><br><font size='2'>Posted 12 March 1999</font>"
                + "<p>Crews will begin work on the spillway next month, the water board said. " * (3 + i)
                + "<p><a href='/'>Home</a> | <a href='/nation/'>Nation</a></body></html>")
        pages.append(Page("own-old-news", f"nation/{slug}.html", f"http://www.valleygazette.example/nation/{slug}.html",
                          html, (headline,)))
    return pages


POSTS = ["Salt marsh walks for the winter", "Where the curlews feed at low tide", "A boat shed turned into a studio"]


def two_og_title_pages() -> list[Page]:
    """A blog whose theme left a stale ``og:title`` (its tagline, shown in the header) before the page's own
    one; the ``<title>`` is the blog's name."""
    pages = []
    for post in POSTS:
        slug = post.lower().replace(" ", "-")
        html = ("<!DOCTYPE html><html><head><title>Harbour Notes</title>"
                "<meta property='og:title' content='Stories from a small harbour'>"
                f"<meta property='og:title' content='{post}'><meta property='og:site_name' content='Harbour Notes'>"
                "</head><body style='font-family:sans-serif'><header>"
                "<div style='font-size:30px;font-weight:bold'>Harbour Notes</div>"
                "<h1 style='font-size:26px'>Stories from a small harbour</h1></header>"
                f"<main><div style='font-size:20px;font-weight:bold'>{post}</div>"
                "<div style='font-size:12px'>posted in Walks</div>"
                + f"<p>{post} is a short note from the harbour, written on a grey morning. </p>" * 3
                + "</main><footer>Harbour Notes · Archive</footer></body></html>")
        pages.append(Page("own-two-og", f"{slug}.html", f"https://harbournotes.example/{slug}/", html, (post,)))
    return pages


BROWSER_KINDS = (docs_pages, essay_pages, deck_pages, old_news_pages, two_og_title_pages)


@pytest.mark.parametrize("make_pages", BROWSER_KINDS, ids=[make.__name__ for make in BROWSER_KINDS])
def test_pages_as_browsers_show_them_today(general_model, render_cache_dir, make_pages):
    pages = make_pages()
    for page, prediction in zip(pages, answer(general_model, pages, render_cache_dir), strict=True):
        assert prediction.main_entity == page.main_entity[0], (page.path, prediction.main_entity, prediction.candidates)


# Alone (a dump of one page), no other page tells the site's name: the essay's "Longform Quarterly" is named
# by the page's own link home, the last segment of its <title> (features.transfer._named_by_home_link), so
# the whole <title> does not win over the heading set over two lines. The deck's "PowerPoint Presentation"
# is a generator's default title (features.transfer.GENERATOR_TITLES).
@pytest.mark.parametrize("make_pages", BROWSER_KINDS, ids=[make.__name__ for make in BROWSER_KINDS])
def test_a_lone_page_as_browsers_show_it_today(general_model, render_cache_dir, make_pages):
    (alone,) = answer(general_model, make_pages()[:1], render_cache_dir)  # a dump of one page: no site evidence
    assert alone.main_entity == make_pages()[0].main_entity[0], (alone.main_entity, alone.candidates)


CJK_STORIES = [("국회, 내년 예산안 처리 또다시 불발··· 여야 \"책임 떠넘기기\"", "정치", "바다일보", "ko"),
               ("서울 지하철 요금 300원 인상 확정… 다음 달부터 적용", "사회", "바다일보", "ko"),
               ("这个城市的夜市，正在把年轻人重新带回老街", "生活", "好奇日报", "zh")]


def cjk_suffix_page(headline: str, section: str, site: str, lang: str) -> Page:
    """A Korean or Chinese news page whose <title> glues its section and site on ("…-정치ㅣ바다일보",
    "…_生活_好奇日报", as HankookIlbo and qdaily do) and whose headline is shown in a plain paragraph, smaller
    than the subheads: the title's headline segment is what names it."""
    title = f"{headline}-{section}ㅣ{site}" if lang == "ko" else f"{headline}_{section}_{site}"
    subheads = ("<h2>여야 협상 결렬</h2><h2>다음 본회의는 미정</h2>" if lang == "ko" else
                "<h2>老街的新生意</h2><h2>夜市的年轻面孔</h2>")
    sentence = "기자가 전했다. " if lang == "ko" else "记者报道。"
    slug = f"{zlib.crc32(headline.encode()):08x}"
    html = (f"<!DOCTYPE html><html lang='{lang}'><head><meta charset='utf-8'><title>{title}</title>"
            f"<meta property='og:title' content='{title}'><style>body{{font-family:sans-serif;font-size:16px}}"
            " .headline{font-size:17px;margin:8px 0} h2{font-size:22px} .logo{font-size:30px;font-weight:900}"
            f"</style></head><body><header><a class='logo' href='/'>{site}</a> <nav><a href='/s'>{section}</a></nav>"
            f"</header><article><p class='headline'>{headline}</p><div style='font-size:13px'>2026.07.12 20:29</div>"
            f"{subheads}<p>{sentence * 30}</p></article><footer>© {site}</footer></body></html>")
    return Page(f"own-cjk-{lang}-{slug}", f"news/{slug}.html", f"https://{lang}-news.example/news/{slug}", html,
                (headline,))


# Before the title's glued suffix was cut (features.title_segments), each page answered its whole <title>.
@pytest.mark.parametrize("story", CJK_STORIES, ids=[story[3] + str(i) for i, story in enumerate(CJK_STORIES)])
def test_a_title_with_a_glued_section_and_site_gives_its_headline(general_model, render_cache_dir, story):
    page = cjk_suffix_page(*story)
    (prediction,) = answer(general_model, [page], render_cache_dir)
    assert prediction.main_entity == page.main_entity[0], (prediction.main_entity, prediction.candidates)


REWORDED = [("Tram line to reach the airport by 2031, city says", "City Promises Airport Tram Within Six Years",
             "Metro Ledger"),
            ("Why the old pier keeps falling into the sea, and what it would take to save it",
             "Saving the Crumbling Pier Would Cost Millions", "Shoreline Weekly"),
            ("Take a look inside the lighthouse keeper's cottage that just went up for sale",
             "Lighthouse Keeper's Cottage Is For Sale", "Homes Daily")]


def reworded_title_page(headline: str, title: str, site: str) -> Page:
    """A lone news page saved without its style sheets: its ``<title>`` words the story apart from the visible
    headline (an SEO title the page shows nowhere), and the navigation, teasers and a banner push the ``<h1>``
    below the fold."""
    host = site.lower().replace(" ", "")
    slug = "-".join(headline.lower().replace("'", "").split()[:5])
    nav = "".join(f"<li><a href='/{w.lower()}'>{w}</a></li>" for w in ("News", "Sport", "Homes", "Travel", "Opinion",
                                                                          "Video", "Weather", "Puzzles", "Jobs"))
    teasers = "".join(f"<li><a href='/t/{k}'>Teaser story number {k} about the coast</a></li>" for k in range(8))
    html = (f"<!DOCTYPE html><html><head><title>{title}</title></head><body>"
            f"<header><a href='/'>{site}</a><ul>{nav}</ul><ul>{teasers}</ul>"
            "<img src='/banner.png' width='970' height='600' alt=''></header>"
            f"<article><h1>{headline}</h1><p>By Staff Reporter</p>"
            "<p>" + "The plans were shown to residents at a meeting on Monday evening. " * 8 + "</p></article>"
            f"<footer>{site} · About · Contact</footer></body></html>")
    return Page(f"own-reworded-{host}", f"{slug}.html", f"https://{host}.example/{slug}", html, (headline,))


@pytest.mark.parametrize("story", REWORDED, ids=[site for _, _, site in REWORDED])
def test_a_visible_headline_wins_over_a_title_that_words_the_story_apart(general_model, render_cache_dir, story):
    """The main entity is what the page shows: where a title words the story apart from the visible headline,
    the shared datasets' labels mostly follow the headline (``shown_main_entity_labels``)."""
    page = reworded_title_page(*story)
    (prediction,) = answer(general_model, [page], render_cache_dir)
    assert prediction.main_entity == page.main_entity[0], (prediction.main_entity, prediction.candidates)


def test_script_source_shown_as_text_is_never_a_candidate(general_model, render_cache_dir):
    pages = old_news_pages()
    render = RenderConfig(cache_dir=str(render_cache_dir))
    (document,) = [document for _, document, _ in iter_documents(pages[:1], needs_render=True, render=render)]
    texts = [block.text for block in document.rendered.blocks + document.rendered.segments]
    assert pages[0].main_entity[0] in texts
    assert not [text for text in texts if "//-->" in text or "');" in text or "ad_query" in text], texts
    for prediction in answer(general_model, pages, render_cache_dir):
        assert not [text for text in prediction.candidates if "');" in text], prediction.candidates


def test_the_og_title_the_page_bears_out_is_kept(render_cache_dir):
    pages = two_og_title_pages()
    render = RenderConfig(cache_dir=str(render_cache_dir))
    for (_, document, _), page in zip(iter_documents(pages, needs_render=True, render=render), pages, strict=True):
        assert document.rendered.meta_titles == (page.main_entity[0],)  # not the theme's stale tagline


JOBS = [("Harbour crane operator", "Operate the quay cranes on the night shift."),
        ("Marine electrician", "Keep the ferries' switchboards and shore power running."),
        ("Warehouse shift lead", "Lead a team of twelve on the early shift in the bonded store.")]


def job_pages() -> list[Page]:
    """A careers site built by its own script: the server HTML holds a generic ``<title>``, a loading
    placeholder and the posting as inline JSON; an inline script builds the page from it."""
    pages = []
    for i, (title, text) in enumerate(JOBS):
        state = json.dumps({"job": {"id": 100 + i, "title": title, "text": (text + " ") * 6,
                                    "company": "Northport Logistics"}})
        html = ("<!DOCTYPE html><html><head><title>Northport Logistics</title></head>"
                "<body style='font-family:sans-serif'><header style='font-size:24px;font-weight:bold'>"
                "Northport Logistics</header><div id='app'><div class='skeleton-title'>Loading...</div></div>"
                "<noscript>Please enable JavaScript to view this job.</noscript>"
                f"<script id='__NEXT_DATA__' type='application/json'>{state}</script>"
                "<script>const job = JSON.parse(document.getElementById('__NEXT_DATA__').textContent).job;"
                "document.getElementById('app').innerHTML = '<div style=\"font-size:13px\">' + job.company + '</div>'"
                " + '<h1 style=\"font-size:32px\">' + job.title + '</h1><p>' + job.text + '</p>';</script>"
                "<footer style='font-size:12px'>Northport Logistics · Privacy</footer></body></html>")
        slug = f"{100 + i}-{title.lower().replace(' ', '-')}"
        pages.append(Page("own-jobs", f"jobs/{slug}.html", f"https://careers.northport.example/jobs/{slug}",
                          html, (title,)))
    return pages


def test_a_page_built_by_its_script_is_answered_with_scripts_on_demand(general_model, render_cache_dir):
    pages = job_pages()
    for page, prediction in zip(pages, answer(general_model, pages, render_cache_dir, "auto"), strict=True):
        assert prediction.main_entity == page.main_entity[0], (page.path, prediction.main_entity, prediction.candidates)
    # scripts off (the default), the page offers only its skeleton
    (off,) = answer(general_model, pages[:1], render_cache_dir)
    assert off.main_entity != pages[0].main_entity[0]


@pytest.mark.xfail(strict=True, reason="a near tie that retrains move: the company's name (the <title>, shown in "
                   "the header) over the posting's heading since f85c18a's retrain, as after 83b095e's")
def test_a_lone_page_built_by_its_script_is_named_by_its_heading(general_model, render_cache_dir):
    """Alone (no other page of the site to vote), the posting's title should win too. A near tie: it did from
    the model trained on five datasets, lost to the company's name (the ``<title>`` shown in the header) after
    the retrain of 83b095e, won again after f47ece7's and lost after f85c18a's (the training pages' features
    moved, not this page's: it has no meta title for f85c18a's change to read)."""
    pages = job_pages()
    (alone,) = answer(general_model, pages[:1], render_cache_dir, "auto")
    assert alone.main_entity == pages[0].main_entity[0], alone.candidates


def _dump(pages, root: Path) -> Path:
    """A dataset folder holding ``pages`` as their site dumps, labels in the manifests."""
    for page in pages:
        site = root / "sites" / page.site_id
        (site / page.path).parent.mkdir(parents=True, exist_ok=True)
        (site / page.path).write_text(page.html, encoding="utf-8")
        with (site / "manifest.jsonl").open("a", encoding="utf-8") as manifest:
            entry = {"path": page.path, "url": page.url, "main_entity": list(page.main_entity)}
            manifest.write(json.dumps(entry) + "\n")
    return root


@pytest.mark.parametrize("alone", [False, True], ids=["site", "alone"])
@pytest.mark.parametrize("make_pages", [essay_pages, deck_pages], ids=["essay", "deck"])
def test_a_title_set_over_two_lines_under_the_default_render_policy(tmp_path, monkeypatch, make_pages, alone):
    """``mainentity predict`` as users run it (``--render auto``): a small site is read statically first. A
    static answer that is a strict part of a heading (the headline's first line, which the slug repeats) is
    rendered, however confident the static model is, and a page of positioned lines (the deck) is left to
    the renderer by the static reader: only layout joins its lines."""
    from mainentity.cli import main

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    pages = make_pages()[:1] if alone else make_pages()
    out = tmp_path / "rows.jsonl"
    assert main(["predict", str(_dump(pages, tmp_path / "dataset")), "-o", str(out), "-q"]) == 0
    rows = {row["path"]: row for row in map(json.loads, out.read_text(encoding="utf-8").splitlines())}
    for page in pages:
        assert (rows[page.path]["main_entity"], rows[page.path]["answered_by"]) == (page.main_entity[0], "rendered")
