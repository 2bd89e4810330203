"""What an ESA^AI prefill changes, replayed on WMT21 TED en-de MQM (a replay, not a study).

The expert MQM spans of the shipped file are the "from scratch" reference. The AI prefill
is a copy of them perturbed at known rates (an AI of known quality): each span dropped with
p_drop, its extent moved by one word with p_shift, its severity flipped with p_sev, and
false spans (a random unmarked word, minor) added at add_rate per output. Reported per
level, over the outputs of all 13 systems:

- agreement of prefill and reference: exact span F1 (same start and end; with severity),
  and character-level F1 (estimators.judgments.agreement.span_f1, plain and severity-aware);
- what the export would say if the annotator ended at the reference
  (annotation.judging.ai_prefill.provenance): final spans from the AI unchanged / edited / new,
  AI spans deleted;
- the annotator's operations to get from the prefill to the reference, against marking from
  scratch, under a stated model (a mark = select + severity + category = 3 actions; an
  edit of extent = 1 selection, of severity = 1 key; a delete = select + Del = 2; accepting
  an item's correct AI spans = 1 key). A count of actions, not seconds of a human.

The file gives each error's highlighted text, not offsets: a span is the first occurrence
of that text in the output not overlapping an earlier span of the output; errors whose text
is not in the output (omissions marked in the source, empty marks) are left out and counted.

    .venv/bin/python bench/esa_ai_bench.py
"""

from __future__ import annotations

import json
import random
import re
import sys
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from annotation.judging.ai_prefill import provenance
from estimators.judgments.agreement import span_f1

DATA = (
    Path(__file__).resolve().parents[2] / "shared" / "data" / "wmt21-ted-mqm" / "wmt21_ted_ende.csv"
)
Span = tuple[int, int, bool]  # start, end, major


@dataclass(frozen=True)
class Level:
    name: str
    p_drop: float
    p_shift: float
    p_sev: float
    add_rate: float


LEVELS = [
    Level("perfect (prefill = reference)", 0, 0, 0, 0),
    Level("good", 0.1, 0.1, 0.1, 0.1),
    Level("fair", 0.25, 0.25, 0.2, 0.3),
    Level("poor", 0.5, 0.4, 0.3, 0.6),
    Level("empty (= from scratch)", 1, 0, 0, 0),
]


def reference_spans(path: Path) -> tuple[list[tuple[str, list[Span]]], int, int]:
    """(output, spans) per row; errors kept and left out."""
    frame = pd.read_csv(path, usecols=["output", "errors_json"])
    outputs, kept, left = [], 0, 0
    for text, raw in zip(frame["output"].astype(str), frame["errors_json"], strict=True):
        spans: list[Span] = []
        for err in json.loads(raw) if isinstance(raw, str) else []:
            severity = str(err.get("severity", "")).casefold()
            piece = str(err.get("span") or "")
            if severity in ("neutral", "no-error") or not piece.strip():
                left += severity not in ("neutral", "no-error")
                continue
            at = _free_occurrence(text, piece, spans)
            if at is None:
                left += 1
                continue
            spans.append((at, at + len(piece), severity != "minor"))
            kept += 1
        outputs.append((text, sorted(spans)))
    return outputs, kept, left


def _free_occurrence(text: str, piece: str, spans: list[Span]) -> int | None:
    at = text.find(piece)
    while at >= 0:
        if not any(at < e and s < at + len(piece) for s, e, _ in spans):
            return at
        at = text.find(piece, at + 1)
    return None


def _words(text: str) -> list[tuple[int, int]]:
    return [m.span() for m in re.finditer(r"\S+", text)]


