"""Tests written against mutants of flip7ref/core/scoring.py that survived a mutmut run.

Each test pins a value or an exact error message the earlier tests left loose:
the fields of a score breakdown, the fast path of ``score_points`` against the
full pipeline, pipelines of house-rule tables that leave a step out, and the
messages of ``score_cards``.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from flip7ref import CardError, Game
from flip7ref.core.errors import SpecError
from flip7ref.core.scoring import score_cards, score_line, score_points
from flip7ref.core.spec import spec_dir


def _codes(game: Game, *cards: str) -> list[int]:
    return [game.code(c) for c in cards]


def _variant(tmp_path: Path, old: str, new: str) -> Game:
    """A three-player game of a copy of the Flip 7 table with one text replaced."""
    text = (spec_dir() / "editions" / "flip7.yaml").read_text(encoding="utf-8")
    assert text.count(old) == 1, old
    path = tmp_path / "variant.yaml"
    path.write_text(text.replace(old, new), encoding="utf-8")
    return Game(str(path), 3)


@pytest.mark.rules("F7-050", "F7-100")
def test_explicit_flip7_overrides_the_line() -> None:
    """score_line(flip7=True) gives the bonus to a short line; flip7=False withholds it from seven numbers."""
    g = Game("flip7", 3)
    b = score_line(g, _codes(g, "3", "5"), flip7=True)
    assert (b.flip7, b.bonus, b.score) == (True, 15, 23)
    seven = _codes(g, "0", "1", "2", "3", "4", "5", "6")
    b = score_line(g, seven, flip7=False)
    assert (b.flip7, b.bonus, b.score) == (False, 0, 21)


@pytest.mark.rules("F7-100", "F7-101")
def test_breakdown_fields_of_plain_and_busted_lines() -> None:
    """A line short of a Flip 7 reports bonus 0 and busted False; a busted one busted True and score 0."""
    g = Game("flip7", 3)
    b = score_line(g, _codes(g, "3", "5", "x2", "+4"))
    assert b.bonus == 0 and b.flip7 is False and b.busted is False
    assert (b.numbers, b.multiplied, b.modifiers, b.score) == (8, 16, 4, 20)
    b = score_line(g, _codes(g, "3", "5", "+4"), busted=True)
    assert b.busted is True and b.score == 0 and b.bonus == 0


@pytest.mark.rules("F7-050", "F7-090", "F7-092", "F7-100")
@pytest.mark.parametrize(
    ("cards", "points"),
    [
        (["+10"], 10),  # modifiers alone score (F7-092)
        (["x2"], 0),
        (["+2", "+4"], 6),
        (["0", "1", "2", "3", "4", "5", "6"], 21 + 15),  # seven plain numbers: the bonus
        (["7", "8", "9", "10", "11", "12"], 57),
        ([], 0),
    ],
)
def test_score_points_agrees_with_the_full_pipeline(cards: list[str], points: int) -> None:
    """The fast path of score_points gives what score_line gives, on lines it must send to the full pipeline too."""
    g = Game("flip7", 3)
    line = _codes(g, *cards)
    assert score_points(g, line) == points
    assert score_line(g, line).score == points


@pytest.mark.rules("F7-100")
def test_pipeline_without_sum_numbers_is_refused(tmp_path: Path) -> None:
    """A table whose pipeline never sums the numbers is refused, naming the file and the field."""
    with pytest.raises(SpecError, match=r"variant\.yaml, at /scoring: expected a scoring pipeline with a 'sum_numbers' step"):
        _variant(tmp_path, "  - step: sum_numbers        # (1) add the number cards\n", "")


@pytest.mark.rules("F7-091", "F7-100")
def test_pipeline_without_multiply_reports_the_plain_sum(tmp_path: Path) -> None:
    """Without a multiply step an x2 does nothing and ``multiplied`` is the number sum."""
    g = _variant(tmp_path, "  - step: multiply           # (2) x2 doubles the number sum only (F7-091)\n", "")
    b = score_line(g, _codes(g, "3", "5", "x2", "+4"))
    assert (b.numbers, b.multiplied, b.modifiers, b.score) == (8, 8, 4, 12)


def test_score_cards_wants_a_list() -> None:
    """A set or a string of card names is refused with the message naming what came."""
    g = Game("flip7", 3)
    with pytest.raises(CardError) as info:
        score_cards(g, {"3"})  # type: ignore[arg-type]
    assert str(info.value) == "expected a list of card names, got {'3'}"
    with pytest.raises(CardError) as info:
        score_cards(g, "35")
    assert str(info.value) == "expected a list of card names, got '35'"


@pytest.mark.rules("F7-040", "F7-050")
def test_score_cards_messages_name_the_impossible_line() -> None:
    """The duplicate message names both cards; more than seven numbers is refused."""
    g = Game("flip7", 3)
    with pytest.raises(CardError) as info:
        score_cards(g, ["3", "5", "3"])
    assert str(info.value) == "line holds number 3 twice ('3' and '3'): that player would have busted"
    with pytest.raises(CardError) as info:
        score_cards(g, ["0", "1", "2", "3", "4", "5", "6", "7"])
    assert str(info.value) == "line holds more than 7 numbers: the round ends at a Flip 7"


@pytest.mark.rules("F7-002", "F7-123")
def test_score_cards_copy_limit_grows_with_the_decks() -> None:
    """With two decks a line may hold two x2 cards but not three; with one deck only one."""
    one = Game("flip7", 3)
    two = Game("flip7", 3, {"decks": 2})
    assert two.decks == 2
    assert score_cards(two, ["3", "x2"]).score == 6
    assert score_cards(two, ["3", "x2", "x2"]).score == 12
    with pytest.raises(CardError) as info:
        score_cards(two, ["3", "x2", "x2", "x2"])
    assert str(info.value) == "line holds 3 copies of 'x2' but the deck has only 2"
    with pytest.raises(CardError) as info:
        score_cards(one, ["3", "x2", "x2"])
    assert str(info.value) == "line holds 2 copies of 'x2' but the deck has only 1"


@pytest.mark.rules("F7-090", "F7-091", "F7-092", "V-051", "V-052")
@pytest.mark.parametrize(
    ("edition", "options"),
    [("flip7", {}), ("vengeance", {}), ("vengeance", {"brutal": "true"}), ("flip7", {"flip7_bonus": "all-non-busted"})],
)
@given(data=st.data())
def test_score_points_fast_path_is_the_pipeline(edition: str, options: dict[str, str], data: st.DataObject) -> None:
    """On any line of numbers and modifiers (and the odd action or trait card), the
    fast path of score_points gives the full pipeline's score."""
    g = Game(edition, 3, options)
    kinds = sorted(set(g.deck))
    line = data.draw(st.lists(st.sampled_from(kinds), max_size=12))
    assert score_points(g, line) == score_line(g, line).score
    flip7 = data.draw(st.sampled_from([None, False, True]))
    bonus = data.draw(st.sampled_from([None, False, True]))
    assert score_points(g, line, flip7=flip7, bonus=bonus) == score_line(g, line, flip7=flip7, bonus=bonus).score


