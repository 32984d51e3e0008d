"""A folder of pages without a manifest is grouped into sites by each page's own URL
(mainentity.sitedump.own_urls, mainentity.sitedump.dump.sites_by_own_url)."""

from __future__ import annotations

import logging

from mainentity.loading import load_pages
from mainentity.sitedump import own_url, read_dataset, site_of_url


def news_page(headline: str, head: str = "", before: str = "", links: str = "") -> str:
    """A made-up news page: what ``head`` says of its URL, its headline, a paragraph and ``links``."""
    return (f"{before}<!DOCTYPE html><html><head><title>{headline}</title>{head}</head><body><h1>{headline}</h1>"
            f"<p>{headline} was reported on Tuesday by our correspondent.</p>{links}</body></html>")


def test_a_page_names_its_url_by_canonical_link_og_url_base_href_or_saved_from_comment():
    assert own_url(news_page("A", '<link rel="canonical" href="https://a.example/1">')) == (
        "https://a.example/1", "canonical link")
    assert own_url(news_page("A", "<meta content='https://a.example/2' property='og:url'>")) == (
        "https://a.example/2", "og:url")
    assert own_url(news_page("A", "<meta value='https://a.example/3' name='og:url'>")) == (  # saved by Postlight
        "https://a.example/3", "og:url")
    assert own_url(news_page("A", '<base href="http://b.example/x/">')) == ("http://b.example/x/", "<base href>")
    saved = news_page("A", before="<!-- saved from url=(0026)https://c.example/news/7 -->\n")
    assert own_url(saved) == ("https://c.example/news/7", "saved-from comment")
    # the canonical link wins over the others; a relative one is resolved against an absolute <base href>
    both = news_page("A", '<base href="https://cdn.example/"><meta property="og:url" content="https://d.example/o">'
                          '<link href="/story/9" rel="alternate canonical">')
    assert own_url(both) == ("https://cdn.example/story/9", "canonical link")
    # not a web URL, relative with nothing to resolve it against, or in the body: no URL
    assert own_url(news_page("A", '<link rel="canonical" href="/story/9">')) is None
    assert own_url(news_page("A", '<link rel="canonical" href="file:///home/me/a.html">')) is None
    assert own_url(news_page("A", links='<link rel="canonical" href="https://a.example/1">')) is None
    assert site_of_url("https://WWW.A.example:8443/1") == "a.example"


def test_a_folder_of_pages_of_several_hosts_is_one_site_per_host(tmp_path, caplog):
    folder = tmp_path / "saved"
    folder.mkdir()
    pages = {
        "storm.html": news_page("Storm closes bridge", '<link rel="canonical" href="https://www.a.example/storm">',
                                links='<a href="https://a.example/ferries">Ferries run all night</a>'),
        "ferries.html": news_page("Ferries run all night", '<meta property="og:url" content="https://a.example/ferries">'),
        "vote.htm": news_page("Council votes on harbour", '<base href="https://b.example/2008/">'),
        "sub/match.html": news_page("Cup final drawn",
                                    before="<!-- saved from url=(0030)https://c.example/sport/final -->"),
        "recipe.html": news_page("Plum cake for autumn"),
    }
    for name, html in pages.items():
        (folder / name).parent.mkdir(exist_ok=True)
        (folder / name).write_text(html)
    with caplog.at_level(logging.INFO):
        loaded = load_pages([str(folder)])
    sites = {}
    for page in loaded.pages:
        sites.setdefault(page.site_id, []).append(page.path)
    lone = next(site for site in sites if site.startswith("html-"))
    assert sites == {"a.example": ["ferries.html", "storm.html"], "b.example": ["vote.htm"],
                     "c.example": ["sub/match.html"], lone: ["recipe.html"]}
    by_path = {page.path: page for page in loaded.pages}
    # a page takes its own URL (its <base href> stays its URL), and links between pages of one site count
    assert [by_path[path].url for path in ("storm.html", "vote.htm", "sub/match.html")] == [
        "https://www.a.example/storm", "https://b.example/2008/", "https://c.example/sport/final"]
    assert by_path["ferries.html"].anchors == ("Ferries run all night",)
    assert by_path["recipe.html"].url.startswith("file://")
    assert {site_id for site_id, _ in loaded.subresources.items()} == set(sites)  # all served the folder's files
    messages = [record.getMessage() for record in caplog.records]
    # the counts say what they count: 3 sites, from the URLs of 4 pages (how each page gave it), 1 lone page
    assert ("saved: 5 pages without a manifest: 3 sites from the URLs 4 pages give for themselves (1 canonical "
            "link, 1 og:url, 1 <base href>, 1 saved-from comment), 1 lone page without a URL (each a site of its "
            "own; --base-url reads the folder as one site)") in messages


