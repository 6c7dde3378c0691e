"""The rule catalogue in the players' languages: rule texts, option summaries, reading names.

English paraphrases live in the edition tables (``spec/editions/*.yaml``); the other
languages of the rule sources (Dutch, German, French, Norwegian) live in
``spec/i18n/<lang>.yaml`` (schema ``spec/schema/i18n.schema.json``), keyed by edition
id, then by rule id, option name and reading name.  ``en.yaml`` holds only the short
reading names, which the edition tables do not have.  Card names stay in the edition
tables (``cards[].names``, read by `flip7ref.core.text.card_name`).

Every lookup falls back to English (the edition table's text; the reading's own name
for a reading name) when a language has no text, so a house-rule edition loaded from
a file still shows its own words; `missing` and `stray` list the gaps and the ids
that name nothing, which the tests forbid for the shipped editions.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

from flip7ref.core.edition import Edition, spec_dir
from flip7ref.core.errors import SpecError
from flip7ref.core.schema import validate
from flip7ref.core.textfiles import MAX_YAML_BYTES, parse_yaml, read_text_file

LANGS = ("en", "nl", "de", "fr", "no")
"""The languages of the rule texts: English and the four languages of the rule sources."""


_PRELOADED: dict[str, Mapping[str, Any]] = {}


def preload(catalogues: Mapping[str, Mapping[str, Any]]) -> None:
    """Use ``catalogues`` (``{lang: what catalogue(lang) returned}``, e.g. unpickled) from
    now on instead of reading ``spec/i18n/*.yaml``: the static build of the table referee
    ships them this way, so the browser needs neither PyYAML nor jsonschema.

    Raises:
        SpecError: a key that is not one of `LANGS`, or a value that is not a mapping.
    """
    for lang, texts in catalogues.items():
        if lang not in LANGS or not isinstance(texts, Mapping):
            raise SpecError("i18n", f"/{lang}", f"one of {', '.join(LANGS)} with its texts", problem=f"found {lang!r}")
    _PRELOADED.update(catalogues)
    catalogue.cache_clear()


@functools.cache
def catalogue(lang: str) -> Mapping[str, Any]:
    """The texts of ``spec/i18n/<lang>.yaml`` by edition id (validated; cached).

    Args:
        lang: one of `LANGS`.

    Returns:
        ``{edition id: {"rules": {id: text}, "options": {name: {...}}}}``; empty for a
        language without a file.

    Raises:
        SpecError: the file is not YAML, does not match its schema, or names another
            language than its file name.
    """
    if lang not in LANGS:
        expected = f"one of {', '.join(LANGS)}"
        raise SpecError("lang", "", expected, problem=f"found {lang!r}; expected {expected}")
    if lang in _PRELOADED:
        return _PRELOADED[lang]
    path = spec_dir() / "i18n" / f"{lang}.yaml"
    if not path.exists():
        return {}
    name = f"spec/i18n/{lang}.yaml"
    data: Any = parse_yaml(read_text_file(path, name, limit=MAX_YAML_BYTES), name)  # safe, bounded, C parser
    validate(data, "i18n", name)
    if data["lang"] != lang:
        raise SpecError(name, "/lang", f"{lang!r} (the file's name)", problem=f"found {data['lang']!r}")
    editions: Mapping[str, Any] = data["editions"]
    return editions


def _entry(edition: Edition, lang: str) -> Mapping[str, Any]:
    return catalogue(lang if lang in LANGS else "en").get(edition.id, {})  # type: ignore[no-any-return]


def _option(edition: Edition, name: str, lang: str) -> Mapping[str, Any]:
    return _entry(edition, lang).get("options", {}).get(name, {})  # type: ignore[no-any-return]


def rule_text(edition: Edition, rule: str, lang: str = "en") -> str:
    """The rule ``rule`` of ``edition`` in words, in ``lang`` (English when ``lang`` has
    none); ``""`` for an id the catalogue does not hold."""
    text = _entry(edition, lang).get("rules", {}).get(rule) if lang != "en" else None
    if isinstance(text, str):
        return text
    found = edition.rules.get(rule)
    return found.text if found is not None else ""


def option_summary(edition: Edition, option: str, lang: str = "en") -> str:
    """What option ``option`` decides, in ``lang`` (else English).

    Raises:
        KeyError: ``option`` is not an option of ``edition``.
    """
    text = _option(edition, option, lang).get("summary") if lang != "en" else None
    return text if isinstance(text, str) else edition.options[option].summary


def dispute_question(edition: Edition, option: str, lang: str = "en") -> str | None:
    """The disputed question option ``option`` answers, in ``lang`` (else English, from
    the edition's ``disputes``); None for an option that models no dispute.

    Raises:
        KeyError: ``option`` is not an option of ``edition``.
    """
    dispute = edition.options[option].dispute
    if dispute is None:
        return None
    text = _option(edition, option, lang).get("dispute") if lang != "en" else None
    if isinstance(text, str):
        return text
    question = edition.disputes.get(dispute, {}).get("question")
    return question if isinstance(question, str) else None


def _reading(edition: Edition, option: str, reading: str, lang: str) -> Mapping[str, Any]:
    return _option(edition, option, lang).get("readings", {}).get(reading, {})  # type: ignore[no-any-return]


def reading_name(edition: Edition, option: str, reading: str, lang: str = "en") -> str:
    """The short name of a reading in ``lang`` (``"One card each"`` for ``initial_deal``
    ``deal``), else its English name, else the reading's id."""
    for each in (lang, "en"):
        name = _reading(edition, option, reading, each).get("name")
        if isinstance(name, str):
            return name
    return reading


def reading_summary(edition: Edition, option: str, reading: str, lang: str = "en") -> str:
    """What a reading says, in ``lang`` (else English; ``""`` for an unknown reading).

    Raises:
        KeyError: ``option`` is not an option of ``edition``.
    """
    text = _reading(edition, option, reading, lang).get("summary") if lang != "en" else None
    if isinstance(text, str):
        return text
    found = [r.summary for r in edition.options[option].readings if r.name == reading]
    return found[0] if found else ""


def missing(edition: Edition, lang: str) -> list[str]:
    """What ``lang`` lacks for ``edition``, as paths (``rules/F7-001``,
    ``options/tie/readings/shared-win/name``...); English needs only reading names."""
    entry = _entry(edition, lang)
    rules, options = entry.get("rules", {}), entry.get("options", {})
    out: list[str] = []
    if lang != "en":
        out += [f"rules/{rid}" for rid in edition.rules if rid not in rules]
    for name, spec in edition.options.items():
        have = options.get(name, {})
        if lang != "en":
            out += [f"options/{name}/summary"] if "summary" not in have else []
            out += [f"options/{name}/dispute"] if spec.dispute is not None and "dispute" not in have else []
        for r in spec.readings:
            got = have.get("readings", {}).get(r.name, {})
            wanted = ("name", "summary") if lang != "en" else ("name",)
            out += [f"options/{name}/readings/{r.name}/{k}" for k in wanted if k not in got]
    return out


def stray(edition: Edition, lang: str) -> list[str]:
    """The ids in ``lang``'s texts for ``edition`` that name no rule, option or reading
    of it (or a dispute text for an option without a dispute), as paths."""
    entry = _entry(edition, lang)
    out = [f"rules/{rid}" for rid in entry.get("rules", {}) if rid not in edition.rules]
    if lang == "en" and entry.get("rules"):
        out.append("rules (English rule texts belong in the edition table)")
    for name, have in entry.get("options", {}).items():
        spec = edition.options.get(name)
        if spec is None:
            out.append(f"options/{name}")
            continue
        if "dispute" in have and spec.dispute is None:
            out.append(f"options/{name}/dispute")
        if lang == "en":
            out += [f"options/{name}/{k}" for k in ("summary", "dispute") if k in have]
        known = {r.name for r in spec.readings}
        out += [f"options/{name}/readings/{r}" for r in have.get("readings", {}) if r not in known]
        if lang == "en":
            out += [f"options/{name}/readings/{r}/summary" for r, v in have.get("readings", {}).items() if "summary" in v]
    return out


__all__ = [
    "LANGS",
    "catalogue",
    "dispute_question",
    "missing",
    "option_summary",
    "reading_name",
    "reading_summary",
    "rule_text",
    "stray",
]
