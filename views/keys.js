// The annotate pages' key listener (views/keys.py keyboard()), installed once per
// browser tab. __KEYS__, __FOCUS__ and __REV__ are replaced by JSON before it is sent.
//
// Keys are queued and clicked one at a time, each once the page is idle and the run its
// predecessor's click started has drawn the page. A click sent while a run is under way can
// be dropped (seen in chromium on a loaded machine: a label key pressed while the previous
// label's run was still drawing never reached its callback), and a key clicked on a page the
// server has not redrawn yet can land on the wrong output (the comparative screen's
// highlighted output is still the one just labelled).
// __REV__ numbers the page's draws: this script is the keys' last element, so a new number
// means the run drew the page that far; it also makes the element new on every draw, so the
// browser runs the script each time.
{  // a block: the page may hold other scripts with top-level names
const w = window, doc = document;
w.__tandemKeys = __KEYS__;
w.__tandemKeysRev = __REV__;
// A comparative screen whose labels the page keeps until Enter (views/annotate/compare_draft.js):
// its identity, so a draft of an earlier screen is never used.
w.__tandemDraftIdent = __DRAFT__;
if (!w.__tandemKeysInstalled) {
  w.__tandemKeysInstalled = true;
  const GIVE_UP_MS = 20000;  // no draw after a click this long: the page is gone or broken
  const queue = [];
  let busy = false, missing = 0;
  let draftWait = 0;  // since when the queue's first key has waited for its screen's draft
  // One retry pending at a time: every key calls pump, and a chain of retries per key would
  // count a waiting key's tries many times over (and poll as often).
  let retry = null;
  const later = () => { if (!retry) retry = setTimeout(() => { retry = null; pump(); }, 20); };
  const app = () => doc.querySelector("[data-testid='stApp']");
  const idle = () => { const a = app(); return !a || a.dataset.testScriptState === "notRunning"; };
  const button = (target) => {
    if (target === "cmp_adequate" || target === "cmp_inadequate") {
      // the comparative screen's highlighted card: its own button names its output, so a
      // click that the server sees twice can only repeat the same label on the same output
      const card = doc.querySelector("[class*='st-key-cmp_card_cur_']");
      const k = card && /st-key-cmp_card_cur_(\d+)/.exec(card.className);
      if (k) target = (target === "cmp_adequate" ? "cmp_a_" : "cmp_i_") + k[1];
    }
    return doc.querySelector(".st-key-" + target + " button");
  };
  // The draft's keys: drawn in the page at once, in queue order; only the save goes to the
  // server (and then waits for its draw like a click).
  const LOCAL = /^cmp_(adequate|inadequate|next|prev|save|[ai]_\d+)$/;
  // An error-span item whose work the page holds (views/spans/held.js): its severity,
  // category, delete, clear, AI and save buttons; skip and undo stay the server's.
  const SPANS = /^span_(sev_\w+|cat_\d+|save|no_errors|delete|clear|accept_ai|next)$/;
  const isSpans = () => typeof w.__tandemDraftIdent === "string" && w.__tandemDraftIdent.startsWith("spans:");
  // A comparative error-span screen whose work the page holds (views/spans/cesa_held.js): the
  // current output's severity, category, AI, delete and clear, the moves, the save; skip and
  // undo stay the server's.
  const CESA = /^cmp_(sev_\w+|cat_\d+|save|span_delete|span_clear|accept_ai|next|prev)$/;
  const isCesa = () => typeof w.__tandemDraftIdent === "string" && w.__tandemDraftIdent.startsWith("cesa:");
  const isLocal = (target) => (isCesa() ? CESA : isSpans() ? SPANS : LOCAL).test(target);
  const local = (target) => {
    if (isCesa()) {
      const s = w.__tandemCesa;
      if (!s || "cesa:" + s.ident !== w.__tandemDraftIdent || !s.send) return null;  // not drawn yet
      return () => s.button(target);  // true: the save went to the server
    }
    if (isSpans()) {
      const b = w.__tandemSpans;
      if (!b || "spans:" + b.nonce !== w.__tandemDraftIdent) return null;  // not drawn yet
      return () => b.button(target);  // true: a save went to the server
    }
    const d = w.__tandemDraft;
    if (!d || d.ident !== w.__tandemDraftIdent) return null;  // not drawn yet
    if (target === "cmp_adequate" || target === "cmp_inadequate") {
      return () => d.judge(target === "cmp_adequate" ? 1 : 0);
    }
    if (target === "cmp_next" || target === "cmp_prev") {
      return () => d.move(target === "cmp_next" ? 1 : -1);
    }
    const m = /^cmp_([ai])_(\d+)$/.exec(target);
    if (m) return () => d.judge(m[1] === "a" ? 1 : 0, Number(m[2]));
    return "save";
  };
  const afterDraw = (rev) => {  // until the run the last action started has drawn and ended
    const started = Date.now();
    const wait = () => {
      if (w.__tandemKeysRev !== rev && idle()) {
        // two frames and a little more: the new page is painted before the next key
        requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(() => {
          busy = false; pump(); }, 40)));
      } else if (Date.now() - started > GIVE_UP_MS) {
        // never click the rest on a page that was not redrawn: they could land on the
        // wrong item; a dropped key shows as an item not judged yet
        queue.length = 0; busy = false;
      } else setTimeout(wait, 15);
    };
    setTimeout(wait, 15);
  };
  const pump = () => {
    if (busy || !queue.length) return;
    if (w.__tandemDraftIdent && isLocal(queue[0])) {
      const act = local(queue[0]);
      if (act === null) {
        // The screen's draft is not drawn yet (on a loaded server it can come seconds after
        // the page is idle): the keys wait in order, never the server's button. Dropping one key would
        // put every later label on the wrong output; after a long wait the whole queue goes
        // (the outputs show as not judged yet).
        const now = Date.now();
        if (!draftWait) draftWait = now;
        if (now - draftWait > GIVE_UP_MS) { queue.length = 0; draftWait = 0; return; }
        later();
        return;
      }
      queue.shift();
      missing = 0;
      draftWait = 0;
      if (act !== "save") {
        const rev = w.__tandemKeysRev;
        if (act() === true) { busy = true; afterDraw(rev); return; }  // a span item's save
        pump(); return;
      }
      busy = true;
      const rev = w.__tandemKeysRev;
      w.__tandemDraft.save();
      afterDraw(rev);
      return;
    }
    if (!idle()) { later(); return; }
    const el = button(queue[0]);
    if (!el || el.disabled) {  // not drawn (yet): try again for a while, then drop the key
      if (++missing > 100) { queue.shift(); missing = 0; }
      later();
      return;
    }
    queue.shift();
    missing = 0;
    busy = true;
    const rev = w.__tandemKeysRev;
    el.click();
    afterDraw(rev);
  };
  // A click on a draft screen's card or save button joins the key queue (in order with the
  // keys), instead of a round trip per click.
  w.addEventListener("click", (e) => {
    if (!e.isTrusted || !w.__tandemDraftIdent || isCesa()) return;  // cESA: its own buttons
    const el = e.target && e.target.closest && (isSpans() ?
      e.target.closest("[class*='st-key-span_']") :
      e.target.closest("[class*='st-key-cmp_a_'], [class*='st-key-cmp_i_'], .st-key-cmp_save"));
    const m = el && (isSpans() ? /st-key-(span_\w+)(?:\s|$)/ : /st-key-(cmp_[ai]_\d+|cmp_save)(?:\s|$)/).exec(el.className);
    if (m && isSpans() && !SPANS.test(m[1])) return;
    if (!m) return;
    e.preventDefault(); e.stopPropagation();
    queue.push(m[1]);
    pump();
  }, true);
  doc.addEventListener("keydown", (e) => {
    const t = e.target;
    // typing in a box is not a key for the page; a slider (the ESA score) takes only its
    // arrows, Home and End, so the page's keys work from it
    const box = t && (t.tagName === "TEXTAREA" || (t.tagName === "INPUT" && t.type !== "range"));
    if (box || (t && t.isContentEditable)) {
      if (e.key === "Escape") t.blur();
      if (e.key === "Enter" && (e.ctrlKey || e.metaKey) && t.tagName === "TEXTAREA") {
        // post_edit: save; both: "Done editing" (records nothing; a label must be chosen).
        // Never Streamlit's own form shortcut, which fires the form's first submit button.
        e.preventDefault(); e.stopPropagation();
        const save = doc.querySelector(".st-key-save_post_edit, .st-key-done_editing");
        t.blur();
        const target = save && (save.classList.contains("st-key-save_post_edit") ?
                                "save_post_edit" : "done_editing");
        // after the blur has handed the box's text to the form
        if (target) setTimeout(() => { queue.push(target); pump(); }, 50);
      }
      return;
    }
    if (e.ctrlKey || e.metaKey || e.altKey || e.repeat) return;
    const target = w.__tandemKeys && w.__tandemKeys[e.key.toLowerCase()];
    if (!target) return;
    e.preventDefault();
    queue.push(target);
    pump();
  }, true);
}
const focusKey = __FOCUS__;
// Focus an item's post-edit box once, when the item is first shown: a later rerun of the
// same item (e.g. after "Done editing") must not pull focus back, or the next `a` / `i`
// would be typed into the box instead of choosing the label.
if (focusKey && w.__tandemFocused !== focusKey) {
  w.__tandemFocused = focusKey;
  let tries = 0;
  const focus = () => {
    const ta = doc.querySelector(".st-key-" + focusKey + " textarea");
    if (ta) { ta.focus(); ta.setSelectionRange(ta.value.length, ta.value.length); }
    else if (tries++ < 40) setTimeout(focus, 50);
  };
  focus();
}
}
