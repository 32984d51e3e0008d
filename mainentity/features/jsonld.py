"""The names a page's structured data gives (schema.org JSON-LD): evidence of what the page is about.

A publisher's JSON-LD says what its page's thing is called (``Recipe.name``, ``Product.name``, a
``NewsArticle``'s ``headline``, the ``name`` of a ``mainEntity``). It is evidence, not the answer: it can be
stale or absent, so the features compare candidates with it (``jsonld_dice``) and the candidates take it only
where the page shows it (:func:`mainentity.features.candidates.page_candidates`).
"""

from __future__ import annotations

import json
import re

__all__ = ["ENTITY_TYPES", "jsonld_entity_names", "jsonld_titles"]

_JSON_LD = re.compile(r"<script[^>]*application/ld\+json[^>]*>(.*?)</script>", re.IGNORECASE | re.DOTALL)
_JSON_LD_SKIP_TYPES = {
    "organization", "newsmediaorganization", "website", "webpage", "collectionpage", "person", "brand",
    "breadcrumblist", "listitem", "imageobject", "searchaction", "sitenavigationelement", "offer",
    "aggregaterating", "rating", "review", "place", "postaladdress", "thing",
}


def _objects(html: str, skip_keys: frozenset[str] = frozenset()):
    """Each JSON-LD object of the page with its lower-cased ``@type`` set, depth first in document order (at most
    6 levels deep; values under ``skip_keys`` not entered; unparsable scripts skipped)."""

    def walk(node, depth: int):
        if depth > 6:
            return
        if isinstance(node, list):
            for item in node:
                yield from walk(item, depth + 1)
        elif isinstance(node, dict):
            types = node.get("@type", "")
            yield {str(t).lower() for t in (types if isinstance(types, list) else [types])}, node
            for key, value in node.items():
                if isinstance(value, (dict, list)) and key not in skip_keys:
                    yield from walk(value, depth + 1)

    for match in _JSON_LD.finditer(html):
        try:
            data = json.loads(match.group(1))
        except (ValueError, RecursionError):
            continue
        yield from walk(data, 0)


def jsonld_titles(html: str, limit: int = 20) -> list[str]:
    """``headline`` and ``name`` values of the page's JSON-LD objects, in order, at most ``limit``.

    ``name`` is taken only from objects whose ``@type`` is not about the site or its parts
    (Organization, WebSite, Person, BreadcrumbList, ImageObject, ...); unparsable scripts are skipped.

    >>> jsonld_titles('<script type="application/ld+json">{"@type": "Book", "name": "Know Your Bible",'
    ...               ' "publisher": {"@type": "Organization", "name": "Barbour"}}</script>')
    ['Know Your Bible']
    """
    found: list[str] = []
    for types, node in _objects(html, frozenset({"publisher", "author", "breadcrumb", "isPartOf"})):
        for key in ("headline", "name"):
            value = node.get(key)
            if isinstance(value, str) and value.strip() and (key == "headline" or not types & _JSON_LD_SKIP_TYPES):
                found.append(value.strip())
        if len(found) >= limit:
            break
    return list(dict.fromkeys(found))


#: schema.org types of things a page can be about (not an article about them): their ``name`` is the thing's.
ENTITY_TYPES = frozenset({
    "recipe", "product", "productmodel", "book", "movie", "tvseries", "musicalbum", "musicrecording", "videogame",
    "softwareapplication", "mobileapplication", "course", "event", "restaurant", "foodestablishment", "bakery",
    "cafeorcoffeeshop", "barorpub", "localbusiness", "store", "hotel", "lodgingbusiness", "touristattraction",
    "museum", "park", "vehicle", "car", "game",
})


def jsonld_entity_names(html: str, limit: int = 5) -> list[str]:
    """``name`` values of the page's JSON-LD objects of an :data:`ENTITY_TYPES` type (a recipe, a product, a
    venue: what the page is about, in the publisher's words), in order, at most ``limit``.

    >>> jsonld_entity_names('<script type="application/ld+json">[{"@type": "Recipe", "name": "Lemon Tart"},'
    ...                     ' {"@type": "BlogPosting", "headline": "Lemon Tart (Easy)", "name": "Lemon Tart (Easy)"}]'
    ...                     '</script>')
    ['Lemon Tart']
    """
    found = [node["name"].strip() for types, node in _objects(html)
             if types & ENTITY_TYPES and isinstance(node.get("name"), str) and node["name"].strip()]
    return list(dict.fromkeys(found[:limit]))
