// A comparative screen's labels kept in the browser until the screen is saved
// (views/annotate/compare_draft.py): one server round trip per screen instead of one per key.
// Streamlit's components v2 calls this module's function at every draw of the screen, in the
// page itself (no iframe). The key queue (views/keys.js) hands the screen's label, move and
// save keys, and clicks on its card buttons, to window.__tandemDraft in the order they came.
// The draft is also kept in sessionStorage under the screen's identity (its assignments and
// claims), so a reload mid-screen brings the labels back.
// When the campaign offers the comment box (data.comment), each card gets an optional comment
// box, drawn here in the place the server left for it (.tandem-cmp-comment) and held with the
// labels. What is typed there is text: views/keys.js leaves keys typed in a box alone (no
// a / i / j / k / s / u fires, Enter saves nothing, Esc leaves the box).
const LABEL_TEXT = { "1": "✓ Adequate", "0": "✗ Inadequate" };
const STORE = "tandem-cmp-draft";
const CARD = /(?:^|\s)st-key-cmp_card_(?:cur_)?(\d+)(?:\s|$)/;

function stored(ident) {
  try {
    const s = JSON.parse(window.sessionStorage.getItem(STORE) || "null");
    return s && s.ident === ident ? s : null;
  } catch (e) { return null; }
}

function cards() {
  const out = [];
  for (const el of document.querySelectorAll("[class*='st-key-cmp_card_']")) {
    const m = CARD.exec(el.className);
    if (m) out[Number(m[1])] = el;
  }
  return out;
}

// Card k's comment box in its place; false while Streamlit has not drawn the place yet.
// A box drawn for another screen (Streamlit may keep a card's place from one screen to the
// next) is given this screen's comment.
function commentBox(d, el, k) {
  const place = el.querySelector(".tandem-cmp-comment");
  if (!place) return false;
  let input = place.querySelector("input");
  if (!input) {
    const id = "tandem-cmp-comment-" + k;
    const label = document.createElement("label");
    label.htmlFor = id;
    label.textContent = d.boxes.labels[k];  // literal text: never HTML
    input = document.createElement("input");
    Object.assign(input, { type: "text", id, dir: "auto", maxLength: d.boxes.max,
                           placeholder: d.boxes.placeholder, autocomplete: "off" });
    input.setAttribute("aria-label", d.boxes.labels[k]);
    input.addEventListener("input", () => {  // the draft of the screen the box is now on
      const cur = window.__tandemDraft;
      if (!cur || cur.ident !== input.__ident) return;
      cur.comments[k] = input.value;
      keep(cur);
    });
    input.addEventListener("focus", () => {  // the card commented on is the highlighted one
      const cur = window.__tandemDraft;
      if (cur && cur.ident === input.__ident && cur.current !== k) {
        cur.current = k; keep(cur); apply(cur);
      }
    });
    place.replaceChildren(label, input);
  }
  if (input.__ident !== d.ident) { input.__ident = d.ident; input.value = d.comments[k] || ""; }
  return true;
}

// Draw the draft on the cards Streamlit drew: marks, the highlighted card, the count (and
// the comment boxes); false while some of it is not drawn yet.
function apply(d) {
  const all = cards();
  let ready = true;
  all.forEach((el, k) => {
    const cur = k === d.current;
    el.classList.remove("st-key-cmp_card_" + k, "st-key-cmp_card_cur_" + k);
    el.classList.add(cur ? "st-key-cmp_card_cur_" + k : "st-key-cmp_card_" + k);
    const label = d.labels[k];
    if (label === undefined) delete el.dataset.mark; else el.dataset.mark = String(label);
    const span = el.querySelector(".tandem-cmp-label");
    if (span) span.textContent = label === undefined ? "not judged yet" : LABEL_TEXT[label];
    const here = el.querySelector(".tandem-cmp-cur");
    if (here) here.textContent = cur ? " · current" : "";
    if (d.boxes && !commentBox(d, el, k)) ready = false;
  });
  const count = document.querySelector(".tandem-cmp-count");
  if (count) count.textContent = `${Object.keys(d.labels).length} of ${d.size} judged`;
  return ready && all.length === d.size;
}

function keep(d) {
  try {
    window.sessionStorage.setItem(STORE, JSON.stringify(
      { ident: d.ident, labels: d.labels, comments: d.comments, current: d.current }));
  } catch (e) { /* storage full or off: the draft still lives in the page */ }
}

export default function (component) {
  const { data, setTriggerValue } = component;
  const w = window;
  const prev = w.__tandemDraft;
  let d;
  if (prev && prev.ident === data.ident) d = prev;  // the same screen drawn again
  else {
    const s = stored(data.ident);
    // labels the server already holds (a mouse-less test's clicks) start the draft
    d = { ident: data.ident, labels: { ...(data.labels || {}), ...(s ? s.labels : {}) },
          comments: { ...(data.comments || {}), ...(s && s.comments ? s.comments : {}) },
          current: s ? s.current : (data.current || 0) };
  }
  d.size = data.size;
  d.boxes = data.comment || null;
  d.draw = () => apply(d);
  d.judge = (label, position) => {  // label the output (the highlighted one), go on
    const k = position === undefined ? d.current : position;
    d.labels[k] = label;
    const open = [...Array(d.size).keys()].filter((p) => !(p in d.labels));
    d.current = (open.filter((p) => p > k).concat(open, [k]))[0];
    keep(d); apply(d);
  };
  d.move = (step) => { d.current = (d.current + step + d.size) % d.size; keep(d); apply(d); };
  d.save = () => {
    // a screen brought back by undo starts afresh, as before; a refused save keeps the
    // labels in the page (this same draft object)
    try { window.sessionStorage.removeItem(STORE); } catch (e) { /* storage off */ }
    const sent = { ident: d.ident, labels: d.labels };
    if (d.boxes) sent.comments = d.comments;
    setTriggerValue("save", sent);
  };
  w.__tandemDraft = d;
  // Streamlit may draw the cards (and the comment boxes' places) after this element: draw
  // again for a few frames, then a while longer on a slow page; never once another
  // screen's draft has taken over
  let tries = 0;
  const again = () => {
    if (w.__tandemDraft !== d || apply(d) || tries++ > 160) return;
    if (tries < 60) requestAnimationFrame(again); else setTimeout(again, 50);
  };
  again();
}
