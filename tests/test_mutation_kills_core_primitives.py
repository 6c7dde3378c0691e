"""Tests written against surviving mutants of the new core (issue 15, docs/mutation-testing.md): primitives."""

from __future__ import annotations
