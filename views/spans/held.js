// An error-span item's unsaved work held in the page until it is saved (views/spans/held.py):
// one server round trip per judgment instead of one per selection, key, click and score.
// Streamlit's components v2 calls this module's function at every draw of the item, in the
// page itself (no iframe). The span widget (views/spans/span_widget, an iframe) hands its
// selections, clicks on spans and keys to window.__tandemSpans and draws what it is told;
// the page's key queue (views/keys.js) hands the page's keys and the clicks on the item's
// buttons to it too. It draws the span list and the ESA score here, keeps the work in
// localStorage (the widget's draft key: a reload or a second tab finds it again) and sends
// spans and score with the save, which the server validates like any judgment.
const SELECT_FIRST = "Select the wrong words in the output first (or click in the source where something is missing).";
const UNFINISHED = "A selection is still open: give it a severity and a category, or clear it (Esc), before saving.";
const SCORE_FIRST = "Set the overall score first (0–100): move the slider, or type it in the box beside it (e.g. 50). Then press n again for “no errors”, or Enter to save the spans.";
const HAS_SPANS = "You marked errors on this item: delete them to say “no errors”, or save them with Enter.";
const NOT_SET = "Not set yet: move the slider to the score, or type it in the box (for 50, where the handle starts, type 50).";
const AI_LABEL = { unchecked: "AI · check it", accepted: "AI · accepted", edited: "AI · edited" };
const DRAFT_PREFIX = "tandem-span-draft:";

const cps = (s) => Array.from(s || "");
// Python's snap_to_words (annotation/judging/spans.py): whole words, no white space at the
// ends; East Asian wide characters are words of their own.
const WIDE = /[\u1100-\u115F\u2E80-\u303E\u3041-\u33FF\u3400-\u4DBF\u4E00-\u9FFF\uA000-\uA4CF\uAC00-\uD7A3\uF900-\uFAFF\uFE30-\uFE4F\uFF00-\uFF60\uFFE0-\uFFE6\u{20000}-\u{3FFFD}]/u;
const wordlike = (c) => !WIDE.test(c) && /^[\p{L}\p{N}\p{M}_'’\-]$/u.test(c);
function snap(chars, a, b) {
  let s = Math.min(Math.max(0, Math.min(a, b)), chars.length);
  let e = Math.min(Math.max(0, Math.max(a, b)), chars.length);
  while (s < e && /\s/u.test(chars[s])) s++;
  while (e > s && /\s/u.test(chars[e - 1])) e--;
  if (s === e) return null;
  if (wordlike(chars[s])) while (s > 0 && wordlike(chars[s - 1])) s--;
  if (wordlike(chars[e - 1])) while (e < chars.length && wordlike(chars[e])) e++;
  return [s, e];
}

function el(tag, attrs, text) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}

function fresh(d) {
  const b = { nonce: d.nonce, spans: (d.spans || []).map((s) => ({ ...s })), pending: null,
              selected: null, esa: null, comment: "", hint: null, touched: false, saving: false,
              offered: false, built: false };
  return b;
}

// The stored draft, when this page may take it: nothing done on the item yet, and no
// spans of the annotator's own from the server (an undo's correction starts from those).
function offer(b, d) {
  b.offered = true;
  if (!d.draft_key || (b.spans.length && !d.ai)) return;
  try {
    const kept = JSON.parse(localStorage.getItem(d.draft_key) || "null");
    if (!kept) return;
    const n = (s) => Number.isInteger(s.start) && Number.isInteger(s.end) && s.start <= s.end;
    if (Array.isArray(kept.spans) && (kept.spans.length || kept.empty))
      b.spans = kept.spans.filter((s) => s && typeof s === "object" && n(s));
    if (typeof kept.esa === "number" && kept.esa >= 0 && kept.esa <= 100) b.esa = kept.esa;
    if (typeof kept.comment === "string") b.comment = kept.comment;  // a cESA output's
    b.touched = true;
  } catch (e) { /* storage blocked or a damaged entry: start from the server's spans */ }
}

function keep(b, d) {
  if (!d.draft_key || !b.touched) return;
  try {
    if (b.spans.length || d.ai || b.esa !== null || b.comment)
      localStorage.setItem(d.draft_key, JSON.stringify({ t: Date.now(), spans: b.spans, empty: !b.spans.length, esa: b.esa, comment: b.comment }));
    else localStorage.removeItem(d.draft_key);
  } catch (e) { /* storage full or off: the work still lives in the page */ }
}

function snippet(b, d, s) {
  if (s.side === "source" && s.start === s.end) return `missing in the source at character ${s.start}`;
  let t = cps(s.side === "target" ? d.target : d.source).slice(s.start, s.end).join("");
  if (cps(t).length > 60) t = cps(t).slice(0, 57).join("") + "…";
  return (s.side === "source" ? "source (omitted): " : "") + `“${t}”`;
}

