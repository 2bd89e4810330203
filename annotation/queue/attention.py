"""Attention checks: degraded copies of real outputs, in the spirit of SEScore's
stratified error synthesis (Xu et al. 2022, "Not All Errors are Equal").

SEScore builds synthetic errors by applying up to five edits to a sentence — deletion, word
swap, insertion or replacement of a span — and gives each edit an MQM-style severity, minor
(−1) or major (−5), decided by whether the edit changes the meaning. We have no entailment
model at annotation time, so the severity is the one the edit itself implies:

==========  ======================================  ==========================================
operation   minor (−1)                              major (−5)
==========  ======================================  ==========================================
delete      one word of a sentence of ≥ 8 words     a span of ≥ 2 words, or ≥ 20 % of the words
swap        two adjacent words                      two words ≥ 3 positions apart
insert      one word                                a span of ≥ 2 words (from another output)
replace     —                                       any span (words of another output)
==========  ======================================  ==========================================

An attention check carries at least one major edit, so a careful annotator labels it
*inadequate* (``expected_label = 0``); its MQM score is the sum of its edits' severities.

Each edit also records where it is in the degraded text (``regions``: character ranges
``[start, end)`` of the words it inserted, replaced or moved, or of the two words around a
deletion), so a span-mode answer can be checked at span level: it passes when a span of
the output overlaps a region of an edit of the check's severity, with at least that
severity (db.judging.annotator_stats.span_attention_passed).
Checks are mixed into the queue at the campaign's ``attention_rate`` (annotation.queue.build) and
their answers are stored with ``kind = "attention"``: never counted in estimates.
"""

from __future__ import annotations

from dataclasses import dataclass
from difflib import SequenceMatcher
from typing import Any

import numpy as np

MINOR, MAJOR = -1, -5
OPERATIONS = ("delete", "swap", "insert", "replace")
MIN_WORDS = 4  # shorter outputs are not degraded (an edit would be too obvious or impossible)


@dataclass(frozen=True)
class Degraded:
    text: str
    operations: list[dict[str, Any]]
    #: Worst edit severity: −5 (major) or −1 (minor).
    severity: int
    #: MQM-style score: sum of the edits' severities.
    mqm: int
    expected_label: int


def _span(rng: np.random.Generator, n: int, length: int) -> tuple[int, int]:
    length = max(1, min(length, n))
    start = int(rng.integers(0, n - length + 1))
    return start, start + length


def apply_edit(
    words: list[str], op: str, major: bool, rng: np.random.Generator, donor: list[str]
) -> tuple[list[str], dict[str, Any]]:
    """Apply one edit of the given type and severity; the new words and its record."""
    n = len(words)
    if op == "delete":
        length = max(2, int(np.ceil(0.2 * n))) if major else 1
        length = min(length, n - 1)
        i, j = _span(rng, n, length)
        record = {"op": op, "at": i, "span": " ".join(words[i:j])}
        out = words[:i] + words[j:]
        sev = MAJOR if (length >= 2 or length >= 0.2 * n) else MINOR
    elif op == "swap":
        for _ in range(20):  # two different words, so the swap is visible
            if major and n >= 4:
                i = int(rng.integers(0, n - 3))
                j = int(rng.integers(i + 3, n))
            else:
                i = int(rng.integers(0, n - 1))
                j = i + 1
            if words[i] != words[j]:
                break
        out = list(words)
        out[i], out[j] = out[j], out[i]
        record = {"op": op, "at": i, "with": j, "span": f"{words[i]} ↔ {words[j]}"}
        sev = MAJOR if j - i >= 3 else MINOR
    elif op in ("insert", "replace"):
        donor = donor or ["not", "never", "nothing"]
        length = int(rng.integers(2, 4)) if (major or op == "replace") else 1
        k, _ = _span(rng, len(donor), length)
        new = donor[k : k + length]
        if op == "insert":
            i = int(rng.integers(0, n + 1))
            out = words[:i] + new + words[i:]
            sev = MAJOR if len(new) >= 2 else MINOR
            record = {"op": op, "at": i, "span": " ".join(new)}
        else:
            i, j = _span(rng, n, min(len(new), n - 1))
            out = words[:i] + new + words[j:]
            sev = MAJOR
            record = {"op": op, "at": i, "span": " ".join(words[i:j]), "by": " ".join(new)}
    else:
        raise ValueError(f"unknown edit {op!r}; one of {OPERATIONS}")
    if out == words:  # e.g. a swap of two equal words: force a visible change
        out = words[:-1] if n > 1 else ["…"]
        record = {"op": "delete", "at": n - 1, "span": words[-1]}
        sev = MINOR
    record["severity"] = sev
    return out, record


def degrade(
    text: str, rng: np.random.Generator, donor_text: str = "", n_edits: int | None = None
) -> Degraded | None:
    """A degraded copy of ``text`` with one major edit and up to two further edits of random
    type and severity; None when the text is too short to degrade."""
    words = text.split()
    if len(words) < MIN_WORDS:
        return None
    donor = [w for w in donor_text.split() if w not in set(words)] or donor_text.split()
    n_edits = n_edits or int(rng.integers(1, 4))
    ops: list[dict[str, Any]] = []
    tags: list[set[int]] = [set() for _ in words]  # which edits touched each word
    for k in range(n_edits):
        op = OPERATIONS[int(rng.integers(0, len(OPERATIONS)))]
        edited, record = apply_edit(words, op, major=(k == 0), rng=rng, donor=donor)
        tags = _carry_tags(words, edited, tags, k)
        words = edited
        ops.append(record)
        if len(words) < 3:
            break
    for k, record in enumerate(ops):
        record["regions"] = _regions(words, tags, k)
    mqm = sum(o["severity"] for o in ops)
    severity = MAJOR if any(o["severity"] == MAJOR for o in ops) else MINOR
    return Degraded(
        text=" ".join(words),
        operations=ops,
        severity=severity,
        mqm=mqm,
        expected_label=0 if severity == MAJOR else 1,
    )


def _carry_tags(
    before: list[str], after: list[str], tags: list[set[int]], k: int
) -> list[set[int]]:
    """The edit tags of ``after``'s words: unchanged words keep theirs; words edit ``k``
    inserted, replaced or moved get ``k``; so do the two words around a deletion, which
    also inherit the tags of the words it removed (an earlier edit stays findable)."""
    out: list[set[int]] = [set() for _ in after]
    gaps = []
    matcher = SequenceMatcher(a=before, b=after, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            for i, j in zip(range(i1, i2), range(j1, j2), strict=True):
                out[j] |= tags[i]
        else:
            old = {k, *(t for i in range(i1, i2) for t in tags[i])}
            for j in range(j1, j2):
                out[j] |= old
            if j1 == j2:  # a deletion: its neighbours carry it (and what it removed)
                gaps.append((j1, old))
    for j, old in gaps:
        for n in (j - 1, j):
            if 0 <= n < len(after):
                out[n] |= old
    return out


def _regions(words: list[str], tags: list[set[int]], k: int) -> list[list[int]]:
    """Character ranges [start, end) in ``" ".join(words)`` of the runs of words tagged k."""
    regions: list[list[int]] = []
    pos = 0
    for word, t in zip(words, tags, strict=True):
        start, end = pos, pos + len(word)
        if k in t:
            if regions and regions[-1][1] == start - 1:
                regions[-1][1] = end
            else:
                regions.append([start, end])
        pos = end + 1
    return regions
