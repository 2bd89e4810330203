"""Seconds per ESA judgment with and without an AI prefill, by a SCRIPTED annotator in
chromium: a measure of the interface's round trips for the same work, not of a human.

Outputs of WMT21 TED en-de with one to three expert MQM error spans (located in the output
by their text and snapped to whole words, as the span widget snaps selections) are judged
twice by a script driving headless Debian chromium over ``streamlit run app.py``:

- from scratch: each reference span is marked (drag, severity key, ``1``);
- ESA^AI: the items start from the "good" prefill of bench/esa_ai_bench.py (the reference
  perturbed: 10 % dropped, 10 % moved by a word, 10 % severity flipped, 0.1 false spans per
  output); the script deletes false spans (click, ``Del``), moves or re-grades the others
  (click, drag / key), marks what is missing and accepts the rest (``a``).

Both then type the ESA score and save. The time of a judgment runs from the item on the
screen to the next item on the screen. A human reads, decides and moves the mouse; the
script does neither, so only the difference of interface operations shows here.

    .venv/bin/python bench/esa_ai_browser_bench.py [--items 8]
"""

from __future__ import annotations

import argparse
import random
import secrets
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.esa_ai_bench import DATA, LEVELS, _no_overlaps, perturb, reference_spans  # noqa: E402
from bench.tour import CHROMIUM, CHROMIUM_ARGS, IDLE, app_server  # noqa: E402

WIDGET = 'iframe[title*="tandem_span_widget"]'
STATE = """() => { const f = [...document.querySelectorAll('iframe')].find(
  i => (i.title || '').includes('tandem_span_widget'));
  const els = f && f.contentDocument.querySelectorAll('.text[data-side="target"] .err');
  return els ? [...els].map(e => [e.textContent, e.className.includes('major')]) : null; }"""


def _snap(text: str, spans):  # type: ignore[no-untyped-def]
    from annotation.judging.spans import snap_to_words

    out = []
    for s, e, major in spans:
        snapped = snap_to_words(text, s, e)
        if snapped:
            out.append((*snapped, major))
    return _no_overlaps(sorted(out))


def pick(n: int, seed: int = 3) -> list[tuple[str, list, list]]:
    """(output, reference spans, AI spans) of ``n`` short outputs with 1–3 errors."""
    outputs, _, _ = reference_spans(DATA)
    rng = random.Random(seed)
    pool = [(t, _snap(t, r)) for t, r in outputs if 1 <= len(r) <= 3 and len(t) < 160]
    pool = [(t, r) for t, r in pool if r]  # snapped, without overlaps
    unique = {t: r for t, r in pool}
    chosen = rng.sample(sorted(unique.items()), n)
    return [(t, r, _snap(t, perturb(t, r, LEVELS[1], rng))) for t, r in chosen]


def seed(db_url: str, picked: list) -> dict[str, str]:
    from accounts.invites import create_annotator
    from annotation.imports.ai_spans import import_ai_spans
    from annotation.judging.span_judgments import META_KEY
    from annotation.judging.spans import SpanConfig
    from annotation.queue import build as queue_build
    from db.engine import make_engine, session_scope
    from db.schema.models import Campaign, Item, Output, System

    engine = make_engine(db_url)
    tokens = {}
    for name in ("scratch", "esa-ai"):
        with session_scope(engine) as s:
            camp = Campaign(
                name=name,
                mode="spans",
                show_metrics=False,
                meta={META_KEY: SpanConfig(ask_esa=True).to_meta()},
            )
            s.add(camp)
            s.flush()
            sy = System(campaign_id=camp.id, name="mt")
            s.add(sy)
            for j, (text, _, _) in enumerate(picked):
                item = Item(campaign_id=camp.id, external_id=str(j), source=f"Source {j}.")
                s.add(item)
                s.flush()
                s.add(Output(item_id=item.id, system_id=sy.id, text=text))
            cid = camp.id
        if name == "esa-ai":
            rows = ["item_id,system,start,end,severity"] + [
                f"{j},mt,{s},{e},{'major' if m else 'minor'}"
                for j, (_, _, ai) in enumerate(picked)
                for s, e, m in ai
            ]
            import_ai_spans(engine, "\n".join(rows).encode(), name, source="good", filename="a.csv")
        queue_build.build_queue(engine, cid, seed=1)
        tokens[name] = create_annotator(engine, cid, f"script-{name}").token
    engine.dispose()
    return tokens


def _drag(tab, start: int, end: int) -> None:  # type: ignore[no-untyped-def]
    from tests.browser.test_spans_browser import _drag as drag

    inner = next(f for f in tab.frames if "tandem_span_widget" in f.url)
    drag(tab, inner, "", start, end)


