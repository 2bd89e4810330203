"""User-supplied text in the pages' messages shows literally: a column or file name holding
markdown or HTML is never rendered (an image URL in it would be fetched by the admin's
browser). Each message body is rendered with CommonMark (markdown-it, as the browser's
react-markdown does) and must come out as plain text equal to what the file says."""

from __future__ import annotations

import html

from markdown_it import MarkdownIt

from tests.app.conftest import admin_page

IMAGE = "![x](http://127.0.0.1:9/x.png)"
TAG = '<img src="http://127.0.0.1:9/y.png">'
FILE_NAME = "![f](http://127.0.0.1:9/f.png).csv"
CSV = f"item_id,{IMAGE},{TAG}\n1,a,b\n".encode()


def _rendered(markdown: str) -> str:
    return MarkdownIt("commonmark").render(markdown)


def test_import_error_shows_column_and_file_names_literally(app_engine) -> None:
    at = admin_page("views/pages/import_campaign.py")
    at.file_uploader[0].upload(FILE_NAME, CSV, "text/csv").run()
    assert not at.exception, at.exception
    [error] = at.error
    out = _rendered(error.value)
    assert "<img" not in out and "<a " not in out, out
    text = html.unescape(out)
    for literal_text in (IMAGE, TAG, FILE_NAME, "missing required column 'source'"):
        assert literal_text in text, (literal_text, text)


def test_literal_escapes_every_markdown_construct() -> None:
    from views.common import literal

    nasty = [IMAGE, TAG, "[link](http://x)", "**bold** _em_ `code`", "# heading", "a\\b",
             ":red[colour] :material/key:", "$x^2$", "&lt; &amp;", "1. item", "- item",
             "~~gone~~", "| a | b |"]  # fmt: skip
    for text in nasty:
        out = _rendered(literal(text))
        assert out == f"<p>{html.escape(text)}</p>\n", (text, out)
