"""mainentity: recognise the main entity of web pages from how a person sees them.

The data flow, one module (or subpackage) per stage::

    site dump (sitedump, linkgraph) -> render -> text blocks (records) -> cleaning
    -> features -> models -> recognizers -> pipeline -> evaluation (report)

Heavy libraries (Playwright, torch) are imported only by the stages that need them.
"""

from mainentity.records import Document, Page, Prediction, RenderedPage, TextBlock

__version__ = "0.1.0"

__all__ = ["Document", "Page", "Prediction", "RenderedPage", "TextBlock", "__version__"]
