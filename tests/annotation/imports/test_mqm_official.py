"""The official WMT MQM TSVs import: a malformed <v> mark in one row (the WMT21 TED zh-en
file has one of 9,915 rows whose <v> is never closed) is reported with its row and kept as
an error of its severity without a position; strict mode refuses it. <V>…</V> in upper case
is a mark like <v>…</v>. Every import entry point (the CLI commands and the Import page's
MQM form) answers every error class with a message, never a traceback."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine, func, select
from streamlit.testing.v1 import AppTest
from typer.testing import CliRunner

from annotation.imports.mqm import import_mqm_tsv, parse_mqm_tsv
from db.engine import get_engine, session_scope
from db.schema.models import Annotation, Campaign
from formats.mqm.tsv import COLUMNS, unmark
from formats.problems import CampaignFileError
from tests.views.conftest import app_engine  # noqa: F401  (the AppTest database fixture)

HEADER = "\t".join(COLUMNS) + "\n"


def tsv(*rows: tuple[str, ...]) -> bytes:
    return (HEADER + "".join("\t".join(r) + "\n" for r in rows)).encode()


SRC = "我们今天讨论气候。"
OUT = "We discuss the climate today."
#: As in the official WMT21 TED zh-en file: one rater's row opens a <v> and never closes it.
UNCLOSED = tsv(
    ("sysA", "ted.1", "1", "5", "rater1", SRC, "We <v>discuss</v> the climate today.",
     "Accuracy/Mistranslation", "Minor"),
    ("sysA", "ted.1", "1", "5", "rater1", SRC, "We discuss the <v>climate today.",
     "Fluency/Grammar", "Major"),
    ("sysB", "ted.1", "1", "5", "rater1", SRC, OUT, "No-error", "No-error"),
)  # fmt: skip


def spans_of(engine: Engine) -> dict[str, tuple]:
    with session_scope(engine) as s:
        rows = s.execute(select(Annotation.label, Annotation.score, Annotation.spans)).all()
    return {"spans": sorted((r[0], r[1], len(r[2])) for r in rows), "raw": [r[2] for r in rows]}


def n_campaigns(engine: Engine) -> int:
    with session_scope(engine) as s:
        return s.scalar(select(func.count()).select_from(Campaign)) or 0


def test_unclosed_mark_is_kept_without_a_position_and_reported(engine: Engine) -> None:
    report = import_mqm_tsv(engine, UNCLOSED, "ted", filename="ted_zhen.tsv")
    summary = report.summary()
    assert "Note: ted_zhen.tsv, row 2 (line 3): '<v>' is not closed by '</v>'" in summary
    assert "kept as an error of its severity and category without a position" in summary
    got = spans_of(engine)
    # sysA: a minor span with its position and the major one without (MQM −6, inadequate)
    assert got["spans"] == [(0, -6.0, 2), (1, 0.0, 0)]
    (with_spans,) = [r for r in got["raw"] if r]
    major = next(s for s in with_spans if s["severity"] == "major")
    assert major == {"start": 0, "end": 0, "severity": "major", "category": "Fluency/Grammar",
                     "side": "source"}  # fmt: skip


def test_strict_refuses_the_malformed_row(engine: Engine) -> None:
    with pytest.raises(CampaignFileError) as err:
        import_mqm_tsv(engine, UNCLOSED, "ted", filename="ted_zhen.tsv", strict=True)
    assert "ted_zhen.tsv, row 2 (line 3): '<v>' is not closed by '</v>'" in str(err.value)
    assert n_campaigns(engine) == 0


@pytest.mark.parametrize(
    "target",
    ["We discuss</v> the climate today.", "<v>We</v> <v>discuss</v> the climate today."],
)
def test_other_malformed_marks_are_kept_too(sqlite_engine: Engine, target: str) -> None:
    data = tsv(("s", "d", "1", "1", "r", SRC, target, "Accuracy", "Minor"))
    parsed = parse_mqm_tsv(data, "m.tsv")
    assert [p.row for p in parsed.repaired] == [1]
    (seg,) = parsed.segments
    assert seg.target == OUT and seg.spans[0]["side"] == "source"


def test_upper_case_marks_are_marks(sqlite_engine: Engine) -> None:
    assert unmark("a <V>b</V> c") == ("a b c", (2, 3))
    assert unmark("a <v>b</V> c") == ("a b c", (2, 3))
    data = tsv(("s", "d", "1", "1", "r", SRC, "We <V>discuss</V> the climate today.",
                "Accuracy", "Major"))  # fmt: skip
    import_mqm_tsv(sqlite_engine, data, "upper", filename="u.tsv")
    ((_, _, spans),) = [r for r in _rows(sqlite_engine)]
    assert spans == [{"start": 3, "end": 10, "severity": "major", "category": "Accuracy",
                      "side": "target"}]  # fmt: skip


def _rows(engine: Engine) -> list[tuple]:
    with session_scope(engine) as s:
        return s.execute(select(Annotation.label, Annotation.score, Annotation.spans)).all()


# ------------------------------------------------------------------ every entry point, every error

MANY = tsv(*[("A", "d", "1", "1", "r1", "Hi.", "<v>Hallo</v>", "Accuracy", "Minor")] * 201)
NUL = tsv(("A", "d", "1", "1", "r1", "Hi.", "Hal\x00lo", "No-error", "No-error"))
TWO = tsv(
    ("A", "d", "1", "1", "r1", "Hi.", "Hallo", "No-error", "No-error"),
    ("A", "d", "1", "1", "r2", "Hi.", "Servus", "No-error", "No-error"),
)
#: error class → (file bytes, a phrase of its message)
MQM_ERRORS = {
    "too many spans": (MANY, "more than 200 error rows"),
    "NUL byte": (NUL, "target contains a NUL byte"),
    "conflicting targets": (TWO, "with a different target"),
    "strict malformed": (UNCLOSED, "'<v>' is not closed by '</v>'"),
    "not UTF-8": (HEADER.encode() + b"A\td\t1\t1\tr\t\xff\tx\tOther\tMinor\n", "not valid UTF-8"),
    "missing columns": (b"system\tseg_id\nA\t1\n", "the header lacks column(s)"),
    "empty": (b"", "is empty"),
}
CSV_ERRORS = {
    "missing column": (b"item_id,source\n1,a\n", "missing required column 'system'"),
    "NUL byte": (b"item_id,source,reference,system,output\n1,a,b,A,x\x00y\n", "NUL byte"),
    "conflict": (
        b"item_id,source,reference,system,output,annotator,human_label\n"
        b"1,a,b,A,x,r1,1\n1,a,b,A,y,r2,0\n",
        "with a different output",
    ),
    "long id": (
        b"item_id,source,reference,system,output\n" + b"i" * 400 + b",a,b,A,x\n",
        "over the limit of 300",
    ),
}
SCORES_ERRORS = {
    "no campaign output": (b"item_id,system,metric,score\n9,A,qe,0.5\n", "item '9' is not in"),
    "not a number": (b"item_id,system,metric,score\n1,A,qe,abc\n", "not a finite number"),
    "NUL byte": (b"item_id,system,metric,score\n1,A\x00,qe,0.5\n", "NUL byte"),
}


@pytest.fixture
def run_cli(sqlite_engine: Engine, monkeypatch: pytest.MonkeyPatch) -> Iterator:  # type: ignore[type-arg]
    import cli

    monkeypatch.setenv("DATABASE_URL", str(sqlite_engine.url))
    get_engine.cache_clear()
    yield lambda *args: CliRunner().invoke(cli.app, list(args))
    get_engine.cache_clear()


def _clear(result, *phrases: str) -> None:  # type: ignore[no-untyped-def]
    assert result.exit_code != 0 and isinstance(result.exception, SystemExit), (
        repr(result.exception),
        result.output,
    )
    assert "Traceback" not in result.output
    for phrase in phrases:
        assert phrase in result.output, result.output


@pytest.mark.parametrize("case", list(MQM_ERRORS))
def test_import_mqm_command_answers_each_error(run_cli, tmp_path: Path, case: str) -> None:  # type: ignore[no-untyped-def]
    data, phrase = MQM_ERRORS[case]
    path = tmp_path / "f.tsv"
    path.write_bytes(data)
    _clear(run_cli("import-mqm", str(path), "--campaign", "c", "--strict"), "f.tsv", phrase)


@pytest.mark.parametrize("case", list(CSV_ERRORS))
def test_import_command_answers_each_error(run_cli, tmp_path: Path, case: str) -> None:  # type: ignore[no-untyped-def]
    data, phrase = CSV_ERRORS[case]
    path = tmp_path / "f.csv"
    path.write_bytes(data)
    _clear(run_cli("import", str(path), "--campaign", "c"), "f.csv", phrase)


@pytest.mark.parametrize("case", list(SCORES_ERRORS))
def test_import_scores_command_answers_each_error(run_cli, tmp_path: Path, case: str) -> None:  # type: ignore[no-untyped-def]
    camp = tmp_path / "c.csv"
    camp.write_bytes(b"item_id,source,reference,system,output\n1,a,b,A,x\n")
    assert run_cli("import", str(camp), "--campaign", "c").exit_code == 0
    data, phrase = SCORES_ERRORS[case]
    path = tmp_path / "s.csv"
    path.write_bytes(data)
    _clear(run_cli("import-scores", str(path), "--campaign", "c"), "s.csv", phrase)


@pytest.mark.parametrize("command", ["import", "import-scores", "import-mqm"])
def test_each_command_answers_a_bad_name_a_directory_and_a_size_limit(
    run_cli, tmp_path: Path, command: str
) -> None:  # type: ignore[no-untyped-def]
    suffix = ".tsv" if command == "import-mqm" else ".csv"
    path = tmp_path / f"f{suffix}"
    path.write_bytes(UNCLOSED if command == "import-mqm" else b"item_id,source\n1,a\n" * 2000)
    _clear(run_cli(command, str(tmp_path), "--campaign", "c"))  # a directory
    _clear(run_cli(command, str(path), "--campaign", "c", "--max-mb", "0.00001"), "MB import limit")
    if command != "import-scores":
        too_long = "the campaign name is too long: 300 characters"
        _clear(run_cli(command, str(path), "--campaign", "x" * 300), too_long)


def _mqm_page(data: bytes, strict: bool = False, click: bool = True) -> AppTest:
    def page(data: bytes, strict: bool, click: bool) -> None:
        import streamlit as st

        from views.admin.import_mqm import import_mqm_form
        from views.admin.long_work import show_finished

        st.session_state.setdefault("mqm_strict", strict)
        show_finished("import")  # the report of a finished import, as the Import page draws it
        import_mqm_form("page.tsv", data)

    at = AppTest.from_function(page, args=(data, strict, click), default_timeout=60)
    at.run()
    if click and not at.exception:
        at.button(key="mqm_import").click()
        at.run()
    return at


def _page_text(at: AppTest) -> str:
    """The page's messages with markdown escapes undone."""
    text = "\n".join(e.value for e in [*at.error, *at.warning, *at.success])
    return re.sub(r"\\(.)", r"\1", text)


