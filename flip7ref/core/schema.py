"""Validating data against the JSON Schemas of ``spec/schema/`` with one-line errors.

`validate` checks an edition table, a case file, a transcript... against its
schema and raises a `flip7ref.core.errors.SpecError` naming the file, the path of the
most relevant violation and, in words, what the schema expected there.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from flip7ref.core.edition import short_repr, spec_dir
from flip7ref.core.errors import SpecError

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


def section_defaults(schema_name: str, section: str) -> dict[str, Any]:
    """The ``default`` of each property of the top-level object ``section`` of schema
    ``schema_name`` that declares one (``round`` of ``edition``: ``{"reshuffles":
    "unlimited", ...}``), in schema order: the one place a key a table may leave out
    gets its value (`flip7ref.core.spec.parse_edition` fills them in).

    Raises:
        SpecError: when the schema file is missing or not valid JSON (`load_schema`).
    """
    props = load_schema(schema_name)["properties"][section].get("properties") or {}
    return {key: sub["default"] for key, sub in props.items() if isinstance(sub, dict) and "default" in sub}


def pointer(parts: Sequence[object]) -> str:
    """Render a list of keys and indexes as a JSON-pointer-like path (``/cards/3/id``)."""
    return "/" + "/".join(str(p) for p in parts)


def validate(data: object, schema_name: str, file: str) -> None:
    """Validate ``data`` against a schema of ``spec/schema``.

    A transcript's steps are checked one by one (`_validate_steps`): the error is then
    the first bad step's.

    Raises:
        SpecError: naming ``file``, the path of the most relevant violation and
            what the schema expected there.
    """
    schema = load_schema(schema_name)
    if schema_name == "transcript" and isinstance(data, dict) and isinstance(data.get("steps"), list):
        _validate_steps(data, schema, file)
        return
    validator = strict_validator()(schema)
    _raise_best(validator.iter_errors(data), file, ())


def _raise_best(errors: Any, file: str, prefix: Sequence[object]) -> None:
    """Raise the most relevant of jsonschema ``errors`` (if any) as a one-line SpecError."""
    import jsonschema.exceptions

    error = jsonschema.exceptions.best_match(errors)
    if error is not None:
        expected = _schema_expectation(error)
        found = short_repr(error.instance)
        where = pointer([*prefix, *error.absolute_path])
        raise SpecError(file, where, expected, problem=f"found {found}; expected {expected}")


def _integer(value: object, low: int | None = None) -> bool:
    return type(value) is int and (low is None or value >= low)


def _integers(value: object) -> bool:
    return isinstance(value, list) and all(_integer(v) for v in value)


def _plain_step(step: object) -> bool:
    """Whether a transcript step is certainly valid by the transcript schema's step
    branches (a draw, a decision or a checkpoint): a quick test in plain Python, so that
    jsonschema needs to look only at a step it does not pass."""
    if not isinstance(step, dict):
        return False
    if len(step) == 1 and "draw" in step:
        return isinstance(step["draw"], str)
    if len(step) == 2 and "seat" in step and "action" in step:
        return _integer(step["seat"], 0) and isinstance(step["action"], str)
    if len(step) == 1 and "checkpoint" in step:
        point = step["checkpoint"]
        return (
            isinstance(point, dict)
            and set(point) <= {"round", "scores", "totals"}
            and ("round" not in point or _integer(point["round"], 1))
            and all(_integers(point.get(key, [])) for key in ("scores", "totals"))
        )
    return False


def _validate_steps(data: dict[str, Any], schema: dict[str, Any], file: str) -> None:
    """Validate a transcript: its envelope with jsonschema (the steps as an array), then
    each step with `_plain_step`, and a step it does not pass with jsonschema against the
    step schema, so that the error is the one jsonschema gives for that step (with its
    path under ``/steps/N``).  A transcript of 400,000 steps is checked in a fraction of
    the time the whole schema takes; the first bad step is the one named."""
    envelope = {**schema, "properties": {**schema["properties"], "steps": {"type": "array"}}}
    _raise_best(strict_validator()(envelope).iter_errors(data), file, ())
    step_schema: dict[str, Any] | None = None
    for i, step in enumerate(data["steps"]):
        if _plain_step(step):
            continue
        if step_schema is None:
            step_schema = {"$defs": schema.get("$defs", {}), **schema["properties"]["steps"]["items"]}
        _raise_best(strict_validator()(step_schema).iter_errors(step), file, ("steps", i))



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
    if kind == "pattern":  # a pattern with a title (the edition schema's rule ids) says it in words first
        title = error.schema.get("title") if isinstance(error.schema, dict) else None
        return f"{title} (text matching {value})" if isinstance(title, str) else f"text matching {value}"
    if kind == "const":
        return repr(value)
    return f"a value valid under the schema's {kind!r} rule"