def _wait(tab, text: str, spans) -> None:  # type: ignore[no-untyped-def]
    want = [[text[s:e], bool(m)] for s, e, m in sorted(spans)]
    tab.wait_for_function(
        f"(want) => JSON.stringify(({STATE})()) === JSON.stringify(want)", arg=want
    )


def _click_span(tab, index: int) -> None:  # type: ignore[no-untyped-def]
    tab.frame_locator(WIDGET).locator(
        f'.text[data-side="target"] [data-index="{index}"]'
    ).first.click()
    tab.frame_locator(WIDGET).locator(f'.sel[data-index="{index}"]').first.wait_for()


def _mark(tab, text: str, now: list, span) -> None:  # type: ignore[no-untyped-def]
    _drag(tab, span[0], span[1])
    tab.frame_locator(WIDGET).locator(".pending").first.wait_for()
    tab.keyboard.press("w" if span[2] else "q")
    tab.keyboard.press("1")
    now.append(span)
    _wait(tab, text, now)


def fix_prefill(tab, text: str, ref: list, ai: list) -> None:  # type: ignore[no-untyped-def]
    """Turn the AI spans into the reference, one widget operation at a time."""
    now = sorted(ai)
    for a in sorted(ai):
        match = next((r for r in ref if r[0] < a[1] and a[0] < r[1]), None)
        index = now.index(a)
        if match is None or any(match[:2] == b[:2] for b in now if b != a):
            _click_span(tab, index)
            tab.keyboard.press("Delete")
            now.remove(a)
        elif a != match:
            _click_span(tab, index)
            if a[:2] != match[:2]:
                _drag(tab, match[0], match[1])
            if a[2] != match[2]:
                tab.keyboard.press("w" if match[2] else "q")
            now[index] = match
            now.sort()
        _wait(tab, text, now)
    for r in ref:
        if not any(r[0] < b[1] and b[0] < r[1] for b in now):
            _mark(tab, text, now, r)
            now.sort()
    tab.keyboard.press("a")


def judge(tab, items: dict, prefill: bool) -> float:  # type: ignore[no-untyped-def]
    """One judgment; its seconds from the item on the screen to the next."""
    frame = tab.frame_locator(WIDGET)
    text = frame.locator('.text[data-side="target"]').inner_text()
    ref, ai = items[text]
    tab.get_by_text("Not set yet: move the slider").wait_for()
    _wait(tab, text, ai if prefill else [])
    started = time.perf_counter()
    if prefill:
        fix_prefill(tab, text, ref, ai)
    else:
        now: list = []
        for r in ref:
            _mark(tab, text, now, r)
    box = tab.get_by_role("spinbutton", name="Score")
    box.fill("70")
    box.press("Enter")
    tab.get_by_text("Not set yet: move the slider").wait_for(state="detached")
    tab.wait_for_function(
        "() => [...document.querySelectorAll('button')]"
        ".filter(b => b.innerText.includes('Save and next')).length === 1"
    )
    tab.get_by_role("button", name="Save and next").click()
    tab.wait_for_function(
        "(before) => { const f = [...document.querySelectorAll('iframe')].find("
        "i => (i.title || '').includes('tandem_span_widget'));"
        " const t = f && f.contentDocument.querySelector('.text[data-side=\"target\"]');"
        " return !f || (t && t.innerText !== before); }",  # the next item, or the end
        arg=text,
    )
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--items", type=int, default=8)
    args = parser.parse_args()
    if not DATA.exists() or not CHROMIUM.exists():
        print(f"skipped: needs {DATA} and {CHROMIUM}")
        return
    from playwright.sync_api import sync_playwright

    picked = pick(args.items)
    items = {t: (r, ai) for t, r, ai in picked}
    results = {}
    with (
        tempfile.TemporaryDirectory() as tmp,
        app_server(Path(tmp), secrets.token_urlsafe(9)) as url,
    ):
        tokens = seed(f"sqlite:///{Path(tmp) / 'tandem.db'}", picked)
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
            for name, prefill in (("scratch", False), ("esa-ai", True)):
                tab = browser.new_context(viewport={"width": 1280, "height": 1000}).new_page()
                tab.set_default_timeout(60_000)
                tab.goto(f"{url}/?token={tokens[name]}")
                tab.locator(WIDGET).wait_for()
                tab.wait_for_function(IDLE)
                results[name] = [judge(tab, items, prefill) for _ in picked]
            browser.close()
    n_ref = sum(len(r) for _, r, _ in picked)
    print(f"{len(picked)} outputs, {n_ref} reference spans; SCRIPTED annotator, not a human.")
    for name, secs in results.items():
        print(
            f"{name:8s} median {statistics.median(secs):.2f} s, mean {statistics.mean(secs):.2f} s "
            f"per judgment; {sum(secs) / n_ref:.2f} s per reference span"
        )


if __name__ == "__main__":
    main()
