"""How flip7ref is installed: the hints for the optional extras, and which copy is running.

flip7ref is not on a package index, so ``pip install 'flip7ref[table]'`` cannot work. An
extra is installed from a checkout (``pip install '.[table]'``), from a wheel the project
built (``pip install 'flip7ref-0.1.0-....whl[table]'``), or by naming its packages, which
works wherever flip7ref came from (docs/install.md). `extra_hint` writes the last of these
first (it adds the packages to the flip7ref already installed, compiled or not, in seconds) and
then the checkout's command (which builds flip7ref again: minutes when compiled; issue 42).

`running_build` says what ``flip7ref --version`` reports about the copy that runs: its
folder, whether its core is compiled, and another installed copy that it hides (in a
checkout's root, ``python -m flip7ref`` imports the source tree, which is pure Python, even
when the compiled build is installed in the environment).
"""

from __future__ import annotations

from pathlib import Path

# The packages of each optional extra, as [project.optional-dependencies] of pyproject.toml
# lists them (tests/test_install.py checks that they agree).
EXTRAS: dict[str, tuple[str, ...]] = {
    "table": ("starlette>=0.37", "uvicorn>=0.29", "segno>=1.5"),
    "docs": ("mkdocs>=1.6", "mkdocs-material>=9.5", "mkdocstrings[python]>=0.26"),
    "rl": ("numpy>=1.24", "gymnasium>=1.0", "pettingzoo>=1.24", "open_spiel>=1.5"),
    "cluster": ("dask[distributed]>=2024.1",),
    "batch": ("numpy>=1.24", "numba>=0.59"),
    "plot": ("matplotlib>=3.7",),
    "analysis": ("numpy>=1.24",),
    "rl-train": ("sb3-contrib>=2.3",),
}


def extra_hint(extra: str) -> str:
    """The install commands of an optional extra, for a message, e.g. for ``"plot"``:
    ``pip install 'matplotlib>=3.7' (keeps the installed flip7ref); or, from a checkout,
    flip7ref and the extra: pip install '.[plot]' (builds flip7ref again)``.

    The extra's packages come first: that command works wherever flip7ref came from and
    never rebuilds it (the checkout's command compiles the core again, minutes). Both work as
    written (flip7ref itself is on no package index). Raises `KeyError` for a name that is
    not a key of `EXTRAS`.
    """
    packages = " ".join(f"'{p}'" for p in EXTRAS[extra])
    return (
        f"pip install {packages} (keeps the installed flip7ref); or, from a checkout, flip7ref and the extra: "
        f"pip install '.[{extra}]' (builds flip7ref again)"
    )


def installed_copy() -> tuple[Path, bool] | None:
    """The flip7ref package folder that pip installed into this environment and whether it is
    the compiled build, read from the installed distribution's file list (its RECORD);
    None when flip7ref is not installed or is installed editable (the source tree itself)."""
    from importlib import machinery, metadata  # here: every command imports this module, few need these

    try:
        dist = metadata.distribution("flip7ref")
    except metadata.PackageNotFoundError:
        return None
    files = [f for f in dist.files or () if f.parts[:1] == ("flip7ref",)]
    if not any(f.parts == ("flip7ref", "__init__.py") for f in files):
        return None  # an editable install: a .pth file points at the source tree (and some data files)
    folder = Path(str(dist.locate_file("flip7ref"))).resolve()
    suffixes = tuple(machinery.EXTENSION_SUFFIXES)
    return folder, any(f.name.endswith(suffixes) for f in files)


def running_build() -> tuple[Path, bool, tuple[Path, bool] | None]:
    """``(folder, compiled, hidden)``: the folder of the flip7ref package running, whether its
    core is compiled (`flip7ref.compiled`), and `installed_copy` when that is another folder,
    which this one hides (None otherwise)."""
    from flip7ref import compiled

    folder = Path(__file__).resolve().parent.parent  # the package's folder
    other = installed_copy()
    hidden = other if other is not None and other[0] != folder else None
    return folder, compiled, hidden


def running_text() -> str:
    """The lines of ``flip7ref --version`` about the running copy: ``running from FOLDER``,
    then, when `running_build` finds a hidden copy, a line naming it and how to use it."""
    folder, _, hidden = running_build()
    lines = [f"running from {folder}"]
    if hidden is not None:
        kind = "compiled with mypyc" if hidden[1] else "pure Python"
        lines.append(
            f"note: the flip7ref installed at {hidden[0]} ({kind}) is hidden by this copy, which comes first on "
            "sys.path (e.g. the current folder is a checkout); run from another folder to use it"
        )
    return "\n".join(lines)
