"""Every import validation rule: a specific message (file, row, column, what to do) and an
unchanged database, on SQLite and on PostgreSQL."""

from __future__ import annotations

import json

import pytest
from sqlalchemy import Engine, func, select

from annotation.imports.importer import import_campaign
from db.engine import session_scope
from db.schema.models import Base
from formats.campaign_file import parse_column_map
from formats.problems import CampaignFileError

HEADER = "item_id,source,reference,system,output,human_label\n"
GOOD = HEADER + "1,Hello,Hallo,A,Hallo!,1\n1,Hello,Hallo,B,Servus,0\n2,Bye,Tschüss,A,Ciao,\n"


def table_counts(engine: Engine) -> dict[str, int]:
    with session_scope(engine) as s:
        return {
            t.name: s.scalar(select(func.count()).select_from(t))
            for t in Base.metadata.sorted_tables
        }


def rejected(engine: Engine, data: bytes | str, filename: str = "camp.csv", **kw) -> str:
    """Import must fail, write nothing, and return the error text."""
    before = table_counts(engine)
    raw = data.encode() if isinstance(data, str) else data
    with pytest.raises(CampaignFileError) as info:
        import_campaign(engine, raw, kw.pop("campaign", "c"), filename=filename, **kw)
    assert table_counts(engine) == before, "a rejected import changed the database"
    return str(info.value)


def test_valid_file_imports(engine: Engine) -> None:
    report = import_campaign(engine, GOOD.encode(), "c", filename="camp.csv")
    assert (report.items_added, report.systems_added, report.outputs_added) == (2, 2, 3)
    assert report.judgments_added == 2 and not report.census


def test_missing_required_column(engine: Engine) -> None:
    msg = rejected(engine, "item_id,source,system,output\n1,a,A,b\n")
    assert "camp.csv" in msg and "column 'reference'" in msg
    assert "missing required column 'reference'" in msg and "--map reference=" in msg


def test_unknown_file_type(engine: Engine) -> None:
    msg = rejected(engine, GOOD, filename="camp.xlsx")
    assert "camp.xlsx: unknown file type '.xlsx'" in msg and ".csv, .tsv, .jsonl" in msg


def test_undecodable_bytes(engine: Engine) -> None:
    data = (HEADER + "1,Hello,Hallo,A,Gr").encode() + b"\xfc\xdf" + b"e,1\n"
    msg = rejected(engine, data)
    assert "not valid UTF-8" in msg and "line 2" in msg and "Save the file as UTF-8" in msg


@pytest.mark.parametrize("output", ['""', '"   "', '"\t"'])
def test_empty_or_whitespace_output(engine: Engine, output: str) -> None:
    msg = rejected(engine, HEADER + f"1,Hello,Hallo,A,Hallo,1\n1,Hello,Hallo,B,{output},0\n")
    assert "camp.csv, row 2, column 'output': output is empty or whitespace only" in msg


def test_duplicate_item_system(engine: Engine) -> None:
    msg = rejected(engine, HEADER + "1,Hello,Hallo,A,Hallo,1\n1,Hello,Hallo,A,Hallo!,0\n")
    assert "row 2" in msg and "duplicate (item_id, system) = ('1', 'A')" in msg
    assert "row 1 has it already" in msg


def test_same_pair_by_two_annotators_is_allowed(engine: Engine) -> None:
    data = (
        "item_id,source,reference,system,output,human_label,annotator\n"
        "1,Hi,Hallo,A,Hallo,1,ann1\n1,Hi,Hallo,A,Hallo,0,ann2\n"
    )
    report = import_campaign(engine, data.encode(), "c", filename="c.csv")
    assert report.outputs_added == 1 and report.judgments_added == 2 and report.annotators == 2


@pytest.mark.parametrize(
    "column,row", [("source", "1,Hello!,Hallo,B,x,1"), ("reference", "1,Hello,Hallo!,B,x,1")]
)
def test_same_item_with_different_text(engine: Engine, column: str, row: str) -> None:
    msg = rejected(engine, HEADER + "1,Hello,Hallo,A,Hallo,1\n" + row + "\n")
    assert f"row 2, column '{column}': item '1' has a different {column} here than in row 1" in msg


