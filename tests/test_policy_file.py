"""Stored solo policies (`flip7ref.analysis.policyfile`, ``solve --policy-out``, ``odds
--policy``): every decision and value read back from the file equals a fresh solve at that
line, under the rules' turn and the published one; the whole turn from the deal; a file of
another edition, deck or turn model, or damaged, or cut short, refused with a one-line error
naming the file and the field; the command line."""

from __future__ import annotations

import json
import re
import struct
import sys
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from flip7ref import Game
from flip7ref.analysis import load_policy, solo_deck_position, write_policy
from flip7ref.core.errors import CardError, SpecError
from flip7ref.core.state import State

compact = pytest.importorskip("flip7ref.analysis.compact")
np = pytest.importorskip("numpy")

GAME = Game("flip7", 1)
RULES_DECK = ["0", "1", "2", "3", "5", "x2", "+4", "second_chance"]  # 17 cards
PUBLISHED_DECK = ["0", "1", "2", "3", "5", "x2", "second_chance", "flip_three", "freeze"]  # 22 cards


def _solve(tmp_path: Path, categories: list[str], turn: str, ties: str = "hit") -> tuple[Any, Any, Path]:
    state = solo_deck_position(GAME, categories)
    solver = compact.CompactSolver(turn_model=turn, ties=ties, keep_values=True)
    result = solver.solve(state)
    path = tmp_path / f"{turn}.policy"
    size = write_policy(path, GAME, categories, turn, ties, solver.value_layers, result)
    assert size == path.stat().st_size
    return solver, result, path


def _decisions(categories: list[str]) -> Iterator[tuple[list[str], list[str], State]]:
    """Every offer of the solo turn over ``categories`` reached without an action card other
    than Second Chance, as ``(line, seen, the offer's state with the rest of that deck in the
    pile)``, found by drawing each card in turn: a duplicate number with a Second Chance held
    sends both to ``seen``, a second Second Chance drawn while one is held goes there too."""
    pile = [GAME.card_ids[c] for c in solo_deck_position(GAME, categories).draw]
    found: set[tuple[tuple[str, ...], tuple[str, ...]]] = set()
    todo: list[tuple[list[str], list[str], list[str]]] = [([], [], [])]  # (line, kept, gone)
    while todo:
        line, kept, gone = todo.pop()
        rest = list(pile)
        for card in (*line, *kept, *gone):
            rest.remove(card)
        for card in sorted(set(rest)):
            if card in ("freeze", "flip_three"):
                continue
            nline, nkept, ngone = list(line), list(kept), list(gone)
            if card == "second_chance":
                (ngone if nkept else nkept).append(card)
            elif card in nline and card.isdigit():
                if not nkept:
                    continue  # a bust
                ngone += [card, nkept.pop()]
            else:
                nline.append(card)
            if sum(1 for c in nline if c.isdigit()) >= 7:
                continue  # Flip 7
            key = (tuple(sorted(nline + nkept)), tuple(sorted(ngone)))
            if key not in found:
                found.add(key)
                todo.append((nline, nkept, ngone))
                yield nline + nkept, ngone, _offer(nline, nkept, ngone, pile)


def _offer(line: list[str], kept: list[str], gone: list[str], pile: list[str]) -> State:
    rest = list(pile)
    for card in (*line, *kept, *gone):
        rest.remove(card)
    return GAME.new_position(lines={0: line}, kept={0: kept}, discard=gone, draw=rest, rest="out", seed=None,
                             totals=[GAME.target_score])  # fmt: skip


