"""Differential fuzzing of an engine against the reference (``flip7ref conformance fuzz``).

Random seeded games are played on the reference and, in lockstep, on an engine speaking the
protocol (conformance/PROTOCOL.md): after every decision the game so far is sent to the engine
as a case (its setup and the actions up to there) and the engine's outcome is judged by the
harness's own functions (`flip7ref.checking.verdict.prepare`, `verdict`, `failed`: the same readings,
the same comparison, the same blame as ``conformance run``).  The reference is the authority.

A game (`Trial`) is a fresh round dealt from a stacked pile or, for an engine playing positions,
a table in the middle of a round: an edition the engine plays, its readings drawn from those the
engine declares, a player count it supports (three or more when it can), a dealer, sometimes
starting totals near the target (so games end) and one random strategy per seat.  The games come
from a portfolio of generators (`.portfolio`), each given a fair share of the engine's work:
random piles; the tables of the suite's own cases (`.corpus`); tables near Flip 7s; fresh deals
built around one special card kind of the edition table, which comes soon, with others of its
rank or among the action cards; and tables where a held special card meets the next draws
(`.cards`).  Its decisions are kept as indices into the legal actions, so a changed setup
replays into another legal game.

A run keeps going after a difference: each distinct one (its first blamed rule and shape: the
verdict and the first key wrong, `finding_key`) is a `Finding`; a later game showing one again
counts a repeat, so each bug of an engine with several is its own finding.  Each
finding's game is shrunk (`shrink`): fewer players, a later start (the round
of the difference, or, for an engine playing positions, one of the last Hit-or-Stay offers before
it), fewer cards in the pile, fewer and simpler decisions, the table's default readings, while it
still differs; the smallest is written as a case file of the suite's own format
(``case.schema.json``) with the reference's expected outcome and the blamed rule.

The modules: `.games` (`Trial`, `play`), `.portfolio` (`SOURCES`, `Portfolio`, `generate`),
`.cards` (the card scenes), `.corpus` (games from the suite's cases), `.lockstep` (`Lockstep`: a step checked
on the engine), `.shrink` and `.run` (`fuzz`, the case written); every public name is
re-exported here.

An engine fault (a hang, an exit, a malformed or oversized line) is no rule difference: it ends
its game and is reported on its own (`EngineFault`), without a case.  Once a game has ended only
how it ended is compared (`AT_END_KEYS`).

How a reshuffled pile is ordered is the engine's business (PROTOCOL.md): a game is compared up to
the first shuffle whose order matters (a reshuffle of cards that are not all alike, a fresh shuffle
between rounds); at that step only the events up to the shuffle are compared, and the game ends.
"""

from flip7ref.checking.engine_process import MAX_FAULTS
from flip7ref.checking.fuzz.games import MAX_DECISIONS, MAX_ROUNDS, MIN_PLAYERS, Played, Trial, play, player_range
from flip7ref.checking.fuzz.lockstep import Check, EngineFault, Found, Lockstep, step_case
from flip7ref.checking.fuzz.portfolio import SOURCES, Portfolio, Source, generate, sources_for
from flip7ref.checking.fuzz.run import (
    Finding,
    Report,
    differing_keys,
    final_case,
    finding_key,
    fuzz,
    known_editions,
    write_case,
)
from flip7ref.checking.fuzz.shrink import SHRINK_CANDIDATES, shrink
from flip7ref.checking.lockstep import AT_END_KEYS, OUTCOME_KEYS

__all__ = [
    "AT_END_KEYS",
    "MAX_DECISIONS",
    "MAX_FAULTS",
    "MAX_ROUNDS",
    "MIN_PLAYERS",
    "OUTCOME_KEYS",
    "SHRINK_CANDIDATES",
    "SOURCES",
    "Check",
    "EngineFault",
    "Finding",
    "Found",
    "Lockstep",
    "Played",
    "Portfolio",
    "Report",
    "Source",
    "Trial",
    "differing_keys",
    "final_case",
    "finding_key",
    "fuzz",
    "generate",
    "known_editions",
    "play",
    "player_range",
    "shrink",
    "sources_for",
    "step_case",
    "write_case",
]
