"""The pre-task form: fields an organiser defines (e.g. native language, years of
experience), answered once by each annotator before their first task and its tutorial.

A form is JSON: ``{"intro": "markdown shown above the fields", "fields": [field, …]}`` (a
bare list of fields is a form without an intro). A field is ``{"name": "native_language",
"label": "Your native language", "type": "text" | "number" | "choice", "required": true,
"choices": ["…", …] (choice only), "min": 0, "max": 60 (number only, optional)}``.
:func:`parse_form` checks a definition (ValueError naming the field and what is wrong,
nothing else accepted); :func:`checked_answers` checks one annotator's answers against it.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

MAX_FORM_CHARS = 100_000
MAX_FIELDS = 30
MAX_CHOICES = 50
MAX_LABEL = 300
MAX_CHOICE = 100
MAX_INTRO = 2_000
MAX_ANSWER = 500
FIELD_TYPES = ("text", "number", "choice")
_NAME = re.compile(r"^[a-z][a-z0-9_]{0,39}$")
_FIELD_KEYS = {"name", "label", "type", "required", "choices", "min", "max"}


def _text(value: Any, what: str, limit: int, *, empty: bool = False) -> str:
    if not isinstance(value, str):
        raise ValueError(f"{what} is text, not {type(value).__name__}")
    if "\x00" in value:
        raise ValueError(f"{what} contains a NUL byte")
    text = value.strip()
    if not text and not empty:
        raise ValueError(f"{what} is empty")
    if len(text) > limit:
        raise ValueError(f"{what} is {len(text):,} characters long, over {limit:,}")
    return text


def _bound(value: Any, what: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"{what} is a number, not {value!r}"[:200])
    v = float(value)
    if not math.isfinite(v):
        raise ValueError(f"{what} is not a finite number")
    return v


def _field(raw: Any, i: int, names: set[str]) -> dict[str, Any]:
    where = f"field {i}"
    if not isinstance(raw, dict):
        raise ValueError(
            f"{where} is an object with name, label and type, not {type(raw).__name__}"
        )
    unknown = set(raw) - _FIELD_KEYS
    if unknown:
        raise ValueError(f"{where} has unknown keys {sorted(map(str, unknown))[:5]}; use "
                         f"{', '.join(sorted(_FIELD_KEYS))}")  # fmt: skip
    name = raw.get("name")
    if not isinstance(name, str) or not _NAME.match(name):
        raise ValueError(f"{where}'s name {str(name)[:60]!r} is not a lower-case identifier "
                         "(a–z, 0–9, _; at most 40 characters, a letter first)")  # fmt: skip
    where = f"field {i} ({name})"
    if name in names:
        raise ValueError(f"{where}: the name is used twice; give every field its own")
    kind = raw.get("type")
    if kind not in FIELD_TYPES:
        raise ValueError(f"{where}: type {str(kind)[:40]!r} is not one of {', '.join(FIELD_TYPES)}")
    required = raw.get("required", False)
    if not isinstance(required, bool):
        raise ValueError(f"{where}: required is true or false, not {required!r}"[:200])
    out: dict[str, Any] = {
        "name": name,
        "label": _text(raw.get("label", name), f"{where}'s label", MAX_LABEL),
        "type": kind,
        "required": required,
    }
    if kind == "choice":
        choices = raw.get("choices")
        if not isinstance(choices, list) or not 2 <= len(choices) <= MAX_CHOICES:
            raise ValueError(f"{where}: a choice field has a list of 2–{MAX_CHOICES} choices")
        texts = [_text(c, f"{where}'s choice {k}", MAX_CHOICE) for k, c in enumerate(choices, 1)]
        if len(set(texts)) != len(texts):
            raise ValueError(f"{where}: two choices are the same; make each one different")
        out["choices"] = texts
    elif "choices" in raw:
        raise ValueError(f"{where}: only a choice field has choices")
    if kind == "number":
        low, high = (
            _bound(raw.get("min"), f"{where}'s min"),
            _bound(raw.get("max"), f"{where}'s max"),
        )
        if low is not None and high is not None and low > high:
            raise ValueError(f"{where}: min {low:g} is above max {high:g}")
        out.update({k: v for k, v in (("min", low), ("max", high)) if v is not None})
    elif "min" in raw or "max" in raw:
        raise ValueError(f"{where}: only a number field has min and max")
    return out


def parse_form(definition: Any) -> dict[str, Any]:
    """A form definition (JSON text, or the parsed object) → ``{"intro", "fields"}`` as
    stored. ValueError names the field and what is wrong; an empty form (no fields) is
    ``{"intro": "", "fields": []}`` (no form asked)."""
    if isinstance(definition, bytes | bytearray):
        try:
            definition = definition.decode("utf-8")
        except UnicodeDecodeError:
            raise ValueError("the form is not UTF-8 text") from None
    if isinstance(definition, str):
        if len(definition) > MAX_FORM_CHARS:
            raise ValueError(f"the form is {len(definition):,} characters, over {MAX_FORM_CHARS:,}")
        if not definition.strip():
            return {"intro": "", "fields": []}
        try:
            definition = json.loads(definition)
        except RecursionError:
            raise ValueError("the form is nested too deeply to be a form") from None
        except ValueError as err:
            raise ValueError(f"the form is not valid JSON ({err})") from None
    if isinstance(definition, list):
        definition = {"fields": definition}
    if not isinstance(definition, dict):
        raise ValueError('the form is an object {"intro": …, "fields": […]} or a list of fields')
    unknown = set(definition) - {"intro", "fields"}
    if unknown:
        raise ValueError(
            f"the form has unknown keys {sorted(map(str, unknown))[:5]}; use intro, fields"
        )
    intro = _text(definition.get("intro", ""), "the form's intro", MAX_INTRO, empty=True)
    fields = definition.get("fields", [])
    if not isinstance(fields, list):
        raise ValueError(f"the form's fields are a list, not {type(fields).__name__}")
    if len(fields) > MAX_FIELDS:
        raise ValueError(f"the form has {len(fields):,} fields, over {MAX_FIELDS}")
    names: set[str] = set()
    out = []
    for i, raw in enumerate(fields, 1):
        f = _field(raw, i, names)
        names.add(f["name"])
        out.append(f)
    return {"intro": intro, "fields": out}


def checked_answers(form: dict[str, Any], answers: dict[str, Any]) -> dict[str, Any]:
    """One annotator's answers, as stored: field name → text, number or choice (a field not
    answered is left out). ValueError lists every field whose answer is missing or wrong."""
    problems: list[str] = []
    out: dict[str, Any] = {}
    for f in form.get("fields", []):
        name, label = f["name"], f["label"]
        value = answers.get(name)
        if isinstance(value, str):
            value = value.strip() or None
        if value is None:
            if f["required"]:
                problems.append(f"“{label}” needs an answer")
            continue
        try:
            out[name] = _answer(f, value)
        except ValueError as err:
            problems.append(f"“{label}”: {err}")
    if problems:
        raise ValueError("; ".join(problems))
    return out


def _answer(f: dict[str, Any], value: Any) -> Any:
    if f["type"] == "text":
        return _text(str(value), "the answer", MAX_ANSWER)
    if f["type"] == "choice":
        if value not in f["choices"]:
            raise ValueError("choose one of the choices given")
        return value
    if isinstance(value, bool):
        raise ValueError("give a number")
    try:
        v = float(value)
    except (TypeError, ValueError, OverflowError):
        raise ValueError(f"give a number, not {str(value)[:40]!r}") from None
    if not math.isfinite(v):
        raise ValueError("give a finite number")
    if ("min" in f and v < f["min"]) or ("max" in f and v > f["max"]):
        low, high = f.get("min", -math.inf), f.get("max", math.inf)
        raise ValueError(f"give a number from {low:g} to {high:g}")
    return int(v) if v.is_integer() and abs(v) < 2**53 else v


def answer_columns(form: dict[str, Any] | None) -> list[str]:
    """The export's column per field (``form_<name>``), in the form's order."""
    return [f"form_{f['name']}" for f in (form or {}).get("fields", [])]
