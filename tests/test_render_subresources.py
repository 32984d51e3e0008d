"""Tests of serving a page's own stylesheets, fonts and images from its site dump (mainentity.render).

Two small dumps are written by the tests themselves, as the usual tools lay them out: a browser's "Save
page, complete" (``Kettle.html`` with ``Kettle_files/``) and a ``wget --mirror --page-requisites``
mirror (host directories, a query in a file name, a font on another host), with links converted
(``--convert-links``) and without. Their blocks must carry the stylesheets' font sizes and weights and
have the boxes of the same folder opened as ``file://`` in a plain Chromium with scripts off.
Start Chromium.
"""

from __future__ import annotations

import io
import json
import zlib
from pathlib import Path

import pytest

from mainentity.records import Page
from mainentity.render import RenderCache, Renderer, RenderSettings, render_pages
from mainentity.render.blocks_payload import BLOCKS_JS, META_KEYS
from mainentity.sitedump import SubresourceSources, read_site_dump

pytestmark = pytest.mark.browser

TITLE = "Ashgrove Enamel Kettle"

BODY = f"""<div class="logo">Harbor Lane Goods</div>
<h1 class="name">{TITLE}</h1>
<img src="{{files}}photo.png" alt="">
<p class="stock">Only 3 left in stock</p>
<img srcset="{{files}}small.png 1x, {{files}}large.png 2x" alt="">
<p>A sturdy kettle made of enamel that mellows on a kitchen table over the years.</p>"""

SITE_CSS = """@import url("TYPE_CSS_URL");
body { font-size: 9px; margin: 4px }
.name { font-size: 64px; font-weight: 800; margin: 2px 0 }
.logo { font-size: 22px; font-weight: 600 }
"""

TYPE_CSS = """@font-face { font-family: Wide; src: url("FONT_URL") format("truetype") }
.stock { font-family: Wide, serif; font-size: 20px; font-weight: 700 }
"""


