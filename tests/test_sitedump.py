"""Tests of mainentity.sitedump: decoding, page discovery, site dumps and datasets."""

from __future__ import annotations

import hashlib
import json
import logging
import pickle
from pathlib import Path
from types import SimpleNamespace

import charset_normalizer
import pytest

from mainentity.loading import load_pages
from mainentity.records import Page
from mainentity.render.static import read_static
from mainentity.scaleout import site_tasks
from mainentity.sitedump import (
    DumpFiles,
    PageFailure,
    PageReadError,
    SubresourceSources,
    declared_charset,
    decode_html,
    find_page_files,
    label_in_page,
    looks_binary,
    read_dataset,
    read_site_dump,
    subresource_candidates,
)

SHARED = Path(__file__).resolve().parents[2] / "shared" / "datasets"


def write(path: Path, data: bytes | str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(data, str):
        data = data.encode("utf-8")
    path.write_bytes(data)
    return path


def write_manifest(site: Path, entries: list[dict]) -> None:
    lines = [json.dumps(entry, ensure_ascii=False) for entry in entries]
    write(site / "manifest.jsonl", "\n".join(lines) + "\n")


# --- decoding ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "data",
    [
        b"\xef\xbb\xbf<p>caf\xc3\xa9 \xe4\xb8\xad</p>",
        "\ufeff<p>café 中</p>".encode("utf-16-le"),
        "\ufeff<p>café 中</p>".encode("utf-16-be"),
    ],
    ids=["utf-8 BOM", "utf-16-le BOM", "utf-16-be BOM"],
)
def test_bom_decides_the_encoding(data):
    assert decode_html(data) == "<p>café 中</p>"


def test_bom_wins_over_a_declared_charset():
    data = b'\xef\xbb\xbf<meta charset="windows-1252"><p>caf\xc3\xa9</p>'
    assert decode_html(data) == '<meta charset="windows-1252"><p>café</p>'


def test_meta_charset_windows_1252():
    # 0x80 is the euro sign in windows-1252 (undefined in iso-8859-1), 0x93/0x94 curly quotes
    data = b'<html><head><meta charset="windows-1252"></head><p>\x93Caf\xe9\x94 \x80 5</p>'
    assert decode_html(data).endswith("<p>\u201cCafé\u201d € 5</p>")


def test_http_equiv_iso_8859_1_is_read_as_windows_1252():
    # the Encoding Standard maps the iso-8859-1 label to windows-1252, as browsers do
    data = (
        b'<meta http-equiv="Content-Type" content="text/html; charset=ISO-8859-1">'
        b"<p>cr\xe8me br\xfbl\xe9e \x96 \x93quoted\x94</p>"
    )
    assert decode_html(data).endswith("<p>crème brûlée – \u201cquoted\u201d</p>")


def test_utf8_bytes_that_declare_gb2312_stay_utf8():
    html = '<meta http-equiv="Content-Type" content="text/html; charset=gb2312"><title>人工智能</title>'
    assert decode_html(html.encode("utf-8")) == html


def test_real_gb2312_bytes_use_the_declared_charset():
    html = '<head><meta charset="gb2312"><title>人工智能迈上新台阶_科技</title></head><p>记忆自学</p>'
    data = html.encode("gb2312")
    with pytest.raises(UnicodeDecodeError):
        data.decode("utf-8")
    assert decode_html(data) == html


def test_declaration_inside_a_comment_is_ignored():
    data = b'<!-- <meta charset="koi8-r"> --><meta charset="windows-1252"><p>\xe9</p>'
    assert declared_charset(data) == "cp1252"
    assert decode_html(data).endswith("<p>é</p>")


def test_undeclared_legacy_bytes_are_sniffed():
    assert decode_html(b"<p>caf\xe9 cr\xe8me br\xfbl\xe9e</p>") == "<p>café crème brûlée</p>"
    russian = "<p>Пример текста на русском языке, который достаточно длинный для определения.</p>"
    assert decode_html(russian.encode("cp1251")) == russian


def test_windows_1252_is_the_last_resort(monkeypatch):
    # when sniffing finds nothing: windows-1252 as browsers define it (0x81 -> U+0081, no error)
    no_guess = charset_normalizer.CharsetMatches()
    monkeypatch.setattr(charset_normalizer, "from_bytes", lambda data: no_guess)
    assert decode_html(b"<p>\x81\x93x\x94</p>") == "<p>\x81\u201cx\u201d</p>"


