"""The common interface of every metric family (in the spirit of sacrebleu's ``Metric``).

A :class:`Metric` is a configured metric family. It turns parallel lists of hypotheses and
references into per-sentence scores for one or more *keys* (``bleu``; or ``bertscore_p``,
``bertscore_r``, ``bertscore_f``) and gives, per key, the reproducibility *signature* that is
stored with every score (sacrebleu's ``key:value|…`` format). Two scores with the same
signature were computed the same way; two with different signatures are not comparable.

Pure computation: no database, no Streamlit. Batch orchestration lives in
:mod:`metrics.scoring`, storage in :mod:`db.scores.metric_scores`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence

#: A progress callback: ``progress(done, total)``; the CLI passes a tqdm bar, the app an
#: ``st.progress`` wrapper.
Progress = Callable[[int, int], None]


class MetricConfigError(ValueError):
    """A metric option is wrong (unknown name, unreadable model path, missing tokenizer)."""


class Metric(ABC):
    """A configured metric family producing per-sentence scores for :attr:`keys`."""

    #: Family name as users type it (``bleu``, ``chrf``, ``chrf++``, ``ter``, ``bertscore``).
    name: str
    #: Stored metric keys this family produces, in a fixed order.
    keys: tuple[str, ...]
    #: Reference-based metrics skip items without a reference.
    needs_reference: bool = True

    @abstractmethod
    def signatures(self) -> dict[str, str]:
        """The reproducibility signature of each key (distinct strings per key)."""

    @abstractmethod
    def score(
        self,
        hypotheses: Sequence[str],
        references: Sequence[str],
        progress: Progress | None = None,
    ) -> dict[str, list[float]]:
        """Per-sentence scores, one list per key, aligned with ``hypotheses``.

        Never raises on empty or whitespace-only strings: each family documents the score
        such a pair gets (see :data:`metrics.registry.EMPTY_INPUT_SCORES`).
        """

    def higher_is_better(self, key: str) -> bool:
        """True when larger values mean better output (False for TER)."""
        return True
