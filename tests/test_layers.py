"""The layer rules, checked on every import statement of the project (`make lint` and
`make test` run this):

- SQLAlchemy only in db/ (db/ alone knows the storage);
- Streamlit only in app.py and views/ (the page scripts only draw);
- the one-way order views / cli.py and commands/ → annotation → accounts → metrics → db →
  estimators: a package imports only from packages to its right, and estimators/ only
  numpy/scipy-level code (accounts/: who may sign in and do what, on db/ alone);
- formats/ (file formats: parse and write) imports no other package of the project, and
  only views, cli.py and commands/, annotation, accounts and metrics import it (accounts/:
  the annotator name's length limit; metrics/: the calibration-set file; formats/ being a
  leaf, this makes no cycle).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
ORDER = ["annotation", "accounts", "metrics", "db", "estimators"]  # each may import those after it
LEAF = "formats"  # parse and write only: imports no other package of the project
# may import formats/
LEAF_READERS = (LEAF, "annotation", "accounts", "metrics", "views", "commands", "cli")
FIRST_PARTY = {*ORDER, LEAF, "views", "commands", "cli", "app"}


def _sources() -> list[Path]:
    files = [ROOT / "app.py", ROOT / "cli.py"]
    for package in [*ORDER, LEAF, "views", "commands"]:
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
        if layer == LEAF and top in FIRST_PARTY and top != LEAF:
            wrong.append(f"{where}: formats/ only parses and writes files (no project imports)")
        if top == LEAF and layer not in LEAF_READERS:
            wrong.append(
                f"{where}: only views, cli.py, annotation/, accounts/ and metrics/ "
                "read and write files"
            )
        if top in FIRST_PARTY and layer in ORDER and top != LEAF:
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
    fake.write_text("import sqlalchemy\nfrom db.reads.campaign import read_campaign\n")
    found = violations(fake, root=tmp_path)
    assert len(found) == 2 and "SQLAlchemy belongs in db/" in found[0]
    assert "estimators/ may import only estimators" in found[1]


def test_accounts_sit_below_annotation(tmp_path: Path) -> None:
    """accounts/ may not reach up into annotation/ (annotation may import accounts)."""
    (tmp_path / "accounts").mkdir()
    (tmp_path / "accounts" / "probe.py").write_text("from annotation.judging.session import View\n")
    (tmp_path / "annotation").mkdir()
    (tmp_path / "annotation" / "probe.py").write_text("from accounts.grants import can_write\n")
    found = violations(tmp_path / "accounts" / "probe.py", tmp_path)
    assert len(found) == 1 and "accounts/ may import only accounts, metrics" in found[0]
    assert violations(tmp_path / "annotation" / "probe.py", tmp_path) == []


def test_formats_stay_a_leaf(tmp_path: Path) -> None:
    """A format module importing the database, and the database importing a format."""
    (tmp_path / "formats").mkdir()
    (tmp_path / "formats" / "probe.py").write_text("from db.reads.campaign import read_campaign\n")
    (tmp_path / "db").mkdir()
    (tmp_path / "db" / "probe.py").write_text("from formats.rows import Row\n")
    assert "formats/ only parses" in violations(tmp_path / "formats" / "probe.py", tmp_path)[0]
    assert (
        "only views, cli.py, annotation/, accounts/ and metrics/"
        in violations(tmp_path / "db" / "probe.py", tmp_path)[0]
    )


def _module_name(path: Path, root: Path) -> str:
    return ".".join(path.relative_to(root).with_suffix("").parts)


def _import_graph(root: Path, files: list[Path]) -> dict[str, set[str]]:
    """Module → project modules it imports, at the top or inside a function (a lazy import
    still ties the two modules together); ``if TYPE_CHECKING:`` blocks do not count."""
    names = {_module_name(f, root) for f in files}
    graph: dict[str, set[str]] = {}
    for f in files:
        tree = ast.parse(f.read_text(encoding="utf-8"))
        typing_only = {
            id(inner)
            for node in ast.walk(tree)
            if isinstance(node, ast.If) and getattr(node.test, "id", "") == "TYPE_CHECKING"
            for inner in ast.walk(node)
        }
        found: set[str] = set()
        for node in ast.walk(tree):
            if id(node) in typing_only:
                continue
            if isinstance(node, ast.Import):
                found |= {a.name for a in node.names if a.name in names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                found |= {node.module} & names
                found |= {f"{node.module}.{a.name}" for a in node.names} & names
        graph[_module_name(f, root)] = found - {_module_name(f, root)}
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The import circles: strongly connected groups of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_no_import_circles() -> None:
    """No two modules import each other, directly or round a loop, lazily or not: each
    module can be read after the ones it imports."""
    bench = sorted((ROOT / "bench").glob("*.py"))
    assert circles(_import_graph(ROOT, _sources() + bench)) == []


def test_the_circle_check_finds_a_lazy_circle(tmp_path: Path) -> None:
    (tmp_path / "views").mkdir()
    (tmp_path / "views" / "a.py").write_text("from views.b import x\n")
    (tmp_path / "views" / "b.py").write_text("def f():\n    from views import a\n")
    (tmp_path / "views" / "c.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from views.a import y\n"
    )
    files = sorted((tmp_path / "views").glob("*.py"))
    assert circles(_import_graph(tmp_path, files)) == [["views.a", "views.b"]]
