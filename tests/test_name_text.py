"""A candidate's text as a name (mainentity.features.name_text): mojibake, invisible format characters,
decorative marks."""

from __future__ import annotations

import pytest

from mainentity.features.name_text import drop_format_characters, name_text, repair_mojibake, strip_decoration


@pytest.mark.parametrize(("decorated", "name"), [
    ("[> Jane Doe", "Jane Doe"),
    ("» Jane Doe", "Jane Doe"),
    ("› Jane Doe", "Jane Doe"),
    ("• Jane Doe", "Jane Doe"),
    ("| Jane Doe", "Jane Doe"),
    ("»Jane Doe", "Jane Doe"),
    ("Jane Doe »", "Jane Doe"),
    ("Jane Doe |", "Jane Doe"),
    ("Jane Doe —", "Jane Doe"),
    ("■ 改正法の要点", "改正法の要点"),
    ("Lemon Tart 🍋", "Lemon Tart"),
    (": A Quiet Place to Stay", "A Quiet Place to Stay"),
])
def test_decoration_at_the_ends_of_a_name_goes(decorated, name):
    assert strip_decoration(decorated) == name


@pytest.mark.parametrize("name", [
    "¿Qué?", "¡Olé!", "«Quote»", "« Citation »", "»Titel«", "“Quoted” title", "#1 Hit", "C++", "(Paperback)",
    "Jane Doe (2019)", "Vraiment ?", "Bonjour !", "...And Justice for All", "$ 5 deals", "Up 50 %",
    "'Tis the Season", "- Det blir en tøff vinter", "– Vi er klare", "Yahoo!", "*NSYNC", "E!", "M*A*S*H",
    "+44 Records", "Jane Doe", "***",
])
def test_marks_that_belong_to_a_name_are_kept(name):
    assert strip_decoration(name) == name


def test_mojibake_is_repaired_only_where_ftfy_finds_it():
    assert repair_mojibake("MĂ¤scot") == "Mäscot"  # UTF-8 read as windows-1250
    assert repair_mojibake("CafÃ© Rouge") == "Café Rouge"  # UTF-8 read as windows-1252
    assert repair_mojibake("â€œHarbour Daysâ€\x9d") == "“Harbour Days”"
    for clean in ("Mäscot", "Café Rouge", "Łódź", "Ærøskøbing", "Õpetaja", "İstanbul", "子どもへの", "“Quoted”",
                  "ﬁne ligature", "ＦＵＬＬ width"):  # no other normalisation: ligatures and width are kept
        assert repair_mojibake(clean) == clean


def test_invisible_format_characters_leave_words_but_needed_joiners_stay():
    assert drop_format_characters("Helikopter\u00adlandeplatz") == "Helikopterlandeplatz"
    assert drop_format_characters("Harbour\u200bDays\u2060 and\ufeff Nights") == "HarbourDays and Nights"
    assert drop_format_characters("\u200dJane Doe\u200c") == "Jane Doe"
    persian, hindi, astronaut = "می\u200cخواهم", "क्\u200dष", "👩\u200d🚀"
    assert drop_format_characters(f"{persian} {hindi} {astronaut}") == f"{persian} {hindi} {astronaut}"


def test_name_text_composes_the_three_and_collapses_space():
    assert name_text("  » CafÃ©\u00a0 Rou\u00adge  ") == "Café Rouge"
    assert name_text("\u200b• Mäscot") == "Mäscot"
    assert name_text("***") == "***"  # all marks: as it is (left out later as a text without a word)

