"""Quality-control defaults of a new campaign, and what they cost in labels.

Two checks, both built into the queue (annotation.queue.build.build_queue):

- **Overlap** (default 10% of the items): a second annotator judges them, so inter-annotator
  agreement (Krippendorff's α on the dashboard) is measured on a random sample; WMT's
  Appraise campaigns and Pearmut do the same with a share of repeated items.
- **Attention checks** (default 5% of queue positions): degraded copies of real outputs with
  a major error (annotation.queue.attention); an annotator who calls them adequate is not reading.
  They are never counted in estimates.

Both cost paid labels; :func:`qc_cost` says how many for a campaign of a given size, so
the pages can state it next to the settings.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

DEFAULT_OVERLAP = 0.10
DEFAULT_ATTENTION_RATE = 0.05
QC_DEFAULTS = {"overlap": DEFAULT_OVERLAP, "attention_rate": DEFAULT_ATTENTION_RATE}


@dataclass(frozen=True)
class QualityCost:
    """Queue slots of a full queue with the checks, against the plain census."""

    outputs: int  # one slot each: the census
    overlap_slots: int
    attention_slots: int

    @property
    def extra(self) -> int:
        return self.overlap_slots + self.attention_slots

    @property
    def extra_share(self) -> float:
        return self.extra / self.outputs if self.outputs else 0.0

    def describe(self) -> str:
        if not self.outputs:
            return "No outputs yet."
        return (
            f"{self.extra:,} extra judgments on top of the {self.outputs:,} outputs "
            f"(+{self.extra_share:.0%}): {self.overlap_slots:,} second judgments for "
            f"agreement and {self.attention_slots:,} attention checks."
        )


def qc_cost(
    n_outputs: int,
    n_items: int,
    *,
    paired: bool,
    overlap: float,
    attention_rate: float,
    blocks: int | None = None,
    per_screen: int | None = None,
) -> QualityCost:
    """The slots a full queue adds for the checks, as annotation.queue.build.build_queue draws
    them: ``round(overlap × units)`` units get a second slot (units are items when paired,
    each with its outputs; outputs otherwise; with ``blocks``, documents judged in order,
    whole document blocks), and attention checks fill ``attention_rate`` of the judgment
    screens, i.e. ``rate / (1 − rate)`` × the regular screens (a screen is one output, or with
    ``per_screen`` in comparative mode ⌈outputs of an item / per_screen⌉)."""
    overlap = min(max(overlap, 0.0), 1.0)
    rate = min(max(attention_rate, 0.0), 0.5)
    if blocks:
        overlap_slots = round(round(overlap * blocks) * n_outputs / blocks)
    elif paired and n_items:
        per_item = n_outputs / n_items
        overlap_slots = round(round(overlap * n_items) * per_item)
    else:
        overlap_slots = round(overlap * n_outputs)
    regular = n_outputs + overlap_slots
    screens: float = regular
    if per_screen and paired and n_items:
        per_item = n_outputs / n_items
        screens = regular / per_item * math.ceil(per_item / per_screen)
    attention = round(rate / (1.0 - rate) * screens) if rate > 0 else 0
    return QualityCost(n_outputs, overlap_slots, attention)
