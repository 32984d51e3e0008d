"""Generate ``datasets/sample-shop``: a small fictional shop as a labeled site dump.

The shop "Harbor Lane Goods" (``https://shop.example/``) has a home page, five category pages, thirty
product pages, a journal (magazine) index and five journal articles: 42 pages. Every text is invented
for this sample. The pages share one external stylesheet, ``css/shop.css``, linked root-relative
(``/css/shop.css``) as real sites link theirs, so their look depends on the renderer serving it from
the dump; they load nothing else (images are inline SVG ``data:`` URIs) and render offline. Templates
vary so that recognising the main entity is not trivial:

- the product name is in an ``<h1>`` (template A), in a styled ``<div>`` under an ``<h1>`` that holds
  the category (template B), or in a large bold ``<span>`` (template C);
- ``<title>`` formats vary ("Name | Shop", "Shop - Name - Category", "Buy Name online") and some
  titles carry only the shop name;
- distractors in large bold type: the shop logo, promo banners, prices, "only N left" notes;
- navigation, breadcrumbs, footers, "related products" lists and "add to cart" rows;
- category pages link to products with full names, shortened names, image ``alt`` texts and generic
  "View details" links, so the incoming anchor texts (ILA) of a product are realistic;
- links are written relative, root-relative and absolute, some with fragments or a capitalised host;
  the footer links to pages outside the dump; one product page is saved in windows-1252 (declared
  in its ``<meta>``), the others in UTF-8.

Output (bytes are deterministic, a test compares them to the committed copy)::

    OUT_DIR/DATASET.md
    OUT_DIR/sites/sample-shop/manifest.jsonl
    OUT_DIR/sites/sample-shop/pages/index.html, c/<category>/index.html, p/<product>.html,
                                    journal/index.html, journal/<article>.html, css/shop.css

Usage: ``python datasets/make_sample_site.py [OUT_DIR]`` (default: ``datasets/sample-shop`` beside
this script).
"""

from __future__ import annotations

import argparse
import html
import json
import random
import sys
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:  # run as a script from a checkout
    sys.path.insert(0, str(REPO))

from mainentity.sitedump import label_in_page  # noqa: E402

SEED = 20240611
SHOP = "Harbor Lane Goods"
HOST = "https://shop.example/"
SITE_ID = "sample-shop"
JOURNAL = "The Harbor Lane Journal"
LATIN1_PRODUCT = "creme-brulee-torch"  # the page saved in windows-1252

# (slug, name, intro)
CATEGORIES = [
    ("kitchen", "Kitchen", "Pans, kettles and tools for a slow Sunday breakfast."),
    ("garden", "Garden", "Sturdy tools and planters for balconies and back yards."),
    ("lighting", "Lighting", "Lamps and lanterns for long evenings."),
    ("textiles", "Textiles", "Throws, cushions and table linen woven to last."),
    ("stationery", "Stationery", "Notebooks, pens and desk things for unhurried writing."),
]

