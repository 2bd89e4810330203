"""The layer rules, checked on every import statement of the project (`make lint` and
`make test` run this):

- SQLAlchemy only in db/ (db/ alone knows the storage);
- Streamlit only in app.py and views/ (the page scripts only draw);
- the one-way order views / cli.py → annotation → metrics → db → estimators: a package
  imports only from packages to its right, and estimators/ only numpy/scipy-level code.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
ORDER = ["annotation", "metrics", "db", "estimators"]  # each may import those after it
FIRST_PARTY = {*ORDER, "views", "cli", "app"}


def _sources() -> list[Path]:
    files = [ROOT / "app.py", ROOT / "cli.py"]
    for package in [*ORDER, "views"]:
        files += sorted((ROOT / package).rglob("*.py"))
    return [f for f in files if "migrations" not in f.relative_to(ROOT).parts]


def _imports(path: Path) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.lineno, node.module))
    return found


def violations(path: Path, root: Path = ROOT) -> list[str]:
    rel = path.relative_to(root)
    layer = rel.parts[0].removesuffix(".py")
    wrong = []
    for line, module in _imports(path):
        top = module.split(".")[0]
        where = f"{rel}:{line} imports {module}"
        if top == "sqlalchemy" and layer != "db":
            wrong.append(f"{where}: SQLAlchemy belongs in db/ (call a db function)")
        if top == "streamlit" and layer not in ("views", "app"):
            wrong.append(f"{where}: Streamlit belongs in app.py and views/")
        if top in FIRST_PARTY and layer in ORDER:
            allowed = ORDER[ORDER.index(layer) :]
            if top not in allowed:
                wrong.append(f"{where}: {layer}/ may import only {', '.join(allowed)}")
    return wrong


@pytest.mark.parametrize("path", _sources(), ids=lambda p: str(p.relative_to(ROOT)))
def test_layer_rules(path: Path) -> None:
    assert violations(path) == []


def test_the_check_catches_a_violation(tmp_path: Path) -> None:
    """The rule itself can fail: a fake estimators module importing the database."""
    fake = tmp_path / "estimators" / "probe.py"
    fake.parent.mkdir()
    fake.write_text("import sqlalchemy\nfrom db.reads import read_campaign\n")
    found = violations(fake, root=tmp_path)
    assert len(found) == 2 and "SQLAlchemy belongs in db/" in found[0]
    assert "estimators/ may import only estimators" in found[1]
