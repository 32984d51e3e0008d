"""Training pages whose ``<title>`` says nothing of the page: generic titles drawn from the data itself.

Nearly every training page states its topic in its ``<title>`` (a book shop's product pages, news
stories), so a ranker fitted on them learns that the whole title wins even where a site titles a page
"Home", "Untitled" or with its own name alone, and the page shows its topic only in a heading. A share
of the training pages is therefore given a generic title instead (their labels unchanged), so that the
title candidate is a negative and the page's visible evidence (heading, font size, URL slug) must carry
the answer. Generic titles come from the training pages themselves, not from a word list of one
language: the text of a short link, either one the page shows (its navigation's "Home", "Startseite")
or one of another page, which this page does not show (as "Untitled" is not shown).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from mainentity.features.labels import main_entity_labels
from mainentity.records import META_TITLE_KEYS, RenderedPage
from mainentity.text import tokenize

#: Most words of a link text taken as a generic title (navigation labels, a site's name).
MAX_GENERIC_WORDS = 3


def short_link_texts(rendered: RenderedPage, labels: Sequence[str] = ()) -> list[str]:
    """The page's visible link texts of 1 to :data:`MAX_GENERIC_WORDS` words, each once, in page order.

    Texts that are the page's main entity (``labels``, matched as training labels are:
    :func:`~mainentity.features.labels.main_entity_labels`) are left out: a link to the page itself.

    Parameters
    ----------
    rendered : RenderedPage
    labels : sequence of str, optional
        The page's main-entity labels.

    Returns
    -------
    texts : list of str

    Examples
    --------
    >>> from mainentity.records import TextBlock
    >>> home = TextBlock("Home", "a", "p/a[0]", 14, 400, False, 0, 0, 40, 17, in_link=True)
    >>> book = TextBlock("Know Your Bible", "a", "p/a[1]", 14, 400, False, 0, 20, 90, 17, in_link=True)
    >>> short_link_texts(RenderedPage("Know Your Bible", (), (home, book)), ["Know Your Bible"])
    ['Home']
    """
    texts = list(dict.fromkeys(
        block.text for block in rendered.blocks
        if block.in_link and not block.hidden and 1 <= len(tokenize(block.text)) <= MAX_GENERIC_WORDS))
    if not texts or not labels:
        return texts
    is_label = main_entity_labels(texts, labels)
    return [text for text, label in zip(texts, is_label, strict=True) if not label]


def with_generic_title(rendered: RenderedPage, title: str) -> RenderedPage:
    """The rendering with ``<title>`` replaced by ``title`` and its meta titles dropped.

    Meta titles (:data:`~mainentity.records.META_TITLE_KEYS`) go too: a site that titles a page "Home"
    rarely states its topic in og:title. Other meta tags (``og:site_name``) and the blocks are kept.

    Raises
    ------
    ValueError
        If ``title`` has no word (no letter or digit).

    Examples
    --------
    >>> page = RenderedPage("Know Your Bible | Shop", (("og:title", "Know Your Bible"), ("og:site_name", "Shop")), ())
    >>> generic = with_generic_title(page, "Home")
    >>> generic.title, generic.meta
    ('Home', (('og:site_name', 'Shop'),))
    """
    if not tokenize(title):
        raise ValueError(f"a generic title needs a word; got {title!r}")
    meta = tuple((key, content) for key, content in rendered.meta if key not in META_TITLE_KEYS)
    return dataclasses.replace(rendered, title=title, meta=meta)