def png(width: int, height: int) -> bytes:
    """A solid red RGB PNG of ``width`` x ``height`` pixels."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return len(data).to_bytes(4, "big") + kind + data + zlib.crc32(kind + data).to_bytes(4, "big")

    header = width.to_bytes(4, "big") + height.to_bytes(4, "big") + bytes([8, 2, 0, 0, 0])
    raw = b"".join(b"\x00" + b"\xff\x00\x00" * width for _ in range(height))
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")


def wide_font(advance: int = 1400) -> bytes:
    """A TrueType font ("Wide") whose printable ASCII glyphs are boxes 1.4 em wide."""
    fonttools = pytest.importorskip("fontTools.fontBuilder")
    from fontTools.pens.ttGlyphPen import TTGlyphPen

    codes = range(32, 127)
    names = [".notdef", *(f"g{code}" for code in codes)]
    builder = fonttools.FontBuilder(1000, isTTF=True)
    builder.setupGlyphOrder(names)
    builder.setupCharacterMap({code: f"g{code}" for code in codes})
    glyphs = {}
    for name in names:
        pen = TTGlyphPen(None)
        if name not in (".notdef", "g32"):
            for x, y in ((100, 0), (100, 700), (advance - 100, 700), (advance - 100, 0)):
                (pen.lineTo if (x, y) != (100, 0) else pen.moveTo)((x, y))
            pen.closePath()
        glyphs[name] = pen.glyph()
    builder.setupGlyf(glyphs)
    builder.setupHorizontalMetrics({name: (advance, 0) for name in names})
    builder.setupHorizontalHeader(ascent=800, descent=-200)
    builder.setupNameTable({"familyName": "Wide", "styleName": "Regular"})
    builder.setupOS2(sTypoAscender=800, usWinAscent=800, usWinDescent=200)
    builder.setupPost()
    out = io.BytesIO()
    builder.save(out)
    return out.getvalue()


def write(path: Path, data: bytes | str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
    return path


def page_html(css_href: str, files: str, comment: str = "") -> str:
    return (
        f'<!DOCTYPE html>\n{comment}<html><head><meta charset="utf-8"><title>{TITLE} | Harbor Lane Goods</title>\n'
        f'<link rel="stylesheet" href="{css_href}"></head>\n<body>\n{BODY.format(files=files)}\n</body></html>\n'
    )


def write_images(directory: Path) -> None:
    write(directory / "photo.png", png(120, 90))
    write(directory / "small.png", png(40, 30))
    write(directory / "large.png", png(80, 60))


def make_saved_page(root: Path) -> Path:
    """A browser's "Save page, complete": ``Ashgrove Kettle.html`` and ``Ashgrove Kettle_files/``,
    links rewritten relative; the dump has no manifest, so the page URL is its file URI."""
    files = root / "Ashgrove Kettle_files"
    comment = "<!-- saved from url=(0029)https://shop.example/p/kettle -->\n"
    html = page_html("./Ashgrove%20Kettle_files/site.css", "./Ashgrove%20Kettle_files/", comment)
    write(root / "Ashgrove Kettle.html", html)
    write(files / "site.css", SITE_CSS.replace("TYPE_CSS_URL", "type.css"))
    write(files / "type.css", TYPE_CSS.replace("FONT_URL", "wide.ttf"))
    write(files / "wide.ttf", wide_font())
    write_images(files)
    return root


def make_wget_mirror(root: Path, converted: bool) -> Path:
    """``wget --mirror --page-requisites --adjust-extension [--convert-links] --span-hosts``: one
    directory per host, a stylesheet saved as ``site.css?v=3.css``, the font on ``fonts.example``; a
    manifest gives the original URL."""
    site = root / "shop.example"
    if converted:
        css_href, files, font = "../css/site.css%3Fv=3.css", "../img/", "../../fonts.example/wide.ttf"
    else:
        css_href, files, font = "/css/site.css?v=3", "https://shop.example/img/", "https://fonts.example/wide.ttf"
    write(site / "p" / "kettle.html", page_html(css_href, files))
    write(site / "css" / "site.css?v=3.css", SITE_CSS.replace("TYPE_CSS_URL", "type.css"))
    write(site / "css" / "type.css", TYPE_CSS.replace("FONT_URL", font))
    write(root / "fonts.example" / "wide.ttf", wide_font())
    write_images(site / "img")
    entry = {"path": "shop.example/p/kettle.html", "url": "https://shop.example/p/kettle.html"}
    write(root / "manifest.jsonl", json.dumps(entry) + "\n")
    return root


def render(settings: RenderSettings, pages, subresources: SubresourceSources | None = None) -> list:
    with Renderer(settings) as renderer:
        outcomes = list(renderer.render(pages, subresources))
    assert [o.error for o in outcomes] == [""] * len(outcomes)
    return outcomes


def reference_blocks(file: Path, screenshot: Path) -> list[list]:
    """The blocks of ``file`` opened as ``file://`` in a plain Chromium (scripts off, no routing)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=RenderSettings().executable_path)
        try:
            context = browser.new_context(viewport={"width": 1024, "height": 768}, java_script_enabled=False)
            tab = context.new_page()
            tab.goto(file.as_uri(), wait_until="load")
            tab.evaluate("document.fonts.ready.then(() => document.fonts.status)")
            blocks = json.loads(tab.evaluate(BLOCKS_JS, list(META_KEYS)))["blocks"]
            tab.screenshot(path=str(screenshot), full_page=True)
        finally:
            browser.close()
    return blocks


def boxes(blocks) -> list[tuple]:
    return [(b[0], b[3], b[4], b[6], b[7], b[8], b[9]) for b in blocks]


def by_text(rendered, text: str):
    (block,) = [b for b in rendered.blocks if b.text == text and not b.merged]
    return block


@pytest.fixture(scope="module")
def dumps(tmp_path_factory):
    root = tmp_path_factory.mktemp("dumps")
    return {
        "saved": make_saved_page(root / "saved"),
        "wget": make_wget_mirror(root / "wget", converted=True),
        "wget-raw": make_wget_mirror(root / "wget-raw", converted=False),
    }


@pytest.fixture(scope="module")
def sites(dumps):
    """``{dump name: SiteDump}`` of each dump."""
    return {name: read_site_dump(path, site_id=f"subresources-{name}") for name, path in dumps.items()}


