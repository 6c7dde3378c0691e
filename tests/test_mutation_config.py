"""The mutation-testing configuration is valid (docs/mutation-testing.md).

The mutation run itself is too slow for CI; these checks make sure that when someone runs
``python tools/mutation.py run`` the module list, the test selection and the copied folders
still name files that exist, and that mutmut's workspace stays out of git.
"""

from __future__ import annotations

import importlib.util
import sys
import tomllib
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _tool() -> ModuleType:
    spec = importlib.util.spec_from_file_location("flip7ref_mutation_tool", ROOT / "tools" / "mutation.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _config() -> dict[str, object]:
    table = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["mutmut"]
    assert isinstance(table, dict)
    return table


def test_every_module_to_mutate_exists_inside_the_package() -> None:
    config = _config()
    assert config["source_paths"] == ["flip7ref"]
    modules = _tool().configured_modules(ROOT)
    assert modules, "only_mutate names no module"
    for path in modules:
        assert path.startswith("flip7ref/") and path.endswith(".py"), path
        assert (ROOT / path).is_file(), path


def test_a_stale_module_pattern_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.mutmut]\nonly_mutate = ["flip7ref/gone.py"]\n', encoding="utf-8")
    with pytest.raises(SystemExit, match=r"only_mutate: 'flip7ref/gone.py' matches no file"):
        _tool().configured_modules(tmp_path)


def test_selected_tests_and_copied_folders_exist_and_exclude_the_slow_ones() -> None:
    config = _config()
    selection = config["pytest_add_cli_args_test_selection"]
    assert isinstance(selection, list) and selection
    for arg in selection:
        path = str(arg).removeprefix("--deselect=").split("::")[0]
        assert (ROOT / path).is_file(), arg
    # kept out on purpose: minutes per surviving mutant, or a browser / cluster / docs build
    for slow in ("test_state_machine.py", "test_table_browser.py", "test_cluster.py", "test_site.py", "test_docs.py"):
        assert f"tests/{slow}" not in selection, slow
    also_copy = config["also_copy"]
    assert isinstance(also_copy, list)
    for folder in also_copy:
        assert (ROOT / str(folder)).is_dir(), folder


def test_mutants_folder_is_git_ignored() -> None:
    lines = (ROOT / ".gitignore").read_text(encoding="utf-8").splitlines()
    assert "mutants/" in lines or "/mutants/" in lines


@pytest.mark.parametrize(
    ("path", "module"),
    [
        ("flip7ref/core/game.py", "flip7ref.core.game"),
        ("flip7ref/core/primitives/swap.py", "flip7ref.core.primitives.swap"),
        ("flip7ref/core/primitives/__init__.py", "flip7ref.core.primitives"),
    ],
)
def test_module_names_match_mutmut_mutant_names(path: str, module: str) -> None:
    tool = _tool()
    assert tool.module_name(path) == module
    assert tool.mutant_module(f"{module}.x_score_line__mutmut_12") == module
    assert tool.mutant_module(f"{module}.xǁGameǁ__init____mutmut_3") == module


def test_mutant_function_names() -> None:
    tool = _tool()
    assert tool.mutant_function("flip7ref.core.scoring.x_score_line__mutmut_12") == "score_line"
    assert tool.mutant_function("flip7ref.core.game.xǁGameǁ__init____mutmut_3") == "Game.__init__"
    assert tool.mutant_function("flip7ref.core.game.x__resolve__mutmut_1") == "_resolve"
