"""The table's words for players: refusals and rulings in the game's language, the rule
texts, option summaries and reading names it shows, and the Second Chance inside a
Flip Three (D-F7-14) offered as a disputed ruling with the rule that decided it."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from flip7ref.checking.replay import step_event_rules
from flip7ref.core.spec import load_edition
from tests.table_helpers import require_table_extra

require_table_extra()

from starlette.testclient import TestClient  # noqa: E402

from flip7ref.table import wording  # noqa: E402
from flip7ref.table.app import create_app  # noqa: E402
from flip7ref.table.session import TableError, TableGame  # noqa: E402


def _game(tmp_path: Path, lang: str, edition: str = "flip7") -> TableGame:
    """A referee game of Ann, Ben and Cy, Cy dealing (Ann gets the first card)."""
    return TableGame.create(
        tmp_path, {"edition": edition, "names": ["Ann", "Ben", "Cy"], "mode": "referee", "lang": lang, "dealer": 2}
    )


def _run(tg: TableGame, *steps: str) -> None:
    for step in steps:
        if step.startswith("!"):
            tg.act(tg.version, step[1:])
        else:
            tg.reveal(tg.version, step)


def _refused(fn: Any, *args: Any) -> TableError:
    with pytest.raises(TableError) as info:
        fn(*args)
    return info.value


# Ann 5, Ben 6, Cy 7 dealt; Ann hits a Flip Three and plays it on herself; inside it she
# reveals a Second Chance (kept at once, the default reading), then a second 5 (the
# Second Chance saves her), then an 8 (the Flip Three is complete).
SECOND_CHANCE_IN_FLIP_THREE = ("5", "6", "7", "!hit", "flip_three", "!target 0", "second_chance", "5", "8")


@pytest.mark.rules("F7-076", "F7-077", "F7-081")
def test_a_second_chance_used_inside_a_flip_three_cites_f7_077_not_f7_081(tmp_path: Path) -> None:
    tg = _game(tmp_path, "en")
    _run(tg, *SECOND_CHANCE_IN_FLIP_THREE)
    kept, used = tg.ruling(6), tg.ruling(7)
    assert [[r["id"] for r in e["rules"]] for e in kept["events"]] == [["F7-070"], ["F7-076", "F7-080", "F7-082"]]
    assert [[r["id"] for r in e["rules"]] for e in used["events"]] == [["F7-070"], ["F7-080", "F7-077"]]
    assert "F7-081" not in [r["id"] for r in used["rules"]]
    assert [o["name"] for o in used["options"]] == ["second_chance_in_flip_three"]


@pytest.mark.rules("F7-080", "F7-081")
def test_a_second_chance_used_on_a_hit_still_cites_f7_081() -> None:
    from flip7ref.core import events

    ed = load_edition("flip7")
    step = (events.dealt(0, "5", "hit"), events.second_chance_used(0, "5", "second_chance"))
    assert step_event_rules(step, ed) == [("F7-030", "F7-031", "F7-035"), ("F7-080", "F7-081")]
    inside = (events.dealt(0, "5", "flip_three"), events.second_chance_used(0, "5", "second_chance"))
    assert step_event_rules(inside, ed)[1] == ("F7-080", "F7-077")


@pytest.mark.rules("F7-076", "F7-077")
@pytest.mark.parametrize(
    ("lang", "summary"),
    [
        ("en", [
            "What happened: Ann flips (Flip Three!) 5; Ann uses Second Chance! against a second 5.",
            "Disputed point (D-F7-14): Is a Second Chance flipped during a Flip Three handled at once or set aside? "
            "Played here: “At once”.",
            "Under “Set aside”: Ann flips (Flip Three!) 5; Ann busts on 5; Ann's Flip Three! ends (bust); "
            "Second Chance! is discarded (Ann): target busted; next Ben decides.",
        ]),
        ("nl", [
            "Wat er gebeurde: Ann draait (Draai drie) 5; Ann gebruikt Tweede kans tegen een tweede 5.",
            "Betwist punt (D-F7-14): Wordt een Tweede kans die tijdens een Draai drie opkomt meteen afgehandeld of opzij "
            "gelegd? Hier gespeeld: „Meteen”.",
            "Met „Opzij gelegd”: Ann draait (Draai drie) 5; Ann ligt eruit met 5; Draai drie van Ann stopt: Ann ligt eruit; "
            "Tweede kans wordt afgelegd: Ann ligt eruit; daarna beslist Ben.",
        ]),
    ],
)  # fmt: skip
def test_the_second_chance_that_decided_a_flip_three_is_a_disputed_ruling(tmp_path: Path, lang: str, summary: list[str]) -> None:
    tg = _game(tmp_path, lang)
    _run(tg, *SECOND_CHANCE_IN_FLIP_THREE)
    ruling = tg.ruling(7)
    assert ruling["summary"] == summary
    (option,) = ruling["options"]
    here, other = option["played"]
    assert (here["reading"], here["in_force"], other["reading"], other["in_force"]) == ("immediate", True, "set-aside", False)
    assert other["statuses"] == {"Ann": "busted", "Ben": "active", "Cy": "active"}
    assert here["statuses"] == {"Ann": "active", "Ben": "active", "Cy": "active"} and here["text"] == wording.say(lang, "same")
    assert option["question"] in summary[1] and option["dispute"] == "D-F7-14"


def test_rule_texts_and_reading_names_in_a_ruling_follow_the_games_language(tmp_path: Path) -> None:
    tg = _game(tmp_path, "de")
    _run(tg, *SECOND_CHANCE_IN_FLIP_THREE)
    ruling = tg.ruling(7)
    assert next(r for r in ruling["rules"] if r["id"] == "F7-077") == {"id": "F7-077", "text": (
        "Eine Zweite Chance, die das Ziel schon hatte oder während des Drei am Stück bekam, kann eine doppelte Zahl darin "
        "abfangen; die übrigen Karten werden trotzdem aufgedeckt.")}  # fmt: skip
    (option,) = ruling["options"]
    assert option["summary"].startswith("Ob eine Zweite Chance, die während eines Drei am Stück kommt")
    assert [(r["name"], r["label"]) for r in option["readings"]] == [("immediate", "Sofort"), ("set-aside", "Beiseitegelegt")]
    here = {r["id"]: r["text"] for r in tg.view()["rules_here"]}  # Ben's offer
    assert here["F7-033"] == (
        "Aufhören darf nur, wer mindestens eine Karte irgendeiner Art vor sich hat; eine einzelne Bonuskarte genügt "
        "(Option stay_requires).")  # fmt: skip


@pytest.mark.parametrize(
    ("lang", "texts"),
    [
        ("en", [
            "No card now: Ann decides first (Hit or Stay).",
            "No card now: Ann decides first (Hit or Stay).",
            "No 0 can be revealed now: the deck holds 1, and all are out (1 in front of Ann).",
            "“wombat” is not a card of Flip 7: enter a number such as 7 or a card name such as Freeze.",
            "Stay is not possible now: Ann decides (Freeze to Ann or Freeze to Ben or Freeze to Cy).",
            "Step 4 is a decision (Hit), not a card: undo it instead.",
        ]),
        ("de", [
            "Jetzt keine Karte: zuerst entscheidet Ann (Weitermachen oder Aufhören).",
            "Jetzt keine Karte: zuerst entscheidet Ann (Weitermachen oder Aufhören).",
            "0 kann jetzt nicht kommen: der Kartensatz hat 1, und alle sind schon draußen (1 vor Ann).",
            "„wombat“ ist keine Karte von Flip 7: gebt eine Zahl wie 7 oder einen Kartennamen wie Stopp ein.",
            "Aufhören geht jetzt nicht: Ann entscheidet (Stopp an Ann oder Stopp an Ben oder Stopp an Cy).",
            "Schritt 4 ist eine Entscheidung (Weitermachen), keine Karte: macht ihn rückgängig.",
        ]),
    ],
)  # fmt: skip
def test_refusals_are_written_for_players(tmp_path: Path, lang: str, texts: list[str]) -> None:
    tg = _game(tmp_path, lang)
    _run(tg, "0", "6", "7")
    got = [
        _refused(tg.reveal, tg.version, "5"),  # a card while Ann must decide
        _refused(tg.act, tg.version, "chance 12"),  # the same, sent as a move
    ]
    tg.act(tg.version, "hit")
    got.append(_refused(tg.reveal, tg.version, "0"))  # the only 0 is in front of Ann
    got.append(_refused(tg.reveal, tg.version, "wombat"))
    tg.reveal(tg.version, "freeze")
    got.append(_refused(tg.act, tg.version, "stay"))  # Ann must play the Freeze first
    got.append(_refused(tg.fix, tg.version, 3, "5"))
    assert [str(e) for e in got] == texts
    assert "illegal action" not in " ".join(texts) and "chance node" not in " ".join(texts)
    assert got[2].rules == ("F7-004", "F7-005", "F7-003")
    assert [r["id"] for r in got[2].rule_texts] == ["F7-004", "F7-005", "F7-003"]
    assert got[2].rule_texts[2]["text"] == (
        "Ein Kartensatz hat insgesamt 94 Karten." if lang == "de" else "A deck holds 94 cards in total."
    )


def test_the_api_gives_the_rules_in_words_with_a_refusal_and_the_catalogue_in_a_language(tmp_path: Path) -> None:
    client = TestClient(create_app(tmp_path))
    created = client.post("/api/games", json={"edition": "flip7", "names": ["Ann", "Ben"], "lang": "fr", "dealer": 1}).json()
    gid = created["id"]
    assert client.post(f"/api/games/{gid}/reveal", json={"version": 0, "card": "0"}).status_code == 200
    err = client.post(f"/api/games/{gid}/reveal", json={"version": 1, "card": "0"}).json()
    assert err["error"] == "0 ne peut pas sortir maintenant : le paquet en contient 1, et tous sont déjà sortis (1 devant Ann)."
    assert err["rules"] == ["F7-004", "F7-005", "F7-003"]
    assert err["rule_texts"][2] == {"id": "F7-003", "text": "Un paquet compte 94 cartes en tout."}
    meta = client.get("/api/meta?lang=no").json()
    tie = next(o for o in meta["editions"][0]["options"] if o["name"] == "tie")
    assert tie["summary"] == "Hva som skjer når flere deler den høyeste totalsummen når spillet slutter."
    assert tie["question"] == "Hva skjer når det er likt på topp når spillet slutter?"
    assert [(r["name"], r["label"]) for r in tie["readings"]] == [("another-round", "En runde til"), ("shared-win", "Delt seier")]
    english = client.get("/api/meta?lang=xx").json()["editions"][0]["options"]
    assert next(o for o in english if o["name"] == "tie")["readings"][1]["label"] == "Shared win"


def test_every_language_has_every_template_with_the_same_placeholders() -> None:
    data = json.loads((Path(wording.__file__).parent / "static" / "words.json").read_text(encoding="utf-8"))
    assert list(data) == ["en", "nl", "de", "fr", "no"]

    def fields(text: str) -> list[str]:
        return sorted(re.findall(r"\{(\w+)\}", text))

    for lang, table in data.items():
        assert list(table) == list(data["en"]), lang
        for key, text in table.items():
            assert fields(text) == fields(data["en"][key]), f"{lang} {key}"


def test_refusal_templates_in_the_code_exist() -> None:
    """Every key passed to say/_say/refusal in the table's modules is a template."""
    keys = set(json.loads((Path(wording.__file__).parent / "static" / "words.json").read_text(encoding="utf-8"))["en"])
    used: set[str] = set()
    for path in Path(wording.__file__).parent.glob("*.py"):
        used |= set(re.findall(r"""(?:say|_say|refusal)\((?:[\w.]+, )*"(\w+)\"""", path.read_text(encoding="utf-8")))
    assert used and used <= keys, used - keys


