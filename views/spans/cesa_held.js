// A comparative error-span screen (cESA) held in the page until it is saved
// (views/spans/cesa_held.py): one server round trip per screen instead of one per
// selection, key, click and score. Appended to views/spans/held.js (one module: the same
// components v2 element, whose default export hands the elements with a `role` here).
//
// The screen mounts 2 + N elements: `screen` (the hints and the buttons for the current
// output, above the cards; it sends the save), one `output` per card (that output's held
// work: held.js's fresh / actions / offer / keep, its span list and its ESA score), and
// `save` (the Save screen button). Each output's work sits in window.__tandemSpansBy under
// its nonce, where its span widget finds it; the screen (window.__tandemCesa) knows which
// output is current, moves it (j / k), sends the page's keys and buttons to it, and saves
// every output at once, after the same checks as the server's (an open selection, a
// score not set), which the server makes again.

// The screens by identity, and window.__tandemCesa the newest drawn (the highest draw
// number, data.rev): an element of the screen before, drawn again while the page is
// replaced, must not take the keys, the titles or the outputs' works from it.
function cesaScreen(d) {
  const w = window;
  const by = w.__tandemCesaBy || (w.__tandemCesaBy = new Map());
  let S = by.get(d.screen);
  if (!S) S = newScreen(d, by);
  if (!w.__tandemCesa || d.rev >= w.__tandemCesa.top) { w.__tandemCesa = S; S.top = d.rev; }
  return S;
}

function newScreen(d, by) {
  const w = window;
  const S = { ident: d.screen, size: d.size, parts: [], current: 0, hint: null, saving: false,
              rev: null, top: -1, send: null, texts: d.texts };
  by.set(d.screen, S);
  for (const [ident, old] of [...by].slice(0, Math.max(0, by.size - 4))) {  // a few kept
    by.delete(ident);
    for (const p of old.parts) if (p && w.__tandemSpansBy) delete w.__tandemSpansBy[p.nonce];
  }
  if (!w.__tandemSpansBy) w.__tandemSpansBy = {};
  S.cur = () => S.parts[S.current] || null;
  S.focus = (k) => { if (k !== S.current) { S.current = k; S.drawMeta(); } };
  S.move = (step) => { S.current = (S.current + step + S.size) % S.size; S.drawMeta(); };
  // true when the save went to the server (the key queue waits for its draw)
  S.save = () => {
    if (S.saving || !S.send) return false;
    const parts = [];
    for (let k = 0; k < S.size; k++) { if (!S.parts[k]) return false; parts.push(S.parts[k]); }
    const which = (f) => parts.map((p, k) => (f(p) ? k + 1 : 0)).filter(Boolean);
    const open = which((p) => p.pending);
    const unscored = which((p) => p.data.ask_esa && p.esa === null);
    if (open.length || unscored.length) {
      S.hint = (open.length ? S.texts.open : S.texts.score).replace("{}", (open.length ? open : unscored).join(", "));
      S.drawMeta();
      return false;
    }
    S.saving = true; S.hint = null;
    for (const p of parts) p.saving = true;
    S.send("save", { screen: S.ident, t: Date.now(), outputs: parts.map((p) => ({
      nonce: p.nonce, esa: p.esa, comment: p.data.comment ? p.comment : null,
      spans: p.spans.map(({ start, end, severity, category, side }) => ({ start, end, severity, category, side })) })) });
    return true;
  };
  // a button of the screen (the page's keys name them: views/spans/compare.py KEYS)
  S.button = (name) => {
    if (S.saving) return false;
    if (name === "cmp_save") return S.save();
    if (name === "cmp_next" || name === "cmp_prev") { S.move(name === "cmp_next" ? 1 : -1); return false; }
    const b = S.cur();
    if (!b) return false;
    let m = /^cmp_sev_(\w+)$/.exec(name);
    if (m) { b.field("severity", m[1]); return false; }
    m = /^cmp_cat_(\d+)$/.exec(name);
    if (m) { const c = b.data.categories[Number(m[1])]; if (c !== undefined) b.field("category", c); return false; }
    const act = { cmp_span_delete: () => b.del(), cmp_span_clear: () => b.clear(),
                  cmp_accept_ai: () => (b.data.ai ? b.accept() : null) }[name];
    if (act) act();
    return false;
  };
  // what the server drew and the page redraws: the current card, each card's title, the hint
  S.drawMeta = () => {
    if (window.__tandemCesa !== S) return;  // an older screen's: the page shows another
    if (S.style) S.style.textContent = `.st-key-cmp_scard_${S.current} { border: 3px solid #2563eb; }`;
    S.parts.forEach((p, k) => {
      const card = document.querySelector(`.st-key-cmp_scard_${k}`);
      if (!p || !card) return;
      const cur = card.querySelector(".tandem-cmp-cur"), spans = card.querySelector(".tandem-cmp-spans");
      if (cur) cur.textContent = k === S.current ? " · current" : "";
      const unchecked = p.spans.filter((s) => s.ai && s.ai_state === "unchecked").length;
      const ai = unchecked ? ` (${unchecked} AI span(s) not checked)` : p.data.ai_clean ? " · the AI marked no errors in this output" : "";
      if (spans) spans.textContent = `${p.spans.length} error span(s)${ai}`;
    });
    if (S.hintBox) {
      S.hintBox.textContent = "";
      if (S.hint) S.hintBox.appendChild(el("div", { class: "tandem-held-hint", role: "alert" }, S.hint));
    }
  };
  return S;
}