@pytest.mark.parametrize("ties", ["hit", "stay"])
def test_rules_turn_round_trip(tmp_path: Path, ties: str) -> None:
    _, result, path = _solve(tmp_path, RULES_DECK, "rules", ties)
    policy = load_policy(path)
    policy.verify()
    deal = policy.query("")
    assert deal.forced and deal.best == "hit" and deal.stay is None
    assert (deal.hit, deal.p_bust, deal.p_flip7) == (result.value, result.bust, result.flip7)
    assert policy.root == {"value": result.value, "bust": result.bust, "flip7": result.flip7, "states": result.states}
    checked = 0
    for line, seen, state in _decisions(RULES_DECK):
        fresh = compact.CompactSolver(ties=ties)
        whole = fresh.solve(state)
        hit, stay, hits = fresh._root
        got = policy.query(line, seen)
        assert got.hit == pytest.approx(hit, abs=1e-12) and got.stay == stay, (line, seen)
        assert got.best == ("hit" if hits else "stay"), (line, seen)
        assert (got.p_bust, got.p_flip7) == pytest.approx((whole.bust, whole.flip7), abs=1e-12)
        assert policy.action_values(line, seen) == {"hit": got.hit, "stay": got.stay}
        assert policy.best_action(line, seen) == got.best
        assert (policy.p_bust(line, seen), policy.p_flip7(line, seen)) == (got.p_bust, got.p_flip7)
        checked += 1
    assert checked == policy.states - 1  # every state stored but the deal's first card


def test_published_turn_round_trip(tmp_path: Path) -> None:
    solver, result, path = _solve(tmp_path, PUBLISHED_DECK, "published")
    policy = load_policy(path)
    deal = policy.query([])
    assert (deal.hit, deal.p_bust, deal.p_flip7) == (result.value, result.bust, result.flip7)
    assert policy.header["modes"] == 4 and policy.states == sum(len(k) for k, _, _ in solver.value_layers)
    pile = [GAME.card_ids[c] for c in solo_deck_position(GAME, PUBLISHED_DECK).draw]
    checked = 0
    for line, seen, state in _decisions(PUBLISHED_DECK):
        for flips in (["flip_three"] * n for n in range(4)):
            kept = [c for c in line if c == "second_chance"]
            offer = _offer([c for c in line if c != "second_chance"], kept, [*seen, *flips], pile)
            fresh = compact.CompactSolver(turn_model="published")
            want = fresh.solve(offer)
            got = policy.query(line, [*seen, *flips])
            assert got.flip_threes == len(flips)
            assert got.best == ("hit" if bool(fresh.published_policy[0][1][0, 0]) else "stay"), (line, seen, flips)
            best = got.hit if got.best == "hit" else got.stay
            assert best == pytest.approx(want.value, abs=1e-12), (line, seen, flips)
            assert (got.p_bust, got.p_flip7) == pytest.approx((want.bust, want.flip7), abs=1e-12)
            checked += 1
        del state
    with pytest.raises(CardError, match=r"^'freeze' among the cards seen: no decision of the stored published turn follows it$"):
        policy.query("3", "freeze")
    assert checked == 4 * (policy.states - 1)  # every free mode of every state but the deal's


def test_a_line_the_file_does_not_hold(tmp_path: Path) -> None:
    _, _, path = _solve(tmp_path, RULES_DECK, "rules")
    policy = load_policy(path)
    with pytest.raises(CardError, match=r"^line 3,5 with 2 seen: not a decision of the stored policy \(no play of the "
                       r"rules turn over its 17 cards reaches it\)$"):  # fmt: skip
        policy.query("3,5", "2")
    with pytest.raises(CardError, match=r"^'4': the stored deck \(17 cards\) holds 0, the line and the cards seen 1$"):
        policy.query("4")
    with pytest.raises(CardError, match="number 3 twice"):
        policy.query(["3", "3"])
    with pytest.raises(CardError, match=r"^'freeze': the stored deck \(17 cards\) holds 0, the line and the cards seen 1"):
        policy.query("3", "freeze")


def _rewrite(path: Path, change: dict[str, Any]) -> None:
    """Change header fields of a policy file, keeping its CRC right and its header's length."""
    raw = path.read_bytes()
    magic, fmt, size, _, zero = struct.unpack("<8sIIII", raw[:24])
    header = json.loads(raw[24 : 24 + size])
    header.update(change)
    text = json.dumps(header, sort_keys=True).encode()
    assert len(text) <= size
    text += b" " * (size - len(text))
    path.write_bytes(struct.pack("<8sIIII", magic, fmt, size, zlib.crc32(text), zero) + text + raw[24 + size :])


