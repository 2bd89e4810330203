"""The annotation modes an import offers: every stored campaign mode, and ``esa``, an
error-span campaign set up as WMT runs ESA (Kocmi et al. 2024, "Error Span Annotation").

``esa`` is a preset, not a stored mode: the campaign is stored as ``spans`` with

- span settings that ask for the 0–100 overall score with the spans and have one error
  category (so a severity alone marks a span), and the error-free threshold of the
  ``error_free`` judgment kind (85 unless set);
- the WMT ESA guidelines as the campaign's guidelines (editable on the Annotators page).

Every reader of a span campaign (the span screen, the comparative screen — cESA when
comparative mode is on —, exports, the MQM export, AI error spans, the monitor's and the
dashboard's judgment kinds) therefore reads an ESA campaign as any span campaign.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from annotation.campaign.guidelines import GUIDELINES_KEY
from annotation.judging.span_judgments import META_KEY
from annotation.judging.spans import SpanConfig
from annotation.queue.pair_policy import KEY as POLICY_KEY
from annotation.queue.pair_policy import UNIFORM, policy_settings
from db.schema.vocabulary import CampaignMode

__all__ = ["ESA_GUIDELINES", "ESA_MODE", "IMPORT_MODES", "esa_span_config", "stored_settings"]

ESA_MODE = "esa"
#: What `cli.py import --mode` and the Import page offer (stored modes, then the presets).
IMPORT_MODES: tuple[str, ...] = (*(m.value for m in CampaignMode), ESA_MODE)
#: ESA marks spans by severity only: every span is stored with this one category, which the
#: pages never ask for nor show (views/spans/item.py span_wording).
ESA_CATEGORIES = ("error",)

ESA_GUIDELINES = """\
**Error Span Annotation (ESA), as WMT runs it.** For each translation:

1. **Mark the errors.** Select the words that are wrong and give each a severity:
   - **minor** (`q`): a problem of style, grammar, word choice or fluency that does not
     change the meaning — the text is still understandable;
   - **major** (`w`): an error that changes or loses the meaning, or makes the text hard to
     understand.

   Use only these two severities. Keep each span short: the wrong words, not the sentence.
2. **Something missing?** When a part of the source was left out of the translation, click
   in the source where it is missing: this is WMT's `[missing]` marker, an omission with a
   severity like any error.
3. **Give the overall score** from 0 to 100 after marking the errors:
   0 = no meaning preserved (nonsense, or not a translation); 33 = some of the meaning
   preserved; 66 = most of the meaning preserved, a few grammar mistakes or minor
   inconsistencies; 100 = perfect meaning and grammar.
4. **Wrong language, or not a translation at all:** mark the whole output as one major
   error and give it 0.

No errors: press `n` (no errors) and still give the score.
"""


def esa_span_config(error_free_threshold: float | None = None) -> SpanConfig:
    """The span settings of an ESA campaign: the overall score asked, one error category,
    and the error-free threshold (the default when None)."""
    base = SpanConfig(categories=ESA_CATEGORIES, ask_esa=True)
    if error_free_threshold is None:
        return base
    return SpanConfig.from_meta({**base.to_meta(), "error_free_threshold": error_free_threshold})


def stored_settings(settings: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """An import's settings as the campaign row stores them: ``mode`` ``esa`` becomes
    ``spans`` with the ESA span settings and guidelines in its ``meta`` (merged into any
    ``meta`` given, whose own span settings or guidelines win); ``preference`` is stored
    unpaired, since each of its slots is one pair of outputs claimed alone
    (annotation.queue.pairs), its ``pair_policy`` (``uniform`` or ``adaptive``,
    annotation.queue.pair_policy) recorded in ``meta["preference"]``; a ``likert`` setting
    (formats.forms.likert's stored scale) goes into ``meta["likert"]`` of a DA campaign;
    other modes pass unchanged (a ``pair_policy`` other than uniform, or a Likert scale,
    in a mode that has none is a ValueError)."""
    settings = _with_pair_policy(settings)
    settings = _with_likert(settings)
    if settings is not None and settings.get("mode") == CampaignMode.PREFERENCE.value:
        return {**settings, "paired": False}  # a slot is one pair (annotation.queue.pairs)
    if settings is None or settings.get("mode") != ESA_MODE:
        return None if settings is None else dict(settings)
    meta = dict(settings.get("meta") or {})
    meta.setdefault(META_KEY, esa_span_config().to_meta())
    meta.setdefault(GUIDELINES_KEY, {"text": ESA_GUIDELINES.strip(), "examples": ""})
    return {**settings, "mode": CampaignMode.SPANS.value, "meta": meta}


def _with_pair_policy(settings: Mapping[str, Any] | None) -> Mapping[str, Any] | None:
    """``settings`` with its ``pair_policy`` moved into a preference campaign's meta."""
    if settings is None or "pair_policy" not in settings:
        return settings
    settings = dict(settings)
    policy = settings.pop("pair_policy") or UNIFORM
    if settings.get("mode") == CampaignMode.PREFERENCE.value:
        meta = dict(settings.get("meta") or {})
        meta[POLICY_KEY] = {**(meta.get(POLICY_KEY) or {}), **policy_settings(policy)}
        settings["meta"] = meta
    elif policy != UNIFORM:
        raise ValueError(
            f"pair policy {policy!r}: only preference campaigns draw pairs (--mode preference)"
        )
    return settings


def _with_likert(settings: Mapping[str, Any] | None) -> Mapping[str, Any] | None:
    """``settings`` with its ``likert`` scale moved into a DA campaign's meta."""
    if settings is None or "likert" not in settings:
        return settings
    settings = dict(settings)
    scale = settings.pop("likert")
    if scale is None:
        return settings
    if (settings.get("mode") or CampaignMode.DA.value) != CampaignMode.DA.value:
        raise ValueError(
            f"a Likert scale is a DA campaign's, not a {settings.get('mode')!r} one; "
            "import with mode da"
        )
    settings["mode"] = CampaignMode.DA.value
    settings["meta"] = {**dict(settings.get("meta") or {}), "likert": scale}
    return settings