@pytest.mark.rules("F7-100", "F7-050", "V-022", "V-036", "V-082")
@pytest.mark.parametrize(
    ("edition", "players", "options", "bounds"),
    [
        # 6..12 doubled by the one x2, +2 +4 +6 +8 +10, the Flip 7 bonus: (63 * 2) + 30 + 15
        ("flip7", 3, {}, (0, 63 * 2 + 30 + 15)),
        # two decks (19 players): two x2 (63 * 4) and two of each modifier (60)
        ("flip7", 19, {}, (0, 63 * 4 + 60 + 15)),
        # no raising modifier; Lucky 13 with a 13 counts two of the seven (default): 13+13+12+11+10+9+8 + 15
        ("vengeance", 3, {}, (0, 76 + 15)),
        # the two 13s count once: the 7 joins them (83 + 15)
        ("vengeance", 3, {"lucky13_flip7": "once"}, (0, 83 + 15)),
        # Brutal Mode: -2 -4 -6 -8 -10 and the -15 of a Flip 7 bonus given away
        ("vengeance", 3, {"brutal": "true"}, (-30 - 15, 91)),
    ],
)
def test_the_most_and_least_a_round_can_score_come_from_the_edition_table(
    edition: str, players: int, options: dict[str, str], bounds: tuple[int, int]
) -> None:
    from flip7ref import Game
    from flip7ref.table.record import round_bounds

    assert round_bounds(Game(edition, players, options)) == bounds


