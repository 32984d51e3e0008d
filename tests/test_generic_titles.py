"""Generic titles for training pages (mainentity.features.generic_titles)."""

from __future__ import annotations

import pytest

from mainentity.features.generic_titles import MAX_GENERIC_WORDS, short_link_texts, with_generic_title
from mainentity.records import RenderedPage, TextBlock


def link(text, y, hidden=False):
    return TextBlock(text, "a", f"html[0]/body[1]/nav[0]/a[{int(y)}]", 14, 400, False, 0, y, 80, 17, in_link=True,
                     hidden=hidden)


def test_short_link_texts_are_visible_short_links_other_than_the_main_entity():
    blocks = (link("Startseite", 0), link("Rezepte", 20), link("Startseite", 40), link("Versteckt", 60, hidden=True),
              link("Apfelkuchen mit Streuseln", 80), link("Alle Rezepte der Woche im Überblick", 100),
              TextBlock("Kontakt", "p", "html[0]/body[1]/p[0]", 14, 400, False, 0, 120, 80, 17))
    rendered = RenderedPage("Startseite", (), blocks)
    assert short_link_texts(rendered) == ["Startseite", "Rezepte", "Apfelkuchen mit Streuseln"]
    assert short_link_texts(rendered, ["apfelkuchen mit streuseln"]) == ["Startseite", "Rezepte"]
    assert MAX_GENERIC_WORDS == 3


def test_with_generic_title_replaces_the_title_and_drops_meta_titles_only():
    meta = (("og:title", "Apfelkuchen"), ("twitter:title", "Apfelkuchen"), ("og:site_name", "Küchenbuch"),
            ("description", "Ein Rezept"))
    rendered = RenderedPage("Apfelkuchen | Küchenbuch", meta, (link("Startseite", 0),), width=800.0)
    generic = with_generic_title(rendered, "Startseite")
    assert generic.title == "Startseite" and generic.meta_titles == ()
    assert generic.meta == (("og:site_name", "Küchenbuch"), ("description", "Ein Rezept"))
    assert generic.blocks == rendered.blocks and generic.width == 800.0
    assert rendered.title == "Apfelkuchen | Küchenbuch"  # the input is not changed
    with pytest.raises(ValueError, match="needs a word"):
        with_generic_title(rendered, " · ")
