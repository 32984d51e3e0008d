"""Per-site sampling and slot transfer: render a few pages of each template, read the others from their HTML.

- :mod:`~mainentity.slot_transfer.templates`: cluster a site's pages by template (DOM skeleton and URL
  shape) and choose the sample to render;
- :mod:`~mainentity.slot_transfer.locators`: from the general recogniser's answers on a template's
  rendered sample, a locator of the template slot holding the main entity, and its application to a
  page's static reading (:func:`mainentity.render.static.read_static`);
- :mod:`~mainentity.slot_transfer.site`: the whole of it on one site, the stages passed in
  (:func:`~mainentity.slot_transfer.site.transfer_site`).
"""

from mainentity.slot_transfer.locators import SlotAnswer, SlotLocator, TemplateLocator, apply_locator, fit_locators
from mainentity.slot_transfer.site import SiteTransfer, transfer_site
from mainentity.slot_transfer.templates import Template, choose_sample, cluster_templates, template_signature

__all__ = [
    "SiteTransfer",
    "SlotAnswer",
    "SlotLocator",
    "Template",
    "TemplateLocator",
    "apply_locator",
    "choose_sample",
    "cluster_templates",
    "fit_locators",
    "template_signature",
    "transfer_site",
]
