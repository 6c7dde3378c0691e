"""Build hook: compile the interpreter's core with mypyc when a wheel is built.

``pip install .`` (or ``pip wheel .``) compiles the modules listed in
``[tool.hatch.build.targets.wheel.hooks.custom] compile`` with mypyc through the
``hatch-mypyc`` build hook.  The wheel is pure Python instead when

* the environment variable ``FLIP7REF_PURE`` is set to ``1`` (or ``true``/``yes``),
* the install is editable (``pip install -e .``), or
* the compilation fails, e.g. when no C compiler is available (a warning says so).

``flip7ref.compiled`` tells at run time which build is installed.
"""

from __future__ import annotations

import glob
import os
import sys
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

# mypy type-checks the compiled modules in the build environment: it needs the typed libraries they import.
MYPYC_REQUIRES = ["hatch-mypyc>=0.16", "mypy>=1.10", "mypy_extensions>=1.0", "attrs>=23.1", "types-PyYAML", "types-jsonschema"]


def pure_requested() -> bool:
    """Whether ``FLIP7REF_PURE`` asks for a pure-Python build."""
    return os.environ.get("FLIP7REF_PURE", "").strip().lower() in {"1", "true", "yes", "on"}


class CompiledCoreHook(BuildHookInterface):  # type: ignore[type-arg]
    """Delegates to hatch-mypyc's hook, unless a pure build is asked for or compiling fails."""

    PLUGIN_NAME = "custom"

    def dependencies(self) -> list[str]:
        return [] if pure_requested() else list(MYPYC_REQUIRES)

    def _mypyc_hook(self) -> Any:
        from hatch_mypyc.plugin import MypycBuildHook

        config = {"include": self.config.get("compile", []), "mypy-args": self.config.get("mypy-args", [])}
        return MypycBuildHook(
            self.root, config, self.build_config, self.metadata, self.directory, self.target_name, self.app
        )

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if self.target_name != "wheel" or version == "editable":
            return
        if pure_requested():
            self.app.display_info("flip7ref: FLIP7REF_PURE is set: building pure Python")
            return
        hook = self._mypyc_hook()
        try:
            hook.initialize(version, build_data)
        except Exception as exc:  # no compiler, or mypyc failed: fall back to pure Python
            hook.clean([version])
            first = str(exc).strip().splitlines()
            self.app.display_warning(
                "flip7ref: compiling with mypyc failed, building pure Python instead"
                + (f" ({first[0]})" if first else "")
            )
            print(str(exc), file=sys.stderr)

    def finalize(self, version: str, build_data: dict[str, Any], artifact_path: str) -> None:
        # hatch-mypyc compiles in place; the extension modules are in the wheel now, and left
        # in the source tree they would shadow the .py files of an editable install.
        if self.target_name != "wheel" or version == "editable" or pure_requested():
            return
        patterns = ("flip7ref/*.so", "flip7ref/*.pyd", "flip7ref/*/*.so", "flip7ref/*/*.pyd", "*__mypyc.*.so", "*__mypyc.*.pyd")
        for pattern in patterns:
            for path in glob.glob(os.path.join(self.root, pattern)):
                os.remove(path)
