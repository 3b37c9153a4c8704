// Accessible names (mk.name), label texts and name-from-content.

// norm collapses runs of whitespace and trims: names and texts are compared
// in this form.
const norm = (s) => (s == null ? '' : String(s)).replace(/[\s\u00a0\u200b]+/g, ' ').trim();
mk.norm = norm;

const NAME_FROM_CONTENT = new Set([
  'button', 'link', 'heading', 'cell', 'gridcell', 'columnheader', 'rowheader', 'option', 'tab', 'menuitem',
  'menuitemcheckbox', 'menuitemradio', 'treeitem', 'checkbox', 'radio', 'switch', 'tooltip', 'row', 'caption',
  'term', 'sectionhead', 'comment', 'listitem',
]);
mk.NAME_FROM_CONTENT = NAME_FROM_CONTENT;
const BLOCK = new Set(['DIV', 'P', 'LI', 'UL', 'OL', 'TD', 'TH', 'TR', 'TABLE', 'H1', 'H2', 'H3', 'H4', 'H5', 'H6',
  'SECTION', 'ARTICLE', 'HEADER', 'FOOTER', 'NAV', 'MAIN', 'ASIDE', 'FORM', 'FIELDSET', 'LEGEND', 'BR', 'HR',
  'DL', 'DT', 'DD', 'BLOCKQUOTE', 'PRE', 'FIGURE', 'FIGCAPTION', 'ADDRESS', 'DETAILS', 'SUMMARY', 'LABEL', 'OPTION']);
const SKIP = new Set(['SCRIPT', 'STYLE', 'TEMPLATE', 'NOSCRIPT', 'HEAD', 'TITLE', 'META', 'LINK']);
const MAX_TEXT = 600;

const controlValue = (el) => {
  const tag = el.tagName;
  if (tag === 'SELECT') {
    const o = el.selectedOptions;
    return o && o.length ? norm(o[0].label || o[0].textContent) : '';
  }
  if (tag === 'TEXTAREA') return el.value;
  if (tag === 'INPUT') {
    const t = (el.type || '').toLowerCase();
    if (t === 'checkbox' || t === 'radio' || t === 'file' || t === 'hidden') return '';
    if (t === 'password') return '';
    return el.value;
  }
  return null;
};
const isEmbeddedControl = (el) => {
  const tag = el.tagName;
  return tag === 'INPUT' || tag === 'SELECT' || tag === 'TEXTAREA';
};

// textOf computes the name-from-content text of node (accname step 2F,
// simplified): hidden subtrees skipped, aria-label and alt honoured on
// descendants, embedded controls contribute their value, shadow content
// and slotted nodes followed. skip is the element being named (excluded
// when it sits inside its own label).
const textOf = (node, skip, out) => {
  if (out.n > MAX_TEXT) return;
  if (node.nodeType === 3) { out.s += node.data; out.n += node.data.length; return; }
  if (node.nodeType !== 1 && node.nodeType !== 11) return;
  const el = node;
  if (el.nodeType === 1) {
    if (el === skip || SKIP.has(el.tagName)) return;
    if (el.hidden || el.getAttribute('aria-hidden') === 'true') return;
    if (el.id === OVERLAY_ID) return;
    const block = BLOCK.has(el.tagName);
    if (block) out.s += ' ';
    const al = el.getAttribute('aria-label');
    if (al && al.trim()) { out.s += ' ' + al + ' '; out.n += al.length; return; }
    if (isEmbeddedControl(el)) {
      const t = (el.type || '').toLowerCase();
      if (el.tagName === 'INPUT' && (t === 'submit' || t === 'button' || t === 'reset')) out.s += ' ' + (el.value || (t === 'submit' ? 'Submit' : t === 'reset' ? 'Reset' : '')) + ' ';
      else out.s += ' ' + (controlValue(el) || '') + ' ';
      return;
    }
    if (el.tagName === 'IMG' || el.tagName === 'AREA') { out.s += ' ' + (el.getAttribute('alt') || '') + ' '; return; }
    if (el.tagName === 'SLOT') {
      const assigned = el.assignedNodes({ flatten: true });
      const kids = assigned.length ? assigned : el.childNodes;
      for (const k of kids) textOf(k, skip, out);
      return;
    }
    // display:none descendants do not contribute (cheap native check).
    // Inside a subtree that is itself not rendered (a closed dialog), only
    // a descendant's own display:none counts.
    if (el.checkVisibility && el.firstChild && !el.checkVisibility() && (!unrenderedRoot(out) || winOfEl(el).getComputedStyle(el).display === 'none')) return;
    const kids = el.shadowRoot ? el.shadowRoot.childNodes : el.childNodes;
    for (const k of kids) textOf(k, skip, out);
    if (block) out.s += ' ';
    return;
  }
  for (const k of node.childNodes) textOf(k, skip, out);
};
// contentText is the name-from-content of node itself: its own hidden
// state does not matter (a hidden button still has a name), only that of
// its descendants.
// unrenderedRoot says, once per name and only when a descendant turned out
// hidden, whether the named node itself is not rendered.
const unrenderedRoot = (out) => {
  if (out.unrendered === undefined) {
    const r = out.root;
    out.unrendered = !!r && r.nodeType === 1 && !!r.checkVisibility && !r.checkVisibility();
  }
  return out.unrendered;
};
const winOfEl = (el) => (el.ownerDocument && el.ownerDocument.defaultView) || window;
const contentText = (node, skip) => {
  const out = { s: '', n: 0, root: node };
  const kids = node.shadowRoot ? node.shadowRoot.childNodes : node.childNodes;
  for (const k of kids) textOf(k, skip, out);
  return norm(out.s);
};
mk.contentText = contentText;

