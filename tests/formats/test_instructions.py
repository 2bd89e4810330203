"""Per-item instructions in campaign files and from Pearmut's HTML: markdown passes, HTML
and markdown images are refused (or, from Pearmut, stripped), and hostile text never
crashes the parser or leaves a tag in what the page would show."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from formats.campaign_file import parse_campaign_file
from formats.instructions import MAX_INSTRUCTIONS, from_html, problem
from formats.item_images import name_problem as image_name_problem
from formats.problems import CampaignFileError
from formats.writers import to_csv

HEADER = ["item_id", "source", "reference", "system", "output", "instructions"]


def _csv(rows: list[list[str]]) -> bytes:
    return to_csv(HEADER, [dict(zip(HEADER, r, strict=True)) for r in rows])


def test_markdown_instructions_are_kept_per_row() -> None:
    text = "Keep the **formal** register (Sie).\n\n- glossary: *Vertrag* = contract"
    parsed = parse_campaign_file(
        _csv([["1", "Hi", "Hallo", "A", "Hallo", text], ["1", "Hi", "Hallo", "B", "Hey", ""]]),
        "c.csv",
    )
    assert [r.instructions for r in parsed.rows] == [text, None]
    assert "instructions" not in parsed.extra_columns  # a column of its own, not metadata


@pytest.mark.parametrize(
    "text, word",
    [
        ("<b>bold</b>", "HTML"),
        ("Look: <script>alert(1)</script>", "HTML"),
        ("<!-- hidden -->", "HTML"),
        ("<img src=x onerror=alert(1)>", "HTML"),
        ("see ![logo](https://example.org/x.png)", "image"),
        ("x" * (MAX_INSTRUCTIONS + 1), "limit"),
    ],
)
def test_refused_instructions_name_row_and_column(text: str, word: str) -> None:
    with pytest.raises(CampaignFileError) as info:
        parse_campaign_file(_csv([["1", "Hi", "Hallo", "A", "Hallo", text]]), "c.csv")
    message = str(info.value)
    assert "c.csv" in message and "row 1" in message and "instructions" in message
    assert word in message


def test_an_item_gives_one_set_of_instructions() -> None:
    rows = [
        ["1", "Hi", "Hallo", "A", "Hallo", "formal"],
        ["1", "Hi", "Hallo", "B", "Hey", "informal"],
    ]
    with pytest.raises(CampaignFileError) as info:
        parse_campaign_file(_csv(rows), "c.csv")
    assert "row 2" in str(info.value) and "a different instructions" in str(info.value)


def test_comparisons_and_hearts_are_not_html() -> None:
    assert problem("score < 50 if wrong; 3 <4 <3 a->b") is None


def test_pearmut_html_becomes_markdown() -> None:
    out = from_html(
        "<p>Evaluate <b>formality</b>.</p><ul><li>one</li><li>two</li></ul>"
        "<script>document.title='x'</script><img src='https://example.org/a.png'>"
        "&lt;script&gt;alert(1)&lt;/script&gt; ![x](https://example.org/b.png)"
    )
    assert "**formality**" in out and "- one" in out and "- two" in out
    assert "<" not in out and "document.title" not in out and "![" not in out
    assert problem(out) is None


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=300))
def test_from_html_of_any_text_passes_the_check(text: str) -> None:
    out = from_html(text)
    assert problem(out) is None
    assert len(out) <= MAX_INSTRUCTIONS


@settings(max_examples=150, deadline=None)
@given(
    st.text(
        alphabet=st.sampled_from(list("<>!/[]()-*ab \n\"'=&;#\x00\r,"))
        | st.characters(exclude_categories=("Cs",)),
        max_size=120,
    )
)
def test_hostile_cells_are_read_or_refused_clearly(text: str) -> None:
    data = _csv([["1", "Hi", "Hallo", "A", "Hallo", text]])
    try:
        parsed = parse_campaign_file(data, "c.csv")
    except CampaignFileError as err:
        assert err.problems and all(p.file == "c.csv" for p in err.problems)
        return
    got = parsed.rows[0].instructions
    assert got is None or problem(got) is None


@settings(max_examples=150, deadline=None)
@given(
    st.text(
        alphabet=st.sampled_from(list("htps:/.\\da%")) | st.characters(exclude_categories=("Cs",)),
        max_size=60,
    )
)
def test_hostile_image_names_are_read_or_refused_clearly(name: str) -> None:
    header = [*HEADER[:5], "image"]
    data = to_csv(header, [dict(zip(header, ["1", "Hi", "", "A", "Hallo", name], strict=True))])
    try:
        parsed = parse_campaign_file(data, "c.csv")
    except CampaignFileError as err:
        assert err.problems and all(p.file == "c.csv" for p in err.problems)
        return
    got = parsed.rows[0].image
    assert got is None or (
        image_name_problem(got) is None and "://" not in got and not got.startswith("/")
    )
