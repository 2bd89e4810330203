"""A generated demo campaign, so a first `make run` has something real-looking to show.

Synthetic English→German sentences built from small templates; four systems corrupt the
reference at different, known rates (word drops, wrong-word substitutions, swaps), so their
true quality differs and string metrics (chrF, BLEU, TER — scored on seeding) track it
imperfectly, as real metrics do. A random subset of items carries human labels drawn from a
known adequacy model; the rest wait in the annotation queue. Nothing here reads a data set
from outside the repository; it goes through the same importer as a user's file.
"""

from __future__ import annotations

import csv
import io

import numpy as np

from annotation.imports.importer import import_campaign
from annotation.imports.reports import ImportReport
from db import Engine
from db.campaign.campaigns import list_campaigns

DEMO_NAME = "Demo: en→de news (synthetic)"
#: Per-system probability that a word is damaged; lower is better.
DEMO_SYSTEMS = {"sys-strong": 0.05, "sys-good": 0.12, "sys-fair": 0.2, "sys-weak": 0.32}

_SUBJECTS = [
    ("The government", "Die Regierung"),
    ("The committee", "Der Ausschuss"),
    ("The company", "Das Unternehmen"),
    ("The city council", "Der Stadtrat"),
    ("The research team", "Das Forschungsteam"),
    ("The hospital", "Das Krankenhaus"),
    ("The school", "Die Schule"),
    ("The museum", "Das Museum"),
]
_VERBS = [
    ("announced", "kündigte", "an"),
    ("rejected", "lehnte", "ab"),
    ("presented", "stellte", "vor"),
    ("postponed", "verschob", ""),
    ("approved", "genehmigte", ""),
    ("criticised", "kritisierte", ""),
]
_OBJECTS = [
    ("a new plan for public transport", "einen neuen Plan für den Nahverkehr"),
    ("the budget for next year", "den Haushalt für das nächste Jahr"),
    ("a study on air quality", "eine Studie zur Luftqualität"),
    ("the proposal to build more housing", "den Vorschlag, mehr Wohnungen zu bauen"),
    ("a programme for young researchers", "ein Programm für junge Forschende"),
    ("the decision about the old bridge", "die Entscheidung über die alte Brücke"),
    ("new rules for data protection", "neue Regeln für den Datenschutz"),
]
_TIMES = [
    ("on Monday", "am Montag"),
    ("last week", "letzte Woche"),
    ("after a long debate", "nach einer langen Debatte"),
    ("yesterday evening", "gestern Abend"),
    ("in a press release", "in einer Pressemitteilung"),
]
_WRONG = ["Haus", "nicht", "Wetter", "schnell", "Auto", "vielleicht", "rot", "Katze", "niemals"]


def _sentence(rng: np.random.Generator) -> tuple[str, str]:
    subj = _SUBJECTS[rng.integers(len(_SUBJECTS))]
    verb = _VERBS[rng.integers(len(_VERBS))]
    obj = _OBJECTS[rng.integers(len(_OBJECTS))]
    when = _TIMES[rng.integers(len(_TIMES))]
    source = f"{subj[0]} {verb[0]} {obj[0]} {when[0]}."
    tail = f" {verb[2]}" if verb[2] else ""
    target = f"{subj[1]} {verb[1]} {when[1]} {obj[1]}{tail}."
    return source, target


def _corrupt(rng: np.random.Generator, reference: str, rate: float) -> tuple[str, float]:
    """A system output and its damage (share of words damaged)."""
    words = reference.rstrip(".").split()
    out: list[str] = []
    damaged = 0
    for word in words:
        u = rng.random()
        if u < rate / 3:
            damaged += 1  # dropped
        elif u < 2 * rate / 3:
            out.append(str(rng.choice(_WRONG)))
            damaged += 1
        elif u < rate and out:
            out.insert(len(out) - 1, word)  # swapped with the previous word
            damaged += 1
        else:
            out.append(word)
    return (" ".join(out) or words[0]) + ".", damaged / len(words)


def demo_campaign_csv(seed: int = 7, n_items: int = 150, labelled_share: float = 0.35) -> bytes:
    """The demo campaign as a campaign CSV (long format)."""
    rng = np.random.default_rng(seed)
    buf = io.StringIO(newline="")
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(["item_id", "source", "reference", "system", "output", "doc_id", "human_label"])
    labelled = rng.random(n_items) < labelled_share
    for j in range(n_items):
        source, reference = _sentence(rng)
        for system, rate in DEMO_SYSTEMS.items():
            output, damage = _corrupt(rng, reference, rate)
            # Known adequacy model: adequate unless damaged; rare annotator slips.
            p_adequate = 0.95 if damage == 0 else max(0.05, 0.85 - 2.5 * damage)
            label = int(rng.random() < p_adequate) if labelled[j] else ""
            writer.writerow(
                [
                    f"demo-{j + 1:04d}",
                    source,
                    reference,
                    system,
                    output,
                    f"doc-{j // 10 + 1}",
                    label,
                ]
            )
    return buf.getvalue().encode("utf-8")


def seed_demo(engine: Engine) -> ImportReport:
    """Import the demo campaign, score it with the fast sacrebleu metrics, queue the rest.

    BERTScore is left to the admin page's "Score" button (a minute on a CPU), so that a
    first `make run` starts quickly.
    """
    from annotation.queue.build import build_queue
    from metrics.scoring import score_campaign

    report = import_campaign(
        engine,
        demo_campaign_csv(),
        DEMO_NAME,
        filename="demo.csv",
        settings={"source_lang": "en", "target_lang": "de", "mode": "both"},
    )
    score_campaign(engine, report.campaign_id, "bleu,chrf,ter", workers=1)
    build_queue(engine, report.campaign_id)
    return report


def seed_demo_if_empty(engine: Engine) -> ImportReport | None:
    """:func:`seed_demo` when the database has no campaign yet."""
    return None if list_campaigns(engine, archived=None) else seed_demo(engine)
