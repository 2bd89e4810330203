"""A validated row of an imported file, and the rules every row obeys whatever file it came
from (campaign files, MQM TSVs): NUL bytes, empty ids and outputs, length limits, one source
and reference per item, one output text per (item, system)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from formats.cells import has_nul
from formats.problems import MAX_LENGTH, MAX_PROBLEMS, CampaignFileError, Problem

REQUIRED = ("item_id", "source", "reference", "system", "output")
OPTIONAL = (
    "doc_id",
    "human_label",
    "human_score",
    "post_edit",
    "annotator",
    "is_human",
    "instructions",
    "image",
)


@dataclass(slots=True)  # slots: no per-row __dict__ (a million rows: ~250 MB less)
class Row:
    """A validated row, with values normalised (None for absent optional values)."""

    number: int
    line: int | None
    item_id: str
    source: str
    reference: str | None
    system: str
    output: str
    doc_id: str | None = None
    human_label: int | None = None
    human_score: float | None = None
    post_edit: str | None = None
    annotator: str | None = None
    is_human: bool = False
    extras: dict[str, Any] = field(default_factory=dict)
    #: Error spans of the judgment (JSON, annotation.judging.spans); set by the MQM TSV importer.
    spans: list[dict[str, Any]] | None = None
    #: The ESA 0–100 score of a span judgment; set by the Pearmut log importer.
    esa_score: float | None = None
    #: The item's instructions (markdown, formats.instructions), shown above it.
    instructions: str | None = None
    #: The file name of the item's image (formats.item_images), shown with it.
    image: str | None = None

    @property
    def has_judgment(self) -> bool:
        return (
            self.human_label is not None
            or self.human_score is not None
            or self.post_edit is not None
        )


@dataclass
class CampaignFile:
    """A parsed, validated campaign file."""

    filename: str
    columns: list[str]
    extra_columns: list[str]
    rows: list[Row]

    @property
    def has_judgments(self) -> bool:
        return any(r.has_judgment for r in self.rows)


#: Column names as a file names them, for messages (an MQM TSV says seg_id, target, rater).
CAMPAIGN_NAMES = {c: c for c in (*REQUIRED, *OPTIONAL)} | {"item": "item", "ids": "item ids"}
MQM_NAMES = CAMPAIGN_NAMES | {
    "item": "seg_id",
    "ids": "seg_ids",
    "item_id": "seg_id",
    "output": "target",
    "annotator": "rater",
    "doc_id": "doc",
    "wmt_doc_id": "doc_id",
}


class RowRules:
    """The rules every imported row obeys, whatever file it came from (campaign files, MQM
    TSVs): length limits, one source and reference per item, and one output text per
    (item, system): a second row of a pair is allowed only as another annotator's judgment
    of the same text. ``names``: the file's column names, for messages."""

    def __init__(self, names: Mapping[str, str] | None = None) -> None:
        self.names = dict(CAMPAIGN_NAMES | dict(names or {}))
        # Compact state per key, never the rows (a million Row objects were most of an
        # import's memory): item id → its ordinal, first row, that row's system ordinal
        # and the 64-bit hashes of its source, reference and doc_id, packed in one int (a
        # tuple of six was 200 bytes more); (item, system) packed in one int → first row,
        # its annotator's ordinal and its output's hash packed in one int. A hash collision
        # would hide a conflicting text: about 1 in 10^13 for a million items.
        self.first_item: dict[str, int] = {}
        self.first_pair: dict[int, int] = {}
        self._systems: dict[str, int] = {}
        self._annotators: dict[str | None, int] = {None: 0}
        #: (column, item id) → (first row, hash) of its instructions or image, for items
        #: that have some
        self._per_item: dict[tuple[str, str], tuple[int, int]] = {}

    def _ordinal(self, table: dict[Any, int], key: Any) -> int:
        return table.setdefault(key, len(table))

    @staticmethod
    def _name(table: dict[Any, int], ordinal: int) -> Any:
        return next(k for k, v in table.items() if v == ordinal)  # only for a message

    def check(self, row: Row, add: Any) -> None:
        """Call ``add(row, line, column, message, fix)`` for each rule ``row`` breaks."""
        n, line, name = row.number, row.line, self.names
        for col, limit in MAX_LENGTH.items():
            value = getattr(row, col)
            if value is not None and len(value) > limit:
                add(
                    n,
                    line,
                    name[col],
                    f"{name[col]} is {len(value):,} characters long, over the limit of {limit}",
                    f"Shorten it to at most {limit} characters (keep long text in another "
                    "column: any extra column is kept as metadata).",
                )
        if not row.item_id:
            return
        system = self._ordinal(self._systems, row.system)
        texts = [hash(t) & _HASH64 for t in (row.source, row.reference, row.doc_id)]
        packed = self.first_item.get(row.item_id)
        if packed is None:
            packed = len(self.first_item) | n << 32 | system << 64
            packed |= texts[0] << 96 | texts[1] << 160 | texts[2] << 224
            self.first_item[row.item_id] = packed
        first = [packed >> shift & _LOW for shift in (0, 32, 64)]
        for k, col in enumerate(("source", "reference", "doc_id")):
            if packed >> (96 + 64 * k) & _HASH64 != texts[k]:
                first_system = self._name(self._systems, first[2])
                add(
                    n,
                    line,
                    name[col],
                    f"{name['item']} '{row.item_id}' has a different {name[col]} here "
                    f"than in row {first[1]}"
                    + (f" (system '{first_system}')" if first_system != row.system else ""),
                    f"Every row of one item must repeat the same {name[col]}; "
                    f"fix the text or give the rows different {name['ids']}.",
                )
        for col in ("instructions", "image"):
            if getattr(row, col):
                self._check_per_item(row, col, add)
        if row.system:
            self._check_pair(row, first[0] << 32 | system, add)

    def _check_per_item(self, row: Row, col: str, add: Any) -> None:
        """The rows of one item that give instructions (or an image) give the same (rows
        without any leave the item's to the others)."""
        value = hash(getattr(row, col))
        seen = self._per_item.setdefault((col, row.item_id), (row.number, value))
        if seen[1] != value:
            add(
                row.number,
                row.line,
                col,
                f"{self.names['item']} '{row.item_id}' has a different {col} here than in "
                f"row {seen[0]}",
                f"Every row of one item that gives its {col} must give the same; leave "
                "the cell empty on the other rows.",
            )

    def _check_pair(self, row: Row, key: int, add: Any) -> None:
        name = self.names
        annotator = self._ordinal(self._annotators, row.annotator or None)
        output = hash(row.output) & _HASH_MASK
        packed = self.first_pair.get(key)
        if packed is None:
            self.first_pair[key] = output << 64 | annotator << 32 | row.number
            return
        first_number, first_annotator = packed & _LOW, packed >> 32 & _LOW
        others = bool(first_annotator and annotator and first_annotator != annotator)
        if others and packed >> 64 == output:
            return
        pair_annotator = self._name(self._annotators, first_annotator)
        differs = (
            f", with a different {name['output']} (by {name['annotator']} "
            f"'{row.annotator}' here, '{pair_annotator}' there)"
            if others
            else ""
        )
        add(
            row.number,
            row.line,
            name["output"] if others else name["system"],
            f"duplicate ({name['item_id']}, {name['system']}) = ('{row.item_id}', "
            f"'{row.system}'); row {first_number} has it already{differs}",
            f"Keep one row per {name['item_id']} and {name['system']} (several rows are "
            f"allowed only for judgments by different {name['annotator']}s of the same "
            f"{name['output']}, which must hold the same text).",
        )