@pytest.mark.rules("F7-091", "V-052")
def test_score_points_with_modifiers_exact_values() -> None:
    """Modifiers on the fast path: x2 doubles the numbers only, ÷2 rounds down in line
    order, negatives floor at zero unless Brutal Mode."""
    g = Game("flip7", 3)
    assert score_points(g, _codes(g, "3", "5", "x2", "+4")) == 20
    assert score_points(g, _codes(g, "x2", "+10", "12")) == 34
    v = Game("vengeance", 3)
    assert score_points(v, _codes(v, "7", "/2")) == 3
    assert score_points(v, _codes(v, "3", "-10")) == 0
    b = Game("vengeance", 3, {"brutal": "true"})
    assert score_points(b, _codes(b, "3", "-10")) == -7
    assert score_points(b, _codes(b, "5", "/2", "-2")) == 0
    # the Flip 7 bonus given by the caller: after the floor, never doubled (F7-050, D-F7-24)
    assert score_points(g, _codes(g, "x2", "3"), flip7=True) == 6 + 15
    assert score_points(v, _codes(v, "3", "-10"), flip7=True) == 0 + 15
    assert score_points(g, _codes(g, "3", "4"), flip7=True, bonus=False) == 7
    assert score_points(g, _codes(g, "3", "4"), bonus=True) == 7 + 15