def test_a_few_nul_bytes_are_dropped_as_a_browser_drops_them_from_text():
    data = b"<html><body><p>" + b"a" * 400 + b"\x00b</p></body></html>"
    assert "ab</p>" in decode_html(data) and "\ufffd" not in decode_html(data)


@pytest.mark.parametrize("data", [b"", b"  \n\t ", b"\xef\xbb\xbf", b"\xef\xbb\xbf \r\n"])
def test_empty_page_is_an_error_naming_the_path(data):
    with pytest.raises(PageReadError, match=r"^pages/empty\.html: empty page"):
        decode_html(data, "pages/empty.html")


@pytest.mark.parametrize(
    "data",
    [
        b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)) * 4,
        b"\x00" * 64,
        b"<html>" + b"\x00\x01\x02\x03" * 50,
    ],
    ids=["png", "nul", "nul-heavy html"],
)
def test_binary_junk_is_an_error(data):
    with pytest.raises(PageReadError, match=r"^img/x\.html: not text"):
        decode_html(data, "img/x.html")


def test_a_short_page_with_nul_bytes_in_its_heading_is_text():
    data = b"<html><h1>Great \x00\x00Expectations</h1></html>\n"  # 2 NULs in 45 bytes: 4.4%
    assert decode_html(data) == "<html><h1>Great Expectations</h1></html>\n"
    assert not looks_binary(data)


@pytest.mark.parametrize(
    ("data", "binary"),
    [
        (b"a" * 99 + b"\x00", False),  # 1% controls: text whatever the rest is
        (b"\xe9" * 89 + b"\x00" * 2 + b"a" * 9, True),  # 2% controls and the rest is not UTF-8
        (b"a" * 90 + b"\x00" * 10, False),  # 10% controls, the rest valid UTF-8
        (b"a" * 89 + b"\x00" * 11, True),  # 11% controls
        (b"a" * 94 + b"\xff" * 4 + b"\x00" * 2, False),  # 2% controls, 4.1% of the rest undecodable
        (b"a" * 90 + b"\xff" * 6 + b"\x00" * 4, True),  # 4% controls, 6.25% of the rest undecodable
        (b"a" * 92 + "é".encode() * 2 + b"\x00" * 4, False),  # multi-byte UTF-8 counts as decoded
    ],
)
def test_binary_detection_by_two_thresholds_on_both_sides(data, binary):
    assert looks_binary(data) is binary


def test_page_read_error_is_a_value_error():
    assert issubclass(PageReadError, ValueError)


# --- finding pages ----------------------------------------------------------------------------------


def test_find_page_files(tmp_path):
    write(tmp_path / "b.html", "<p>b</p>")
    write(tmp_path / "a" / "deep" / "x.HTM", "<p>x</p>")
    write(tmp_path / "c.xhtml", "<html/>")
    write(tmp_path / "noext", "\n  <!DOCTYPE html><html><p>sniffed</p></html>")
    write(tmp_path / "swde", b'\xef\xbb\xbf<base href="http://x.example/"/>\n<html>')
    write(tmp_path / "notes.txt", "<html>not a page file</html>")
    write(tmp_path / "logo.png", b"\x89PNG\r\n\x1a\n")
    write(tmp_path / "data", b"\x89PNG\r\n\x1a\n")
    write(tmp_path / "readme", "Plain text, no markup")
    write(tmp_path / "manifest.jsonl", "")
    write(tmp_path / ".git" / "x.html", "<p>hidden</p>")
    found = [p.relative_to(tmp_path).as_posix() for p in find_page_files(tmp_path)]
    assert found == ["a/deep/x.HTM", "b.html", "c.xhtml", "noext", "swde"]


@pytest.fixture
def dump_with_links(tmp_path):
    """A dump with a page, links inside it, and links (file, directory, loop) pointing out of it."""
    outside = write(tmp_path / "elsewhere" / "secret.html", "<h1>Private Key Material</h1>")
    write(tmp_path / "elsewhere" / "more.html", "<h1>More Secrets</h1>")
    site = tmp_path / "site"
    write(site / "a.html", "<h1>Alpha</h1>")
    write(site / "sub" / "b.html", "<h1>Beta</h1>")
    (site / "same.html").symlink_to("a.html")
    (site / "sub" / "up.html").symlink_to("../a.html")
    (site / "leak.html").symlink_to(outside)
    (site / "leak-relative.htm").symlink_to("../elsewhere/secret.html")
    (site / "leaknoext").symlink_to(outside)
    (site / "dirlink").symlink_to(tmp_path / "elsewhere", target_is_directory=True)
    (site / "loop.html").symlink_to("loop.html")
    (site / "dangling.html").symlink_to(tmp_path / "nowhere.html")
    return site


