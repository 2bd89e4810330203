// The annotate page's key listener (views/annotate_keys.py keyboard()): installed once per
// browser tab; __KEYS__ and __FOCUS__ are replaced by JSON before it is sent.
const w = window, doc = document;
w.__tandemKeys = __KEYS__;
if (!w.__tandemKeysInstalled) {
  w.__tandemKeysInstalled = true;
  doc.addEventListener("keydown", (e) => {
    const t = e.target;
    const typing = t && (t.tagName === "TEXTAREA" || t.tagName === "INPUT" ||
                         t.isContentEditable);
    if (typing) {
      if (e.key === "Escape") t.blur();
      if (e.key === "Enter" && (e.ctrlKey || e.metaKey) && t.tagName === "TEXTAREA") {
        // post_edit: save; both: "Done editing" (records nothing; a label must be chosen).
        // Never Streamlit's own form shortcut, which fires the form's first submit button.
        e.preventDefault(); e.stopPropagation();
        const save = doc.querySelector(
          ".st-key-save_post_edit button, .st-key-done_editing button");
        t.blur();
        if (save) setTimeout(() => save.click(), 50);
      }
      return;
    }
    if (e.ctrlKey || e.metaKey || e.altKey || e.repeat) return;
    const target = w.__tandemKeys[e.key.toLowerCase()];
    if (!target) return;
    const el = doc.querySelector(".st-key-" + target + " button");
    if (!el || el.disabled) return;
    e.preventDefault();
    el.click();
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