def test_refusals(tmp_path: Path) -> None:
    _, _, path = _solve(tmp_path, RULES_DECK, "rules")
    with pytest.raises(SpecError) as err:
        load_policy(path, turn_model="published")
    assert str(err.value) == f'{path}, at /turn_model: expected turn_model "published" as asked, found "rules"'
    with pytest.raises(SpecError, match=r"at /categories: expected categories \[\"number\"\] as asked"):
        load_policy(path, categories=["number"])
    assert load_policy(path, categories=list(reversed(RULES_DECK)), edition="flip7", options={}).states > 0
    with pytest.raises(SpecError, match=r"at /edition: expected edition \"vengeance\" as asked, found \"flip7\"$"):
        load_policy(path, edition="vengeance")
    changed = tmp_path / "changed.policy"
    changed.write_bytes(path.read_bytes())
    deck = json.loads(changed.read_bytes()[24 : 24 + struct.unpack("<I", changed.read_bytes()[12:16])[0]])["deck_cards"]
    _rewrite(changed, {"deck_cards": {**deck, "5": 4}})
    with pytest.raises(SpecError, match=r"changed.policy, at /deck_cards: expected the deck the edition table gives now"):
        load_policy(changed)
    changed.write_bytes(path.read_bytes())
    _rewrite(changed, {"key": {**json.loads(json.dumps(load_policy(path).header["key"])), "extra_bits": 3}})
    with pytest.raises(SpecError, match=r"at /key/extra_bits: expected 2 as the edition table gives now, found 3$"):
        load_policy(changed)
    cut = tmp_path / "cut.policy"
    whole = path.read_bytes()
    cut.write_bytes(whole[:-100])
    with pytest.raises(SpecError) as err:
        load_policy(cut)
    assert str(err.value) == (f"{cut}: expected {len(whole):,} bytes as its header says, found {len(whole) - 100:,} "
                              "(the file is cut short)")  # fmt: skip
    cut.write_bytes(whole[:40])
    with pytest.raises(SpecError, match=r"cut.policy: expected a header matching its CRC-32 \(the file is damaged or cut short"):
        load_policy(cut)
    damaged = tmp_path / "damaged.policy"
    damaged.write_bytes(whole[:30] + bytes([whole[30] ^ 1]) + whole[31:])
    with pytest.raises(SpecError, match="header matching its CRC-32"):
        load_policy(damaged)
    damaged.write_bytes(whole[:-20] + bytes([whole[-20] ^ 1]) + whole[-19:])
    opened = load_policy(damaged)
    with pytest.raises(SpecError, match=r"damaged.policy, at /arrays/hit_values: expected the bytes its CRC-32 names"):
        opened.verify()
    other = tmp_path / "other.policy"
    other.write_bytes(b"not a policy file at all, just text\n")
    with pytest.raises(SpecError) as err:
        load_policy(other)
    assert str(err.value) == f"{other}: expected a flip7ref policy file (written by flip7ref solve --policy-out)"
    with pytest.raises(SpecError, match="an existing policy file"):
        load_policy(tmp_path / "missing.policy")
    with pytest.raises(SpecError, match="found a folder"):
        load_policy(tmp_path)


