"""Pearmut's custom sliders and user-information form, read into what Tandem asks: a
Likert scale (formats.forms.likert) and the pre-task form (formats.forms.pretask).

- ``info.sliders`` (``[{"name", "min", "max", "step"}, …]``): Tandem asks one score per
  output, so one slider is asked (the first, or the one named). A slider of 2–11 whole
  steps (e.g. 0–5 step 1) becomes a Likert scale whose labels are the slider's values (a
  logged value v is the point (v − min)/step + 1); a 0–100 slider of step 1 or less is the
  plain DA slider; any other is refused, naming it. The sliders not asked are listed.
- ``data_welcome`` (pages of ``{"text", "form": null | "string" | "number" | "choices" |
  "script", "choices"}``): ``string`` → a text field, ``number`` → a number field,
  ``choices`` → a single choice; the texts of ``form: null`` entries → the form's intro;
  ``script`` entries are never run (listed). Pearmut marks no field required, so none is.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any

from formats.forms.likert import MAX_POINTS, MIN_POINTS, checked_scale
from formats.forms.pretask import MAX_FIELDS, parse_form
from formats.instructions import from_html
from formats.problems import CampaignFileError, Problem


@dataclass
class SliderChoice:
    """What the campaign asks: ``likert`` (a scale) or None (the 0–100 slider); ``low`` and
    ``step`` turn a logged slider value into a point; ``notes`` what is left out."""

    likert: dict[str, list[str]] | None = None
    name: str | None = None
    low: float = 0.0
    step: float = 1.0
    notes: list[str] = field(default_factory=list)

    def point(self, value: float) -> float:
        """A logged slider value → the Likert point (1 … n); off the grid stays fractional
        (the import refuses it, naming the line); within 10⁻⁶ of a point is that point
        (a fractional step's float rounding)."""
        point = (value - self.low) / self.step + 1
        return float(round(point)) if abs(point - round(point)) < 1e-6 else point


def _number(v: Any) -> float | None:
    if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v):
        return None
    return float(v)


def choose_slider(sliders: Any, wanted: str | None = None) -> SliderChoice:
    """``info.sliders`` → what Tandem asks; ValueError (message, naming the slider) when
    the chosen one fits neither a Likert scale nor the 0–100 slider."""
    if not isinstance(sliders, list) or not sliders:
        raise ValueError("info.sliders is not a list of sliders {name, min, max, step}")
    named = [s for s in sliders if isinstance(s, dict)]
    names = [str(s.get("name", f"slider {i + 1}"))[:80] for i, s in enumerate(named)]
    if len(named) != len(sliders):
        raise ValueError("info.sliders holds an entry that is not {name, min, max, step}")
    index = 0
    if wanted is not None:
        if wanted not in names:
            raise ValueError(f"info.sliders has no slider {wanted[:80]!r}; it has {names}")
        index = names.index(wanted)
    s, name = named[index], names[index]
    low, high, step = (
        _number(s.get("min", 0)),
        _number(s.get("max", 100)),
        _number(s.get("step", 1)),
    )
    if low is None or high is None or step is None or step <= 0 or high <= low:
        raise ValueError(
            f"slider {name!r}: min, max and step are not numbers with min < max, step > 0"
        )
    notes = [
        f"info.sliders: '{other}' not asked (Tandem asks one score per output; import again "
        f"choosing slider '{other}' to ask it)"
        for other in names
        if other != name
    ]
    points = (high - low) / step + 1
    if low == 0 and high == 100 and step <= 1:
        notes.insert(0, f"info.sliders: '{name}' (0–100) asked as the DA slider")
        return SliderChoice(None, name, low, step, notes)
    if not (abs(points - round(points)) < 1e-9 and MIN_POINTS <= round(points) <= MAX_POINTS):
        raise ValueError(
            f"slider {name!r} ({low:g}–{high:g}, step {step:g}) has {points:g} points: Tandem "
            f"asks a Likert scale of {MIN_POINTS}–{MAX_POINTS} points or the 0–100 slider"
        )
    labels = [f"{low + k * step:g}" for k in range(round(points))]
    notes.insert(
        0,
        f"info.sliders: '{name}' ({low:g}–{high:g}) asked as a {len(labels)}-point "
        "Likert scale labelled with its values",
    )
    digits = all(len(label) == 1 and label in "0123456789" for label in labels)
    keys = labels if digits else None  # a 0–5 slider's values are its keys, 0 included
    return SliderChoice(checked_scale(labels, keys), name, low, step, notes)