const byIds = (el, attr) => {
  const v = el.getAttribute(attr);
  if (!v) return [];
  const root = el.getRootNode();
  const out = [];
  for (const id of v.trim().split(/\s+/)) {
    const ref = root.getElementById ? root.getElementById(id) : el.ownerDocument.getElementById(id);
    if (ref) out.push(ref);
  }
  return out;
};
mk.byIds = byIds;
const refText = (ref, skip) => {
  const al = ref.getAttribute('aria-label');
  if (al && al.trim()) return norm(al);
  // A referenced element contributes even when hidden; its own subtree
  // still follows the content rules.
  const out = { s: '', n: 0, root: ref };
  for (const k of (ref.shadowRoot || ref).childNodes) textOf(k, skip, out);
  if (isEmbeddedControl(ref)) return norm(controlValue(ref));
  return norm(out.s);
};

// labelsOf is el.labels, but within a scan it is answered from one pass
// over the root's <label>s: el.labels walks the whole tree per control,
// which dominates a scan of a form-heavy page.
const LABELABLE_TAGS = { INPUT: 1, SELECT: 1, TEXTAREA: 1, BUTTON: 1, METER: 1, OUTPUT: 1, PROGRESS: 1 };
const labelsOf = (el) => {
  if (!LABELABLE_TAGS[el.tagName]) return null;
  if (!scan) return el.labels;
  const root = el.getRootNode();
  let m = scan.labels.get(root);
  if (!m) {
    m = new Map();
    for (const l of root.querySelectorAll('label')) {
      const ctl = l.control;
      if (!ctl) continue;
      const list = m.get(ctl);
      if (list) list.push(l);
      else m.set(ctl, [l]);
    }
    scan.labels.set(root, m);
  }
  return m.get(el) || null;
};

// labelText is the name an element gets from aria-labelledby, aria-label
// or its <label>s: what a {label: ...} target matches.
const labelText = (el) => {
  const lb = byIds(el, 'aria-labelledby');
  if (lb.length) {
    const s = norm(lb.map((r) => refText(r, el)).join(' '));
    if (s) return s;
  }
  const al = el.getAttribute('aria-label');
  if (al && al.trim()) return norm(al);
  const labels = labelsOf(el);
  if (labels && labels.length) {
    const s = norm(Array.from(labels, (l) => contentText(l, el)).join(' '));
    if (s) return s;
  }
  return '';
};
mk.labelText = labelText;

const computeName = (el) => {
  const lt = labelText(el);
  if (lt) return lt;
  const tag = el.tagName;
  if (tag === 'INPUT') {
    const t = (el.type || '').toLowerCase();
    if (t === 'submit' || t === 'reset' || t === 'button') return norm(el.value) || (t === 'submit' ? 'Submit' : t === 'reset' ? 'Reset' : '') || norm(el.title);
    if (t === 'image') return norm(el.alt) || norm(el.value) || norm(el.title) || 'Submit';
    return norm(el.title) || norm(el.placeholder) || norm(el.getAttribute('aria-placeholder'));
  }
  if (tag === 'TEXTAREA') return norm(el.title) || norm(el.placeholder) || norm(el.getAttribute('aria-placeholder'));
  if (tag === 'IMG' || tag === 'AREA') {
    const alt = el.getAttribute('alt');
    if (alt && alt.trim()) return norm(alt);
    return norm(el.title);
  }
  if (tag === 'FIELDSET') {
    const lg = el.querySelector(':scope > legend');
    if (lg) { const s = contentText(lg); if (s) return s; }
  }
  if (tag === 'TABLE') {
    const cap = el.querySelector(':scope > caption');
    if (cap) { const s = contentText(cap); if (s) return s; }
  }
  if (tag === 'FIGURE') {
    const cap = el.querySelector(':scope > figcaption');
    if (cap) { const s = contentText(cap); if (s) return s; }
  }
  const role = mk.role(el);
  if (NAME_FROM_CONTENT.has(role) || tag === 'SUMMARY') {
    const s = contentText(el);
    if (s) return s;
  }
  return norm(el.getAttribute('title')) || norm(el.getAttribute('aria-placeholder'));
};
// mk.name(el) is the accessible name (a practical subset of accname 1.2):
// aria-labelledby, aria-label, <label>, alt, button value, content for
// roles named from content, title, then placeholder.
mk.name = (el) => {
  const c = scan;
  if (c) {
    const hit = c.name.get(el);
    if (hit !== undefined) return hit;
  }
  const n = computeName(el);
  if (c) c.name.set(el, n);
  return n;
};
