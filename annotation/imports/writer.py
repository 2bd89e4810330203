"""Write a validated campaign file chunk by chunk inside the caller's one transaction, keeping
only compact per-key state between chunks (ids by key, judgments as columns of ints), never
the rows: peak memory stays a small multiple of the file. A problem found in a
later chunk raises, and the caller's transaction rolls back every chunk written before it.

Imported judgments need the whole file for their arrival order (a seeded permutation of the
judged items) and inclusion probabilities (the share of each system's outputs judged): their
annotations are inserted with each chunk, and their finished slots once the file has been
read (:meth:`CampaignWriter.finish`), which then points each annotation at its slot.
"""

from __future__ import annotations

from array import array
from collections.abc import Mapping, Sequence
from typing import Any

from annotation.judging.da_judgments import checked_score
from annotation.judging.session import InvalidJudgment
from annotation.queue.imported_slots import record_imported_columns
from db.campaign import campaigns as repo
from db.schema.vocabulary import CampaignMode
from formats import item_images
from formats.problems import MAX_PROBLEMS, CampaignFileError, Problem
from formats.rows import Row

IMPORT_ANNOTATOR = "imported"


def _pair(item_id: int, system_id: int) -> int:
    return item_id << 32 | system_id  # one small int per output, not a tuple of strings