def test_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from flip7ref.cli import main

    path = tmp_path / "p.policy"
    cards = ",".join(PUBLISHED_DECK)
    line = ["solve", "--cards", cards, "--turn-model", "published", "--policy-out", str(path)]
    assert main([*line, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    policy = load_policy(path)
    assert data["policy_out"] == str(path) and data["policy_bytes"] == path.stat().st_size
    assert (data["value"], data["bust"], data["flip7"]) == (policy.root["value"], policy.root["bust"], policy.root["flip7"])
    assert main(["odds", "--policy-file", str(path), "--line", "3,x2", "--seen", "flip_three", "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    want = policy.query("3,x2", "flip_three")
    assert got["best"] == want.best and got["values"] == {"hit": want.hit, "stay": want.stay} and got["flip_threes"] == 1
    assert (got["bust"], got["flip7"], got["turn_model"], got["deck"]) == (want.p_bust, want.p_flip7, "published", 22)
    assert main(["odds", "--policy-file", str(path), "--line", "3,x2"]) == 0
    out = capsys.readouterr().out.splitlines()
    a = policy.query("3,x2")
    assert out[0] == f"policy file        {path}: flip7, {cards} (22 cards), published turn, ties hit"
    assert out[1:] == [
        "line               3 x2",
        f"best               {a.best}",
        f"  hit              {a.hit:.10f}  P(bust) {a.hit_bust:.10f}  P(Flip 7) {a.hit_flip7:.10f}",
        "  stay             6.0000000000",
        f"under the policy   P(bust) {a.p_bust:.10f}  P(Flip 7) {a.p_flip7:.10f} (from here to the end of the turn)",
    ]
    assert main(["odds", "--policy-file", str(path), "--line", "3", "--turn-model", "rules"]) == 2
    assert capsys.readouterr().err == (f'flip7ref: error: {path}, at /turn_model: expected turn_model "rules" as asked, '
                                       'found "published"\n')  # fmt: skip
    assert main(["odds", "--policy-file", str(path), "--line", "3", "--cards", "numbers"]) == 2
    assert "at /categories" in capsys.readouterr().err
    path.write_bytes(path.read_bytes()[:1000])
    assert main(["odds", "--policy-file", str(path), "--line", "3"]) == 2
    assert capsys.readouterr().err.count("\n") == 1
    assert main(["odds", "--line", "3", "--turn-model", "rules"]) == 2
    assert "--turn-model: odds takes it with --policy-file FILE only" in capsys.readouterr().err
    assert main(["solve", "--cards", "numbers", "--solver", "interpreter", "--policy-out", str(path)]) == 2
    assert "--policy-out: only the compact solver" in capsys.readouterr().err
    assert main(["solve", "--cards", "numbers", "--policy-out", str(tmp_path / "no" / "p")]) == 2
    assert "does not exist" in capsys.readouterr().err


def test_without_numpy_policy_out_and_odds_policy_say_numpy_is_missing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Without the [analysis] extra, ``solve --policy-out`` names NumPy (not flags the user did not give) and
    ``odds --policy-file`` does not suggest ``--solver interpreter`` (no other solver reads a policy file)."""
    from flip7ref.cli import main

    path = tmp_path / "p.policy"
    assert main(["solve", "--cards", "numbers", "--policy-out", str(path)]) == 0
    capsys.readouterr()
    monkeypatch.setitem(sys.modules, "numpy", None)  # import numpy raises ImportError
    hint = ("pip install 'numpy>=1.24' (keeps the installed flip7ref); or, from a checkout, flip7ref and the extra: "
            "pip install '.[analysis]' (builds flip7ref again)")  # fmt: skip
    assert main(["solve", "--cards", "numbers", "--policy-out", str(tmp_path / "q.policy")]) == 2
    assert capsys.readouterr().err == f"flip7ref: error: --policy-out: the compact solver needs NumPy ({hint})\n"
    assert not (tmp_path / "q.policy").exists()
    assert main(["odds", "--policy-file", str(path), "--line", "3,11"]) == 2
    assert capsys.readouterr().err == f"flip7ref: error: a policy file needs NumPy ({hint})\n"
    assert main(["solve", "--cards", "numbers", "--solver", "compact"]) == 2
    assert capsys.readouterr().err == (
        f"flip7ref: error: --solver compact: the compact solver needs NumPy ({hint}), or use --solver interpreter\n"
    )


@pytest.mark.parametrize("flags", [["--exact"], ["--ties", "stay"], ["--workers", "2"], ["--solver", "interpreter"],
                                   ["--max-states", "10"], ["--max-seconds", "5"]])  # fmt: skip
def test_odds_policy_refuses_the_flags_of_a_solve(flags: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``odds --policy-file`` solves nothing: a flag of the solve is refused, not silently ignored."""
    from flip7ref.cli import main

    path = tmp_path / "p.policy"
    assert main(["solve", "--cards", "numbers", "--policy-out", str(path)]) == 0
    capsys.readouterr()
    assert main(["odds", "--policy-file", str(path), "--line", "3,11", *flags]) == 2
    assert capsys.readouterr().err == (
        f"flip7ref: error: {flags[0]}: odds --policy-file FILE answers from the file without solving; it takes --line, "
        "--seen, --cards, --edition, --option, --turn-model and --json\n"
    )


def _rewrite_with(path: Path, change: Any) -> None:
    """Change the header of a policy file with ``change(header)``, keeping its CRC right and
    its header's length (so the arrays stay where they were)."""
    raw = path.read_bytes()
    magic, fmt, size, _, zero = struct.unpack("<8sIIII", raw[:24])
    header = json.loads(raw[24 : 24 + size])
    change(header)
    text = json.dumps(header, sort_keys=True).encode()
    assert len(text) <= size
    text += b" " * (size - len(text))
    path.write_bytes(struct.pack("<8sIIII", magic, fmt, size, zlib.crc32(text), zero) + text + raw[24 + size :])


@pytest.mark.parametrize(
    ("change", "field", "expected"),
    [
        # An object dtype read the arrays' bytes as pointers: the process died (SIGSEGV).
        (lambda h: h["arrays"][0].update(dtype="|O"), "/arrays/0/dtype", 'expected "<u8" for keys, found "|O"'),
        # Another numeric dtype was taken as it came: the bytes read as other values.
        (lambda h: h["arrays"][1].update(dtype="<f8"), "/arrays/1/dtype", 'expected "|u1" for hit, found "<f8"'),
        (lambda h: h["arrays"][0].update(offset=7), "/arrays/0/offset",
         "expected a whole number of at least 0, a multiple of 64"),
        (lambda h: h["arrays"][0].update(shape=[1.5]), "/arrays/0/shape", "expected 1 whole numbers of at least 0"),
        (lambda h: h["arrays"].__setitem__(1, h["arrays"][0]), "/arrays/1",
         "expected an object named keys, hit or hit_values, each once"),
        (lambda h: h.pop("modes"), "/modes", "expected a whole number of at least 0"),
        (lambda h: h.update(key="x"), "/key", "expected a JSON object"),
        (lambda h: h.update(root=5), "/root", "expected a JSON object"),
        (lambda h: h["root"].update(value="nan"), "/root/value", "expected a number"),
        (lambda h: h.update(ties="x"), "/ties", "expected one of hit, stay"),
        (lambda h: h.update(turn_model="x"), "/turn_model", "expected one of rules, published"),
        (lambda h: h.update(deck=[]), "/deck", "expected a whole number of at least 0"),
    ],
)  # fmt: skip
def test_damaged_header_fields(tmp_path: Path, capsys: pytest.CaptureFixture[str], change: Any, field: str,
                               expected: str) -> None:  # fmt: skip
    """A header with a field of the wrong type or range, its CRC right, is refused in one line
    naming the field (before: tracebacks, a crash, or arrays read as another dtype)."""
    from flip7ref.cli import main

    _, _, path = _solve(tmp_path, RULES_DECK, "rules")
    _rewrite_with(path, change)
    with pytest.raises(SpecError) as err:
        load_policy(path)
    assert str(err.value) == f"{path}, at {field}: {expected}"
    assert main(["odds", "--policy-file", str(path), "--line", "3"]) == 2
    assert capsys.readouterr().err == f"flip7ref: error: {path}, at {field}: {expected}\n"


def test_a_bad_seen_card_is_named_with_the_seen_cards(tmp_path: Path) -> None:
    """An unknown card given as seen was reported as ``line 5: unknown card 'zz'`` (the line
    blamed), and a seen card no play leaves gone said only ``more cards seen than ...``."""
    _, _, path = _solve(tmp_path, ["number"], "rules")
    policy = load_policy(path)
    with pytest.raises(CardError) as err:
        policy.query("5", "zz")
    assert str(err.value).startswith("line 5 with zz seen: unknown card 'zz' in edition flip7")
    with pytest.raises(CardError) as err:
        policy.query("5", "3")
    assert str(err.value) == "line 5 with 3 seen: more cards seen than the stored rules turn can leave gone"


def test_odds_policy_is_the_deprecated_name_of_policy_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``odds --policy FILE`` (the name ``solve --policy`` gives a strategy) still answers this
    release, the same as ``--policy-file FILE``, with a one-line note on stderr; both at once are refused."""
    from flip7ref.cli import main

    path = tmp_path / "p.policy"
    assert main(["solve", "--cards", "numbers", "--policy-out", str(path), "--json"]) == 0
    capsys.readouterr()
    assert main(["odds", "--policy-file", str(path), "--line", "3,11,12,5", "--json"]) == 0
    new = capsys.readouterr()
    assert new.err == ""
    assert main(["odds", "--policy", str(path), "--line", "3,11,12,5", "--json"]) == 0
    old = capsys.readouterr()
    assert old.out == new.out and json.loads(old.out)["best"] == "stay"
    assert old.err == (f"flip7ref: note: odds --policy FILE is deprecated (solve --policy names a strategy): "
                       f"use --policy-file {path}\n")  # fmt: skip
    assert main(["odds", "--policy", str(path), "--policy-file", str(path), "--line", "3"]) == 2
    assert capsys.readouterr().err == (
        "flip7ref: error: --policy: give the policy file with --policy-file FILE only (--policy is its old name)\n"
    )


def test_solve_names_the_new_flag_and_odds_help_describes_the_policy_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``solve --policy-out`` prints the ``odds --policy-file`` command that reads the file; ``odds --help``
    says what a policy file is, how ``solve --policy-out`` makes one and which flags it refuses,
    and does not show the deprecated ``--policy``."""
    from flip7ref.cli import main

    path = tmp_path / "p.policy"
    assert main(["solve", "--cards", "numbers", "--policy-out", str(path)]) == 0
    out = capsys.readouterr().out.splitlines()
    size = path.stat().st_size
    assert out[-1] == f"policy written     {path} ({size:,} bytes; flip7ref odds --policy-file {path})"
    monkeypatch.setenv("COLUMNS", "2000")  # one line a paragraph
    with pytest.raises(SystemExit) as done:
        main(["odds", "--help"])
    assert done.value.code == 0
    help_text = capsys.readouterr().out
    assert help_text.splitlines()[-1] == (
        "With --policy-file FILE, odds solves nothing: it answers from a policy file, the optimal solo policy of one "
        "deck stored with every decision, its values, P(bust) and P(Flip 7). Make one with flip7ref solve --cards "
        "CARDS --policy-out FILE (the compact solver; NumPy, the [analysis] extra), e.g. flip7ref solve --cards "
        "numbers --policy-out numbers.policy, then flip7ref odds --policy-file numbers.policy --line 3,11,12,5. It "
        "takes --line, --seen, --cards, --edition, --option, --turn-model and --json; the file's edition, options, "
        "cards and turn model must match them; it refuses --exact, --max-states, --max-seconds, --ties, --workers "
        "and --solver (exit status 2). The older spelling odds --policy FILE still works this release, with a note "
        "on stderr."
    )
    usage, options = help_text.split("\n\n")[0], help_text.split("options:")[1].split("\n\n")[0]
    assert "[--policy-file FILE]" in usage and "--policy FILE" not in usage
    assert "--policy-file FILE" in options and not re.search(r"^  --policy ", options, re.M)