def welcome_form(data_welcome: Any) -> tuple[dict[str, Any] | None, list[str]]:
    """``data_welcome`` → (the pre-task form, or None when it asks nothing; notes). Entries
    that cannot be a field are listed, never an error: the campaign imports without them."""
    notes: list[str] = []
    intro: list[str] = []
    fields: list[dict[str, Any]] = []
    pages = data_welcome if isinstance(data_welcome, list) else []
    entries = [e for page in pages for e in (page if isinstance(page, list) else [page])]
    for n, e in enumerate(entries, 1):
        if not isinstance(e, dict):
            notes.append(f"data_welcome entry {n}: not an object, not imported")
            continue
        text = from_html(e.get("text")) if isinstance(e.get("text"), str) else ""
        kind = e.get("form")
        if kind is None:
            if text:
                intro.append(text)
            continue
        mapped = {"string": "text", "number": "number", "choices": "choice"}.get(kind)
        if mapped is None or len(fields) >= MAX_FIELDS:
            why = "a script Tandem never runs" if kind == "script" else f"form {str(kind)[:20]!r}"
            notes.append(f"data_welcome entry {n} ({why}) not imported")
            continue
        f: dict[str, Any] = {
            "name": f"q{len(fields) + 1}",
            "label": (text or f"Question {n}")[:300],
            "type": mapped,
            "required": False,
        }
        if mapped == "choice":
            f["choices"] = (
                [str(c)[:100] for c in e.get("choices") or []]
                if isinstance(e.get("choices"), list)
                else []
            )
        try:
            parse_form([*fields, f])
        except ValueError as err:
            notes.append(f"data_welcome entry {n}: {err}; not imported")
            continue
        fields.append(f)
    if not fields:
        return None, notes
    form = parse_form({"intro": "\n\n".join(intro)[:2000], "fields": fields})
    notes.insert(
        0,
        f"data_welcome: {len(fields)} question(s) asked as the pre-task form "
        "(none required: Pearmut marks none)",
    )
    return form, notes


def form_welcome(form: dict[str, Any] | None) -> list[Any] | None:
    """The pre-task form as Pearmut's ``data_welcome`` (one page): the intro as a
    ``form: null`` entry, each field as ``string`` / ``number`` / ``choices``."""
    if not form or not form.get("fields"):
        return None
    kinds = {"text": "string", "number": "number", "choice": "choices"}
    page: list[dict[str, Any]] = (
        [{"text": form["intro"], "form": None}] if form.get("intro") else []
    )
    for f in form["fields"]:
        entry: dict[str, Any] = {"text": f["label"], "form": kinds[f["type"]]}
        if f["type"] == "choice":
            entry["choices"] = list(f["choices"])
        page.append(entry)
    return [page]


def slider_value(da_score: float, likert: dict[str, Any], low: float, step: float) -> float:
    """A stored Likert score 100·(p − 1)/(n − 1) → the Pearmut slider's value
    low + (p − 1)·step (the inverse of :meth:`SliderChoice.point`)."""
    index = round(da_score * (len(likert["labels"]) - 1) / 100.0)
    value = low + index * step
    return int(value) if float(value).is_integer() else value


def read_slider(
    filename: str, protocol: str, sliders: Any, wanted: str | None
) -> SliderChoice | None:
    """``info.sliders`` → the one score asked (:func:`choose_slider`), None without
    sliders; CampaignFileError naming the slider when none fits, or for a protocol other
    than DA."""
    if not sliders:
        return None
    if protocol != "DA":
        raise CampaignFileError([Problem(
            filename, f"info.sliders with protocol {protocol}: Tandem asks custom scales in "
            "DA campaigns only", "Give protocol DA, or remove 'sliders'.")])  # fmt: skip
    try:
        return choose_slider(sliders, wanted)
    except ValueError as exc:
        fix = ("Choose a slider of 2–11 whole steps or a 0–100 one (--slider NAME), or "
               "remove 'sliders' to ask the 0–100 DA slider.")  # fmt: skip
        raise CampaignFileError([Problem(filename, str(exc), fix)]) from None


def textfield_comment(value: Any) -> tuple[bool, list[str]]:
    """``info.textfield`` → (whether the comment box is offered, the note saying so): any
    value but ``hidden`` or false offers it."""
    if value is None:
        return False, []
    on = value not in (False, "hidden")
    shown = json.dumps(value)[:40]
    what = ("the optional comment box is offered on every judgment" if on
            else "the comment box stays off (the Annotators page turns it on)")  # fmt: skip
    return on, [f"info.textfield = {shown}: {what}"]