function actions(b) {
  const d = () => b.data;
  const changed = () => { b.touched = true; b.hint = null; keep(b, d()); b.draw(); };
  const edited = (s) => { if (s.ai) s.ai_state = "edited"; };
  b.select = (side, start, end) => {
    if (side !== "target" && side !== "source") return;
    const chars = cps(side === "target" ? d().target : d().source);
    let at;
    if (side === "source" && start === end) at = [Math.min(Math.max(0, start), chars.length), Math.min(Math.max(0, start), chars.length)];
    else at = snap(chars, start, end);
    if (!at) return;
    const cur = b.selected === null ? null : b.spans[b.selected];
    if (d().ai && cur && cur.side === side && at[0] < cur.end && cur.start < at[1]) {  // move it
      if (cur.start !== at[0] || cur.end !== at[1]) { cur.start = at[0]; cur.end = at[1]; edited(cur); }
      changed(); return;
    }
    b.pending = { side, start: at[0], end: at[1], severity: null, category: d().only_category };
    b.selected = null; changed();
  };
  b.pick = (i) => { if (i >= 0 && i < b.spans.length) { b.selected = i; b.pending = null; changed(); } };
  b.field = (field, value) => {
    if (field === "severity" && !d().severities.includes(value)) return;
    if (b.selected !== null) {
      const s = b.spans[b.selected];
      if (s[field] !== value) { s[field] = value; edited(s); }
      changed(); return;
    }
    if (!b.pending) { b.hint = SELECT_FIRST; b.draw(); return; }
    b.pending[field] = value;
    if (b.pending.severity && b.pending.category) { b.spans.push(b.pending); b.pending = null; }
    changed();
  };
  b.del = (i) => {
    const k = i === undefined ? b.selected : i;
    if (k !== null && k >= 0 && k < b.spans.length) b.spans.splice(k, 1);
    else if (k === null) b.pending = null;
    b.selected = null; changed();
  };
  b.clear = () => { b.pending = null; b.selected = null; b.draw(); };
  b.accept = () => {
    const chosen = b.selected === null ? b.spans : [b.spans[b.selected]];
    for (const s of chosen) if (s.ai && s.ai_state === "unchecked") s.ai_state = "accepted";
    changed();
  };
  b.next = () => {
    if (!b.spans.length) return;
    b.selected = b.selected === null ? 0 : (b.selected + 1) % b.spans.length;
    b.pending = null; changed();
  };
  b.score = (v) => { b.esa = v; b.touched = true; keep(b, d()); b.drawScore(); };
  // true when the save went to the server (the caller waits for its draw)
  b.save = (noErrors) => {
    if (b.screen) return b.screen.save();  // an output of a cESA screen: the screen's save
    if (b.saving) return false;
    let why = null;
    if (b.pending) why = d().only_category ? UNFINISHED.replace(" and a category", "") : UNFINISHED;
    else if (noErrors && b.spans.length) why = HAS_SPANS;
    else if (d().ask_esa && b.esa === null) why = SCORE_FIRST;
    if (why) { b.hint = why; b.draw(); return false; }
    b.saving = true;
    const spans = noErrors ? [] : b.spans.map(({ start, end, severity, category, side }) => ({ start, end, severity, category, side }));
    b.send("save", { nonce: b.nonce, spans, esa: b.esa, no_errors: !!noErrors, t: Date.now() });
    return true;
  };
  // a key of the span keys: in the widget or on the page
  b.key = (key) => {
    if (b.saving) return false;
    const sev = d().severity_keys[key];
    if (sev) { b.field("severity", sev); return false; }
    if (/^[1-9]$/.test(key) && Number(key) <= d().categories.length) { b.field("category", d().categories[Number(key) - 1]); return false; }
    const act = { Enter: () => b.save(false), n: () => (b.screen ? null : b.save(true)), Delete: () => b.del(), Backspace: () => b.del(),
                  Escape: () => b.clear(), a: () => (d().ai ? b.accept() : null), j: () => (d().ai ? b.next() : null) }[key];
    return act ? !!act() : null;  // null: not a key of the work (skip, undo: the server's)
  };
  // a button of the page, by its key (views/spans/item.py)
  b.button = (name) => {
    if (b.saving) return false;
    let m = /^span_sev_(\w+)$/.exec(name);
    if (m) { b.field("severity", m[1]); return false; }
    m = /^span_cat_(\d+)$/.exec(name);
    if (m) { b.field("category", d().categories[Number(m[1])]); return false; }
    const act = { span_save: () => b.save(false), span_no_errors: () => b.save(true), span_delete: () => b.del(),
                  span_clear: () => b.clear(), span_accept_ai: () => b.accept(), span_next: () => b.next() }[name];
    return act ? !!act() : null;
  };
  b.event = (ev) => {  // from the widget
    if (b.saving || !ev) return;
    if (b.screen) b.screen.focus(b.index);  // the output worked in becomes the current one
    if (ev.type === "select") b.select(ev.side, ev.start, ev.end);
    else if (ev.type === "click_span") b.pick(ev.index);
    else if (ev.type === "key") {
      const sent = b.key(ev.key);
      if (sent === null && (ev.key === "s" || ev.key === "u")) {  // the server's own buttons
        const name = ev.key === "s" ? d().skip_button || "skip" : d().undo_button || "undo";
        const btn = document.querySelector(".st-key-" + name + " button");
        if (btn) btn.click();
      }
    }
  };
}