def test_links_out_of_the_dump_are_listed_but_never_read(dump_with_links):
    site = dump_with_links
    found = [p.relative_to(site).as_posix() for p in find_page_files(site)]
    assert found == ["a.html", "dangling.html", "leak-relative.htm", "leak.html", "leaknoext", "loop.html",
                     "same.html", "sub/b.html", "sub/up.html"]
    dump = read_site_dump(site, base_url="https://s.example/")
    assert {p.path: p.html for p in dump.pages} == {
        "a.html": "<h1>Alpha</h1>", "same.html": "<h1>Alpha</h1>", "sub/b.html": "<h1>Beta</h1>",
        "sub/up.html": "<h1>Alpha</h1>"}
    reasons = {f.path: f.reason for f in dump.failures}
    out = "symbolic link to a file outside the site dump: not read"
    assert reasons == {"dangling.html": out, "leak.html": out, "leak-relative.htm": out, "leaknoext": out,
                       "loop.html": "symbolic link loop: not read"}
    assert all("Private" not in p.html and "Secrets" not in p.html for p in dump.pages)


def test_manifest_paths_through_links_out_of_the_dump_are_not_read(dump_with_links):
    site = dump_with_links
    lines = [{"path": path} for path in ("a.html", "leak.html", "dirlink/more.html", "sub/up.html")]
    write(site / "manifest.jsonl", "\n".join(json.dumps(line) for line in lines))
    dump = read_site_dump(site)
    assert [p.path for p in dump.pages] == ["a.html", "sub/up.html"]
    assert [(f.path, f.reason.split(":")[0]) for f in dump.failures] == [
        ("leak.html", "symbolic link to a file outside the site dump"),
        ("dirlink/more.html", "symbolic link to a file outside the site dump")]


def test_a_manifest_linked_from_outside_is_refused(dump_with_links, tmp_path):
    write(tmp_path / "elsewhere" / "manifest.jsonl", json.dumps({"path": "a.html"}))
    (dump_with_links / "manifest.jsonl").symlink_to(tmp_path / "elsewhere" / "manifest.jsonl")
    with pytest.raises(ValueError, match="manifest.jsonl is a symbolic link out of the dump"):
        read_site_dump(dump_with_links)


def test_find_page_files_needs_a_directory(tmp_path):
    with pytest.raises(ValueError, match="missing"):
        find_page_files(tmp_path / "missing")


# --- site dumps -------------------------------------------------------------------------------------


def test_a_bad_page_does_not_stop_the_batch(tmp_path, caplog):
    write(tmp_path / "a.html", "<title>A</title>")
    write(tmp_path / "b.html", b"")
    write(tmp_path / "c.html", b"\x00\x01" * 100)
    write(tmp_path / "d.html", "<title>D</title>")
    with caplog.at_level(logging.WARNING, logger="mainentity.sitedump"):
        dump = read_site_dump(tmp_path, base_url="https://s.example/")
    assert [page.path for page in dump.pages] == ["a.html", "d.html"]
    assert [(f.path, f.reason.split(" (")[0]) for f in dump.failures] == [
        ("b.html", "empty page"),
        ("c.html", "not text"),
    ]
    assert all(f.site_id == tmp_path.name for f in dump.failures)
    assert "b.html" in caplog.text and "c.html" in caplog.text


def test_manifest_gives_urls_labels_and_order(tmp_path):
    site = tmp_path / "shop"
    write(site / "pages" / "1.html", '<base href="https://wrong.example/"><h1>Kettle</h1>')
    write(site / "pages" / "2.html", "<h1>Lamp</h1>")
    write(site / "pages" / "unlisted.html", "<h1>Not in the manifest</h1>")
    write_manifest(
        site,
        [
            {"path": "pages/2.html", "url": "https://shop.example/lamp", "main_entity": ["Lamp", "Lamps"]},
            {"path": "pages/1.html", "url": "https://shop.example/kettle", "main_entity": []},
        ],
    )
    dump = read_site_dump(site)
    assert dump.site_id == "shop" and dump.failures == ()
    assert [(p.path, p.url, p.main_entity) for p in dump.pages] == [
        ("pages/2.html", "https://shop.example/lamp", ("Lamp", "Lamps")),
        ("pages/1.html", "https://shop.example/kettle", ()),
    ]
    assert all(p.site_id == "shop" and p.anchors == () for p in dump.pages)


