"""Each room's public face: every name in a sub-package's ``__all__`` resolves, and is the
very object its module defines (the faces load lazily, so a wrong entry would only fail when
first used)."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
ROOMS = sorted(
    ".".join(init.parent.relative_to(ROOT).parts)
    for layer in ("estimators", "db", "annotation", "views")
    for init in (ROOT / layer).glob("*/__init__.py")
)


@pytest.mark.parametrize("room", ROOMS)
def test_every_public_name_resolves(room: str) -> None:
    face = importlib.import_module(room)
    for name in getattr(face, "__all__", []):
        assert getattr(face, name) is not None, f"{room}.{name}"


def test_a_name_is_its_modules_own_object() -> None:
    from db.reads import read_campaign
    from db.reads.campaign import read_campaign as direct
    from estimators.live import CampaignMonitor
    from estimators.live.monitor import CampaignMonitor as monitor_direct

    assert read_campaign is direct and CampaignMonitor is monitor_direct


@pytest.mark.slow
def test_importing_one_module_loads_no_sibling() -> None:
    """An annotator's save path must not pull the dashboard's estimators in through a face."""
    import subprocess
    import sys

    code = (
        "import sys, annotation.judging.save; "
        "print(int('estimators.report.campaign_report' in sys.modules), "
        "int('sklearn' in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                         check=True).stdout.split()  # fmt: skip
    assert out == ["0", "0"]
