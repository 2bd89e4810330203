"""The rules one level below the layers (tests/test_layers.py): the rooms of a layer.

- No package folder of the production layers holds more than ``MAX_MODULES`` modules
  (``__init__.py`` not counted; db/migrations, Alembic's, left out): a folder that grows past
  it is split into sub-packages by concept, as estimators/, db/, annotation/ and views/ were.
- Inside estimators/, db/, annotation/ and views/ the sub-packages (rooms) keep a one-way
  order, the same mechanism as the layer ORDER: a room imports only itself and the rooms
  after it in ``ROOMS[layer]``; a layer's top-level modules (db's engine, clock, locks,
  migrate; views' common, keys, compare_screen) may be imported by any room. Every import
  counts: at the top, inside a function (a lazy import still ties two rooms together) and
  under ``if TYPE_CHECKING:``.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LAYERS = ("estimators", "db", "annotation", "views", "metrics", "formats", "commands", "accounts")
MAX_MODULES = 20
# each room may import itself and the rooms after it
ROOMS = {
    "estimators": [
        "report",
        "live",
        "planning",
        "documents",
        "preference",
        "fixed_n",
        "judgments",
        "caches",
        "data",
        "sampling",
        "sequences",
        "base",
    ],
    "db": ["reads", "queue", "admin", "campaign", "judging", "people", "scores", "schema"],
    "annotation": ["imports", "results", "judging", "tasks", "campaign", "queue"],
    "views": ["pages", "admin", "dashboard", "annotate", "spans"],
}
SKIP = {"migrations", "__pycache__"}  # db/migrations: Alembic's environment and revisions


def _folders(root: Path) -> list[Path]:
    found = []
    for layer in LAYERS:
        top = root / layer
        if top.is_dir():
            found += [top, *(d for d in sorted(top.rglob("*")) if d.is_dir())]
    return [d for d in found if not SKIP & set(d.relative_to(root).parts)]


def crowded(root: Path = ROOT) -> list[str]:
    """The folders holding more than MAX_MODULES modules, each with its count."""
    wrong = []
    for folder in _folders(root):
        modules = [f for f in folder.glob("*.py") if f.name != "__init__.py"]
        if len(modules) > MAX_MODULES:
            wrong.append(
                f"{folder.relative_to(root)}/ holds {len(modules)} modules (at most "
                f"{MAX_MODULES}): split it into sub-packages by concept"
            )
    return wrong


def _imported(path: Path) -> list[tuple[int, str]]:
    """Every module an import statement names, anywhere in the file (functions and
    TYPE_CHECKING blocks included); ``from layer import room`` gives layer.room."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.lineno, node.module))
            if "." not in node.module:  # from db import reads: the room is the name
                found += [(node.lineno, f"{node.module}.{alias.name}") for alias in node.names]
    return found


def room_violations(path: Path, root: Path = ROOT) -> list[str]:
    rel = path.relative_to(root)
    layer = rel.parts[0]
    order = ROOMS.get(layer)
    if order is None or len(rel.parts) < 3:
        return []  # not a layer with rooms, or a top-level module of the layer
    room = rel.parts[1]
    if room not in order:
        return [f"{rel}: {layer}/{room}/ is not in ROOMS[{layer!r}] (declare its place)"]
    allowed = order[order.index(room) :]
    wrong = []
    for line, module in _imported(path):
        parts = module.split(".")
        if parts[0] != layer or len(parts) < 2 or parts[1] not in order:
            continue  # another layer, the layer's top-level modules, or a name
        if parts[1] not in allowed:
            wrong.append(
                f"{rel}:{line} imports {module}: {layer}/{room}/ may import only "
                f"{', '.join(allowed)} (and {layer}/'s top-level modules)"
            )
    return sorted(set(wrong))


def _room_sources() -> list[Path]:
    files = []
    for layer in ROOMS:
        files += sorted((ROOT / layer).rglob("*.py"))
    return [f for f in files if not SKIP & set(f.relative_to(ROOT).parts)]


def test_no_folder_holds_more_than_twenty_modules() -> None:
    assert crowded() == []


def test_the_room_lists_name_every_sub_package() -> None:
    """ROOMS declares each layer's sub-packages exactly: a new room needs its place."""
    for layer, order in ROOMS.items():
        actual = {
            d.name
            for d in (ROOT / layer).iterdir()
            if d.is_dir() and d.name not in SKIP and any(d.glob("*.py"))
        }
        assert sorted(actual) == sorted(order), layer


@pytest.mark.parametrize("path", _room_sources(), ids=lambda p: str(p.relative_to(ROOT)))
def test_room_order(path: Path) -> None:
    assert room_violations(path) == []


def test_the_size_check_catches_a_crowded_folder(tmp_path: Path) -> None:
    """The size rule can fail: 21 modules in one folder (and 20 beside an __init__ pass)."""
    crowd = tmp_path / "metrics"
    crowd.mkdir()
    for i in range(21):
        (crowd / f"m{i}.py").write_text("")
    fine = tmp_path / "db" / "queue"
    fine.mkdir(parents=True)
    for i in range(20):
        (fine / f"m{i}.py").write_text("")
    (fine / "__init__.py").write_text("")
    migrations = tmp_path / "db" / "migrations" / "versions"
    migrations.mkdir(parents=True)
    for i in range(30):
        (migrations / f"r{i}.py").write_text("")
    found = crowded(tmp_path)
    assert len(found) == 1 and found[0].startswith("metrics/ holds 21 modules")


def test_the_room_check_catches_an_import_up_the_order(tmp_path: Path) -> None:
    """The order rule can fail: a lower room importing a higher one, at the top, lazily in
    a function and under TYPE_CHECKING; downward imports and the top-level modules pass."""
    base = tmp_path / "estimators" / "base"
    base.mkdir(parents=True)
    (base / "probe.py").write_text(
        "from typing import TYPE_CHECKING\n"
        "from estimators.live.monitor import monitor\n"
        "if TYPE_CHECKING:\n"
        "    from estimators.report import campaign_report\n"
        "def f():\n"
        "    import estimators.sequences.betting\n"
    )
    report = tmp_path / "estimators" / "report"
    report.mkdir()
    (report / "probe.py").write_text(
        "from estimators.live.monitor import monitor\nfrom estimators import base\n"
    )
    queue = tmp_path / "db" / "queue"
    queue.mkdir(parents=True)
    (queue / "probe.py").write_text("from db.engine import write\nfrom db import reads\n")
    found = room_violations(base / "probe.py", tmp_path)
    assert len(found) == 3, found
    assert all("estimators/base/ may import only base" in f for f in found)
    assert any("imports estimators.report:" in f for f in found)  # TYPE_CHECKING
    assert any("estimators.sequences.betting" in f for f in found)  # lazy
    assert room_violations(report / "probe.py", tmp_path) == []
    (only,) = room_violations(queue / "probe.py", tmp_path)  # db.engine passes, reads not
    assert "db/queue/ may import only queue, admin" in only and "db.reads" in only


def test_the_room_check_refuses_an_undeclared_room(tmp_path: Path) -> None:
    spare = tmp_path / "annotation" / "spare"
    spare.mkdir(parents=True)
    (spare / "probe.py").write_text("")
    (found,) = room_violations(spare / "probe.py", tmp_path)
    assert "annotation/spare/ is not in ROOMS" in found
