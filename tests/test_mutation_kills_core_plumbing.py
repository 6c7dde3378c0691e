"""Tests written against surviving mutants of the new core (issue 15, docs/mutation-testing.md): plumbing."""

from __future__ import annotations
