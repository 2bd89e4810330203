"""Issue 34.7: the Import page suggests the target language from the file's language-pair
(or target-language) column when the preview agrees on one, and nothing otherwise."""

from __future__ import annotations

from formats.campaign_file import suggest_target_lang


def _rows(column: str, *values: str) -> list[dict[str, str]]:
    return [{"item_id": str(k), column: v} for k, v in enumerate(values)]


def test_a_lang_pair_column_names_the_target() -> None:
    assert suggest_target_lang(["item_id", "lang_pair"], _rows("lang_pair", "en-de")) == "de"
    assert suggest_target_lang(["LP"], _rows("LP", "EN_CS", "", "en_cs")) == "cs"  # empties skipped
    assert suggest_target_lang(["tgt_lang"], _rows("tgt_lang", "ja")) == "ja"


def test_no_suggestion_without_one_readable_target() -> None:
    assert suggest_target_lang(["item_id"], _rows("item_id", "1")) is None
    assert suggest_target_lang(["lang_pair"], _rows("lang_pair", "en-de", "en-cs")) is None
    assert suggest_target_lang(["lang_pair"], _rows("lang_pair", "English to German")) is None
    assert suggest_target_lang(["lang_pair"], _rows("lang_pair", "", "")) is None