def test_manifest_problems_become_failures(tmp_path):
    write(tmp_path / "pages" / "ok.html", "<p>ok</p>")
    write(tmp_path / "pages" / "empty.html", "")
    write(
        tmp_path / "manifest.jsonl",
        '{"path": "pages/missing.html", "url": "https://s.example/m"}\n'
        "{not json\n"
        '{"path": "pages/ok.html", "url": "https://s.example/ok", "main_entity": ["OK"]}\n'
        '{"path": "pages/empty.html"}\n'
        '{"path": "../outside.html"}\n'
        '{"path": "pages/ok.html"}\n'
        '{"path": "pages/x.html", "main_entity": "not a list"}\n',
    )
    dump = read_site_dump(tmp_path, site_id="s")
    assert [p.path for p in dump.pages] == ["pages/ok.html"]
    failures = {f.path: f.reason for f in dump.failures}
    assert failures["manifest.jsonl:2"].startswith("invalid JSON")
    assert failures["manifest.jsonl:5"] == "path '../outside.html' leaves the site directory"
    assert failures["manifest.jsonl:6"] == "path 'pages/ok.html' listed twice"
    assert failures["manifest.jsonl:7"] == "'main_entity' is not a list of strings"
    assert failures["pages/missing.html"].startswith("cannot read")
    assert failures["pages/empty.html"].startswith("empty page")
    assert all(isinstance(f, PageFailure) and f.site_id == "s" for f in dump.failures)
    urls = {f.path: f.url for f in dump.failures}  # the manifest's url when the entry names one
    assert (urls["pages/missing.html"], urls["pages/empty.html"], urls["manifest.jsonl:2"]) == (
        "https://s.example/m", "", "")


def test_url_from_base_href_base_url_or_file_uri(tmp_path):
    write(tmp_path / "abs.html", '\ufeff<base href="http://www.example.com/item/7"/>\n<html><p>x</p></html>')
    write(tmp_path / "rel.html", "<head><base href='/other/'></head><p>x</p>")
    write(tmp_path / "sub dir" / "plain.html", "<p>no base</p>")
    write(tmp_path / "late.html", '<body><base href="http://ignored.example/"><p>x</p></body>')
    with_base = {p.path: p.url for p in read_site_dump(tmp_path, base_url="https://s.example/dump").pages}
    assert with_base == {
        "abs.html": "http://www.example.com/item/7",
        "late.html": "https://s.example/dump/late.html",
        "rel.html": "https://s.example/other/",
        "sub dir/plain.html": "https://s.example/dump/sub%20dir/plain.html",
    }
    without = {p.path: p.url for p in read_site_dump(tmp_path).pages}
    assert without["abs.html"] == "http://www.example.com/item/7"
    assert without["sub dir/plain.html"] == (tmp_path / "sub dir" / "plain.html").resolve().as_uri()
    assert without["rel.html"] == "file:///other/"  # root-relative, as a browser resolves it


def test_manifest_line_without_url_falls_back(tmp_path):
    write(tmp_path / "p.html", '<base href="https://s.example/p">')
    write_manifest(tmp_path, [{"path": "p.html", "main_entity": ["P"]}])
    (page,) = read_site_dump(tmp_path).pages
    assert (page.url, page.main_entity) == ("https://s.example/p", ("P",))


def test_max_pages_and_site_id(tmp_path):
    for name in "cab":
        write(tmp_path / f"{name}.html", f"<p>{name}</p>")
    dump = read_site_dump(tmp_path, max_pages=2, site_id="mine")
    assert [p.path for p in dump.pages] == ["a.html", "b.html"]
    assert {p.site_id for p in dump.pages} == {"mine"}
    with pytest.raises(ValueError, match="max_pages must be >= 1; got 0"):
        read_site_dump(tmp_path, max_pages=0)


def test_empty_or_missing_site_dump_is_an_error(tmp_path):
    write(tmp_path / "notes.txt", "nothing")
    with pytest.raises(ValueError, match="no manifest.jsonl and no HTML files"):
        read_site_dump(tmp_path)
    with pytest.raises(ValueError, match="not a directory"):
        read_site_dump(tmp_path / "nope")


