"""Validating data against the JSON Schemas of ``spec/schema/`` with one-line errors.

`validate` checks an edition table, a case file, a transcript... against its
schema and raises a `flip7ref.errors.SpecError` naming the file, the path of the
most relevant violation and, in words, what the schema expected there.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from .edition import short_repr, spec_dir
from .errors import SpecError

if TYPE_CHECKING:  # jsonschema is imported when first needed: most runs read the table cache
    import jsonschema.exceptions

@functools.cache
def load_schema(name: str) -> dict[str, Any]:
    """Load ``spec/schema/<name>.schema.json`` as a dict.

    Raises:
        SpecError: when the file is missing or not valid JSON.
    """
    path = spec_dir() / "schema" / f"{name}.schema.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise SpecError(str(path), "", "an existing JSON Schema file") from None
    except json.JSONDecodeError as exc:
        raise SpecError(str(path), "", f"valid JSON ({exc.msg} at line {exc.lineno})") from None
    if not isinstance(data, dict):
        raise SpecError(str(path), "", "a JSON object")
    return data


def pointer(parts: Sequence[object]) -> str:
    """Render a list of keys and indexes as a JSON-pointer-like path (``/cards/3/id``)."""
    return "/" + "/".join(str(p) for p in parts)


def validate(data: object, schema_name: str, file: str) -> None:
    """Validate ``data`` against a schema of ``spec/schema``.

    Raises:
        SpecError: naming ``file``, the path of the most relevant violation and
            what the schema expected there.
    """
    import jsonschema.exceptions

    validator = strict_validator()(load_schema(schema_name))
    error = jsonschema.exceptions.best_match(validator.iter_errors(data))
    if error is not None:
        expected = _schema_expectation(error)
        found = short_repr(error.instance)
        raise SpecError(file, pointer(error.absolute_path), expected, problem=f"found {found}; expected {expected}")



@functools.cache
def strict_validator() -> Any:
    """The validator class: JSON Schema counts 3.0 as an integer; the tables and cases must hold real whole numbers."""
    import jsonschema

    return jsonschema.validators.extend(  # type: ignore[no-untyped-call]
        jsonschema.Draft202012Validator,
        type_checker=jsonschema.Draft202012Validator.TYPE_CHECKER.redefine(
            "integer", lambda _checker, value: isinstance(value, int) and not isinstance(value, bool)
        ),
    )


def _schema_expectation(error: jsonschema.exceptions.ValidationError) -> str:
    """Say in words what the schema wanted where validation failed."""
    kind, value = str(error.validator), error.validator_value
    items: list[Any] = list(value) if isinstance(value, (list, tuple)) else [value]
    if kind == "type":
        return f"a value of type {value}"
    if kind == "enum":
        return "one of " + ", ".join(repr(v) for v in items)
    if kind in ("anyOf", "oneOf"):
        enums = [v for sub in items if isinstance(sub, dict) for v in sub.get("enum", ())]
        if enums:
            return "one of " + ", ".join(repr(v) for v in enums) + " (or an option reference)"
    if kind == "required":
        return "the required properties " + ", ".join(repr(v) for v in items)
    if kind == "additionalProperties":
        return "only the properties the schema defines"
    if kind in ("minimum", "maximum", "minItems", "minLength", "minProperties"):
        return f"{kind} {value}"
    if kind == "pattern":
        return f"text matching {value}"
    if kind == "const":
        return repr(value)
    return f"a value valid under the schema's {kind!r} rule"