# category slug -> [(product name, short name used in some listings)]
PRODUCTS = {
    "kitchen": [
        ("Ashgrove Enamel Kettle", "Enamel Kettle"),
        ("Saltmarsh Stoneware Mugs, Set of 4", "Stoneware Mugs"),
        ("Copperline Pour-Over Stand", "Pour-Over Stand"),
        ("Bread & Butter Board: Oiled Walnut", "Bread & Butter Board"),
        ("Crème Brûlée Torch", "Brûlée Torch"),
        ("Fennick 26 cm Cast Iron Skillet", "Cast Iron Skillet"),
    ],
    "garden": [
        ("Wrenfield Hori-Hori Knife", "Hori-Hori Knife"),
        ("Tallgrass Galvanised Watering Can", "Watering Can"),
        ("Moss & Fern Terracotta Planter (Large)", "Terracotta Planter"),
        ("Orchard Ladder Tripod 8 ft", "Orchard Ladder"),
        ("Pebblebrook Seed Tin", "Seed Tin"),
        ("Hedgerow Pruning Shears", "Pruning Shears"),
    ],
    "lighting": [
        ("Lumen Nook Brass Desk Lamp", "Brass Desk Lamp"),
        ("Fogbank Paper Pendant Shade", "Paper Pendant"),
        ("Stormglass Hurricane Lantern", "Hurricane Lantern"),
        ("Quayside Wall Sconce, Matte Black", "Wall Sconce"),
        ("Emberly Beeswax Pillar Candles", "Beeswax Candles"),
        ("Nightjar Rechargeable Reading Light", "Reading Light"),
    ],
    "textiles": [
        ("Tidewater Linen Throw", "Linen Throw"),
        ("Heathcote Wool Cushion Cover", "Wool Cushion Cover"),
        ("Bramble Stripe Tea Towels, Pair", "Tea Towels"),
        ("Marram Jute Doormat", "Jute Doormat"),
        ("Larkspur Quilted Table Runner", "Table Runner"),
        ("Fireside Waffle Blanket: Oatmeal", "Waffle Blanket"),
    ],
    "stationery": [
        ("Inkwell Dot-Grid Notebook A5", "Dot-Grid Notebook"),
        ("Cobble Brass Fountain Pen", "Fountain Pen"),
        ("Foxglove Pressed-Flower Cards, Box of 12", "Pressed-Flower Cards"),
        ("Harbour Chart Desk Blotter", "Desk Blotter"),
        ("Kestrel Leather Pencil Roll", "Pencil Roll"),
        ("Tideline Wax Seal Kit", "Wax Seal Kit"),
    ],
}

# (slug, headline, author, products featured (slugs))
ARTICLES = [
    ("sunday-breakfast-rituals", "Five Small Rituals for a Slower Sunday Breakfast", "Maren Oakes",
     ["ashgrove-enamel-kettle", "copperline-pour-over-stand"]),
    ("balcony-herb-garden", "How We Grew a Herb Garden on a Two-Metre Balcony", "Tobias Quill",
     ["moss-fern-terracotta-planter-large", "pebblebrook-seed-tin"]),
    ("lighting-for-winter", "Layered Light: Getting Through the Darkest Weeks", "Ines Marlow",
     ["lumen-nook-brass-desk-lamp", "stormglass-hurricane-lantern"]),
    ("caring-for-linen", "Why Linen Gets Better Every Time You Wash It", "Maren Oakes",
     ["tidewater-linen-throw", "bramble-stripe-tea-towels-pair"]),
    ("letters-worth-writing", "The Case for Writing Letters Again", "Felix Harrow",
     ["cobble-brass-fountain-pen", "tideline-wax-seal-kit"]),
]

PROMOS = [
    "Spring Sale: 20% off all linen",
    "Free delivery on orders over $60",
    "New in: the Lighting collection",
    "Members save 10% today",
]
ADJECTIVES = ["sturdy", "quiet", "honest", "well-made", "simple", "handsome", "practical", "warm"]
MATERIALS = ["oak", "brass", "linen", "stoneware", "steel", "wool", "walnut", "enamel"]
VERBS = ["ages", "wears", "settles", "softens", "mellows", "improves"]
NOUNS = ["kitchen", "desk", "porch", "table", "shelf", "garden", "windowsill", "hallway"]

STYLESHEET = "css/shop.css"  # under pages/, i.e. https://shop.example/css/shop.css
CSS = """
body{font-family:Georgia,serif;font-size:15px;margin:0;color:#222;background:#fbfaf7}
.logo{font-size:30px;font-weight:700;letter-spacing:1px;padding:12px 24px}
.nav a,.foot a{margin-right:14px;color:#345}
.nav{background:#e9e4d8;padding:8px 24px}
.crumbs{font-size:12px;color:#666;padding:6px 24px}
.promo{clear:both;background:#b33;color:#fff;font-size:24px;font-weight:800;padding:10px 24px}
.main{padding:12px 24px;width:640px;float:left}
.side{float:right;width:260px;padding:12px;font-size:13px}
.price{font-size:28px;font-weight:700;color:#1a4d2e}
.product-name{font-size:32px;font-weight:700;line-height:1.2;margin:8px 0}
.hero{font-size:34px;font-weight:bold}
.cart button{font-size:16px;font-weight:700;padding:6px 18px}
.card{display:inline-block;width:190px;vertical-align:top;margin:6px;font-size:13px}
.ad{border:1px dashed #999;padding:8px;font-size:20px;font-weight:700;margin-top:16px}
.foot{clear:both;border-top:1px solid #ccc;padding:14px 24px;font-size:12px;color:#555}
.stock{color:#b33;font-weight:700;font-size:18px}
.kicker{font-size:12px;text-transform:uppercase;color:#777}
.article-title{font-size:36px;font-weight:700;font-family:Helvetica,sans-serif}
""".strip()


