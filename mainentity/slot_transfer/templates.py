"""Group a site's pages by template from their HTML alone, and choose the few pages to render.

A site is built from a few templates; pages of one template share their DOM skeleton (the same
containers with the same classes, whatever the content) and mostly the shape of their URLs. The
*signature* of a page (:func:`template_signature`) is the set of its element paths down to
:data:`SKELETON_DEPTH` levels, each step written ``tag.class.class#id`` without sibling indices (so an
optional block or a longer list changes few paths), plus its URL shape (:func:`url_shape`) as a few
tokens. Pages are clustered by the Jaccard similarity of their signatures (:func:`cluster_templates`):
greedy leader clustering over the pages sorted by ``(site_id, path)``, so the clusters do not depend on
the order pages come in. A sample of each cluster is rendered (:func:`choose_sample`); the rest are read
from their HTML when their template's slot locator answers (:mod:`mainentity.slot_transfer.locators`).

Cost: one lexbor parse and a walk of the top levels, about 1 ms on a small page and 10-20 ms on a
150 KB christianbook page on a busy 2-core machine (``benchmarks/slot_transfer.py`` prints it).
"""

from __future__ import annotations

import math
import re
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass
from urllib.parse import parse_qsl, urlsplit

from selectolax.lexbor import LexborHTMLParser

from mainentity.records import Page

#: Element levels below the document root read into the skeleton signature.
SKELETON_DEPTH = 8

#: Jaccard similarity of signatures from which a page joins a cluster (pages of one christianbook
#: template: >= 0.85; the sample shop's product and category pages: about 0.45).
SIMILARITY = 0.8

# Elements whose content says nothing of the template (or varies with the content).
_SKIP = frozenset({"script", "style", "noscript", "svg", "option", "template", "br", "wbr"})
_DIGITS = re.compile(r"\d+")
_WORDY = re.compile(r"[^/]*[-_ %.+][^/]*|[^/]{16,}")


def url_shape(url: str) -> tuple[str, ...]:
    """The shape of a URL's path and query: numbers become ``#``, slugs (words joined by ``-``, ``_``,
    ``.``, or a long segment) become ``*``, a file name keeps its extension; query keys are kept, values
    dropped.

    >>> url_shape("https://shop.example/p/ashgrove-enamel-kettle.html")
    ('p', '*.html')
    >>> url_shape("http://b.example/know-your-bible/george-knight/9781602600157/pd/600150?ref=a&x=1")
    ('*', '*', '#', 'pd', '#', '?ref', '?x')
    """
    parts = urlsplit(url)
    shape = []
    for segment in (s for s in parts.path.split("/") if s):
        stem, dot, extension = segment.rpartition(".") if re.fullmatch(r".+\.[A-Za-z]{2,5}", segment) else (
            segment, "", "")
        stem = _DIGITS.sub("#", stem)
        if stem != "#" and _WORDY.fullmatch(stem) and not stem.startswith("index"):
            stem = "*"
        shape.append(f"{stem}{dot}{extension.lower()}")
    shape += sorted({f"?{key}" for key, _ in parse_qsl(parts.query, keep_blank_values=True)})
    return tuple(shape)


def _step(node) -> str:
    """An element as a skeleton step: ``tag.class.class#id`` (classes sorted)."""
    attributes = node.attributes
    classes = ".".join(sorted((attributes.get("class") or "").split()))
    ident = (attributes.get("id") or "").strip()
    return node.tag + (f".{classes}" if classes else "") + (f"#{ident}" if ident else "")


def template_signature(page: Page, depth: int = SKELETON_DEPTH) -> frozenset[str]:
    """A page's skeleton: its element paths down to ``depth`` levels, and its URL shape.

    Parameters
    ----------
    page : Page
    depth : int, default :data:`SKELETON_DEPTH`
        Element levels read below the document root.

    Returns
    -------
    signature : frozenset of str
        Element paths (``/html/body/div.main/h1``; no sibling indices; scripts, styles and SVG left
        out) and ``url:`` tokens of :func:`url_shape`.

    Raises
    ------
    ValueError
        If ``depth < 1``.

    Examples
    --------
    >>> page = Page("s", "a.html", "https://s.example/p/red-kettle.html",
    ...             '<div class="main"><h1>Kettle</h1></div>')
    >>> sorted(template_signature(page, depth=3))
    ['/html', '/html/body', '/html/body/div.main', '/html/head', 'url:*.html', 'url:p']
    """
    if depth < 1:
        raise ValueError(f"depth must be >= 1; got {depth}")
    paths = {f"url:{token}" for token in url_shape(page.url)}
    stack = [(LexborHTMLParser(page.html).root, "", 0)]
    while stack:
        node, path, level = stack.pop()
        child = node.child if level else node  # the root itself is the first step
        while child is not None:
            tag = child.tag
            if tag and tag[0] != "-" and tag not in _SKIP:  # "-text", "-comment": not elements
                child_path = f"{path}/{_step(child)}"
                paths.add(child_path)
                if level + 1 < depth:
                    stack.append((child, child_path, level + 1))
            child = child.next if level else None
    return frozenset(paths)


def jaccard_similarity(a: frozenset[str], b: frozenset[str]) -> float:
    """``|a & b| / |a | b|``; 1 for two empty sets.

    >>> jaccard_similarity(frozenset("abc"), frozenset("abd"))
    0.5
    """
    union = len(a | b)
    return len(a & b) / union if union else 1.0


