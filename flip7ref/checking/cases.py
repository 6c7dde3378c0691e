"""The shape of one conformance case, shared by the modules that read cases.

A case is a mapping parsed from a case file (``conformance/cases``) and validated against
``spec/schema/case.schema.json``: its ``id``, ``edition``, ``rules``, ``setup``, ``actions``
and ``expect`` keys. `flip7ref.checking.conformance` loads cases and re-exports `Case`;
`flip7ref.checking.perft` reads them too, without importing conformance (which imports it).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

Case = Mapping[str, Any]
"""One conformance case as read from its file (a mapping of the case schema's keys)."""
