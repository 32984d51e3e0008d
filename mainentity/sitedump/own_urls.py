"""The URL a page gives for itself, by which a folder of pages without a manifest is grouped into sites.

A folder of saved pages (no ``manifest.jsonl``, no ``--base-url``) often holds pages of many sites. Each
page usually says where it came from: a ``<link rel="canonical">``, an ``og:url``, a ``<base href>`` or
the comment a browser writes when it saves a page (``<!-- saved from url=(0039)https://... -->``). The
pages are grouped into one site per host of that URL (:func:`mainentity.sitedump.dump.sites_by_own_url`);
a page that names no URL is a site of its own (a lone page), never part of a site made of the folder: a
site's signals (its repeated texts, its vote, slot transfer over its templates) mean nothing over pages
that share nothing.
"""

from __future__ import annotations

import html as html_lib
import re
from urllib.parse import urljoin, urlsplit

from mainentity.text import meta_content

#: Where a page's own URL may be found, in the order they are tried (the canonical link is the page's
#: own word on its URL; the saved-from comment is the saving browser's).
URL_MARKERS = ("canonical link", "og:url", "<base href>", "saved-from comment")
#: The markers' plurals, for the log.
MARKER_PLURALS = {"canonical link": "canonical links", "og:url": "og:url", "<base href>": "<base href>",
            "saved-from comment": "saved-from comments"}

_BODY_START = re.compile(r"<body\b", re.I)
_BASE_HREF = re.compile(r"""<base\b[^>]*?\bhref\s*=\s*("[^"]*"|'[^']*'|[^\s"'>]+)""", re.I)
_TAG = re.compile(r"<(link|meta)\b([^>]*)>", re.I)
_ATTRIBUTE = re.compile(r"""([^\s=/"'>]+)\s*=\s*("[^"]*"|'[^']*'|[^\s"'>]+)""")
_SAVED_FROM = re.compile(r"<!--\s*saved from url=\(\d+\)\s*(\S+?)\s*-->", re.I)


def find_base_href(html: str) -> str | None:
    """The ``href`` of the page's first ``<base href>`` before ``<body>``, or ``None`` (also when it is no
    URL at all, as ``http://[::1``: browsers ignore it too).

    >>> find_base_href('<base href="https://shop.example/p/kettle.html"/><html>')
    'https://shop.example/p/kettle.html'
    >>> find_base_href('<base href="http://[::1"><p>x</p>') is None
    True
    """
    body = _BODY_START.search(html)
    found = _BASE_HREF.search(html, 0, body.start() if body else len(html))
    if not found:
        return None
    href = html_lib.unescape(found.group(1).strip("\"'")).strip()
    try:
        urlsplit(href)
    except ValueError:
        return None
    return href or None


def _attributes(text: str) -> dict[str, str]:
    return {name.lower(): html_lib.unescape(value.strip("\"'")).strip() for name, value in _ATTRIBUTE.findall(text)}


def web_url_problem(url: str) -> str:
    """Why a browser cannot open ``url`` as a page's address ("" when it can): not http or https, no host, a
    port that is no number of 1-65535, a host with an IPv6 zone (Chromium refuses to navigate to them).

    >>> web_url_problem("https://shop.example:8080/p/"), web_url_problem("shop.example/p/")
    ('', 'not an http or https URL')
    >>> web_url_problem("https://shop.example:99999/"), web_url_problem("http://[::1")
    ('Port out of range 0-65535', 'Invalid IPv6 URL')
    """
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as error:  # a malformed host or port
        return str(error)
    if parts.scheme not in ("http", "https"):
        return "not an http or https URL"
    if not parts.hostname:
        return "no host"
    if port == 0:
        return "port 0"
    if "%" in parts.hostname:
        return "a host with an IPv6 zone"
    return ""


def _web_url(href: str, base: str) -> str | None:
    """``href`` resolved against ``base`` when a browser can open it (:func:`web_url_problem`), else ``None``."""
    try:
        url = urljoin(base, href)
    except ValueError:  # a malformed URL (http://[::1) names no page
        return None
    return None if web_url_problem(url) else url


def own_url(html: str) -> tuple[str, str] | None:
    """The URL a page gives for itself and where it says so, or ``None``.

    The markers of :data:`URL_MARKERS` are read before ``<body>`` (the saved-from comment anywhere there
    too), in that order; only an absolute ``http``/``https`` URL counts (a relative one is resolved against
    the page's ``<base href>`` when that is absolute).

    Parameters
    ----------
    html : str
        The decoded page.

    Returns
    -------
    (url, marker) : tuple of str, or None
        ``marker`` is one of :data:`URL_MARKERS`.

    Examples
    --------
    >>> own_url('<link href="https://news.example/2008/storm" rel="canonical"><h1>Storm</h1>')
    ('https://news.example/2008/storm', 'canonical link')
    >>> own_url('<!-- saved from url=(0030)https://blog.example/a.html -->\\n<html><body>x</body></html>')
    ('https://blog.example/a.html', 'saved-from comment')
    >>> own_url('<meta content="/p/1" property="og:url"><p>no absolute URL</p>') is None
    True
    """
    body = _BODY_START.search(html)
    head = html[:body.start() if body else len(html)]
    base = find_base_href(html) or ""
    found: dict[str, str] = {}
    for tag, text in _TAG.findall(head):
        attributes = _attributes(text)
        if tag.lower() == "link" and "canonical" in attributes.get("rel", "").lower().split():
            marker, href = "canonical link", attributes.get("href", "")
        elif tag.lower() == "meta" and (attributes.get("property") or attributes.get("name", "")).lower() == "og:url":
            marker, href = "og:url", meta_content(attributes) or ""
        else:
            continue
        if marker not in found and (url := _web_url(href, base)):
            found[marker] = url
    if base and (url := _web_url(base, "")):
        found["<base href>"] = url
    saved = _SAVED_FROM.search(head)
    if saved and (url := _web_url(saved.group(1), "")):
        found["saved-from comment"] = url
    marker = next((marker for marker in URL_MARKERS if marker in found), None)
    return (found[marker], marker) if marker else None


def site_of_url(url: str) -> str:
    """The site id of a page's own URL: its host, lower-cased, without ``www.``.

    >>> site_of_url("https://WWW.News.Example:8080/a"), site_of_url("http://blog.example/")
    ('news.example', 'blog.example')
    """
    host = urlsplit(url).hostname or ""
    return host.removeprefix("www.")
