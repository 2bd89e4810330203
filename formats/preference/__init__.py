"""Preference judgments files (Chatbot Arena's columns): read and write, in
:mod:`formats.preference.arena`. A folder of its own because formats/ holds its limit of
modules; the names are imported from here."""

import lazy_loader

__getattr__, __dir__, __all__ = lazy_loader.attach(
    __name__,
    submod_attrs={
        "arena": [
            "ALIASES",
            "COLUMNS",
            "OPTIONAL",
            "REQUIRED",
            "SIDES",
            "WINNERS",
            "PreferenceJudgment",
            "parse",
            "to_csv_bytes",
            "to_jsonl_bytes",
        ],
    },
)