@dataclass(frozen=True)
class Product:
    slug: str
    name: str
    short: str
    category: str  # category slug
    index: int  # position among all products


def slugify(text: str) -> str:
    """Lower-case ASCII slug: 'Moss & Fern Planter (Large)' -> 'moss-fern-planter-large'."""
    table = str.maketrans("èéêëûüç", "eeeeuuc")
    out = "".join(c if c.isalnum() else "-" for c in text.lower().translate(table))
    return "-".join(part for part in out.split("-") if part)


def esc(text: str) -> str:
    return html.escape(text, quote=True)


def svg_image(color: str) -> str:
    """An inline SVG data URI (no external resource) with a coloured square."""
    svg = (
        "<svg xmlns='http://www.w3.org/2000/svg' width='160' height='120'>"
        f"<rect width='160' height='120' fill='{color}'/></svg>"
    )
    return "data:image/svg+xml," + quote(svg, safe="/:='")


def products() -> list[Product]:
    out = []
    for category, _, _ in CATEGORIES:
        for name, short in PRODUCTS[category]:
            out.append(Product(slugify(name), name, short, category, len(out)))
    return out


def category_name(slug: str) -> str:
    return next(name for s, name, _ in CATEGORIES if s == slug)


def sentence(rng: random.Random, subject: str) -> str:
    return (
        f"The {subject} is {rng.choice(ADJECTIVES)} and {rng.choice(ADJECTIVES)}, made of "
        f"{rng.choice(MATERIALS)} that {rng.choice(VERBS)} on a {rng.choice(NOUNS)} over the years."
    )


def page(title: str, body: str, charset: str = "utf-8") -> str:
    return (
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
        f"<meta charset=\"{charset}\">\n<title>{esc(title)}</title>\n"
        f"<link rel=\"stylesheet\" href=\"/{STYLESHEET}\">\n</head>\n<body>\n{body}\n</body>\n</html>\n"
    )


def header(depth: str, active: str = "", capitalised_host: bool = False) -> str:
    """Logo, navigation; ``depth`` is the relative prefix to the site root ('', '../', '../../')."""
    home = "https://SHOP.example" if capitalised_host else (depth or "./")
    links = [f'<a href="{home}">Home</a>']
    for slug, name, _ in CATEGORIES:
        marker = ' class="active"' if slug == active else ""
        links.append(f'<a href="{depth}c/{slug}/"{marker}>{esc(name)}</a>')
    links.append('<a href="/journal/">Journal</a>')
    links.append('<a href="/cart.html">Cart (0)</a>')
    return (
        f'<div class="logo"><a href="{home}" style="color:inherit;text-decoration:none">'
        f"{esc(SHOP)}</a></div>\n"
        f'<div class="nav">{" ".join(links)}</div>'
    )


def footer() -> str:
    return (
        '<div class="foot">'
        '<a href="/help/shipping.html">Shipping</a> <a href="/help/returns.html">Returns</a> '
        '<a href="/about.html">About us</a> <a href="https://social.example/harborlane">Follow us</a>'
        f"<p>&copy; 2024 {esc(SHOP)}. All prices include VAT.</p></div>"
    )


def product_card(product: Product, depth: str, style: int) -> str:
    href = f"{depth}p/{product.slug}.html"
    image = f'<a href="{href}"><img src="{svg_image("#cbb")}" alt="{esc(product.name)}"></a>'
    if style == 0:
        text = f'<a href="{href}">{esc(product.name)}</a>'
    elif style == 1:
        text = f'<a href="{href}">{esc(product.short)}</a>'
    else:
        text = f'<b>{esc(product.name)}</b> <a href="{href}#details">View details</a>'
    return f'<div class="card">{image}<br>{text}</div>'