class CampaignWriter:
    """Items, systems, outputs and judgments of validated rows, written as they come."""

    def __init__(
        self,
        s: Any,
        campaign_id: int,
        seed: int,
        filename: str,
        mode: str | None = None,
        images: Mapping[str, bytes] | None = None,
        likert: dict[str, Any] | None = None,
    ) -> None:
        self.s, self.campaign_id, self.seed, self.filename = s, campaign_id, seed, filename
        #: the campaign's mode: a DA / SQM campaign's human_score is its slider score
        self.mode = CampaignMode(mode) if mode else CampaignMode.BINARY
        self.items = repo.existing_items(s, campaign_id)  # ext → (id, source, reference)
        self.item_ids = {ext: v[0] for ext, v in self.items.items()}
        self.systems = repo.existing_systems(s, campaign_id)
        self.existing_pairs = set(repo.existing_output_keys(s, campaign_id))
        self.per_system: dict[int, int] = {}  # system id → its outputs (existing and new)
        for _, name in self.existing_pairs:
            self.per_system[self.systems[name]] = self.per_system.get(self.systems[name], 0) + 1
        self.human: dict[str, bool] = {}  # new systems → is_human so far
        self.annotators: dict[str, int] = {}
        self.problems: list[Problem] = []
        self.counts = {"items_added": 0, "outputs_added": 0, "judgments_added": 0}
        self.judged = _JudgedLog()
        #: the image files that came with the file (a bundle's, or uploaded beside it)
        self.images = dict(images or {})
        #: a DA campaign's Likert scale: human_score is then the point 1 … n
        self.likert = likert if self.mode == CampaignMode.DA else None
        self.stored_images = repo.stored_image_names(s, campaign_id) if self.items else set()

    # ------------------------------------------------------------------ per chunk

    def add(self, rows: Sequence[Row]) -> list[int]:
        """Write ``rows``; their output ids (empty once a row clashed with the campaign:
        nothing more is written, the remaining chunks are only checked)."""
        self._clashes(rows)
        self._slider_scores(rows)
        self._no_preference_judgments(rows)
        self._image_files(rows)
        if self.problems:
            return []
        self._systems(rows)
        self._items(rows)
        output_ids = self._outputs(rows)
        self._judgments(rows, output_ids)
        return output_ids

    def _clashes(self, rows: Sequence[Row]) -> None:
        """Rows that clash with the campaign's existing items or outputs (appending)."""
        if not self.items:
            return
        for row in rows:
            if row.item_id in self.items:
                _, src, ref = self.items[row.item_id]
                if (src, ref) != (row.source, row.reference):
                    self._problem(
                        row,
                        f"item '{row.item_id}' is already in the campaign with a different "
                        "source or reference",
                        "Use the campaign's text for this item, or a new item id.",
                        "source" if src != row.source else "reference",
                    )
            if (row.item_id, row.system) in self.existing_pairs:
                self._problem(
                    row,
                    f"('{row.item_id}', '{row.system}') is already in the campaign",
                    "Remove the row: appending adds new outputs only.",
                    "system",
                )

    def _slider_scores(self, rows: Sequence[Row]) -> None:
        """In a DA or SQM campaign a row's human_score is a slider judgment and obeys the
        slider's rule (annotation.judging.da_judgments.checked_score: DA 0–100, SQM a whole
        point 0–6); a score outside it is a problem naming the row and the range."""
        if not self.mode.asks_slider:
            return
        top = "0–6 (a whole SQM point)" if self.mode == CampaignMode.SQM else "0–100"
        if self.likert is not None:
            top = f"1–{len(self.likert['labels'])} (a whole point of the Likert scale)"
        for r in rows:
            if r.human_score is None:
                continue
            try:
                self._slider_score(r.human_score)
            except InvalidJudgment:
                self._problem(
                    r,
                    f"human_score is {r.human_score:g}, outside the {self.mode.value} range {top}",
                    f"Give a {self.mode.value.upper()} score in {top} or leave the cell empty.",
                    "human_score",
                )

    def _slider_score(self, human_score: float) -> float:
        """A file's human_score as the stored 0–100 slider score: DA / SQM in the slider's
        units; with a Likert scale the point 1 … n (stored 100·(p − 1)/(n − 1))."""
        if self.likert is not None:
            return checked_score(self.mode, human_score - 1, self.likert)
        return checked_score(self.mode, human_score)

    def _no_preference_judgments(self, rows: Sequence[Row]) -> None:
        """A preference campaign's judgments compare two outputs: a file's per-output
        human_label / human_score / post_edit has no place in one (refused by row)."""
        if not self.mode.asks_preference:
            return
        for r in rows:
            if r.has_judgment:
                self._problem(
                    r,
                    "a preference campaign judges pairs of outputs on the annotate page; "
                    "this row carries a per-output judgment",
                    "Leave human_label, human_score and post_edit empty (or ignore those "
                    "columns), or import the file in another mode.",
                    "human_label",
                )

    def _image_files(self, rows: Sequence[Row]) -> None:
        """Each row's image is a file that came with it (or one the campaign has already),
        a PNG, JPEG or WebP within the size limit."""
        for r in rows:
            if r.image is None or r.image in self.stored_images:
                continue
            data = self.images.get(r.image)
            if data is None:
                have = ", ".join(sorted(self.images)[:5]) or "none"
                self._problem(
                    r,
                    f"image {r.image!r} is not among the files that came with the campaign "
                    f"(found: {have})",
                    "Put the image in the ZIP bundle beside the campaign file, under the "
                    "path the column names (or upload it with the file).",
                    "image",
                )
                continue
            bad = item_images.bytes_problem(r.image, data)
            if bad is not None:
                self._problem(r, *bad, "image")

    def _problem(self, row: Row, message: str, fix: str, column: str) -> None:
        self.problems.append(Problem(self.filename, message, fix, row=row.number, column=column))
        if len(self.problems) >= MAX_PROBLEMS:
            self.raise_problems()

    def raise_problems(self) -> None:
        if self.problems:
            raise CampaignFileError(
                self.problems[:MAX_PROBLEMS], truncated=len(self.problems) >= MAX_PROBLEMS
            )

    def _systems(self, rows: Sequence[Row]) -> None:
        new: dict[str, bool] = {}
        for row in rows:
            if row.system in self.human:
                self.human[row.system] = self.human[row.system] or row.is_human
            elif row.system not in self.systems:
                new[row.system] = new.get(row.system, False) or row.is_human
        names = list(new)
        ids = repo.insert_systems(
            self.s,
            [{"campaign_id": self.campaign_id, "name": n, "is_human": new[n]} for n in names],
        )
        self.systems.update(zip(names, ids, strict=True))
        self.human.update(new)

    def _items(self, rows: Sequence[Row]) -> None:
        new: dict[str, dict[str, Any]] = {}
        images: dict[str, bytes] = {}
        for row in rows:
            if row.item_id not in self.item_ids and row.item_id not in new:
                new[row.item_id] = {
                    "campaign_id": self.campaign_id,
                    "external_id": row.item_id,
                    "source": row.source,
                    "reference": row.reference,
                    "doc_id": row.doc_id,
                    "meta": {},
                }
            if row.item_id in new:  # a later row of a new item may give what the first lacks
                meta = new[row.item_id]["meta"]
                if row.instructions and "instructions" not in meta:
                    meta["instructions"] = row.instructions
                if row.image and "image" not in meta:
                    meta["image"] = row.image
                    if row.image not in self.stored_images:
                        images[row.image] = self.images[row.image]
        if images:
            repo.insert_images(self.s, self.campaign_id, item_images.checked_images(images))
            self.stored_images.update(images)
        ids = repo.insert_items(self.s, list(new.values()))
        self.item_ids.update(zip(new, ids, strict=True))
        self.counts["items_added"] += len(new)

    def _outputs(self, rows: Sequence[Row]) -> list[int]:
        """Insert the new outputs of ``rows``; every row's output id. A later row of a pair
        is a further judgment of its output by another annotator (formats.rows.RowRules
        allows no other): only rows with an annotator are looked up among the outputs of
        earlier chunks (one query, not a map of every output kept in memory)."""
        keys = [_pair(self.item_ids[r.item_id], self.systems[r.system]) for r in rows]
        items = {key >> 32 for row, key in zip(rows, keys, strict=True) if row.annotator}
        known = repo.output_ids_by_pair(self.s, items) if items else {}
        new: dict[int, dict[str, Any]] = {}
        for row, key in zip(rows, keys, strict=True):
            if key not in known and key not in new:
                new[key] = {
                    "item_id": key >> 32,
                    "system_id": key & 0xFFFFFFFF,
                    "text": row.output,
                    "meta": _json_safe(row.extras),
                }
        ids = dict(zip(new, repo.insert_outputs(self.s, list(new.values())), strict=True))
        for key in new:
            self.per_system[key & 0xFFFFFFFF] = self.per_system.get(key & 0xFFFFFFFF, 0) + 1
        self.counts["outputs_added"] += len(new)
        return [ids.get(key) or known[key] for key in keys]

    def _judgments(self, rows: Sequence[Row], output_ids: list[int]) -> None:
        judged = [(r, o) for r, o in zip(rows, output_ids, strict=True) if r.has_judgment]
        if not judged:
            return
        names = {r.annotator or IMPORT_ANNOTATOR for r, _ in judged} - self.annotators.keys()
        if names:
            self.annotators.update(repo.ensure_annotators(self.s, self.campaign_id, names))
        edited = [r for r, _ in judged if r.post_edit is not None]
        hters: dict[int, float] = {}
        if edited:
            from metrics.hter import hter_many  # sacrebleu is only needed for post-edits

            values = hter_many([r.output for r in edited], [r.post_edit for r in edited])
            hters = {id(r): v for r, v in zip(edited, values, strict=True)}
        # Annotations are written in file order (so exports reproduce it); the random
        # arrival order lives in their slots' positions (finish).
        rows_out = [
            {
                "output_id": oid,
                "annotator_id": self.annotators[r.annotator or IMPORT_ANNOTATOR],
                "assignment_id": None,
                "kind": "label",
                "label": r.human_label,
                "score": r.human_score,
                # the slider judgment where the DA / SQM estimators read it (0–100)
                "da_score": (
                    self._slider_score(r.human_score)
                    if self.mode.asks_slider and r.human_score is not None
                    else None
                ),
                "post_edit": r.post_edit,
                "hter": hters.get(id(r)),
                "spans": r.spans,
                "esa_score": r.esa_score,
            }
            for r, oid in judged
        ]
        ids = repo.insert_judgments(self.s, rows_out)
        for (r, oid), ann_id, row in zip(judged, ids, rows_out, strict=True):
            self.judged.add(r.item_id, oid, row["annotator_id"], self.systems[r.system], ann_id)
        self.counts["judgments_added"] += len(judged)

    # ------------------------------------------------------------------ at the end

    def finish(self) -> dict[str, Any]:
        """Slots for the judgments, the systems' final is_human; the report's counts."""
        self.raise_problems()
        if self.mode.asks_preference:
            self._two_outputs_per_source()
        humans = [self.systems[n] for n, h in self.human.items() if h]
        repo.mark_human_systems(self.s, humans)  # a later row may say so after the insert
        log = self.judged
        judged_outputs: dict[int, set[int]] = {}
        for sid, oid in zip(log.system_ids, log.output_ids, strict=True):
            judged_outputs.setdefault(sid, set()).add(oid)
        share = {sid: len(o) / self.per_system[sid] for sid, o in judged_outputs.items()}
        slots = record_imported_columns(
            self.s,
            self.campaign_id,
            self.seed,
            log.items,
            log.output_ids,
            log.annotator_ids,
            [share[sid] for sid in log.system_ids],
        )
        repo.set_assignment_ids(self.s, log.annotation_ids, slots)
        n_judged = sum(len(o) for o in judged_outputs.values())
        return {
            **self.counts,
            "systems_added": len(self.human),
            "annotators": len(self.annotators),
            "census": bool(log.items) and n_judged == sum(self.per_system.values()),
        }

    def _two_outputs_per_source(self) -> None:
        """Every source of a preference campaign needs two outputs to compare: the sources
        with one are named (the first few), nothing is written."""
        alone = repo.items_with_one_output(self.s, self.campaign_id)
        if alone:
            shown = ", ".join(f"'{i}'" for i in alone[:5]) + (" …" if len(alone) > 5 else "")
            raise CampaignFileError([Problem(
                self.filename,
                f"{len(alone):,} source(s) have only one output ({shown}): a preference "
                "campaign compares two or more systems' outputs of each source",
                "Give every item_id rows of at least two systems, or leave those items out.",
                column="item_id",
            )])  # fmt: skip

    @property
    def n_outputs(self) -> int:
        return sum(self.per_system.values())


class _JudgedLog:
    """The imported judgments as columns of ints (and the item ids, shared strings)."""

    def __init__(self) -> None:
        self.items: list[str] = []
        self.output_ids = array("q")
        self.annotator_ids = array("q")
        self.system_ids = array("q")
        self.annotation_ids = array("q")

    def add(self, item: str, output_id: int, annotator_id: int, system_id: int, ann: int) -> None:
        self.items.append(item)
        self.output_ids.append(output_id)
        self.annotator_ids.append(annotator_id)
        self.system_ids.append(system_id)
        self.annotation_ids.append(ann)


def _json_safe(values: dict[str, Any]) -> dict[str, Any]:
    """Metadata values as JSON can store them (NaN → None, numpy scalars → Python)."""
    out: dict[str, Any] = {}
    for k, v in values.items():
        if isinstance(v, float) and v != v:
            v = None
        elif hasattr(v, "item") and not isinstance(v, list | dict | str):
            v = v.item()
        out[k] = v
    return out
