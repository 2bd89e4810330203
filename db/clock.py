"""The one clock every stored timestamp comes from (no SQLAlchemy here)."""

from __future__ import annotations

from datetime import UTC, datetime


def utcnow() -> datetime:
    """Now, timezone-aware UTC (what ``created_at`` and claim times store)."""
    return datetime.now(UTC)