def product_page(product: Product, all_products: list[Product], rng: random.Random) -> str:
    category = category_name(product.category)
    template = product.index % 3
    title_format = (product.index * 7 + 1) % 4
    titles = [
        f"{product.name} | {SHOP}",
        f"{SHOP} - {product.name} - {category}",
        f"Buy {product.name} online",
        SHOP,
    ]
    price = f"${rng.randint(9, 180)}.{rng.choice(['00', '50', '95', '99'])}"
    crumbs = (
        f'<div class="crumbs"><a href="../">Home</a> &rsaquo; '
        f'<a href="../c/{product.category}/">{esc(category)}</a> &rsaquo; {esc(product.short)}</div>'
    )
    promo = f'<div class="promo">{esc(rng.choice(PROMOS))}</div>'
    if template == 0:
        heading = f"<h1>{esc(product.name)}</h1>"
    elif template == 1:
        heading = (
            f'<h1 style="font-size:18px">{esc(category)}</h1>\n'
            f'<div class="product-name">{esc(product.name)}</div>'
        )
    else:
        heading = f'<span style="font-size:26px;font-weight:bold;display:block">{esc(product.name)}</span>'
    cart = (
        '<form class="cart" action="/cart.html">Qty <input name="qty" value="1" size="2"> '
        '<button type="button">Add to cart</button> <a href="/wishlist.html">Add to wishlist</a></form>'
    )
    stock = f'<p class="stock">Only {rng.randint(2, 6)} left in stock</p>' if rng.random() < 0.5 else ""
    description = " ".join(sentence(rng, product.short.lower()) for _ in range(rng.randint(2, 4)))
    specs = "".join(
        f"<tr><th>{key}</th><td>{value}</td></tr>"
        for key, value in [
            ("Material", rng.choice(MATERIALS).capitalize()),
            ("Weight", f"{rng.randint(2, 40) / 10:.1f} kg"),
            ("Care", rng.choice(["Hand wash", "Wipe clean", "Machine wash at 40 °C"])),
        ]
    )
    siblings = [p for p in all_products if p.category == product.category and p.slug != product.slug]
    related = rng.sample(siblings, 3)
    related_links = "".join(
        f'<li><a href="{"/p/" if i == 0 else "https://shop.example/p/" if i == 1 else ""}{p.slug}.html">'
        f"{esc(p.name if i != 2 else p.short)}</a></li>"
        for i, p in enumerate(related)
    )
    reviews = f'<p><a href="#reviews">{rng.randint(3, 60)} reviews</a></p><h3 id="reviews">Reviews</h3>'
    parts = [header("../", product.category, capitalised_host=product.index == 4), crumbs]
    if template == 2:
        parts.append(promo)
    parts.append('<div class="main">')
    parts.append(f'<img src="{svg_image("#9ab")}" alt="{esc(product.name)}">')
    parts += [heading, f'<p class="price">{price}</p>', stock, cart, f"<p>{esc(description)}</p>"]
    parts += [f"<table>{specs}</table>", reviews, "</div>"]
    parts.append(
        f'<div class="side"><h3>Related products</h3><ul>{related_links}</ul>'
        f'<div class="ad">{esc(rng.choice(PROMOS))}</div></div>'
    )
    if template != 2:
        parts.append(promo)
    parts.append(footer())
    charset = "windows-1252" if product.slug == LATIN1_PRODUCT else "utf-8"
    return page(titles[title_format], "\n".join(part for part in parts if part), charset)


def category_page(slug: str, name: str, intro: str, all_products: list[Product], rng: random.Random) -> str:
    items = [p for p in all_products if p.category == slug]
    cards = "\n".join(product_card(p, "../../", (p.index + len(slug)) % 3) for p in items)
    title = f"{name} | {SHOP}" if len(slug) % 2 else f"{SHOP}: Shop {name}"
    body = "\n".join([
        header("../../", slug),
        f'<div class="crumbs"><a href="../../">Home</a> &rsaquo; {esc(name)}</div>',
        f'<div class="promo">{esc(rng.choice(PROMOS))}</div>',
        f'<div class="main"><h1>{esc(name)}</h1><p>{esc(intro)}</p>',
        f'<p>{len(items)} products &middot; Sort by <a href="?sort=price">price</a></p>',
        cards,
        "</div>",
        footer(),
    ])
    return page(title, body)


