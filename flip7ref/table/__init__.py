"""The table referee: a local web page for a real game of Flip 7 at a real table.

``flip7ref table`` serves it (needs the ``[table]`` extra: Starlette and uvicorn).
The page records each revealed card (referee mode) or deals from a seeded
virtual deck (dealer mode), shows whose decision it is with the legal decisions as
buttons, explains every step with its rule ids, keeps the score pad, undoes and
redoes any step, and saves the game after every step as a transcript.  A manual
mode is only a score pad.  `.session` holds the game logic (no HTTP; `TableGame`
is put together from `.record`, `.files`, `.narration`, `.scorepad`, `.rulings`
and `.views`), `.app` the web application, `.server` the command.
"""

from __future__ import annotations

from flip7ref.proc.install import extra_hint

__all__ = ["MISSING_HINT"]

MISSING_HINT = f"the table referee needs its extra [table] (Starlette, uvicorn, segno): {extra_hint('table')}"