function drawList(b, d, box) {
  box.textContent = "";
  if (b.hint) box.appendChild(el("div", { class: "tandem-held-hint", role: "alert" }, b.hint));
  if (b.pending) box.appendChild(el("div", { class: "tandem-held-open" },
    `Open selection: ${snippet(b, d, b.pending)}: choose a severity${d.only_category ? "" : " and a category"}.`));
  if (d.ai) {
    const n = b.spans.filter((s) => s.ai && s.ai_state === "unchecked").length;
    box.appendChild(el("div", { class: "tandem-held-caption" }, n
      ? `${n} AI span(s) not checked yet (dashed violet). Unchecked ones are saved as they are.`
      : "Every AI span checked."));
  }
  if (!b.spans.length) { box.appendChild(el("div", { class: "tandem-held-caption" }, "No errors marked yet.")); return; }
  const list = el("ol", { class: "tandem-held-list" });
  b.spans.forEach((s, i) => {
    const row = el("li", { class: "tandem-held-row" + (i === b.selected ? " sel" : "") });
    const what = el("span", { class: "tandem-held-what" }, (i === b.selected ? "▶ " : "") + snippet(b, d, s));
    what.addEventListener("click", () => b.pick(i));
    row.appendChild(what);
    if (s.ai) row.appendChild(el("span", { class: "tandem-held-badge" }, AI_LABEL[s.ai_state] || AI_LABEL.unchecked));
    const sevs = d.severities.includes(s.severity) ? d.severities : [...d.severities, s.severity];
    const sev = el("select", { "aria-label": `Severity of span ${i + 1}` });
    for (const v of sevs) { const o = el("option", { value: v }, v); if (v === s.severity) o.selected = true; sev.appendChild(o); }
    sev.addEventListener("change", () => { b.selected = null; s.severity = sev.value; if (s.ai) s.ai_state = "edited"; b.touched = true; keep(b, d); b.draw(); });
    row.appendChild(sev);
    const cats = d.categories.includes(s.category) ? d.categories : [...d.categories, s.category];
    if (cats.length > 1) {  // one category (ESA's) is no choice: a span is its severity alone
      const cat = el("select", { "aria-label": `Category of span ${i + 1}` });
      for (const v of cats) { const o = el("option", { value: v }, v); if (v === s.category) o.selected = true; cat.appendChild(o); }
      cat.addEventListener("change", () => { s.category = cat.value; if (s.ai) s.ai_state = "edited"; b.touched = true; keep(b, d); b.draw(); });
      row.appendChild(cat);
    }
    const del = el("button", { type: "button", class: "tandem-held-del" }, "Delete");
    del.addEventListener("click", () => b.del(i));
    row.appendChild(del);
    list.appendChild(row);
  });
  box.appendChild(list);
}

// The item's buttons, drawn here rather than as the server's widgets: a click acts in the
// page like its key (views/keys.js names them by the same keys).
function button(b, label, key, name, primary) {
  const e = el("button", { type: "button", class: "tandem-held-btn" + (primary ? " primary" : ""),
                           "data-name": name });
  e.append(document.createTextNode(label + " "), el("code", {}, key));
  e.addEventListener("click", () => b.button(name));
  return e;
}

function buildButtons(b, d, top, bottom) {
  const sev = el("div", { class: "tandem-held-buttons" });
  for (const [k, v] of Object.entries(d.severity_keys))
    sev.appendChild(button(b, v[0].toUpperCase() + v.slice(1), k, "span_sev_" + v));
  top.appendChild(sev);
  if (!d.only_category) {
    const cats = el("div", { class: "tandem-held-buttons cats" });
    d.categories.forEach((c, n) => cats.appendChild(button(b, c, n < 9 ? String(n + 1) : "", "span_cat_" + n)));
    top.appendChild(cats);
  }
  if (d.ai) {
    const ai = el("div", { class: "tandem-held-buttons ai" });
    ai.append(button(b, "Accept AI spans", "a", "span_accept_ai"), button(b, "Next span", "j", "span_next"));
    top.appendChild(ai);
  }
  const save = el("div", { class: "tandem-held-buttons save" });
  save.append(button(b, "Save and next", "Enter", "span_save", true), button(b, "No errors", "n", "span_no_errors"),
              button(b, "Clear selection", "Esc", "span_clear"), button(b, "Delete selected", "Del", "span_delete"));
  bottom.appendChild(save);
}

