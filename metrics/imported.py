"""Imported metric scores: names, directions and the provenance signature.

A team's own automatic scores (COMET, MetricX, an LLM judge) come into Tandem as columns of
a campaign file or as a separate scores file (:mod:`annotation.imports.score_columns`) and are
stored
like a built-in metric: one ``metric_scores`` row per (output, signature). Their signature
records where the numbers came from, in sacrebleu's ``key:value|…`` style::

    comet22|src:imported|version:Unbabel/wmt22-comet-da|higher:yes|file:scores.csv|sha256:9f…

name, declared version (``none`` when not given), direction, the source file's name and the
SHA-256 of its bytes. Two imports of the same bytes give the same signature (a re-import is
a no-op); any other file gives another one. For a calibration set carried to another
campaign (whose scores necessarily come from another file) the *computation* must match:
name, version and direction, with a declared version (:func:`same_computation`).

Pure Python: no database session, no Streamlit.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import PurePath

from db.scores.metric_scores import IMPORTED_MARK
from metrics.registry import HIGHER_IS_BETTER, METRIC_NAMES

__all__ = [
    "MAX_NAME",
    "MAX_VERSION",
    "ImportedSignature",
    "content_hash",
    "describe",
    "higher_is_better",
    "is_imported",
    "name_problem",
    "parse_direction",
    "parse_signature",
    "same_computation",
    "version_problem",
]

MAX_NAME = 50  # MetricScore.metric is String(50)
MAX_VERSION = 100
MAX_FILE_LABEL = 150
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.+\-]*")
#: Names a user cannot give an imported metric: the built-in families and stored keys.
RESERVED = frozenset({*METRIC_NAMES, *HIGHER_IS_BETTER, "bertscore", "hter"})
_TRUE = {"1", "true", "yes", "higher", "1.0"}
_FALSE = {"0", "false", "no", "lower", "0.0"}


def content_hash(data: bytes) -> str:
    """SHA-256 of a file's bytes, hex."""
    return hashlib.sha256(data).hexdigest()


def name_problem(name: str) -> str | None:
    """Why ``name`` cannot name an imported metric (None when it can)."""
    if not name:
        return "the metric name is empty"
    if len(name) > MAX_NAME:
        return f"the metric name is {len(name)} characters long, over the limit of {MAX_NAME}"
    if not _NAME.fullmatch(name):
        return (
            f"the metric name {name!r} may use only letters, digits and _ . + - "
            "(starting with a letter or digit)"
        )
    if name.lower() in RESERVED:
        return f"'{name}' is the name of a built-in metric"
    return None


def version_problem(version: str) -> str | None:
    """Why ``version`` cannot be a metric version string (None when it can)."""
    if len(version) > MAX_VERSION:
        return f"the version is {len(version)} characters long, over the limit of {MAX_VERSION}"
    if "|" in version or any(ord(c) < 32 for c in version):
        return f"the version {version!r} contains '|' or a control character"
    return None


def parse_direction(value: object) -> bool | str | None:
    """True / False for a direction cell, None when empty, the text when unreadable.

    Accepts ``1/0``, ``true/false``, ``yes/no``, ``higher/lower`` (any case).
    """
    if isinstance(value, bool):
        return value
    if value is None or (isinstance(value, float) and value != value):
        return None
    text = str(value).strip().lower()
    if not text:
        return None
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    return str(value)


def _file_label(filename: str) -> str:
    """The file's base name as the signature keeps it (no '|', bounded length)."""
    base = PurePath(filename.replace("\\", "/")).name or filename
    base = "".join("_" if c == "|" or ord(c) < 32 else c for c in base)
    return base[:MAX_FILE_LABEL]


@dataclass(frozen=True)
class ImportedSignature:
    """Provenance of an imported metric; ``str()`` is the stored signature."""

    name: str
    version: str
    higher_is_better: bool
    file: str
    sha256: str

    @classmethod
    def make(
        cls, name: str, version: str, higher_is_better: bool, filename: str, sha256: str
    ) -> ImportedSignature:
        return cls(name, version.strip(), higher_is_better, _file_label(filename), sha256)

    def __str__(self) -> str:
        return (
            f"{self.name}{IMPORTED_MARK}version:{self.version or 'none'}|"
            f"higher:{'yes' if self.higher_is_better else 'no'}|file:{self.file}|"
            f"sha256:{self.sha256}"
        )

    @property
    def computation(self) -> tuple[str, str, bool]:
        """What the numbers are: name, declared version, direction (not where they came from)."""
        return (self.name, self.version, self.higher_is_better)


def is_imported(signature: str) -> bool:
    return IMPORTED_MARK in signature


def parse_signature(signature: str) -> ImportedSignature | None:
    """The provenance of an imported metric's signature (None for built-in signatures)."""
    if not is_imported(signature):
        return None
    name, _, rest = signature.partition(IMPORTED_MARK)
    fields: dict[str, str] = {}
    for part in rest.split("|"):
        key, _, value = part.partition(":")
        fields.setdefault(key, value)
    version = fields.get("version", "none")
    return ImportedSignature(
        name=name,
        version="" if version == "none" else version,
        higher_is_better=fields.get("higher", "yes") == "yes",
        file=fields.get("file", ""),
        sha256=fields.get("sha256", ""),
    )


def higher_is_better(metric: str, signature: str) -> bool:
    """The direction of any stored signature: an imported one says it; else the registry."""
    imported = parse_signature(signature)
    if imported is not None:
        return imported.higher_is_better
    return HIGHER_IS_BETTER.get(metric, True)


def same_computation(a: str, b: str) -> bool:
    """Two imported signatures whose numbers mean the same: equal name, direction and a
    declared, equal version (files may differ: each campaign brings its own)."""
    pa, pb = parse_signature(a), parse_signature(b)
    return (
        pa is not None and pb is not None and bool(pa.version) and pa.computation == pb.computation
    )


def describe(metric: str, signature: str) -> str:
    """A short label for a metric in pickers: imported ones say where they came from."""
    p = parse_signature(signature)
    if p is None:
        return f"{metric} ({signature})"
    version = f", version {p.version}" if p.version else ""
    return (
        f"{metric} (imported from {p.file}, sha256 {p.sha256[:8]}…{version}, "
        f"{'higher' if p.higher_is_better else 'lower'} is better)"
    )