def article_page(index: int, article: tuple, by_slug: dict[str, Product], rng: random.Random) -> str:
    slug, headline, author, featured = article
    if index % 2 == 0:
        heading = f"<h1>{esc(headline)}</h1>"
    else:
        heading = f'<div class="kicker">Journal</div><h2 class="article-title">{esc(headline)}</h2>'
    title = f"{headline} \u2014 {JOURNAL}" if index != 3 else f"Journal | {SHOP}"
    paragraphs = "\n".join(
        f"<p>{esc(' '.join(sentence(rng, rng.choice(NOUNS)) for _ in range(3)))}</p>" for _ in range(4)
    )
    shop_links = " ".join(f'<a href="../p/{s}.html">{esc(by_slug[s].name)}</a>' for s in featured)
    more = "".join(
        f'<li><a href="{s}.html">{esc(h)}</a></li>' for s, h, _, _ in ARTICLES if s != slug
    )
    body = "\n".join([
        header("../"),
        '<div class="crumbs"><a href="../">Home</a> &rsaquo; <a href="./">Journal</a></div>',
        f'<div class="main">{heading}',
        f'<p class="kicker">By {esc(author)} &middot; {rng.randint(3, 12)} min read</p>',
        paragraphs,
        f"<p><b>Shop the story:</b> {shop_links}</p>",
        f'<div class="ad">{esc(rng.choice(PROMOS))}</div></div>',
        f'<div class="side"><h3>More from the Journal</h3><ul>{more}</ul></div>',
        footer(),
    ])
    return page(title, body)


def journal_index(rng: random.Random) -> str:
    items = "\n".join(
        f'<div class="card" style="width:300px"><h3><a href="{s}.html">{esc(h)}</a></h3>'
        f'<p>By {esc(a)}</p><a href="{s}.html">Read more</a></div>'
        for s, h, a, _ in ARTICLES
    )
    body = "\n".join([
        header("../"),
        f'<div class="main"><div class="hero">{esc(JOURNAL)}</div>',
        "<p>Stories about making, mending and living with good things.</p>",
        items,
        "</div>",
        footer(),
    ])
    return page(f"Journal | {SHOP}", body)


def home_page(all_products: list[Product], rng: random.Random) -> str:
    featured = rng.sample(all_products, 6)
    cards = "\n".join(
        f'<div class="card"><a href="p/{p.slug}.html">{esc(p.short)}</a><br>'
        f'<span class="price" style="font-size:18px">from ${rng.randint(9, 99)}</span></div>'
        for p in featured
    )
    categories = " ".join(f'<a href="/c/{s}/">Shop {esc(n)}</a>' for s, n, _ in CATEGORIES)
    stories = "".join(f'<li><a href="journal/{s}.html">{esc(h)}</a></li>' for s, h, _, _ in ARTICLES[:3])
    body = "\n".join([
        header(""),
        f'<div class="promo">{esc(PROMOS[0])}</div>',
        f'<div class="main"><div class="hero">Good things for slow days</div><p>{categories}</p>',
        f"<h2>Featured</h2>\n{cards}",
        "</div>",
        f'<div class="side"><h3>From the Journal</h3><ul>{stories}</ul></div>',
        footer(),
    ])
    return page(f"{SHOP} \u2013 Homewares, garden and stationery", body)


def build_pages() -> list[tuple[str, str, str, list[str], str]]:
    """All pages as ``(path under pages/, url, html, main_entity labels, charset)``, in manifest order."""
    rng = random.Random(SEED)
    all_products = products()
    by_slug = {p.slug: p for p in all_products}
    pages = [("index.html", HOST, home_page(all_products, rng), [SHOP], "utf-8")]
    for slug, name, intro in CATEGORIES:
        html_text = category_page(slug, name, intro, all_products, rng)
        pages.append((f"c/{slug}/index.html", f"{HOST}c/{slug}/", html_text, [name], "utf-8"))
    for product in all_products:
        charset = "cp1252" if product.slug == LATIN1_PRODUCT else "utf-8"
        path, url = f"p/{product.slug}.html", f"{HOST}p/{product.slug}.html"
        pages.append((path, url, product_page(product, all_products, rng), [product.name], charset))
    pages.append(("journal/index.html", f"{HOST}journal/", journal_index(rng), [JOURNAL], "utf-8"))
    for index, article in enumerate(ARTICLES):
        slug, headline = article[0], article[1]
        html_text = article_page(index, article, by_slug, rng)
        pages.append((f"journal/{slug}.html", f"{HOST}journal/{slug}.html", html_text, [headline], "utf-8"))
    return pages


