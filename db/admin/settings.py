"""Installation-wide key/value settings (app_settings table)."""

from __future__ import annotations

from sqlalchemy import Engine, select
from sqlalchemy.exc import IntegrityError

from db.engine import session_scope
from db.schema.admin_models import AppSetting


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


def add_setting_if_absent(engine: Engine, key: str, value: str) -> bool:
    """Store ``value`` unless ``key`` has one already (also against a concurrent writer);
    True when this call stored it."""
    try:
        with session_scope(engine) as s:
            if s.get(AppSetting, key) is not None:
                return False
            s.add(AppSetting(key=key, value=value))
    except IntegrityError:
        return False
    return True
