"""Scripts on demand: tell a page whose scripts-off rendering is an unfinished skeleton.

Pages are rendered with their scripts off (:class:`~mainentity.render.settings.RenderSettings`): the
DOM is then the HTML parse of the server's markup, which is what most pages show. Some pages are built
by their own scripts: the server sends a skeleton (a generic ``<title>``, "Loading..." placeholders,
a ``<noscript>`` asking for JavaScript) and the page's state as inline JSON, and the title appears only
once an inline script has run. With ``javascript: auto`` such a page is rendered again with its scripts
on (:func:`mainentity.render.cache.render_pages`; network still blocked, the same time bound), and the
second rendering is kept when it shows more (:func:`shows_more`).

A rendering looks unfinished (:func:`unfinished_reason`) when it shows little text (fewer than
:data:`MAX_SKELETON_WORDS` visible words outside ``<noscript>``) *and* carries a sign that scripts
build the page: a ``<noscript>`` that asks for JavaScript, a visible loading placeholder ("Loading...",
"Please wait", an element whose class names a skeleton or shimmer), or the page's state as inline
JSON (``__NEXT_DATA__``, ``window.__INITIAL_STATE__``, ``__NUXT__``, ``__APOLLO_STATE__``,
``__PRELOADED_STATE__``, or a ``<script type="application/json">`` of at least
:data:`MIN_STATE_CHARS` characters). A page that shows its text is never rendered twice, whatever its
scripts: server-rendered pages that also ship their state (most Next.js sites) are read as they are.
The thresholds are set by hand on made-up skeletons (``tests/test_render_scripts.py``); how many pages
of the shared datasets they send to a second rendering is measured by
``benchmarks/render_scripts.py``.
"""

from __future__ import annotations

import re

from mainentity.records import Page, RenderedPage

#: A rendering with at least this many visible words (outside ``<noscript>``) is finished.
MAX_SKELETON_WORDS = 60
#: An inline ``<script type="application/json">`` of at least this many characters holds page state.
MIN_STATE_CHARS = 400

_WORD = re.compile(r"\w+")
_NOSCRIPT_ASKS = re.compile(
    r"<noscript[^>]*>(?:(?!</noscript).){0,2000}?(?:enable|turn on|activate|requires?|needs?|need to)\W+"
    r"(?:\w+\W+){0,3}?javascript|<noscript[^>]*>(?:(?!</noscript).){0,2000}?javascript\W+(?:is\W+)?"
    r"(?:required|disabled|needed|must be enabled)",
    re.IGNORECASE | re.DOTALL,
)
_STATE_SCRIPT = re.compile(
    r"__NEXT_DATA__|window\.__(?:INITIAL|PRELOADED)_STATE__|__NUXT__|__APOLLO_STATE__|__PRELOADED_STATE__"
)
_JSON_SCRIPT = re.compile(
    r"<script[^>]*type\s*=\s*[\"']?application/json[^>]*>(.*?)</script", re.IGNORECASE | re.DOTALL
)
_LOADING_TEXT = re.compile(
    r"^(?:loading|please wait|one moment|chargement|cargando|caricamento|wird geladen|laden|carregando)\W*$",
    re.IGNORECASE,
)
_SKELETON_CLASS = re.compile(r"class\s*=\s*[\"'][^\"']*\b(?:skeleton|shimmer|placeholder-glow)", re.IGNORECASE)


def _visible_texts(rendered: RenderedPage) -> list[str]:
    return [block.text for block in rendered.blocks
            if not block.hidden and not block.merged and "/noscript[" not in block.dom_path]


def unfinished_reason(page: Page, rendered: RenderedPage) -> str:
    """Why a scripts-off rendering of ``page`` looks like a skeleton its scripts would fill; ``""`` if not.

    Parameters
    ----------
    page : Page
        The page, for its markup (``<noscript>``, inline state, class names).
    rendered : RenderedPage
        Its rendering (or static reading) with scripts off.

    Returns
    -------
    reason : str
        ``""`` when the rendering shows :data:`MAX_SKELETON_WORDS` visible words or more, or no sign
        of a page built by scripts; else the signs found, e.g. ``"12 words; inline state"``.

    Examples
    --------
    >>> from mainentity.records import TextBlock
    >>> html = "<title>Jobs</title><script id='__NEXT_DATA__' type='application/json'>{}</script>"
    >>> block = TextBlock("Loading...", "div", "html[0]/body[1]/div[0]", 16, 400, False, 8, 8, 80, 18)
    >>> unfinished_reason(Page("s", "j.htm", "http://s.test/j", html), RenderedPage("Jobs", (), (block,)))
    '1 words; loading placeholder; inline state'
    """
    texts = _visible_texts(rendered)
    n_words = sum(len(_WORD.findall(text)) for text in texts)
    if n_words >= MAX_SKELETON_WORDS:
        return ""
    html = page.html
    signs = []
    if _NOSCRIPT_ASKS.search(html):
        signs.append("noscript asks for JavaScript")
    if any(_LOADING_TEXT.match(text) for text in texts) or _SKELETON_CLASS.search(html):
        signs.append("loading placeholder")
    if _STATE_SCRIPT.search(html) or any(len(body) >= MIN_STATE_CHARS for body in _JSON_SCRIPT.findall(html)):
        signs.append("inline state")
    return f"{n_words} words; " + "; ".join(signs) if signs else ""


def shows_more(second: RenderedPage, first: RenderedPage) -> bool:
    """Whether the scripts-on rendering ``second`` shows more visible words (outside ``<noscript>``)
    than the scripts-off ``first``: only then does it replace it.

    >>> from mainentity.records import TextBlock
    >>> one = RenderedPage("T", (), (TextBlock("Loading", "p", "html[0]/body[1]/p[0]", 16, 400, False, 0, 0, 9, 9),))
    >>> shows_more(RenderedPage("T", (), ()), one), shows_more(one, RenderedPage("T", (), ()))
    (False, True)
    """

    def n_words(rendered: RenderedPage) -> int:
        return sum(len(_WORD.findall(text)) for text in _visible_texts(rendered))

    return n_words(second) > n_words(first)
