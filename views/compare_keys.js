// The comparative screen's key listener (views/annotate_compare.py): keys are queued and
// clicked one at a time, each once the run its predecessor's click started has drawn the
// page, so quick typing never loses a key or lands it on another output.
// __KEYS__ and __REV__ are replaced by JSON before it is sent; installed once per browser tab.
// __REV__ numbers the page's draws: this script is the page's last element, so a new number
// means the run drew the whole page. Waiting for "the script is not running" alone was not
// enough: when the server was slow to start the click's run (a loaded machine), the queue
// gave up waiting after a second and clicked the next key on the old page, where the
// highlighted output was still the one just labelled: that key relabelled it.
{  // a block: keys.js's top-level names (w, doc) are taken in this page
const w = window, doc = document;
w.__tandemCmpKeys = __KEYS__;
w.__tandemCmpRev = __REV__;
if (!w.__tandemCmpInstalled) {
  w.__tandemCmpInstalled = true;
  const GIVE_UP_MS = 20000;  // no draw after a click this long: the page is gone or broken
  const queue = [];
  let busy = false, missing = 0;
  const app = () => doc.querySelector("[data-testid='stApp']");
  const idle = () => { const a = app(); return !a || a.dataset.testScriptState === "notRunning"; };
  const pump = () => {
    if (busy || !queue.length) return;
    if (!idle()) { setTimeout(pump, 20); return; }
    let target = queue[0];
    if (target === "cmp_adequate" || target === "cmp_inadequate") {
      // the highlighted card's own button: a label names its output, so a click that the
      // server sees twice can only repeat the same label on the same output
      const card = doc.querySelector("[class*='st-key-cmp_card_cur_']");
      const k = card && /st-key-cmp_card_cur_(\d+)/.exec(card.className);
      if (k) target = (target === "cmp_adequate" ? "cmp_a_" : "cmp_i_") + k[1];
    }
    const el = doc.querySelector(".st-key-" + target + " button");
    if (!el || el.disabled) {  // not drawn (yet): try again for a while, then drop the key
      if (++missing > 100) { queue.shift(); missing = 0; }
      setTimeout(pump, 20);
      return;
    }
    queue.shift();
    missing = 0;
    busy = true;
    const rev = w.__tandemCmpRev;
    el.click();
    const started = Date.now();
    const wait = () => {  // until the run this click started has drawn the page and ended
      if (w.__tandemCmpRev !== rev && idle()) {
        // two frames and a little more: the new page is painted before the next key
        requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(() => {
          busy = false; pump(); }, 40)));
      } else if (Date.now() - started > GIVE_UP_MS) {
        // never click the rest on a page that was not redrawn: they could land on the
        // wrong output; a dropped key shows as an output not judged yet
        queue.length = 0; busy = false;
      } else setTimeout(wait, 15);
    };
    setTimeout(wait, 15);
  };
  doc.addEventListener("keydown", (e) => {
    if (!w.__tandemCmpKeys) return;
    const t = e.target;
    // typing in a box is not a key for the screen; a slider (the ESA score) takes only its
    // arrows, Home and End, so Enter saves the screen from it
    const box = t && (t.tagName === "TEXTAREA" || (t.tagName === "INPUT" && t.type !== "range"));
    if (box || (t && t.isContentEditable)) return;
    if (e.ctrlKey || e.metaKey || e.altKey || e.repeat) return;
    const target = w.__tandemCmpKeys[e.key.toLowerCase()];
    if (!target) return;
    e.preventDefault();
    queue.push(target);
    pump();
  }, true);
}
}