function buildScore(b, d, box) {
  box.textContent = "";
  const id = "tandem-esa-" + d.nonce.replace(/\W/g, "_");
  const label = el("label", { for: id, class: "tandem-esa-label" }, "Overall quality (ESA), 0–100");
  const row = el("div", { class: "tandem-esa-row" });
  const range = el("input", { type: "range", id, min: "0", max: "100", step: "1", "aria-label": "Overall quality (ESA), 0–100" });
  const num = el("input", { type: "number", min: "0", max: "100", step: "1", placeholder: "not set", "aria-label": "Score",
                            title: "The score you set; or type it here (e.g. 50, where the handle starts)." });
  range.addEventListener("input", () => b.score(Number(range.value)));
  num.addEventListener("input", () => {
    if (num.value === "") { b.score(null); return; }
    const v = Math.round(Number(num.value));
    if (Number.isFinite(v)) b.score(Math.min(100, Math.max(0, v)));
  });
  row.append(range, num);
  const anchors = el("div", { class: "tandem-esa-anchors" });
  for (const [v, w] of d.anchors) {
    const a = el("span", { style: v === 100 ? "right:0" : `left:${v}%;transform:translateX(-${v}%)` });
    a.append(el("b", {}, String(v)), document.createTextNode(" · " + w));
    anchors.appendChild(a);
  }
  const caption = el("div", { class: "tandem-held-caption tandem-esa-unset" }, NOT_SET);
  box.append(label, row, anchors, caption);
  b.inputs = { range, num, caption, box };
}

function drawScore(b, d) {
  if (!b.inputs) return;
  const { range, num, caption, box } = b.inputs;
  range.value = String(b.esa === null ? d.esa_start : b.esa);
  range.classList.toggle("unset", b.esa === null);  // a handle at rest is no score
  if (document.activeElement !== num) num.value = b.esa === null ? "" : String(b.esa);
  if (b.esa === null && !caption.isConnected) box.appendChild(caption);
  if (b.esa !== null && caption.isConnected) caption.remove();
}

// The span widgets' frames that have loaded (one per output on a cESA screen): each draws
// only what is meant for its own item (its nonce).
function widgets() {
  return [...document.querySelectorAll('iframe[title*="tandem_span_widget"]')]
    .map((f) => f.contentWindow).filter((f) => f && f.__tandemDraw);
}

function drawWidgets(b) {
  for (const f of widgets()) f.__tandemDraw({ nonce: b.nonce, spans: b.spans, pending: b.pending, selected: b.selected });
}

// The module's mount, also for a cESA screen's light elements (views/spans/cesa_held.py
// mount_part): they carry only a call of it, once this element has loaded the module.
window.__tandemHeldMount = heldMount;
export default heldMount;

function heldMount(element) {
  // the data comes as a one-element list (views/spans/held.py mount_held)
  const data = Array.isArray(element.data) ? element.data[0] : element.data;
  const component = { data, setTriggerValue: element.setTriggerValue, parentElement: element.parentElement };
  if (data.role) return cesaMount(component);  // a cESA screen's part (cesa_held.js)
  const { setTriggerValue, parentElement } = component;
  const w = window;
  let b = w.__tandemSpans;
  if (!b || b.nonce !== data.nonce) { b = fresh(data); actions(b); w.__tandemSpans = b; w.__tandemSpansBy = {}; }
  else if (b.rev !== data.rev) b.saving = false;  // the same item drawn again: a save refused
  b.rev = data.rev;
  b.data = data;
  b.send = setTriggerValue;
  try { for (const k of data.forget || []) localStorage.removeItem(k); } catch (e) { /* off */ }
  if (!b.offered) offer(b, data);
  if (b.root !== parentElement || !b.list || !b.list.isConnected) {
    b.root = parentElement;
    parentElement.textContent = "";
    parentElement.appendChild(el("style", {}, data.css));
    const top = el("div"), bottom = el("div");
    b.list = el("div", { class: "tandem-held" });
    parentElement.append(top, b.list);
    b.inputs = null;
    if (data.ask_esa) {
      const score = el("div", { class: "tandem-esa" });
      parentElement.appendChild(score);
      buildScore(b, data, score);
    }
    parentElement.appendChild(bottom);
    buildButtons(b, data, top, bottom);
  }
  b.drawScore = () => drawScore(b, b.data);
  b.draw = () => {
    drawList(b, b.data, b.list);
    drawWidgets(b);
  };
  document.body.classList.add("tandem-spans-held");
  b.draw();
  b.drawScore();
}
