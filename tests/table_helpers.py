"""What the table referee's API tests share (tests/test_table_api.py, test_table_hostile.py,
test_table_words.py)."""

from __future__ import annotations

import importlib.util
import os
import warnings

import pytest


def require_table_extra() -> None:
    """Skip the calling test module when the ``[table]`` extra (Starlette, and httpx for its
    TestClient) is not installed; in CI (``CI`` set), which installs it, fail instead.
    Call it at module level, before importing from ``starlette`` or ``flip7ref.table.app``."""
    warnings.filterwarnings("ignore", message="Using `httpx` with `starlette.testclient`")
    missing = [name for name in ("httpx", "starlette") if importlib.util.find_spec(name) is None]
    if missing:
        if os.environ.get("CI"):
            raise ImportError(f"the [table] extra is not installed (no {', '.join(missing)})")
        pytest.skip(f"the [table] extra is not installed (no {', '.join(missing)})", allow_module_level=True)