def perturb(text: str, spans: list[Span], level: Level, rng: random.Random) -> list[Span]:
    words = _words(text)
    out: list[Span] = []
    for s, e, major in spans:
        if rng.random() < level.p_drop:
            continue
        if rng.random() < level.p_shift:  # one word more or less at one end
            after = [w for w in words if w[0] >= e]
            if after and rng.random() < 0.5:
                e = after[0][1]
            else:
                inside = [w for w in words if s <= w[0] and w[1] <= e]
                if len(inside) > 1:
                    e = inside[-2][1]
                elif after:
                    e = after[0][1]
        if rng.random() < level.p_sev:
            major = not major
        out.append((s, e, major))
    n_add = int(level.add_rate) + (rng.random() < level.add_rate % 1)
    for _ in range(n_add):
        free = [w for w in words if not any(w[0] < e and s < w[1] for s, e, _ in spans + out)]
        if free:
            w = rng.choice(free)
            out.append((w[0], w[1], False))
    return _no_overlaps(sorted(out))


def _no_overlaps(spans: list[Span]) -> list[Span]:
    """An AI-span import refuses overlaps: keep the first of overlapping spans."""
    out: list[Span] = []
    for sp in spans:
        if not out or sp[0] >= out[-1][1]:
            out.append(sp)
    return out


def _json(spans: list[Span]) -> list[dict]:
    return [
        {"start": s, "end": e, "severity": "major" if m else "minor", "side": "target"}
        for s, e, m in spans
    ]


def actions(prefill: list[Span], reference: list[Span]) -> int:
    """Operations from ``prefill`` to ``reference`` under the model of the docstring."""
    n, unmatched_ai = 0, list(prefill)
    accepted = False
    for s, e, major in reference:
        same = next((a for a in unmatched_ai if (a[0], a[1]) == (s, e)), None)
        near = same or next((a for a in unmatched_ai if a[0] < e and s < a[1]), None)
        if near is None:
            n += 3
            continue
        unmatched_ai.remove(near)
        if same is None:
            n += 1  # a new selection over it moves its extent
        if near[2] != major:
            n += 1
        accepted |= same is not None and near[2] == major
    return n + 2 * len(unmatched_ai) + accepted


def run(level: Level, outputs: list[tuple[str, list[Span]]], seed: int = 1) -> dict:
    rng = random.Random(seed)
    exact = exact_sev = n_ai = n_ref = 0
    pairs = []
    origins = {"ai": 0, "edited": 0, "new": 0}
    deleted = ops_ai = ops_scratch = 0
    for text, ref in outputs:
        ai = perturb(text, ref, level, rng)
        pairs.append([ai, ref])
        n_ai, n_ref = n_ai + len(ai), n_ref + len(ref)
        exact += len({(s, e) for s, e, _ in ai} & {(s, e) for s, e, _ in ref})
        exact_sev += len(set(ai) & set(ref))
        got, fates = provenance(_json(ref), _json(ai))
        for o in got:
            origins[o] += 1
        deleted += fates.count("deleted")
        ops_ai += actions(ai, ref)
        ops_scratch += actions([], ref)
    f1 = lambda k: 2 * k / (n_ai + n_ref) if n_ai + n_ref else float("nan")  # noqa: E731
    return {
        "level": level.name,
        "AI spans": n_ai,
        "span F1": f1(exact),
        "span F1 (+severity)": f1(exact_sev),
        "char F1": span_f1(pairs).f1,
        "char F1 (+severity)": span_f1(pairs, severity_aware=True).f1,
        "final: from AI unchanged": origins["ai"] / max(n_ref, 1),
        "final: AI edited": origins["edited"] / max(n_ref, 1),
        "final: new": origins["new"] / max(n_ref, 1),
        "AI spans deleted": deleted / max(n_ai, 1),
        "actions / judgment (ESA^AI)": ops_ai / len(outputs),
        "actions / judgment (scratch)": ops_scratch / len(outputs),
    }


def main() -> None:
    if not DATA.exists():
        print(f"skipped: {DATA} is absent (the shared WMT21 TED MQM file)")
        return
    outputs, kept, left = reference_spans(DATA)
    print(
        f"WMT21 TED en-de: {len(outputs):,} outputs, {kept:,} reference spans located, "
        f"{left:,} errors without output text left out."
    )
    table = pd.DataFrame([run(level, outputs) for level in LEVELS])
    pd.set_option("display.width", 250)
    print(table.to_markdown(index=False, floatfmt=".3f"))


if __name__ == "__main__":
    main()
