// The DA / SQM sliders of one screen (views/annotate/da_slider.py): one output (the single-output
// page) or several (a comparative screen, each output's text above its slider). Streamlit's
// components v2 calls this module's function at every draw, in the page itself (no iframe).
// The scores stay in the page, and in the tab's sessionStorage under the screen's identity
// (its assignments and claims), until Enter or the save button sends them in one trigger:
// a reload mid-item brings them back.
// Keys (never while typing in a box): 0-9 jump to 0, 10, ..., 90 (SQM: the point 0-6),
// arrows left/right move by 1, Shift+arrows by 10, Home / End to the ends, up / down (or
// j / k) move between the outputs of a comparative screen, Enter saves.
// A comparative screen whose campaign offers the comment box (data.comment) has an optional
// comment under each slider, held and kept with the scores and sent with them. What is typed
// there is text: no key of the screen fires, and Enter saves nothing (as on a cESA screen;
// Esc leaves the box, views/keys.js).
const STORE = "tandem-da-draft";

function stored(ident) {
  try {
    const s = JSON.parse(window.sessionStorage.getItem(STORE) || "null");
    return s && s.ident === ident ? s : null;
  } catch (e) { return null; }
}

function keep(d) {
  try {
    window.sessionStorage.setItem(STORE, JSON.stringify(
      { ident: d.ident, scores: d.scores, comments: d.comments, current: d.current }));
  } catch (e) { /* storage full or off: the draft still lives in the page */ }
}

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;  // literal text: never HTML
  return e;
}

function build(d, root) {
  root.replaceChildren();
  const box = el("div", "tandem-da");
  d.inputs = [];
  d.values = [];
  d.rowEls = [];
  d.rows.forEach((row, k) => {
    const r = el("div", "tandem-da-row");
    r.dataset.pos = String(k);
    if (row.title) r.append(el("p", "tandem-da-title", row.title));
    if (row.text !== undefined && row.text !== null) {
      const t = el("div", "tandem-da-text", row.text);
      t.dir = "auto";
      r.append(t);
    }
    const line = el("div", "tandem-da-line");
    const input = el("input", "tandem-da-input");
    Object.assign(input, { type: "range", min: "0", max: String(d.top), step: "1" });
    input.setAttribute("aria-label", (row.title || "Output") + ": score 0 to " + d.top);
    const value = el("span", "tandem-da-value");
    line.append(input, value);
    const marks = el("div", "tandem-da-anchors");
    for (const [v, text] of d.anchors) {
      const a = el("span", "tandem-da-anchor", `${v} ${text}`);
      a.style.left = `${(100 * v) / d.top}%`;
      if (v === 0) a.classList.add("first");
      if (v === d.top) a.classList.add("last");
      marks.append(a);
    }
    r.append(line, marks);
    if (d.comment) r.append(comment(d, k));
    const set = () => { d.set(k, Number(input.value)); };
    input.addEventListener("input", set);
    // a click where the untouched handle already is (the middle) fires no "input"
    input.addEventListener("pointerup", set);
    input.addEventListener("focus", () => { if (d.current !== k) { d.current = k; d.draw(); } });
    r.addEventListener("pointerdown", () => { if (d.current !== k) { d.current = k; d.draw(); } });
    d.inputs.push(input);
    d.values.push(value);
    d.rowEls.push(r);
    box.append(r);
  });
  const foot = el("div", "tandem-da-foot");
  const save = el("button", "tandem-da-save", "Save (Enter)");
  save.type = "button";
  save.addEventListener("click", () => d.save());
  d.msg = el("span", "tandem-da-msg");
  foot.append(save, d.msg);
  box.append(foot);
  root.append(box);
  d.root = root;
}

// Output k's comment box: literal text, kept in the draft as it is typed (no server run).
function comment(d, k) {
  const c = d.comment;
  const id = "tandem-da-comment-" + k;
  const box = el("div", "tandem-da-comment");
  const label = el("label", "", c.labels[k]);
  label.htmlFor = id;
  const input = el("input");
  Object.assign(input, { type: "text", id, dir: "auto", maxLength: c.max, placeholder: c.placeholder,
                         autocomplete: "off", value: d.comments[k] || "" });
  input.setAttribute("aria-label", c.labels[k]);
  input.addEventListener("input", () => { d.comments[k] = input.value; keep(d); });
  // the output commented on is the highlighted one (the keys act on it after Esc)
  input.addEventListener("focus", () => { if (d.current !== k) { d.current = k; d.draw(); } });
  box.append(label, input);
  return box;
}