def test_pages_without_a_url_are_lone_pages_never_one_site(tmp_path, caplog):
    folder = tmp_path / "flat"
    folder.mkdir()
    for i in range(12):  # as many as make a site that slot transfer would treat as one
        (folder / f"{i:02d}.html").write_text(news_page(f"Story number {i}", links='<a href="00.html">Front</a>'))
    with caplog.at_level(logging.INFO):
        loaded = load_pages([str(folder)], max_pages_per_site=None)
    assert len(loaded.pages) == 12
    assert len({page.site_id for page in loaded.pages}) == 12
    assert all(page.site_id.startswith("html-") and not page.anchors for page in loaded.pages)
    assert "flat: 12 pages without a manifest: no page names its URL, 12 lone pages without a URL (each a site " \
           "of its own; --base-url reads the folder as one site)" in [record.getMessage() for record in caplog.records]
    assert not [record for record in caplog.records if record.levelno >= logging.WARNING]  # no silent "site flat"
    # --base-url still wins: the folder is one site at that URL
    (dump,) = read_dataset(folder, base_url="https://flat.example/")
    assert dump.site_id == "flat" and len(dump.pages) == 12
    assert dump.pages[1].url == "https://flat.example/01.html"
    # a folder with no readable page keeps its failures
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty" / "a.html").write_bytes(b"")
    loaded = load_pages([str(tmp_path / "empty")])
    assert loaded.pages == ()
    assert [(failure.site_id, failure.path, failure.reason) for failure in loaded.failures] == [
        ("empty", "a.html", "empty page (0 bytes)")]



def test_a_file_named_alone_takes_the_url_it_gives_for_itself_or_the_base_url(tmp_path):
    """A file named on the command line is read as a folder's file: its own canonical link names its URL and
    site; --base-url (a URL prefix) wins over it; a page that names no URL keeps its folder's name."""
    from mainentity.loading import load_inputs

    folder = tmp_path / "news"
    folder.mkdir()
    (folder / "story.html").write_text(news_page("Bridge reopens", '<link rel="canonical" href="https://b.example/s/1">'))
    (folder / "plain.html").write_text(news_page("Ferry fares rise"))
    story, plain = load_inputs([str(folder / "story.html"), str(folder / "plain.html")]).pages
    assert (story.site_id, story.url) == ("b.example", "https://b.example/s/1")
    assert (plain.site_id, plain.url) == ("news", (folder / "plain.html").resolve().as_uri())
    (given,) = load_inputs([str(folder / "story.html")], base_url="https://other.example/x/").pages
    assert given.url == "https://other.example/x/story.html"


def test_a_url_no_browser_opens_is_no_page_url():
    """A canonical link with port 99999, port "abc", port 0 or an IPv6 zone was taken as the page's URL, and
    the page then failed to render ("Cannot navigate to invalid URL"); the next statement of the page wins."""
    for bad in ("https://x.example:99999/p", "https://x.example:abc/p", "https://u:pw@x.example:0/p",
                "https://[fe80::1%25eth0]/p"):
        html = f'<link rel="canonical" href="{bad}"><meta property="og:url" content="https://x.example/p">'
        assert own_url(html)[0] == "https://x.example/p", bad
        assert own_url(f'<link rel="canonical" href="{bad}">') is None, bad