_LOW = (1 << 32) - 1
_HASH64 = (1 << 64) - 1
_HASH_MASK = (1 << 48) - 1  # an output's hash kept to 48 bits (one small int per pair)


_ROW_TEXT = (
    "item_id",
    "source",
    "reference",
    "system",
    "output",
    "doc_id",
    "post_edit",
    "annotator",
    "instructions",
    "image",
)


def validate_rows(
    filename: str, rows: Iterable[Row], names: Mapping[str, str] | None = None
) -> None:
    """Apply a campaign file's row checks to rows built elsewhere (an MQM TSV's): NUL
    bytes, empty ids and outputs, length limits and conflicting texts. Raises
    :class:`CampaignFileError` naming each row; returns when every row passes."""
    for _ in checked_rows(filename, rows, names):
        pass


def checked_rows(
    filename: str, rows: Iterable[Row], names: Mapping[str, str] | None = None
) -> Iterator[Row]:
    """:func:`validate_rows` as the rows pass (an import writes them meanwhile, in bounded
    memory): each row is handed on while none has broken a rule; after that the rest are
    only checked, and the end raises :class:`CampaignFileError` with every problem."""
    problems: list[Problem] = []
    rules = RowRules(names)
    name = rules.names

    def add(row: int, line: int | None, column: str | None, message: str, fix: str) -> None:
        problems.append(Problem(filename, message, fix, row=row, line=line, column=column))

    for row in rows:
        if len(problems) >= MAX_PROBLEMS:
            break
        for col in _ROW_TEXT:
            value = getattr(row, col)
            if isinstance(value, str) and "\x00" in value:
                add(row.number, row.line, name[col], f"{name[col]} contains a NUL byte (\\x00)",
                    "Remove NUL characters; they are often left by a damaged export.")  # fmt: skip
        for col in ("item_id", "system"):
            if not getattr(row, col).strip():
                add(row.number, row.line, name[col], f"{name[col]} is empty",
                    f"Give every row its {name[col]}.")  # fmt: skip
        if not row.output.strip():
            add(row.number, row.line, name["output"],
                f"{name['output']} is empty or whitespace only",
                "Supply the system's output text, or remove the row.")  # fmt: skip
        for key, value in row.extras.items():
            if has_nul(key) or has_nul(value):
                key = name.get(key, key)
                add(row.number, row.line, key, f"{key} contains a NUL byte (\\x00)",
                    "Remove NUL characters.")  # fmt: skip
        rules.check(row, add)
        if not problems:
            yield row
    if problems:
        raise CampaignFileError(problems[:MAX_PROBLEMS], truncated=len(problems) >= MAX_PROBLEMS)