@pytest.mark.parametrize("case", list(MQM_ERRORS))
def test_import_mqm_page_answers_each_error(app_engine: Engine, case: str) -> None:  # noqa: F811
    data, phrase = MQM_ERRORS[case]
    at = _mqm_page(data, strict=True, click=False)
    assert not at.exception, at.exception
    text = _page_text(at)
    assert "The file cannot be imported as it is" in text and phrase in text, text
    assert n_campaigns(app_engine) == 0


def test_import_mqm_page_reports_and_imports_a_repaired_row(app_engine: Engine) -> None:  # noqa: F811
    at = _mqm_page(UNCLOSED)
    assert not at.exception, at.exception
    text = _page_text(at)
    assert "1 row(s) with a malformed mark are kept as errors without a position" in text
    assert "Imported 2 rows" in text and n_campaigns(app_engine) == 1


def _campaign_page(filename: str, data: bytes, size: int | None = None) -> AppTest:
    """The Import page script with a file 'uploaded' (AppTest cannot drive st.file_uploader:
    the uploader is replaced by one that returns the file; the session is a signed-in
    admin's, as app.py would make it)."""

    def page(filename: str, data: bytes, size: int | None) -> None:
        import runpy
        from pathlib import Path

        import streamlit as st

        class Upload:
            name = filename

            def __init__(self) -> None:
                self.size = len(data) if size is None else size

            def getvalue(self) -> bytes:
                return data

        real = st.file_uploader
        st.file_uploader = lambda label, **kw: (
            # the first uploader only: a finished import draws a new, empty one
            Upload() if kw.get("key") == "campaign-file-0" else None
        )
        try:
            runpy.run_path(str(Path.cwd() / "views" / "pages" / "import_campaign.py"))
        finally:
            st.file_uploader = real

    at = AppTest.from_function(page, args=(filename, data, size), default_timeout=60)
    # Never patch views.common.require_admin: the patch outlived the test and opened every
    # admin page to annotator sessions in the AppTests that ran after it in the worker.
    at.session_state["role"] = "admin"
    return at.run()


