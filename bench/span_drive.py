"""Driving the error-span screens in chromium for bench/serve_cpu_bench.py: a word dragged
with the mouse in an output's span widget, a severity key, the ESA score typed in its box,
then Enter; and what the database holds afterwards (every output of a cESA screen saved).
"""

from __future__ import annotations

import time

from bench.served import cpu_seconds

IDLE = ("(() => { const a = document.querySelector(\"[data-testid='stApp']\");"
        " return !!a && a.dataset.testScriptState === 'notRunning'; })()")  # fmt: skip


# The span widgets' output texts and the progress line (the error-span screens draw their
# texts in the widgets' frames).
SPAN_STATE = ("() => [...document.querySelectorAll('iframe')].filter("
              "i => (i.title || '').includes('tandem_span_widget')).map(i => {"
              " const t = i.contentDocument && i.contentDocument.querySelector("
              "'.text[data-side=\"target\"]'); return t ? t.innerText : ''; }).join('|')"
              " + '|' + [...document.querySelectorAll('[data-testid=stProgress]')]"
              ".map(e => e.innerText).join('|')")  # fmt: skip
SPAN_FRESH = ("(() => { const f = [...document.querySelectorAll('iframe')].filter("
              "i => (i.title || '').includes('tandem_span_widget'));"
              " return f.length > 0 && f.every(i => { const c = i.closest("
              "\"[data-testid='stElementContainer']\"); return !(c && c.dataset.stale === 'true')"
              " && i.contentDocument && i.contentDocument.querySelector("
              "'.text[data-side=\"target\"]'); }); })()")  # fmt: skip
WIDGET = 'iframe[title*="tandem_span_widget"]'
# Page coordinates of the k-th word of an output inside its widget: [x0, y, x1, y].
WORD_AT = r"""(k) => { const box = document.querySelector('.text[data-side="target"]');
  const text = box.innerText; const re = /\S+/g; let m, n = 0, hit = null;
  while ((m = re.exec(text))) { if (m[0].length > 2 && n++ === k) { hit = m; break; } }
  if (!hit) { re.lastIndex = 0; hit = re.exec(text); }
  const start = Array.from(text.slice(0, hit.index)).length;
  const end = start + Array.from(hit[0]).length;
  const walker = document.createTreeWalker(box, NodeFilter.SHOW_TEXT);
  const at = (cp) => { let node; while ((node = walker.nextNode())) {
      const s = Number(node.parentElement.dataset.s), chars = Array.from(node.textContent);
      if (cp <= s + chars.length) return [node, chars.slice(0, cp - s).join('').length]; } };
  const r = document.createRange(); r.setStart(...at(start)); walker.currentNode = box;
  r.setEnd(...at(end)); const rs = r.getClientRects(), a = rs[0];
  return [a.left + 1, (a.top + a.bottom) / 2, a.right - 1, (a.top + a.bottom) / 2]; }"""


def _mark_word(page, n: int, word: int) -> None:  # type: ignore[no-untyped-def]
    """Drag the mouse over a word of the ``n``-th span widget's output, then ``w`` (major)."""
    el = page.locator(WIDGET).nth(n)
    el.scroll_into_view_if_needed()
    frame = el.element_handle().content_frame()
    x0, y, x1, _ = frame.evaluate(WORD_AT, word)
    box = el.bounding_box()
    page.mouse.move(box["x"] + x0, box["y"] + y)
    page.mouse.down()
    page.mouse.move(box["x"] + (x0 + x1) / 2, box["y"] + y, steps=3)
    page.mouse.move(box["x"] + x1, box["y"] + y, steps=3)
    page.mouse.up()
    frame.wait_for_selector(".pending", timeout=60_000)
    page.wait_for_function(f"() => {IDLE}", polling="raf", timeout=60_000)
    page.keyboard.press("w")
    frame.wait_for_selector(".err.major", timeout=60_000)
    page.wait_for_function(f"() => {IDLE}", polling="raf", timeout=60_000)


def _type_score(page, n: int, score: int) -> None:  # type: ignore[no-untyped-def]
    """Type the ``n``-th output's ESA score in its box, Enter (Streamlit's box takes the
    value then), then leave the box."""
    box = page.get_by_role("spinbutton", name="Score").nth(n)
    box.fill(str(score))
    box.press("Enter")
    page.wait_for_function(f"() => {IDLE}", polling="raf", timeout=60_000)
    box.evaluate("e => e.blur()")  # (Esc would empty Streamlit's box)
    page.wait_for_function(f"() => {IDLE}", polling="raf", timeout=60_000)


def judge_spans(page, pid: int, n: int, outputs: int) -> tuple[float, list[float]]:  # type: ignore[no-untyped-def]
    """``n`` ESA judgments (screens of ``outputs`` outputs): per output a word dragged, ``w``
    and a typed score; then Enter. CPU-seconds per screen, Enter → next screen."""
    lat = []
    c0 = cpu_seconds(pid)
    for k in range(n):
        before = page.evaluate(SPAN_STATE)
        for j in range(outputs):
            _mark_word(page, j, (k + j) % 3)
            _type_score(page, j, 40 + (k * 7 + j * 13) % 60)
        started = time.perf_counter()
        page.keyboard.press("Enter")
        page.wait_for_function(f"(b) => ({SPAN_STATE})() !== b && {SPAN_FRESH}", arg=before,
                               polling="raf", timeout=60_000)  # fmt: skip
        lat.append(time.perf_counter() - started)
        page.wait_for_function(f"() => {IDLE}", polling="raf", timeout=60_000)
    return (cpu_seconds(pid) - c0) / n, lat


def stored(db_url: str) -> tuple[int, int, int]:
    """What the database holds: judgments, those with an ESA score, those with a span
    (every output of a screen is marked and scored, so all three are the outputs judged)."""
    from sqlalchemy import func, select

    from db.engine import make_engine
    from db.schema.models import Annotation

    engine = make_engine(db_url)
    try:
        with engine.connect() as c:
            q = select(func.count(), func.count(Annotation.esa_score)).where(
                Annotation.kind == "label"
            )
            total, scored = c.execute(q).one()
            spans = c.execute(select(Annotation.spans).where(Annotation.kind == "label")).all()
    finally:
        engine.dispose()
    return total, scored, sum(1 for (sp,) in spans if sp)
