// 43_upload.js — the in-page half of upload (upload.go): the file input a
// target stands for and the files it holds.
{
  const isFile = (el) => el && el.tagName === 'INPUT' && el.type === 'file';
  // mk.actFileInput finds the <input type=file> a target stands for: itself,
  // a label's control, the control of an enclosing label, an
  // aria-controls/for reference, a file input inside it, or the only file
  // input in its closest ancestor (up to the form) that has one. Resolves to
  // {ref, how, multiple, accept} or {ref: 0}.
  // arms remembers, per file input ref, the input itself (a page may
  // replace it once it has read the files) and the file names its next
  // change event carried.
  const arms = new Map();
  const arm = (input) => {
    const ref = mk.ref(input);
    const a = {el: input, names: null};
    arms.set(ref, a);
    input.addEventListener('change', () => { a.names = Array.from(input.files || []).map((f) => f.name); }, {once: true, capture: true});
    return ref;
  };
  // The input found is armed: its change event, fired when the files are
  // set, records what the page was given.
  mk.actFileInput = (ref) => {
    const el = mk.deref(ref);
    if (!el || !el.isConnected) return {ref: 0, reason: 'detached'};
    const out = (input, how) => ({ref: arm(input), how, multiple: input.multiple, accept: input.accept, disabled: input.disabled, target: mk.describe(input)});
    if (isFile(el)) return out(el, 'self');
    if (el.tagName === 'LABEL' && isFile(el.control)) return out(el.control, 'label');
    const lab = el.closest && el.closest('label');
    if (lab && isFile(lab.control)) return out(lab.control, 'enclosing label');
    for (const attr of ['aria-controls', 'for', 'data-for', 'data-target']) {
      for (const t of idrefs(el, attr)) if (isFile(t)) return out(t, attr);
    }
    const inside = el.querySelectorAll ? el.querySelectorAll('input[type=file]') : [];
    if (inside.length === 1) return out(inside[0], 'descendant');
    for (let c = parentOf(el); c; c = parentOf(c)) {
      const fs = c.querySelectorAll('input[type=file]');
      if (fs.length === 1) return out(fs[0], 'nearest ancestor');
      if (fs.length > 1 || c.tagName === 'FORM' || c.tagName === 'BODY') break;
    }
    return {ref: 0, reason: 'no file input tied to the element'};
  };
  // mk.actFiles reports the names of the files selected in a file input
  // {ok, names, connected, changed}: changed is what its change event
  // carried (null when none fired), so an input the page emptied or
  // replaced after reading the files is told from one never set.
  mk.actFiles = (ref) => {
    const a = arms.get(ref);
    const el = (a && a.el) || mk.deref(ref);
    arms.delete(ref);
    if (!el || !isFile(el)) return {ok: false, names: [], connected: false, changed: null};
    return {ok: true, names: Array.from(el.files || []).map((f) => f.name), connected: el.isConnected, changed: a ? a.names : null};
  };
}
