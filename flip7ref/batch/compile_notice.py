"""One line on standard error when numba compiles the batched kernel (not when it loads it).

numba compiles `flip7ref.batch.kernel` on its first use after an install or an upgrade (a
minute or two of CPU on a small machine) and keeps the result in its disk cache, so later
processes start in seconds.  A first step that sits silent for minutes looks like a hang:
`watch_compiles` registers a listener for numba's ``numba:compile`` event (numba's event API,
`numba.core.event`), which fires when a function is compiled and not when its cached copy is
loaded, and prints `NOTICE` once per process, for the kernel's functions only.
"""

from __future__ import annotations

import sys
from typing import Any

NOTICE = (
    "flip7ref.batch: numba is compiling the batched kernel (its first use after an install or an upgrade: "
    "a minute or two of CPU; later runs load it from numba's disk cache)"
)
KERNEL_MODULE = "flip7ref.batch.kernel"
_STATE: dict[str, bool] = {"watching": False, "told": False}


def _told_of(event: Any) -> None:
    """Print `NOTICE` on standard error the first time ``event`` (a ``numba:compile`` start)
    compiles a function of `KERNEL_MODULE`; nothing for any other module's function."""
    dispatcher = (getattr(event, "data", None) or {}).get("dispatcher")
    module = getattr(getattr(dispatcher, "py_func", None), "__module__", None)
    if module == KERNEL_MODULE and not _STATE["told"]:
        _STATE["told"] = True
        print(NOTICE, file=sys.stderr, flush=True)


def watch_compiles() -> None:
    """Register the listener with numba once per process (a second call does nothing).

    Raises:
        ImportError: numba is not installed (call it for the ``numba`` backend only).
    """
    if _STATE["watching"]:
        return
    from numba.core import event  # type: ignore[import-not-found, unused-ignore]

    class _Listener(event.Listener):  # type: ignore[misc, name-defined, unused-ignore]
        def on_start(self, ev: Any) -> None:
            _told_of(ev)

        def on_end(self, ev: Any) -> None:
            pass

    event.register("numba:compile", _Listener())  # type: ignore[no-untyped-call, unused-ignore]
    _STATE["watching"] = True