def test_read_dataset_sites_layout(tmp_path):
    write(tmp_path / "sites" / "zeta" / "pages" / "1.html", "<p>z</p>")
    write(tmp_path / "sites" / "alpha" / "1.html", "<p>a</p>")
    write(tmp_path / "sites" / "empty" / "notes.txt", "no pages")
    with pytest.warns(UserWarning, match="skipped site 'empty'"):
        dumps = read_dataset(tmp_path, base_url="https://d.example/")
    assert [(d.site_id, [p.path for p in d.pages]) for d in dumps] == [
        ("alpha", ["1.html"]),
        ("zeta", ["pages/1.html"]),
    ]


def test_read_dataset_plain_site_dump_and_errors(tmp_path):
    write(tmp_path / "dump" / "x.html", "<p>x</p>")
    (dump,) = read_dataset(tmp_path / "dump")  # a page that names no URL is a site of its own
    assert dump.site_id == f"html-{hashlib.sha256(b'<p>x</p>').hexdigest()[:16]}"
    assert [p.path for p in dump.pages] == ["x.html"]
    write(tmp_path / "nothing" / "a.txt", "text")
    with pytest.raises(ValueError, match=r"nothing.* has no sites/ directory"):
        read_dataset(tmp_path / "nothing")
    (tmp_path / "bare" / "sites").mkdir(parents=True)
    with pytest.raises(ValueError, match="no readable site dump"):
        read_dataset(tmp_path / "bare")


def test_site_folders_not_under_sites_are_read_as_a_folder_of_pages_with_a_warning(tmp_path):
    for site in ("shop-a", "shop-b"):
        write(tmp_path / "crawl" / site / "a.html", "<h1>A</h1>")
        write(tmp_path / "crawl" / site / "manifest.jsonl", json.dumps({"path": "a.html", "url": f"https://{site}/a"}))
    with pytest.warns(UserWarning, match=r"read as a folder of pages, but shop-a, shop-b hold their own "
                                         r"manifest.jsonl: to read them as sites, put them under .*crawl/sites"):
        dumps = read_dataset(tmp_path / "crawl")
    # the two copies of one page name no URL: each is a site of its own
    digest = hashlib.sha256(b"<h1>A</h1>").hexdigest()[:16]
    assert [(dump.site_id, [page.path for page in dump.pages]) for dump in dumps] == [
        (f"html-{digest}", ["shop-a/a.html"]), (f"html-{digest}-1", ["shop-b/a.html"])]
    (tmp_path / "crawl" / "sites").mkdir()
    for site in ("shop-a", "shop-b"):
        (tmp_path / "crawl" / site).rename(tmp_path / "crawl" / "sites" / site)
    assert [dump.site_id for dump in read_dataset(tmp_path / "crawl")] == ["shop-a", "shop-b"]


# --- label_in_page ----------------------------------------------------------------------------------


def test_label_in_page():
    page = (
        "<html><head><title>Buy the Kettle | Shop</title><style>.x{content:'Hidden Label'}</style></head>"
        "<body><h1>Ashgrove  <b>Enamel</b>\nKettle</h1><script>var t = 'Script Label';</script></body></html>"
    )
    assert label_in_page(page, ["ashgrove enamel kettle"])
    assert label_in_page(page, ["Not here", "Buy the Kettle"])
    assert not label_in_page(page, ["Hidden Label"])
    assert not label_in_page(page, ["Script Label"])
    assert not label_in_page(page, [])
    assert not label_in_page(page, ["  "])


# --- the shared labeled datasets --------------------------------------------------------------------


@pytest.mark.shared_data
@pytest.mark.parametrize(
    ("name", "n_sites", "n_pages"),
    [("swde-book-christianbook", 1, 1000), ("readability-realworld", 78, 93)],
)
def test_shared_datasets_read_cleanly(name, n_sites, n_pages):
    root = SHARED / name
    dumps = read_dataset(root)
    pages = [page for dump in dumps for page in dump.pages]
    assert (len(dumps), len(pages)) == (n_sites, n_pages)
    assert [f for dump in dumps for f in dump.failures] == []
    assert all(page.main_entity and page.url.startswith("http") for page in pages)
    # our label_in_page agrees with the manifests' flag on every page
    flags = {}
    for dump in dumps:
        for line in (dump.directory / "manifest.jsonl").read_text(encoding="utf-8").splitlines():
            entry = json.loads(line)
            flags[(dump.site_id, entry["path"])] = entry["label_in_page"]
    assert all(label_in_page(p.html, p.main_entity) == flags[(p.site_id, p.path)] for p in pages)
    if name == "readability-realworld":
        (qq,) = [p for p in pages if p.path == "pages/qq.html"]
        assert "DeepMind新电脑已可利用记忆自学" in qq.html  # declares gb2312, bytes are UTF-8
    else:
        assert not pages[0].html.startswith("\ufeff") and pages[0].html.startswith("<base href=")