@dataclass(frozen=True)
class Template:
    """A cluster of a site's pages: one template.

    Attributes
    ----------
    key : tuple of (str, str)
        ``(site_id, path)`` of the cluster's first page in sorted order (its leader): names the template.
    pages : tuple of Page
        Its pages, sorted by ``(site_id, path)``.
    """

    key: tuple[str, str]
    pages: tuple[Page, ...]


def cluster_templates(pages: Iterable[Page], similarity: float = SIMILARITY,
                      signatures: dict[tuple[str, str], frozenset[str]] | None = None) -> list[Template]:
    """Cluster pages by template: per site, greedy leader clustering on :func:`template_signature`.

    Pages are taken in ``(site_id, path)`` order; each joins the cluster whose leader's signature is the
    most similar, when that similarity is at least ``similarity``, else leads a new cluster. Pages of
    different sites never share a cluster. The result does not depend on the input order. Time: pages
    times clusters signature comparisons.

    Parameters
    ----------
    pages : iterable of Page
    similarity : float in (0, 1], default :data:`SIMILARITY`
    signatures : dict, optional
        ``(site_id, path)`` -> signature, when already computed.

    Returns
    -------
    templates : list of Template
        Sorted by key.

    Raises
    ------
    ValueError
        If ``similarity`` is not in (0, 1], or two pages share a ``(site_id, path)``.

    Examples
    --------
    >>> def page(path, body):
    ...     return Page("s", path, f"https://s.example/{path}", body)
    >>> pages = [page("p/tin-cup.html", "<h1>Cup</h1><p>x</p>"), page("c/home/", "<ul><li>a</li></ul>"),
    ...          page("p/oak-stool.html", "<h1>Stool</h1><p>y</p>")]
    >>> [(t.key[1], [p.path for p in t.pages]) for t in cluster_templates(pages)]
    [('c/home/', ['c/home/']), ('p/oak-stool.html', ['p/oak-stool.html', 'p/tin-cup.html'])]
    """
    if not 0.0 < similarity <= 1.0:
        raise ValueError(f"similarity must be in (0, 1]; got {similarity}")
    ordered = sorted(pages, key=lambda page: (page.site_id, page.path))
    for first, second in zip(ordered, ordered[1:], strict=False):
        if (first.site_id, first.path) == (second.site_id, second.path):
            raise ValueError(f"page {first.site_id}/{first.path} is given twice")
    leaders: list[tuple[Page, frozenset[str]]] = []
    members: list[list[Page]] = []
    for page in ordered:
        signature = (signatures or {}).get((page.site_id, page.path)) or template_signature(page)
        best, best_similarity = -1, -1.0
        for i, (leader, leader_signature) in enumerate(leaders):
            if leader.site_id == page.site_id:
                value = jaccard_similarity(signature, leader_signature)
                if value > best_similarity:
                    best, best_similarity = i, value
        if best >= 0 and best_similarity >= similarity:
            members[best].append(page)
        else:
            leaders.append((page, signature))
            members.append([page])
    return sorted((Template((leader.site_id, leader.path), tuple(group))
                   for (leader, _), group in zip(leaders, members, strict=True)), key=lambda t: t.key)


def sample_size(n_pages: int, fraction: float = 0.02, min_pages: int = 3, max_pages: int = 20) -> int:
    """Pages of a template to render: ``min(n, max(min_pages, ceil(fraction * n)), max_pages)``.

    >>> [sample_size(n) for n in (1, 3, 10, 400, 1000, 5000)]
    [1, 3, 3, 8, 20, 20]
    """
    if n_pages < 0 or min_pages < 1 or max_pages < min_pages or not 0.0 <= fraction <= 1.0:
        raise ValueError(f"need n_pages >= 0, 1 <= min_pages <= max_pages and fraction in [0, 1]; got "
                         f"{n_pages}, {min_pages}, {max_pages}, {fraction}")
    return min(n_pages, max(min_pages, math.ceil(fraction * n_pages)), max_pages)


def choose_sample(templates: Sequence[Template], fraction: float = 0.02, min_pages: int = 3,
                  max_pages: int = 20) -> dict[Hashable, tuple[Page, ...]]:
    """The pages of each template to render: :func:`sample_size` of them, evenly spaced in path order.

    A template with no more than ``min_pages`` pages is rendered whole (it has no other pages to read).
    Deterministic: the templates' pages are sorted.

    Parameters
    ----------
    templates : sequence of Template
    fraction, min_pages, max_pages
        See :func:`sample_size`.

    Returns
    -------
    sample : dict of template key to tuple of Page

    Examples
    --------
    >>> pages = tuple(Page("s", f"{i:02d}.html", "", "") for i in range(10))
    >>> [p.path for p in choose_sample([Template(("s", "00.html"), pages)])[("s", "00.html")]]
    ['01.html', '05.html', '08.html']
    """
    sample = {}
    for template in templates:
        n = sample_size(len(template.pages), fraction, min_pages, max_pages)
        step = len(template.pages) / max(n, 1)
        sample[template.key] = tuple(template.pages[math.floor(i * step + step / 2)]
                                     for i in range(n)) if n < len(template.pages) else template.pages
    return sample
