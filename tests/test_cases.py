"""Pages the earlier model got wrong (../shared/cases) and our own pages of the same kinds, answered by
the general model that ships with the package. Start Chromium."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mainentity.config import RenderConfig
from mainentity.model_store import load_trained_model
from mainentity.pipeline import iter_documents
from mainentity.records import Page

pytestmark = pytest.mark.browser

CASES = Path(__file__).resolve().parents[2] / "shared" / "cases"


@pytest.fixture(scope="module")
def general_model():
    return load_trained_model(None)


def answer(model, pages, render_cache_dir):
    render = RenderConfig(cache_dir=str(render_cache_dir))
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


@pytest.mark.parametrize("make_pages", [bookshop_pages, news_pages])
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


MODERN_SITES = [docs_pages]


@pytest.mark.parametrize("make_pages", MODERN_SITES)
def test_pages_as_browsers_show_them_today(general_model, render_cache_dir, make_pages):
    test_own_sites_of_the_listed_failure_kinds(general_model, render_cache_dir, make_pages)