# --- subresources -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "page_url", "page_path", "expected_first"),
    [
        # the sample shop: pages under pages/, a root-relative stylesheet
        ("https://shop.example/css/shop.css", "https://shop.example/p/a.html", "pages/p/a.html",
         "pages/css/shop.css"),
        # a page without a URL of its own, under the placeholder origin
        ("http://mainentity.invalid/d/css/a%20b.css", "http://mainentity.invalid/d/p.html", "d/p.html",
         "d/css/a b.css"),
        # "Save page, complete" with the original URL in the manifest and the links rewritten
        ("https://shop.example/p/Kettle_files/site.css", "https://shop.example/p/kettle",
         "Kettle.html", "Kettle_files/site.css"),
        # wget with --adjust-extension: the query is part of the file name
        ("https://shop.example/css/site.css?v=3", "https://shop.example/p/k.html", "shop.example/p/k.html",
         "shop.example/css/site.css?v=3"),
        # wget --convert-links across hosts, under the original URL: the link stops at the site root
        ("https://shop.example/fonts.example/a.ttf", "https://shop.example/css/t.css",
         "shop.example/css/t.css", "fonts.example/a.ttf"),
    ],
)
def test_subresource_candidates_find_each_layout(tmp_path, url, page_url, page_path, expected_first):
    write(tmp_path / page_path, "<p>page</p>")
    write(tmp_path / expected_first, "p{}")
    assert expected_first in subresource_candidates(url, page_url, page_path)
    assert DumpFiles(tmp_path).find(url, page_url, page_path).path == expected_first


def test_subresources_resolve_against_the_base_href(tmp_path):
    write(tmp_path / "saved" / "kettle.html", '<base href="https://shop.example/p/"><p>Kettle</p>')
    write(tmp_path / "saved" / "css" / "site.css", "p{}")
    site = read_site_dump(tmp_path / "saved", site_id="base-href-test")
    (page,) = site.pages
    assert page.url == "https://shop.example/p/"
    files = SubresourceSources.of_dumps([site]).for_page(page)
    found = files.find("https://shop.example/p/css/site.css", page.url, page.path)
    assert found.path == "css/site.css"


def test_subresource_candidates_layouts_and_limits():
    got = subresource_candidates("https://cdn.example/f/a.woff2?x=1", "https://shop.example/k.html", "k.html")
    assert got == [
        "cdn.example/f/a.woff2?x=1", "cdn.example/f/a.woff2@x=1", "cdn.example/f/a.woff2?x=1.css",
        "cdn.example/f/a.woff2", "k_files/a.woff2?x=1", "k_files/a.woff2@x=1", "k_files/a.woff2?x=1.css",
        "k_files/a.woff2",
    ]
    # A URL above the page's place in the dump maps outside it: that candidate is dropped.
    up = subresource_candidates("https://shop.example/secret.css", "https://shop.example/a/b/p.html", "p.html")
    assert up == ["secret.css", "shop.example/secret.css", "p_files/secret.css"]
    assert all(".." not in c.split("/") and not c.startswith("/") for c in up)
    assert subresource_candidates("data:text/css,p{}", "https://shop.example/p.html", "p.html") == []
    assert subresource_candidates("file:///etc/passwd", "https://shop.example/p.html", "p.html") == []


def test_dump_files_refuses_paths_and_links_out_of_the_dump(tmp_path):
    dump = tmp_path / "dump"
    write(dump / "css" / "site.css", "p{}")
    write(dump / ".git" / "config", "secret")
    write(tmp_path / "outside.css", "secret")
    (dump / "css" / "out.css").symlink_to(tmp_path / "outside.css")
    (dump / "css" / "in.css").symlink_to(dump / "css" / "site.css")
    (dump / "up").symlink_to(tmp_path)
    files = DumpFiles(dump)
    assert files.read("css/site.css").data == b"p{}"
    assert files.read("css/in.css").data == b"p{}"  # a link that stays inside is fine
    refused = ["css/out.css", "up/outside.css", "../outside.css", "css/../../outside.css", "/etc/passwd",
               str(tmp_path / "outside.css"), ".git/config", "css", "css//site.css", "missing.css"]
    assert {path: files.read(path) for path in refused} == dict.fromkeys(refused)


