"""Installation-wide key/value settings (app_settings table)."""

from __future__ import annotations

from sqlalchemy import Engine, select

from db.engine import session_scope
from db.models import AppSetting


def get_setting(engine: Engine, key: str) -> str | None:
    with session_scope(engine) as s:
        return s.scalar(select(AppSetting.value).where(AppSetting.key == key))


def set_setting(engine: Engine, key: str, value: str) -> None:
    with session_scope(engine) as s:
        row = s.get(AppSetting, key)
        if row is None:
            s.add(AppSetting(key=key, value=value))
        else:
            row.value = value
