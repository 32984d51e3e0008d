"""URLs in a site-independent canonical form, so that links to the same page compare equal (:func:`normalize_url`)."""

from __future__ import annotations

import functools
import re
from typing import NamedTuple
from urllib.parse import unquote_plus, urlsplit, urlunsplit

from w3lib.url import canonicalize_url

_DEFAULT_PORTS = {"http": 80, "https": 443, "ws": 80, "wss": 443, "ftp": 21}
_CONTROL = re.compile(r"[\t\n\r]")

#: File names a server answers for a directory URL: ``/c/index.html`` is the page ``/c/``.
DIRECTORY_INDEXES = frozenset({
    "index.html", "index.htm", "index.shtml", "index.php", "index.asp", "index.aspx", "index.jsp",
    "default.htm", "default.html", "default.asp", "default.aspx",
})

#: Query parameters that never identify a page: the click ids of the large ad and social platforms,
#: e-mail and analytics campaign tags, and the session ids of common server frameworks. Names are
#: compared lower-cased; :data:`TRACKING_PREFIXES` adds the ``utm_*`` family and its kin.
TRACKING_PARAMS = frozenset({
    "gclid", "gclsrc", "dclid", "gbraid", "wbraid", "fbclid", "msclkid", "yclid", "twclid", "ttclid",
    "igshid", "li_fat_id", "mc_cid", "mc_eid", "_ga", "_gl", "_hsenc", "_hsmi", "mkt_tok", "srsltid",
    "jsessionid", "phpsessid", "aspsessionid", "cfid", "cftoken",
})
#: Prefixes of tracking parameters: Google Analytics (``utm_``), Matomo/Piwik (``mtm_``, ``pk_``),
#: HubSpot ads (``hsa_``).
TRACKING_PREFIXES = ("utm_", "mtm_", "pk_", "hsa_")
# Session ids carried as path parameters, as in /p/kettle.html;jsessionid=0A1B2C (Java servlets).
_SESSION_PATH_PARAM = re.compile(r";(?:jsessionid|phpsessid|sessionid)=[^/;]*", re.IGNORECASE)


class UrlParts(NamedTuple):
    """A URL in the canonical form of :func:`normalize_url`, split for matching.

    Attributes
    ----------
    scheme, netloc : str
        Lower-cased scheme; host (lower-cased, no default port) with user info and port if any.
    path : str
        Percent-encoding normalised, directory index and trailing ``/`` removed (``/`` for the root).
    query : tuple of str
        ``name=value`` pieces as w3lib writes them, sorted, tracking parameters removed.
    """

    scheme: str
    netloc: str
    path: str
    query: tuple[str, ...]


def _param_name(piece: str) -> str:
    """The decoded name of a ``name=value`` query piece."""
    return unquote_plus(piece.split("=", 1)[0])


def _is_tracking(name: str) -> bool:
    name = name.lower()
    return name in TRACKING_PARAMS or name.startswith(TRACKING_PREFIXES)


@functools.lru_cache(maxsize=1 << 17)
def url_parts(url: str) -> UrlParts:
    """Split a URL into its canonical :class:`UrlParts` (the work of :func:`normalize_url`).

    Parameters
    ----------
    url : str
        An absolute URL.

    Returns
    -------
    UrlParts
        Scheme, host, path and query pieces in canonical form.

    Examples
    --------
    >>> url_parts("HTTP://Books.Example:80/c/index.html?b=2&utm_source=mail&a=1#top")
    UrlParts(scheme='http', netloc='books.example', path='/c', query=('a=1', 'b=2'))
    """
    url = _CONTROL.sub("", url.strip())
    try:
        parts = urlsplit(canonicalize_url(url))
        port = parts.port
        netloc = parts.netloc
    except ValueError:  # a port that is not a number: compare the URL as written
        parts = urlsplit(url.split("#", 1)[0])
        port, netloc = None, parts.netloc.lower()
    scheme = parts.scheme.lower()
    if port is not None and port == _DEFAULT_PORTS.get(scheme):
        netloc = netloc.rsplit(":", 1)[0]
    path = _SESSION_PATH_PARAM.sub("", parts.path)
    head, _, last = path.rpartition("/")
    if last.lower() in DIRECTORY_INDEXES:
        path = head
    path = path.rstrip("/") or ("/" if netloc or path.startswith("/") else "")
    query = tuple(piece for piece in parts.query.split("&") if piece and not _is_tracking(_param_name(piece)))
    return UrlParts(scheme, netloc, path, query)


def normalize_url(url: str) -> str:
    """Normalise a URL so that links to the same page compare equal, on any site.

    w3lib's ``canonicalize_url`` (the one Scrapy uses) lower-cases scheme and host, normalises
    percent-encoding, sorts the query and drops the fragment; then the scheme's default port is
    dropped, a directory index (:data:`DIRECTORY_INDEXES`) and a trailing ``/`` are removed (``/a/``,
    ``/a`` and ``/a/index.html`` name one page), and tracking parameters (:data:`TRACKING_PARAMS`,
    :data:`TRACKING_PREFIXES`) and ``;jsessionid=`` path parameters are dropped. Tabs, newlines and
    surrounding white space (which browsers remove) go too. Path case is kept: ``/A`` and ``/a`` are
    different pages. Site-specific rules (session parameters of one site, identifier segments) are
    learnt by :func:`learn_url_key`.

    Parameters
    ----------
    url : str
        An absolute URL.

    Returns
    -------
    str
        The normalised URL.

    Examples
    --------
    >>> normalize_url("HTTPS://Shop.Example:443#top")
    'https://shop.example/'
    >>> normalize_url("http://shop.example:8080/P/Kettle.html?x=1&utm_medium=email#reviews")
    'http://shop.example:8080/P/Kettle.html?x=1'
    >>> normalize_url("https://shop.example/c/kitchen/index.html;jsessionid=A1B2?b=%7e&a")
    'https://shop.example/c/kitchen?a=&b=~'
    """
    parts = url_parts(url)
    return urlunsplit((parts.scheme, parts.netloc, parts.path, "&".join(parts.query), ""))