def test_dump_files_holds_subresources(tmp_path):
    write(tmp_path / "a" / "p.html", "<p>A</p>")
    write(tmp_path / "a" / "manifest.jsonl", "")
    write(tmp_path / "a" / ".git" / "HEAD", "ref")
    assert DumpFiles(tmp_path / "a").holds_subresources is False
    write(tmp_path / "a" / "p_files" / "site.css", "p{}")
    assert DumpFiles(tmp_path / "a").holds_subresources is True


def test_dump_files_reads_a_changed_file_again(tmp_path):
    file = write(tmp_path / "a.css", "p{color:red}")
    files = DumpFiles(tmp_path)
    first = files.read("a.css")
    assert first.sha256 == hashlib.sha256(b"p{color:red}").hexdigest()
    write(file, "p{color:blue;font-size:9px}")
    assert files.read("a.css").data == b"p{color:blue;font-size:9px}"


def test_a_site_id_two_datasets_share_serves_each_page_its_own_dumps_files(tmp_path):
    """One host's dumps in two datasets (nine hosts of the shared news datasets are in two of them), read in one
    run: each page is served the style sheet of the dump it was read from, not the dataset read last's."""
    sizes = {"news-a": 40.0, "news-b": 12.0}
    for dataset, size in sizes.items():
        site = tmp_path / dataset / "sites" / "harbor.example"
        write(site / "style.css", f"h1 {{font-size: {size:g}px}}")
        write(site / "pages" / f"{dataset}.html", '<link rel="stylesheet" href="/style.css"><h1>Harbour</h1>')
        write_manifest(site, [{"path": f"pages/{dataset}.html", "url": f"https://harbor.example/{dataset}",
                               "main_entity": ["Harbour"]}])
    loaded = load_pages([str(tmp_path / dataset) for dataset in sizes])
    assert [(page.site_id, page.dataset) for page in loaded.pages] == [("harbor.example", "news-a"),
                                                                       ("harbor.example", "news-b")]
    for page in loaded.pages:
        source = loaded.subresources.for_page(page)
        assert source.directory == (tmp_path / page.dataset / "sites" / "harbor.example").resolve()
        (heading,) = [block for block in read_static(page, source).blocks if block.tag == "h1"]
        assert heading.font_size == sizes[page.dataset]
    # joined from their pairs, as loading joins a run's inputs, the sources still serve both
    joined = SubresourceSources(loaded.subresources.items())
    assert [joined.for_page(page) for page in loaded.pages] == [loaded.subresources.for_page(page)
                                                                 for page in loaded.pages]
    # a cluster run's task of the site carries both dumps to its worker, each page served its own
    model = SimpleNamespace(recognizer=SimpleNamespace(site_level=True), cleaners={},
                            config=SimpleNamespace(cleaning=SimpleNamespace(method="none")))
    [(task, _)] = site_tasks(model, loaded.pages, cluster=None, subresources=loaded.subresources)
    in_worker = pickle.loads(pickle.dumps(task)).subresources()
    assert [in_worker.for_page(page).directory for page in loaded.pages] == [
        (tmp_path / page.dataset / "sites" / "harbor.example").resolve() for page in loaded.pages]


def test_subresource_sources_find_the_dump_of_a_page(tmp_path):
    write(tmp_path / "site" / "p" / "a.html", "<p>A</p>")
    site = read_site_dump(tmp_path / "site", site_id="dump-files-for-test")
    (page,) = site.pages
    sources = SubresourceSources.of_dumps([site])
    assert page.url.startswith("file://")
    assert sources.for_page(page).directory == (tmp_path / "site").resolve()
    # A page built by hand with a file:// URL finds its dump from the URL and its relative path.
    file_page = Page("elsewhere", "p/a.html", (tmp_path / "site" / "p" / "a.html").as_uri(), "<p>A</p>")
    assert SubresourceSources().for_page(file_page).directory == tmp_path / "site"
    # A page whose file is not in the site's dump, or with no dump at all, has none.
    assert sources.for_page(Page("dump-files-for-test", "p/b.html", "https://x.example/b", "")) is None
    assert sources.for_page(Page("never-read", "p/a.html", "https://x.example/a", "")) is None
    # Nothing is recorded behind the caller's back: reading a dump registers nothing.
    assert SubresourceSources().for_page(Page("dump-files-for-test", "p/a.html", "https://x.example/a", "")) is None