function draw(d) {
  d.rows.forEach((row, k) => {
    const v = d.scores[k];
    const input = d.inputs[k];
    const has = v !== undefined && v !== null;
    input.value = String(has ? v : Math.round(d.top / 2));
    input.classList.toggle("unset", !has);
    d.values[k].textContent = has ? String(v) : "not set";
    d.rowEls[k].classList.toggle("current", d.rows.length > 1 && k === d.current);
  });
  const n = Object.keys(d.scores).length;
  d.msg.textContent = d.note || (d.rows.length > 1 ? `${n} of ${d.rows.length} scored` : "");
  d.msg.classList.toggle("note", Boolean(d.note));  // red for what is missing, not for the count
  d.root.dataset.scored = String(n);
}

function clamp(d, v) { return Math.max(0, Math.min(d.top, Math.round(v))); }

function onKey(e) {
  const d = window.__tandemDA;
  if (!d || d.sent || !document.contains(d.root)) return;
  const t = e.target;
  const box = t && (t.tagName === "TEXTAREA" || t.isContentEditable ||
                    (t.tagName === "INPUT" && t.type !== "range"));
  if (box || e.ctrlKey || e.metaKey || e.altKey) return;
  const k = d.current;
  const cur = d.scores[k];
  const base = cur === undefined ? Math.round(d.top / 2) : cur;
  const step = e.shiftKey ? 10 : 1;
  let act = null;
  if (/^[0-9]$/.test(e.key)) {
    const v = d.top === 100 ? Number(e.key) * 10 : Number(e.key);
    if (v <= d.top) act = () => d.set(k, v);
  } else if (e.key === "ArrowLeft") act = () => d.set(k, clamp(d, base - step));
  else if (e.key === "ArrowRight") act = () => d.set(k, clamp(d, base + step));
  else if (e.key === "Home") act = () => d.set(k, 0);
  else if (e.key === "End") act = () => d.set(k, d.top);
  else if (d.rows.length > 1 && (e.key === "ArrowDown" || e.key === "j")) act = () => d.move(1);
  else if (d.rows.length > 1 && (e.key === "ArrowUp" || e.key === "k")) act = () => d.move(-1);
  else if (e.key === "Enter" && !e.repeat) act = () => d.save();
  if (!act) return;
  e.preventDefault(); e.stopPropagation();
  act();
}

export default function (component) {
  const { data, setTriggerValue, parentElement } = component;
  const w = window;
  const prev = w.__tandemDA;
  let d;
  if (prev && prev.ident === data.ident) {  // the same screen again (a refused save too)
    d = prev;
    d.sent = false;
  } else {
    const s = stored(data.ident);
    d = { ident: data.ident, scores: { ...(data.scores || {}), ...(s ? s.scores : {}) },
          comments: { ...(s && s.comments ? s.comments : {}) },
          current: s ? s.current : 0, sent: false };
  }
  Object.assign(d, { rows: data.rows, top: data.top, anchors: data.anchors, note: "",
                     comment: data.comment || null });
  d.draw = () => draw(d);
  d.set = (k, v) => { d.scores[k] = v; d.current = k; d.note = ""; keep(d); d.draw(); };
  d.move = (step) => {
    d.current = (d.current + step + d.rows.length) % d.rows.length;
    keep(d); d.draw();
    d.rowEls[d.current].scrollIntoView({ block: "nearest" });
  };
  d.save = () => {
    const open = d.rows.map((_, k) => k).filter((k) => !(k in d.scores));
    if (open.length) {  // nothing is sent: say what is missing, on the first missing one
      d.current = open[0];
      d.note = d.rows.length > 1 ? `Set every output's score first (${open.length} not set).`
        : "Set the score first (a digit, the arrows or the mouse), then Enter.";
      d.draw();
      return;
    }
    d.sent = true;  // keys wait for the next screen
    try { w.sessionStorage.removeItem(STORE); } catch (e) { /* storage off */ }
    const sent = { ident: d.ident, scores: d.scores };
    if (d.comment) sent.comments = d.comments;
    setTriggerValue("save", sent);
  };
  w.__tandemDA = d;
  build(d, parentElement);
  d.draw();
  if (!w.__tandemDAInstalled) {
    w.__tandemDAInstalled = true;
    document.addEventListener("keydown", onKey, true);
  }
}
