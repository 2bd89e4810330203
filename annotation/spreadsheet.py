"""Spreadsheet formula injection: neutralise cells on CSV export, undo it on CSV import.

A cell starting with =, +, -, @ (or a tab / carriage return) is run as a formula by
spreadsheet programs. OWASP's advice is to prefix such cells with a single quote, which
spreadsheets show as text. Our CSV/TSV importer strips that one quote again, so an exported
campaign re-imports to exactly the same text.
"""

from __future__ import annotations

from typing import Any

TRIGGERS = ("=", "+", "-", "@", "\t", "\r")


def neutralise(value: Any) -> Any:
    """``"=SUM(A1)"`` → ``"'=SUM(A1)"``; other values unchanged."""
    if isinstance(value, str) and value.startswith(TRIGGERS):
        return "'" + value
    return value


def restore(value: Any) -> Any:
    """Inverse of :func:`neutralise` for text read back from a CSV we wrote."""
    if isinstance(value, str) and value.startswith("'") and value[1:].startswith(TRIGGERS):
        return value[1:]
    return value