def test_a_nul_in_a_page_given_as_a_string_is_dropped_too():
    from mainentity.sitedump import page_from_html

    assert page_from_html("<h1>Great \x00Expectations</h1>").html == "<h1>Great Expectations</h1>"
    with pytest.raises(PageReadError, match="empty page"):
        page_from_html(" \x00 ")


def test_a_site_folder_is_named_as_given_a_link_by_its_own_name_a_name_not_utf8_escaped(tmp_path):
    """``sites/alpha`` and ``sites/beta`` linked to two crawls' ``html`` folders were both site ``html`` (one
    site, beta's home page refused as alpha's twin); a folder named with the byte 0xFF crashed the writer of
    the whole batch (a lone surrogate in the row's site id). Each is now its own site, named as the user sees
    it, and a batch over them writes every row."""
    import os

    from mainentity.cli import main

    html = "<html><head><title>{0}</title></head><body><h1>{0}</h1><p>Oiled by hand.</p></body></html>"
    for crawl, name in (("crawl-a", "Oak Shelf"), ("crawl-b", "Pine Desk")):
        (tmp_path / crawl / "html").mkdir(parents=True)
        (tmp_path / crawl / "html" / "index.html").write_text(html.format(name), encoding="utf-8")
    sites = tmp_path / "dump" / "sites"
    sites.mkdir(parents=True)
    (sites / "alpha").symlink_to(tmp_path / "crawl-a" / "html", target_is_directory=True)
    (sites / "beta").symlink_to(tmp_path / "crawl-b" / "html", target_is_directory=True)
    odd = os.fsdecode(bytes(sites) + b"/caf\xff")
    os.mkdir(odd)
    Path(odd, "index.html").write_text(html.format("Ash Stool"), encoding="utf-8")
    loaded = load_pages([str(tmp_path / "dump")])
    assert sorted(page.site_id for page in loaded.pages) == ["alpha", "beta", "caf\\xff"]
    assert not loaded.failures
    out = tmp_path / "rows.jsonl"
    assert main(["predict", str(tmp_path / "dump"), "-o", str(out)]) == 0
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert sorted((row["site_id"], row["main_entity"]) for row in rows) == [
        ("alpha", "Oak Shelf"), ("beta", "Pine Desk"), ("caf\\xff", "Ash Stool")]


def test_blank_labels_label_nothing(tmp_path):
    """``"main_entity": [""]`` or ``["   "]`` was taken as a label: evaluate scored the page 0 against an
    empty label and counted it as labeled. Blank labels are dropped; a page with only blank ones is unlabeled."""
    site = tmp_path / "sites" / "shop"
    site.mkdir(parents=True)
    rows = [("a.html", ["Oak Shelf"]), ("b.html", [""]), ("c.html", ["   ", "Pine Desk"]), ("d.html", ["  \t"])]
    for path, _ in rows:
        (site / path).write_text(f"<title>{path}</title><h1>{path}</h1>", encoding="utf-8")
    (site / "manifest.jsonl").write_text("".join(
        json.dumps({"path": path, "url": f"https://shop.example/{path}", "main_entity": labels}) + "\n"
        for path, labels in rows), encoding="utf-8")
    loaded = load_pages([str(tmp_path)])
    assert {page.path: page.main_entity for page in loaded.pages} == {
        "a.html": ("Oak Shelf",), "b.html": (), "c.html": ("Pine Desk",), "d.html": ()}


def test_a_manifest_that_starts_with_a_byte_order_mark_reads_its_first_line(tmp_path):
    """A manifest saved with a UTF-8 BOM lost its first page (line 1 "invalid JSON")."""
    site = tmp_path / "shop"
    site.mkdir()
    (site / "a.html").write_text("<title>Oak Shelf</title><h1>Oak Shelf</h1>", encoding="utf-8")
    (site / "b.html").write_text("<title>Pine Desk</title><h1>Pine Desk</h1>", encoding="utf-8")
    (site / "manifest.jsonl").write_bytes(b"\xef\xbb\xbf" + "".join(
        json.dumps({"path": path, "url": f"https://shop.example/{path}", "main_entity": [name]}) + "\n"
        for path, name in (("a.html", "Oak Shelf"), ("b.html", "Pine Desk"))).encode("utf-8"))
    loaded = load_pages([str(site)])
    assert [(page.path, page.main_entity) for page in loaded.pages] == [
        ("a.html", ("Oak Shelf",)), ("b.html", ("Pine Desk",))]
    assert not loaded.failures
