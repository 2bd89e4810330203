"""Small Pearmut campaigns, one per shape of Pearmut's examples/ (esa, esaai, contrastive,
da, likert_custom_scales, multimodal, user_info_form, tutorials), written for these tests
from the layouts Pearmut's README documents (texts are made up)."""

from __future__ import annotations

import copy
import json
from typing import Any

SRC = ["The dog ran outside.", "The cat slept all day.", "It rained in the evening."]
TGT = {
    "sysA": ["Der Hund rannte hinaus.", "Die Katze schlief den ganzen Tag.", "Es regnete abends."],
    "sysB": ["Der Hund lief raus.", "Katze schlief Tag.", "Am Abend hat es geregnet."],
}


def _item(k: int, systems: tuple[str, ...] = ("sysA",), **extra: Any) -> dict[str, Any]:
    return {
        "item_id": f"doc{k // 2}_#_{k}",
        "src": SRC[k],
        "tgt": {s: TGT[s][k] for s in systems},
        **extra,
    }


def _campaign(protocol: str, data: list[Any], **info: Any) -> dict[str, Any]:
    return {
        "info": {"assignment": "task-based", "protocol": protocol, **info},
        "campaign_id": f"example_{protocol.lower()}",
        "data": data,
    }


def esa() -> dict[str, Any]:
    first = _item(0, instructions="Evaluate translation from English to German.")
    return _campaign("ESA", [[[first, _item(1)], [_item(2)]]])


def esaai() -> dict[str, Any]:
    # "Hund" is characters 4..7 of "Der Hund rannte hinaus." (end_i inclusive)
    spans = {
        "sysA": [
            {"start_i": 4, "end_i": 7, "severity": "minor", "category": None},
            {"start_i": 9, "end_i": 14, "severity": "major", "category": None},
        ]
    }
    c = _campaign("ESA", [[[_item(0, error_spans=spans), _item(1)], [_item(2)]]])
    c["data"][0][0][1]["error_spans"] = {"sysA": []}
    return c


def contrastive() -> dict[str, Any]:
    both = ("sysA", "sysB")
    return _campaign(
        "cESA",
        [[[_item(0, both), _item(1, both)], [_item(2, both)]]],
        textfield="hidden",
        show_model_names=True,
    )


def da() -> dict[str, Any]:
    # two tasks sharing document 0 (redundancy: the same item in two annotators' tasks)
    doc0 = [_item(0), _item(1)]
    return _campaign("DA", [[copy.deepcopy(doc0), [_item(2)]], [copy.deepcopy(doc0)]])


def mqm() -> dict[str, Any]:
    return _campaign("MQM", [[[_item(0, ("sysA", "sysB")), _item(1)]]])


def likert_custom_scales() -> dict[str, Any]:
    return _campaign(
        "DA",
        [[[_item(0, ("sysA", "sysB"))]]],
        sliders=[
            {"name": "Fluency", "min": 0, "max": 5, "step": 1},
            {"name": "Adequacy", "min": 0, "max": 100, "step": 1},
        ],
    )


def multimodal() -> dict[str, Any]:
    audio = {
        "item_id": "mock_audio",
        "src": '<audio controls src="x.wav"></audio>',
        "tgt": {"A": "Ein Satz."},
    }
    return _campaign("MQM", [[[audio]]], instructions_goodbye="Bye ${USER_ID}")


def user_info_form() -> dict[str, Any]:
    c = _campaign("DA", [[[_item(0)]]], instructions="Tell us about yourself first.")
    c["data_welcome"] = [
        [
            {"text": "Native language?", "form": "string"},
            {"text": "Level?", "form": "choices", "choices": ["A1", "C2"]},
        ]
    ]
    return c


def tutorial_items() -> list[dict[str, Any]]:
    """A tutorial document as Pearmut's tutorials/*.json hold them (to prefix to a task)."""
    good = {
        "item_id": "tut_#_1",
        "src": "Der Hund ist rausgerannt.",
        "tgt": {"model-tutorial": "The dog ran outside."},
        "instructions": "<b>This translation is correct.</b> Set the score to 100.",
        "validation": {
            "model-tutorial": {
                "warning": "It is perfect: score 95-100.",
                "score": [95, 100],
                "error_spans": [],
                "allow_skip": True,
            }
        },
    }
    bad = {
        "item_id": "tut_#_2",
        "src": "Der Hund ist rausgerannt.",
        "tgt": {"model-tutorial": "The dog walked outside."},
        "validation": {
            "model-tutorial": {
                "warning": "Mark 'walked' as minor.",
                "score": [75, 85],
                "error_spans": [{"start_i": [7, 9], "end_i": [12, 14], "severity": "minor"}],
            }
        },
    }
    ranked = {
        "item_id": "tut_#_3",
        "src": "AI transforms industries.",
        "tgt": {"A": "UI transformiert.", "B": "KI verändert Branchen."},
        "validation": {
            "A": [{"warning": "A has an error.", "score": [20, 40]}],
            "B": [{"score": [70, 90], "score_greaterthan": "A"}],
        },
    }
    # a skippable tutorial item with no validation (Pearmut's tutorials end with such items)
    walk = {
        "item_id": "tut_#_4",
        "src": "Es gibt viele Varianten.",
        "tgt": {"A": "There are many variants.", "B": "There are few variants."},
        "instructions": "<script>document.title = 'x'</script>Score both translations.",
        "skippable": True,
    }
    return [good, bad, ranked, walk]


def tutorials() -> dict[str, Any]:
    """An ESA campaign whose task starts with the tutorial document."""
    return _campaign("ESA", [[tutorial_items(), [_item(0), _item(1)], [_item(2)]]])


def tutorial_only() -> dict[str, Any]:
    return {
        "info": {"protocol": "ESA", "assignment": "task-based"},
        "campaign_id": "esa_tutorial",
        "data": [[tutorial_items()]],
    }


#: name → (campaign, whether Tandem imports it)
SHAPES = {
    "esa": (esa, True),
    "esaai": (esaai, True),
    "contrastive": (contrastive, True),
    "da": (da, True),
    "mqm": (mqm, True),
    "likert_custom_scales": (likert_custom_scales, True),
    "multimodal": (multimodal, False),
    "user_info_form": (user_info_form, True),
    "tutorials": (tutorials, True),
    "tutorial_only": (tutorial_only, False),
}


def as_bytes(campaign: dict[str, Any]) -> bytes:
    return json.dumps(campaign, ensure_ascii=False).encode()