function cesaOutput(component, S) {
  const { data, parentElement } = component;
  const by = window.__tandemSpansBy;
  let b = by[data.nonce];
  if (!b) { b = fresh(data); actions(b); b.screen = S; b.index = data.index; by[data.nonce] = b; }
  else if (b.rev !== data.rev) b.saving = false;  // the screen drawn again: a save refused
  b.rev = data.rev;
  b.data = data;
  S.parts[data.index] = b;
  if (!b.offered) offer(b, data);
  if (b.root !== parentElement || !b.list || !b.list.isConnected) {
    b.root = parentElement;
    parentElement.textContent = "";
    parentElement.appendChild(el("style", {}, data.css));
    b.list = el("div", { class: "tandem-held" });
    parentElement.appendChild(b.list);
    b.inputs = null;
    if (data.ask_esa) {
      const score = el("div", { class: "tandem-esa" });
      parentElement.appendChild(score);
      buildScore(b, data, score);
    }
    if (data.comment) parentElement.appendChild(buildComment(b, data.comment));
  }
  b.drawScore = () => drawScore(b, b.data);
  b.draw = () => { drawList(b, b.data, b.list); drawWidgets(b); S.drawMeta(); };
  b.draw();
  b.drawScore();
}

// The output's optional comment (the campaign's comment box), held with its spans and score:
// kept in its draft as it is typed, sent with the screen's save; no server run per key.
// views/keys.js leaves the keys typed in a text box to it (no shortcut fires).
function buildComment(b, c) {
  const id = "tandem-comment-" + b.nonce.replace(/\W/g, "_");
  const box = el("div", { class: "tandem-comment" });
  const input = el("input", { type: "text", id, maxlength: String(c.max), placeholder: c.placeholder,
                              "aria-label": c.label, autocomplete: "off" });
  input.value = b.comment;
  input.addEventListener("input", () => { b.comment = input.value; b.touched = true; keep(b, b.data); });
  box.append(el("label", { for: id, class: "tandem-esa-label" }, c.label), input);
  return box;
}

function cesaBar(component, S) {  // the hints and the current output's buttons
  const { data, setTriggerValue, parentElement } = component;
  S.send = setTriggerValue;
  if (S.root === parentElement && S.hintBox && S.hintBox.isConnected) return;
  S.root = parentElement;
  parentElement.textContent = "";
  S.style = el("style");
  S.hintBox = el("div");
  parentElement.append(el("style", {}, data.css), S.style, S.hintBox,
                       el("div", { class: "tandem-held-caption" }, "For the current output:"));
  const row = el("div", { class: "tandem-held-buttons" });
  for (const [k, v] of Object.entries(data.severity_keys))
    row.appendChild(button(S, v[0].toUpperCase() + v.slice(1), k, "cmp_sev_" + v));
  if (data.ai) row.appendChild(button(S, "Accept AI spans", "a", "cmp_accept_ai"));
  row.append(button(S, "Delete selected", "Del", "cmp_span_delete"), button(S, "Clear selection", "Esc", "cmp_span_clear"),
             button(S, "Previous output", "k", "cmp_prev"), button(S, "Next output", "j", "cmp_next"));
  parentElement.appendChild(row);
  if (!data.only_category) {
    const cats = el("div", { class: "tandem-held-buttons cats" });
    data.categories.forEach((c, n) => cats.appendChild(button(S, c, n < 9 ? String(n + 1) : "", "cmp_cat_" + n)));
    parentElement.appendChild(cats);
  }
}

function cesaMount(component) {
  const { data, parentElement } = component;
  const S = cesaScreen(data);
  if (window.__tandemCesa !== S) return;  // an older screen's element: the page shows another
  try { for (const k of data.forget || []) localStorage.removeItem(k); } catch (e) { /* off */ }
  if (data.role === "output") { cesaOutput(component, S); return; }
  if (S.rev !== data.rev) { S.rev = data.rev; S.saving = false; }  // drawn again: a save refused
  if (data.role === "screen") cesaBar(component, S);
  else if (data.role === "save" && parentElement.__tandemScreen !== S) {  // its button acts on S
    parentElement.__tandemScreen = S;
    parentElement.textContent = "";
    const row = el("div", { class: "tandem-held-buttons save" });
    row.appendChild(button(S, "Save screen", "Enter", "cmp_save", true));
    parentElement.appendChild(row);
  }
  document.body.classList.add("tandem-spans-held");
  S.drawMeta();
}