@pytest.mark.parametrize(
    ("lang", "high", "negative"),
    [
        ("en", "Ann: 1500 points is more than one round can score in Flip 7. The most is 171: "
               "a Flip 7 of 12 11 10 9 8 7 6 x2 +2 +4 +6 +8 +10, with its bonus.",
         "Ben: -3 points is not possible: a round never scores below 0 in Flip 7."),
        ("nl", "Ann: 1500 punten is meer dan één ronde in Flip 7 kan opleveren. Het meeste is 171: "
               "een Flip 7 van 12 11 10 9 8 7 6 x2 +2 +4 +6 +8 +10, met de bonus.",
         "Ben: -3 punten kan niet: een ronde levert in Flip 7 nooit minder dan 0 op."),
        ("de", "Ann: 1500 Punkte sind mehr, als eine Runde in Flip 7 bringen kann. Höchstens 171: "
               "ein Flip 7 aus 12 11 10 9 8 7 6 x2 +2 +4 +6 +8 +10, mit dem Bonus.",
         "Ben: -3 Punkte gehen nicht: eine Runde bringt in Flip 7 nie weniger als 0."),
        ("fr", "Ann : 1500 points, c'est plus qu'une manche ne peut rapporter dans Flip 7. Le maximum est 171 : "
               "un Flip 7 de 12 11 10 9 8 7 6 x2 +2 +4 +6 +8 +10, avec sa prime.",
         "Ben : -3 points n'est pas possible : une manche ne rapporte jamais moins de 0 dans Flip 7."),
        ("no", "Ann: 1500 poeng er mer enn én runde kan gi i Flip 7. Mest er 171: "
               "en Flip 7 av 12 11 10 9 8 7 6 ×2 +2 +4 +6 +8 +10, med bonusen.",
         "Ben: -3 poeng går ikke: en runde gir aldri under 0 i Flip 7."),
    ],
)  # fmt: skip
def test_a_score_pad_refuses_an_impossible_round_with_the_real_reason_in_the_games_language(
    tmp_path: Path, lang: str, high: str, negative: str
) -> None:
    tg = TableGame.create(tmp_path, {"names": ["Ann", "Ben"], "mode": "manual", "lang": lang})
    too_high = _refused(tg.enter_scores, tg.version, [1500, 0])
    assert str(too_high) == high and too_high.rules == ("F7-100", "F7-050")
    assert str(_refused(tg.enter_scores, tg.version, [0, -3])) == negative
    tg.enter_scores(tg.version, [171, 0])  # the most is possible
    assert tg.manual == [[171, 0]]


def test_create_game_refusals_are_in_the_start_pages_language(tmp_path: Path) -> None:
    def refused(lang: str, **fields: Any) -> str:
        return str(_refused(TableGame.create, tmp_path, {"names": ["Ann", "Ben"], "lang": lang, **fields}))

    assert refused("de", names=["Ann", "Ann"]) == "Zwei Spieler heißen „Ann“: gebt ihnen verschiedene Namen."
    assert refused("fr", names=[]) == "Entrez les noms des joueurs, un par ligne."
    assert refused("no", options={"target_score": "0"}) == "target_score: «0» går ikke: skriv et heltall fra 1 til 10000."
    assert refused("nl", options={"tie": "coin"}) == "tie: „coin” is geen van de keuzes (Nog een ronde, Gedeelde winst)."
    assert not list(tmp_path.iterdir())