@pytest.fixture(scope="module")
def rendered(sites):
    """``{(dump name, subresources): outcome}`` of the one page of each dump."""
    sources = SubresourceSources.of_dumps(sites.values())
    out = {}
    for subresources in (True, False):
        settings = RenderSettings(concurrency=2, timeout_s=15, subresources=subresources)
        for outcome in render(settings, [site.pages[0] for site in sites.values()], sources):
            out[outcome.page.site_id.removeprefix("subresources-"), subresources] = outcome
    return out


@pytest.mark.parametrize("name", ["saved", "wget", "wget-raw"])
def test_blocks_carry_the_stylesheet_font_size_and_weight(rendered, name):
    outcome = rendered[name, True]
    title, logo = by_text(outcome.rendered, TITLE), by_text(outcome.rendered, "Harbor Lane Goods")
    stock = by_text(outcome.rendered, "Only 3 left in stock")
    body = by_text(outcome.rendered, outcome.rendered.blocks[-1].text)
    assert (title.font_size, title.font_weight, title.bold) == (64.0, 800, True)
    assert (logo.font_size, logo.font_weight, logo.bold) == (22.0, 600, True)
    assert (stock.font_size, stock.font_weight, body.font_size) == (20.0, 700, 9.0)
    # The web font is used: 20 characters 1.4 em wide at 20 px.
    assert stock.width == pytest.approx(20 * 1.4 * 20, abs=1)
    assert outcome.n_subresources_served == 5  # site.css, type.css, wide.ttf, photo.png, small.png (1x)
    assert outcome.n_subresources_blocked == 0
    assert [sha256 != "" for _, sha256 in outcome.subresources] == [True] * 5


def test_served_images_shape_the_layout(rendered):
    blocks = rendered["saved", True].rendered
    title, stock = by_text(blocks, TITLE), by_text(blocks, "Only 3 left in stock")
    assert stock.y - (title.y + title.height) > 90  # below the 120x90 photo
    srcset = [url for url, _ in rendered["saved", True].subresources if url.endswith(("small.png", "large.png"))]
    assert [url.rsplit("/", 1)[1] for url in srcset] == ["small.png"]  # the 1x candidate at 1 CSS px/px


@pytest.mark.parametrize("name", ["saved", "wget"])
def test_boxes_match_the_folder_opened_in_chromium(rendered, dumps, sites, tmp_path, name):
    outcome = rendered[name, True]
    file = dumps[name] / outcome.page.path
    reference = reference_blocks(file, tmp_path / "reference.png")
    ours = [[b.text, b.tag, b.dom_path, b.font_size, b.font_weight, b.bold, b.x, b.y, b.width, b.height]
            for b in outcome.rendered.blocks]
    assert [b[0] for b in ours] == [b[0] for b in reference]
    for mine, theirs in zip(boxes(ours), boxes(reference), strict=True):
        assert mine[:3] == theirs[:3]
        assert max(abs(a - b) for a, b in zip(mine[3:], theirs[3:], strict=True)) <= 1.0, (mine, theirs)
    sources = SubresourceSources.of_dumps([sites[name]])
    with Renderer(RenderSettings(concurrency=1, timeout_s=15)) as renderer:
        renderer.screenshot(outcome.page, tmp_path / "ours.png", subresources=sources)
    assert (tmp_path / "ours.png").read_bytes() == (tmp_path / "reference.png").read_bytes()


def test_unconverted_mirror_renders_like_the_converted_one(rendered):
    converted, raw = rendered["wget", True].rendered, rendered["wget-raw", True].rendered
    assert boxes([[b.text, b.font_size, b.font_weight, 0, 0, 0, b.x, b.y, b.width, b.height]
                  for b in converted.blocks]) == boxes(
        [[b.text, b.font_size, b.font_weight, 0, 0, 0, b.x, b.y, b.width, b.height] for b in raw.blocks]
    )


@pytest.mark.parametrize("name", ["saved", "wget"])
def test_switch_off_blocks_every_subresource(rendered, name):
    outcome = rendered[name, False]
    title = by_text(outcome.rendered, TITLE)
    assert (title.font_size, title.font_weight) == (32.0, 700)  # the browser's h1
    assert outcome.n_subresources_served == 0
    assert [sha256 for _, sha256 in outcome.subresources] == [""]  # the stylesheet; images not requested
    assert outcome.n_subresources_blocked == 1


