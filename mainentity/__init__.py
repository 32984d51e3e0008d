"""mainentity: recognise the main entity of web pages from how a person sees them.

From Python::

    import mainentity

    mainentity.extract(html, url="https://shop.example/p/kettle").main_entity   # one page
    with mainentity.load_model() as model:                                       # many pages
        predictions = model.predict(mainentity.read_site_dump("dump/"))

The data flow, one module (or subpackage) per stage::

    site dump (sitedump, linkgraph) -> render -> text blocks (records) -> cleaning
    -> features -> models -> recognizers -> pipeline -> evaluation (report); api on top

Heavy libraries (Playwright, torch) are imported only by the stages that need them: the API's names
below are imported on first use (PEP 562), so ``import mainentity`` stays light.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from mainentity._version import __version__
from mainentity.records import Document, Page, Prediction, RenderedPage, TextBlock

if TYPE_CHECKING:
    from mainentity.api import Model, extract, load_model
    from mainentity.sitedump import SiteDump, page_from_html, read_site_dump


#: Public names imported on first use: name -> module.
_LAZY = {
    "Model": "mainentity.api",
    "extract": "mainentity.api",
    "load_model": "mainentity.api",
    "SiteDump": "mainentity.sitedump",
    "page_from_html": "mainentity.sitedump",
    "read_site_dump": "mainentity.sitedump",
}

__all__ = [
    "Document",
    "Model",
    "Page",
    "Prediction",
    "RenderedPage",
    "SiteDump",
    "TextBlock",
    "__version__",
    "extract",
    "load_model",
    "page_from_html",
    "read_site_dump",
]


def __getattr__(name: str):
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value  # the next access is a plain attribute
        return value
    raise AttributeError(f"module 'mainentity' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})