def dataset_md(n_pages: int, n_in_page: int) -> str:
    return f"""# sample-shop

A small **fictional** web shop generated by `datasets/make_sample_site.py` (fixed seed,
deterministic bytes): "{SHOP}" at `{HOST}` (a reserved example domain; nothing is fetched). All
texts are invented for this sample; it may be copied and redistributed with the project (same
license).

## What is in it
- 1 home page, {len(CATEGORIES)} category pages, {sum(map(len, PRODUCTS.values()))} product pages,
  1 journal index and {len(ARTICLES)} journal articles: {n_pages} pages in one site dump
  `sites/{SITE_ID}/`.
- Labels (`main_entity`): the product name, the category name, the article headline, the journal's
  name for its index, the shop's name for the home page.
- Pages whose label occurs in the page (`label_in_page`): {n_in_page} of {n_pages}.
- `pages/p/{LATIN1_PRODUCT}.html` is saved in windows-1252 (declared in its `<meta charset>`); the
  other pages are UTF-8.
- Product pages rotate three templates (name in `<h1>`; in a large bold `<div>` under an `<h1>` that
  holds the category; in a large bold `<span>`) and four `<title>` formats ("Name | Shop",
  "Shop - Name - Category", "Buy Name online", the shop name only). Distractors in large bold type:
  the logo, promo banners, prices, stock notes.
- Category pages link to products by full name, short name, image `alt` and "View details"; links
  are relative, root-relative and absolute, some with fragments; the footer links to pages outside
  the dump. Every page links the shop's one stylesheet, `pages/{STYLESHEET}`, root-relative
  (`/{STYLESHEET}`); it sets the font sizes and weights, so a renderer that does not serve it from
  the dump sees unstyled pages. Pages load nothing else (images are `data:` URIs).

## Regenerate
`python datasets/make_sample_site.py` (tests/test_sample_site.py checks that the committed files
equal a fresh generation).
"""


def write_sample_site(out_dir: str | Path) -> list[Path]:
    """Write the sample shop dataset under ``out_dir``; return the written files, sorted.

    Raises
    ------
    ValueError
        If a generated page's label does not occur in it (the generator is broken).
    """
    out_dir = Path(out_dir)
    site = out_dir / "sites" / SITE_ID
    written, lines, n_in_page = [], [], 0
    for relative, url, html_text, labels, charset in build_pages():
        in_page = label_in_page(html_text, labels)
        if not in_page:
            raise ValueError(f"generated page {relative!r} does not contain its label {labels!r}")
        n_in_page += in_page
        file = site / "pages" / relative
        file.parent.mkdir(parents=True, exist_ok=True)
        file.write_bytes(html_text.encode(charset))
        written.append(file)
        entry = {"path": f"pages/{relative}", "url": url, "main_entity": labels, "label_in_page": in_page}
        lines.append(json.dumps(entry, ensure_ascii=False))
    stylesheet = site / "pages" / STYLESHEET
    stylesheet.parent.mkdir(parents=True, exist_ok=True)
    stylesheet.write_bytes((CSS + "\n").encode("utf-8"))
    written.append(stylesheet)
    manifest = site / "manifest.jsonl"
    manifest.write_bytes(("\n".join(lines) + "\n").encode("utf-8"))
    readme = out_dir / "DATASET.md"
    readme.write_bytes(dataset_md(len(lines), n_in_page).encode("utf-8"))
    return sorted([*written, manifest, readme])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "out_dir", nargs="?", default=str(Path(__file__).resolve().parent / "sample-shop"),
        help="output dataset directory (default: datasets/sample-shop)",
    )
    args = parser.parse_args(argv)
    files = write_sample_site(args.out_dir)
    print(f"wrote {len(files)} files under {args.out_dir}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
