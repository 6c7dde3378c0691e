"""The ``dispute`` and ``explain`` commands: disputes played out, positions explained.

``flip7ref dispute`` lists the disputed points of the edition tables;
``flip7ref dispute ID`` shows one with its readings and then plays every
conformance case attached to it under every reading of its option, side by side,
so that the difference between the readings is seen rather than argued.

``flip7ref explain --case ID`` (or ``--transcript FILE``) walks a case or a game
transcript step by step in plain words, naming for every event the rule ids
behind it.  Those come from the ``events`` section of the edition table (event
type -> rule ids; see `event_rules`).

The package's modules, one job each (every public name is re-exported here):
`.catalogue` (the disputes, `find_dispute`, `attached_cases`), `.runs` (a case
played, `run_case`, `play_readings`, `find_case`), `.side_by_side` (`outcome_rows`,
`reading_table`), `.steps` (`walk`, `explain_case`, `explain_transcript`) and
`.commands` (the ``dispute`` and ``explain`` commands).
"""

from __future__ import annotations

from flip7ref.checking.catalogue import Dispute, DisputeReading, attached_cases, disputes, find_dispute
from flip7ref.checking.replay import event_rules  # re-exported: its home was this module
from flip7ref.checking.runs import Run, find_case, play_readings, run_case, with_option
from flip7ref.explore.commands import cmd_dispute, cmd_explain, register
from flip7ref.explore.side_by_side import outcome_rows, reading_table
from flip7ref.explore.steps import Step, explain_case, explain_transcript, walk

__all__ = [
    "Dispute",
    "DisputeReading",
    "Run",
    "Step",
    "attached_cases",
    "cmd_dispute",
    "cmd_explain",
    "disputes",
    "event_rules",
    "explain_case",
    "explain_transcript",
    "find_case",
    "find_dispute",
    "outcome_rows",
    "play_readings",
    "reading_table",
    "register",
    "run_case",
    "walk",
    "with_option",
]
