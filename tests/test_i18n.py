"""The rule catalogue in the five languages (spec/i18n/<lang>.yaml, flip7ref.core.i18n).

Every rule, option (its summary, and its dispute question where it has one) and reading
(its short name and summary) of both shipped editions has a text in each language, and
no text names a rule, option or reading that does not exist.  The ids a text cites (rule
ids, dispute ids, option names) are the same in every language as in English, and a
language with its own name for a card never uses the English one.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
import yaml

from flip7ref.core import i18n
from flip7ref.core.edition import Edition, spec_dir
from flip7ref.core.errors import SpecError
from flip7ref.core.schema import validate
from flip7ref.core.spec import load_edition

EDITIONS = ("flip7", "vengeance")
OTHER = [lang for lang in i18n.LANGS if lang != "en"]


def _texts(edition: Edition, lang: str) -> Iterator[tuple[str, str, str]]:
    """``(path, text in lang, English text)`` for every text of ``edition``."""
    for rid in edition.rules:
        yield f"rules/{rid}", i18n.rule_text(edition, rid, lang), i18n.rule_text(edition, rid, "en")
    for name, spec in edition.options.items():
        yield f"options/{name}/summary", i18n.option_summary(edition, name, lang), spec.summary
        if spec.dispute is not None:
            yield (
                f"options/{name}/dispute",
                i18n.dispute_question(edition, name, lang) or "",
                i18n.dispute_question(edition, name) or "",
            )
        for r in spec.readings:
            yield f"options/{name}/readings/{r.name}", i18n.reading_summary(edition, name, r.name, lang), r.summary


@pytest.mark.parametrize("lang", i18n.LANGS)
@pytest.mark.parametrize("ed", EDITIONS)
def test_every_rule_option_and_reading_has_a_text_and_no_id_is_stray(ed: str, lang: str) -> None:
    edition = load_edition(ed)
    assert i18n.missing(edition, lang) == []
    assert i18n.stray(edition, lang) == []


def test_the_counts_of_texts_per_language() -> None:
    """Both editions: 129 rules, 41 options (37 with a dispute), 82 readings."""
    eds = [load_edition(e) for e in EDITIONS]
    assert sum(len(e.rules) for e in eds) == 129
    assert sum(len(e.options) for e in eds) == 41
    assert sum(1 for e in eds for o in e.options.values() if o.dispute) == 37
    assert sum(len(o.readings) for e in eds for o in e.options.values()) == 82
    for lang in OTHER:
        data = i18n.catalogue(lang)
        assert sum(len(data[e]["rules"]) for e in EDITIONS) == 129
        assert sum(len(r) for e in EDITIONS for o in data[e]["options"].values() for r in [o["readings"]]) == 82


@pytest.mark.parametrize("lang", OTHER)
@pytest.mark.parametrize("ed", EDITIONS)
def test_a_translation_cites_the_same_ids_as_english_and_is_not_a_copy(ed: str, lang: str) -> None:
    edition = load_edition(ed)
    snake = "|".join(sorted((o for o in edition.options if "_" in o), key=len, reverse=True))
    word = "|".join(sorted((o for o in edition.options if "_" not in o), key=len, reverse=True))
    # rule and dispute ids; an option name with an underscore anywhere; a one-word option
    # name only after the word for "option" (else "tie" or "decks" is an ordinary word)
    ids = re.compile(
        rf"\b(?:D-)?(?:F7|V)-[0-9A-Z]{{3,4}}\b|\b(?:{snake})\b|(?:(?<=option )|(?<=Option )|(?<=optie )|(?<=valget ))(?:{word})\b"
    )
    for path, text, english in _texts(edition, lang):
        assert (text and text != english) or len(english) < 25, f"{lang} {ed} {path}: not translated"
        assert sorted(ids.findall(text)) == sorted(ids.findall(english)), f"{lang} {ed} {path}: {text!r}"


def _english_names(lang: str) -> set[str]:
    """The English card names a text in ``lang`` must not use: those of every card (of
    either edition) with a name of its own in ``lang``, without the printed "!"."""
    out = set()
    for ed in EDITIONS:
        for card in load_edition(ed).cards:
            en, own = card.name("en").rstrip("!"), card.name(lang).rstrip("!")
            if own != en and card.category != "modifier":
                out.add(en)
    return out


@pytest.mark.parametrize("lang", OTHER)
def test_a_language_with_its_own_card_names_uses_them(lang: str) -> None:
    forbidden = _english_names(lang)
    for ed in EDITIONS:
        edition = load_edition(ed)
        for path, text, _ in _texts(edition, lang):
            for name in forbidden:
                assert not re.search(rf"\b{re.escape(name)}\b", text), f"{lang} {ed} {path}: English {name!r} in {text!r}"
        for rid in edition.rules:
            for card in edition.cards:
                if card.category == "action" and card.name("en").rstrip("!") in edition.rules[rid].text:
                    # the name, its words perhaps inflected ("Zweiten Chancen", "Secondes Chances")
                    own = r"\s".join(w[:-1] + r"\w*" if len(w) > 3 else re.escape(w) for w in card.name(lang).rstrip("!").split())
                    assert re.search(own, i18n.rule_text(edition, rid, lang)), f"{lang} {rid}: {card.id}"


def test_the_card_names_the_sources_use() -> None:
    flip7, vengeance = load_edition("flip7"), load_edition("vengeance")
    assert [flip7.card(c).name("nl") for c in ("freeze", "flip_three", "second_chance")] == [
        "Bevries",
        "Draai drie",
        "Tweede kans",
    ]
    assert [flip7.card(c).name("de") for c in ("freeze", "flip_three", "second_chance")] == [
        "Stopp",
        "Drei am Stück",
        "Zweite Chance",
    ]
    assert [flip7.card(c).name("fr") for c in ("freeze", "flip_three", "second_chance")] == [
        "Stop",
        "Trois à la suite",
        "Seconde Chance",
    ]
    assert flip7.card("bevries").id == "freeze" and flip7.card("Draai drie").id == "flip_three"
    assert vengeance.card("flip_four").name("nl") == "Draai vier" and vengeance.card("flip_four").name("de") == "Flip Four!"
    assert "Draai drie" in i18n.rule_text(flip7, "F7-070", "nl") and "Drei am Stück" in i18n.rule_text(flip7, "F7-070", "de")


def test_lookups_and_the_english_fallback() -> None:
    flip7 = load_edition("flip7")
    assert i18n.reading_name(flip7, "second_chance_in_flip_three", "set-aside", "nl") == "Opzij gelegd"
    assert i18n.reading_name(flip7, "second_chance_in_flip_three", "set-aside", "en") == "Set aside"
    assert i18n.reading_name(flip7, "tie", "no-such-reading", "de") == "no-such-reading"
    assert i18n.dispute_question(flip7, "target_score", "fr") is None
    assert i18n.dispute_question(flip7, "tie", "en") == flip7.disputes["D-F7-22"]["question"]
    assert i18n.rule_text(flip7, "F7-999", "nl") == ""
    assert i18n.rule_text(flip7, "F7-040", "en") == flip7.rules["F7-040"].text
    assert i18n.option_summary(flip7, "tie", "no").startswith("Hva som skjer")
    with pytest.raises(SpecError, match="one of en, nl, de, fr, no"):
        i18n.catalogue("xx")


def test_a_house_rule_edition_without_texts_shows_its_own_english(tmp_path: object) -> None:
    from pathlib import Path

    src = (spec_dir() / "editions" / "flip7.yaml").read_text(encoding="utf-8").replace("  id: flip7\n", "  id: house7\n", 1)
    path = Path(str(tmp_path)) / "house7.yaml"
    path.write_text(src, encoding="utf-8")
    house = load_edition(str(path))
    assert i18n.rule_text(house, "F7-040", "nl") == house.rules["F7-040"].text
    assert i18n.reading_name(house, "tie", "shared-win", "nl") == "shared-win"
    assert i18n.missing(house, "nl")[:1] == ["rules/F7-001"]


@pytest.mark.parametrize(
    ("data", "where"),
    [
        ({"format": 1, "lang": "nl", "editions": {"flip7": {"rules": {"F7-001": ""}}}}, "/editions/flip7/rules/F7-001"),
        ({"format": 1, "lang": "nl", "editions": {"flip7": {"rulez": {}}}}, "/editions/flip7"),
        ({"format": 1, "lang": "nl", "editions": {"flip7": {"options": {"tie": {"readings": {"a": {"summary": "x"}}}}}}},
         "/editions/flip7/options/tie/readings/a"),
        ({"format": 2, "lang": "nl", "editions": {}}, "/format"),
    ],
)  # fmt: skip
def test_a_malformed_text_file_is_refused_naming_the_place(data: object, where: str) -> None:
    with pytest.raises(SpecError) as info:
        validate(data, "i18n", "spec/i18n/nl.yaml")
    assert str(info.value).startswith(f"spec/i18n/nl.yaml, at {where}:")


@pytest.mark.parametrize("lang", i18n.LANGS)
def test_the_shipped_files_match_their_schema_and_name(lang: str) -> None:
    data = yaml.safe_load((spec_dir() / "i18n" / f"{lang}.yaml").read_text(encoding="utf-8"))
    validate(data, "i18n", f"{lang}.yaml")
    assert data["lang"] == lang and set(data["editions"]) == set(EDITIONS)
