"""Incoming link anchor texts (ILA) from a site dump's own link graph.

Carullo & Binaghi (2010), section 2, give each page ``p`` the set ``A = {a_1, ..., a_n}`` of the
anchor texts of the links that point to ``p`` from other pages. Here the "web" is the site dump: every
``<a href>`` of every page is resolved against the page's ``<base href>`` (itself resolved against the
page URL) or the page URL, and when it names another page of the dump, the link's text is an anchor of
that page.

Which URLs name the same page is decided without help from the user:

1. :func:`normalize_url` puts every URL in a site-independent canonical form (w3lib's
   ``canonicalize_url``, plus default ports, directory indexes, trailing slashes, tracking parameters
   and session ids).
2. :func:`learn_url_key` learns from the dump itself, per site, which query parameters do not identify
   a page (parameters no page URL carries, session ids) and whether pages are identified by the path
   segment after a fixed word (``/pd/600150`` in ``/a-book/an-author/9781602600157/pd/600150/<session>``).
3. :func:`link_graph` matches the links to the pages and keeps the anchor texts a person reads: visible
   links, named by their own text or their image's ``alt``, and not the generic texts ("View details",
   "$9.99", "4 out of 5 stars") that the site uses for links to several different pages; and each page's
   own links to its site's home page, whose texts name the site (``Page.home_link_texts``).

``data.anchor_url_pattern`` (the ``url_pattern`` argument) stays as an override for sites whose URLs
defeat these rules.

The modules, one job each: :mod:`~mainentity.linkgraph.urls` (canonical URLs),
:mod:`~mainentity.linkgraph.url_keys` (the per-site rule of which URLs name one page) and
:mod:`~mainentity.linkgraph.anchors` (links matched to pages, anchor texts kept, coverage). Their public
names are importable from here.
"""

from mainentity.linkgraph.anchors import (
    AnchorCoverage,
    LinkGraph,
    incoming_anchors,
    link_graph,
    with_incoming_anchors,
)
from mainentity.linkgraph.url_keys import UrlKey, learn_url_key
from mainentity.linkgraph.urls import (
    DIRECTORY_INDEXES,
    TRACKING_PARAMS,
    TRACKING_PREFIXES,
    UrlParts,
    normalize_url,
    url_parts,
)

__all__ = [
    "DIRECTORY_INDEXES", "TRACKING_PARAMS", "TRACKING_PREFIXES", "AnchorCoverage", "LinkGraph", "UrlKey", "UrlParts",
    "incoming_anchors", "learn_url_key", "link_graph", "normalize_url", "url_parts", "with_incoming_anchors",
]