#: The MQM cases the Import page reaches without the strict box (a file whose header lacks
#: MQM columns is read as a campaign file there).
PAGE_MQM = {k: v for k, v in MQM_ERRORS.items() if k not in ("strict malformed", "missing columns")}


@pytest.mark.parametrize(
    ("filename", "data", "size", "phrase"),
    [
        *[("f.csv", d, None, p) for d, p in CSV_ERRORS.values()],
        *[("f.tsv", d, None, p) for d, p in PAGE_MQM.values()],
        ("f.tsv", MQM_ERRORS["missing columns"][0], None, "missing required column 'source'"),
        ("f.csv", b"item_id,source\n1,a\n", 10**12, "MB import limit"),
        ("f.xlsx", b"x", None, "unknown file type"),
    ],
)
def test_import_campaign_page_answers_each_error(
    app_engine: Engine,  # noqa: F811
    filename: str,
    data: bytes,
    size: int | None,
    phrase: str,
) -> None:
    at = _campaign_page(filename, data, size)
    assert not at.exception, at.exception
    assert phrase in _page_text(at), _page_text(at)
    assert n_campaigns(app_engine) == 0


def test_a_finished_mqm_import_leaves_its_report_not_its_form(app_engine: Engine) -> None:  # noqa: F811
    """Issue 34.7 on the MQM path: after the import the page shows the report and an empty
    uploader, not the file's form with a disabled Import (the name now exists)."""
    from tests.annotation.imports.test_mqm import SMALL

    at = _campaign_page("page.tsv", SMALL)
    at.button(key="mqm_import").click().run()
    assert not at.exception, at.exception
    assert "Imported" in _page_text(at) and n_campaigns(app_engine) == 1
    assert not [b for b in at.button if b.key == "mqm_import"]  # the form is gone
    assert "exists" not in _page_text(at)