def test_nothing_outside_the_dump_is_served(tmp_path):
    dump = tmp_path / "dump"
    write(tmp_path / "secret.css", "h1 { font-size: 77px }")
    write(tmp_path / "elsewhere" / "big.css", "h1 { font-size: 55px }")
    (dump / "css").mkdir(parents=True)
    (dump / "css" / "link.css").symlink_to(tmp_path / "elsewhere" / "big.css")
    write(dump / "css" / ".hidden.css", "h1 { font-size: 66px }")
    write(dump / "css" / "fine.css", "p { font-size: 11px }")
    links = "".join(
        f'<link rel="stylesheet" href="{href}">'
        for href in ("../../secret.css", "/secret.css", "../css/link.css", "../css/.hidden.css", "../css/fine.css",
                     f"{(tmp_path / 'secret.css').as_uri()}")
    )
    write(dump / "a" / "b.html", f"<html><head>{links}</head><body><h1>Title</h1><p>text</p></body></html>")
    entry = {"path": "a/b.html", "url": "https://shop.example/x/y/a/b.html"}
    write(dump / "manifest.jsonl", json.dumps(entry) + "\n")
    site = read_site_dump(dump, site_id="subresources-containment")
    (outcome,) = render(RenderSettings(concurrency=1, timeout_s=15), site.pages, SubresourceSources.of_dumps([site]))
    assert by_text(outcome.rendered, "Title").font_size == 32.0
    assert by_text(outcome.rendered, "text").font_size == 11.0
    served = [url for url, sha256 in outcome.subresources if sha256]
    assert served == ["https://shop.example/x/y/css/fine.css"]
    assert outcome.n_subresources_blocked == 4  # file:// is not requested at all


def test_cache_renders_again_when_a_stylesheet_changes(tmp_path):
    dump = tmp_path / "dump"
    write(dump / "p.html", '<link rel="stylesheet" href="site.css"><h1>Title</h1>')
    css = write(dump / "site.css", "h1 { font-size: 40px }")
    settings = RenderSettings(concurrency=1, timeout_s=15)
    cache_dir = tmp_path / "cache"

    def title_size() -> float:
        site = read_site_dump(dump, site_id="subresources-cache")
        (outcome,) = render_pages(site.pages, settings, cache_dir, subresources=SubresourceSources.of_dumps([site]))
        return by_text(outcome.rendered, "Title").font_size

    assert title_size() == 40.0
    css.write_text("h1 { font-size: 50px }")
    assert title_size() == 50.0
    site = read_site_dump(dump, site_id="subresources-cache")
    (page,) = site.pages
    hit = RenderCache(cache_dir).get(page, settings, SubresourceSources.of_dumps([site]).for_page(page))
    assert (hit.n_subresources_served, by_text(hit.rendered, "Title").font_size) == (1, 50.0)
    assert len(list(cache_dir.glob("*/*.json.gz"))) == 2  # both versions are kept


def test_pages_only_dump_requests_no_images_but_shows_data_images(tmp_path):
    pixel = "data:image/svg+xml," + "<svg xmlns='http://www.w3.org/2000/svg' width='50' height='80'/>"
    write(tmp_path / "p.html", f'<p>Top</p><img src="http://shop.example/a.png"><img src="{pixel}"><p>End</p>')
    site = read_site_dump(tmp_path, site_id="subresources-pages-only")
    (outcome,) = render(RenderSettings(concurrency=1, timeout_s=15), site.pages, SubresourceSources.of_dumps([site]))
    assert (outcome.subresources, outcome.n_subresources_blocked) == ((), 0)
    top, end = by_text(outcome.rendered, "Top"), by_text(outcome.rendered, "End")
    assert end.y - (top.y + top.height) >= 80  # the 80 px data: image is laid out


def test_page_without_a_known_dump_renders_as_before():
    page = Page("unknown-site", "p.html", "https://shop.example/p.html",
                '<link rel="stylesheet" href="site.css"><h1>Title</h1>')
    (outcome,) = render(RenderSettings(concurrency=1, timeout_s=15), [page])
    assert by_text(outcome.rendered, "Title").font_size == 32.0
    assert outcome.subresources == (("https://shop.example/site.css", ""),)
    assert (outcome.n_subresources_served, outcome.n_subresources_blocked) == (0, 1)