@pytest.mark.parametrize("value", ["2", "yes", "0.5", "-1"])
def test_human_label_not_binary(engine: Engine, value: str) -> None:
    msg = rejected(engine, HEADER + f"1,Hello,Hallo,A,Hallo,{value}\n")
    assert f"row 1, column 'human_label': human_label is '{value}', not 0 or 1" in msg


def test_file_over_size_limit(engine: Engine) -> None:
    big = HEADER + "".join(f"{i},s,r,A,{'x' * 200},1\n" for i in range(6000))
    msg = rejected(engine, big, max_mb=1)
    assert "over the 1 MB import limit" in msg and "TANDEM_MAX_IMPORT_MB" in msg


@pytest.mark.parametrize("data", [HEADER, HEADER + "\n\n"])
def test_zero_data_rows(engine: Engine, data: str) -> None:
    assert "has a header but no data rows" in rejected(engine, data)


def test_existing_campaign_name_offers_append(engine: Engine) -> None:
    import_campaign(engine, GOOD.encode(), "c", filename="camp.csv")
    msg = rejected(engine, HEADER + "3,New,Neu,A,Neu,1\n")
    assert "a campaign named 'c' already exists" in msg and "--append" in msg
    report = import_campaign(
        engine, (HEADER + "3,New,Neu,A,Neu,1\n").encode(), "c", filename="more.csv", append=True
    )
    assert report.items_added == 1 and report.outputs_added == 1


def test_append_clashing_with_existing_rows(engine: Engine) -> None:
    import_campaign(engine, GOOD.encode(), "c", filename="camp.csv")
    msg = rejected(engine, HEADER + "1,Hello,Hallo,A,Other,1\n", append=True, campaign="c")
    assert "('1', 'A') is already in the campaign" in msg
    msg = rejected(engine, HEADER + "2,Bye!,Tschüss,B,Ciao,1\n", append=True, campaign="c")
    assert "item '2' is already in the campaign with a different source" in msg


def test_errors_are_all_reported_at_once(engine: Engine) -> None:
    msg = rejected(engine, HEADER + "1,a,b,A,,1\n2,a,b,A,x,7\n")
    assert "row 1, column 'output'" in msg and "row 2, column 'human_label'" in msg


def test_bad_csv_quoting_names_the_line(engine: Engine) -> None:
    msg = rejected(engine, HEADER + '1,a,b,A,"unclosed,1\n')
    assert "camp.csv" in msg and "quot" in msg


def test_field_count_mismatch(engine: Engine) -> None:
    msg = rejected(engine, HEADER + "1,a,b,A,x,1,extra\n")
    assert "row 1" in msg and "has 7 fields but the header has 6" in msg


def test_jsonl_bad_line(engine: Engine) -> None:
    good = json.dumps({"item_id": 1, "source": "a", "reference": "b", "system": "A", "output": "x"})
    msg = rejected(engine, good + "\n{not json}\n", filename="c.jsonl")
    assert "c.jsonl" in msg and "line 2 is not valid JSON" in msg


def test_column_map_to_missing_column(engine: Engine) -> None:
    msg = rejected(engine, GOOD, column_map={"human_label": "label_bin"})
    assert "--map human_label=label_bin: the file has no column 'label_bin'" in msg


def test_column_map_renames(engine: Engine) -> None:
    data = "id,src,ref,sys,hyp,lab\n1,a,b,A,x,1\n"
    cmap = parse_column_map(
        ["item_id=id", "source=src", "reference=ref", "system=sys", "output=hyp", "human_label=lab"]
    )
    report = import_campaign(engine, data.encode(), "c", filename="c.csv", column_map=cmap)
    assert report.judgments_added == 1


def test_bad_map_syntax() -> None:
    with pytest.raises(ValueError, match="expected TANDEM_COLUMN=FILE_COLUMN"):
        parse_column_map(["human_label"])


def test_failure_midway_through_writing_rolls_back(engine: Engine, monkeypatch) -> None:
    """A database error after some rows were written leaves nothing behind."""
    from annotation.imports.writer import CampaignWriter

    def explode(*args, **kwargs):
        raise RuntimeError("disk full")

    monkeypatch.setattr(CampaignWriter, "_judgments", explode)
    before = table_counts(engine)
    with pytest.raises(RuntimeError, match="disk full"):
        import_campaign(engine, GOOD.encode(), "c", filename="camp.csv")
    assert table_counts(engine) == before
