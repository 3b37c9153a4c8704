// Selectors: a stable CSS selector for an element (mk.selector) and its
// inverse (mk.query).

// Counts of ids, test ids and names per root, built once per scan.
const rootCounts = (root) => {
  const c = cache();
  let rc = c.roots.get(root);
  if (rc) return rc;
  rc = { id: new Map(), testid: new Map(), name: new Map(), tag: new Map() };
  const bump = (m, k) => m.set(k, (m.get(k) || 0) + 1);
  for (const e of root.querySelectorAll('*')) {
    bump(rc.tag, e.localName);
    if (!e.hasAttributes()) continue;
    if (e.id) bump(rc.id, e.id);
    const tid = e.getAttribute('data-testid');
    if (tid !== null) bump(rc.testid, tid);
    const nm = e.getAttribute('name');
    if (nm !== null) bump(rc.name, e.tagName + '\u0000' + nm);
  }
  c.roots.set(root, rc);
  return rc;
};
// nthOfType returns [index (1-based), count] among same-tag siblings.
const nthOfType = (el) => {
  const p = el.parentNode;
  if (!p) return [1, 1];
  const c = cache();
  let m = c.nth.get(p);
  if (!m) {
    // Small families (the usual case): count siblings directly, no
    // allocation. childElementCount would itself walk every child.
    let k = 0;
    for (let s = p.firstElementChild; s && k <= 16; s = s.nextElementSibling) k++;
    if (k <= 16) {
      const tag = el.tagName;
      let i = 1;
      for (let s = el.previousElementSibling; s; s = s.previousElementSibling) if (s.tagName === tag) i++;
      let n = i;
      for (let s = el.nextElementSibling; s; s = s.nextElementSibling) if (s.tagName === tag) n++;
      return [i, n];
    }
    m = new Map();
    const counts = new Map();
    for (const ch of p.children) {
      const k = ch.tagName;
      const n = (counts.get(k) || 0) + 1;
      counts.set(k, n);
      m.set(ch, n);
    }
    m.counts = counts;
    c.nth.set(p, m);
  }
  return [m.get(el) || 1, m.counts.get(el.tagName) || 1];
};
mk.nthOfType = nthOfType;
const attrSel = (name, v) => '[' + name + '="' + String(v).replace(/["\\]/g, '\\$&') + '"]';
const NAMED = { INPUT: 1, SELECT: 1, TEXTAREA: 1, BUTTON: 1, FORM: 1, IFRAME: 1 };
// ownSel is a selector that alone picks el in its tree, or null.
const ownSel = (el, rc) => {
  const tag = el.localName;
  const id = el.id;
  if (id && rc.id.get(id) === 1) return /^[A-Za-z][\w-]*$/.test(id) ? '#' + id : tag + attrSel('id', id);
  const tid = el.getAttribute('data-testid');
  if (tid != null && rc.testid.get(tid) === 1) return attrSel('data-testid', tid);
  const nm = NAMED[el.tagName] && el.getAttribute('name');
  if (nm && rc.name.get(el.tagName + '\u0000' + nm) === 1) return tag + attrSel('name', nm);
  if (rc.tag.get(tag) === 1) return tag;
  return null;
};
// segment is a selector unique within el's own tree (document or shadow
// root): el's own unique selector, else its parent's segment plus a
// child step. Memoised per scan, so a whole snapshot costs O(elements).
const segment = (el) => {
  const c = cache();
  let s = c.seg.get(el);
  if (s !== undefined) return s;
  s = ownSel(el, rootCounts(el.getRootNode()));
  if (!s) {
    const tag = el.localName;
    const parent = el.parentElement;
    if (!parent) s = tag;
    else {
      const [i, n] = nthOfType(el);
      s = segment(parent) + ' > ' + (n > 1 ? tag + ':nth-of-type(' + i + ')' : tag);
    }
  }
  c.seg.set(el, s);
  return s;
};
// mk.selector(el) is a stable CSS selector for el within its frame: one
// segment per tree, shadow-root boundaries written " >>> " (host first).
mk.selector = (el) => mk.withScan(() => {
  const c = cache();
  const hit = c.sel.get(el);
  if (hit) return hit;
  const segs = [];
  let cur = el;
  while (cur) {
    segs.unshift(segment(cur));
    const root = cur.getRootNode();
    cur = root.nodeType === 11 && root.host ? root.host : null;
  }
  const s = segs.join(' >>> ');
  c.sel.set(el, s);
  return s;
});
// mk.query(selector, frame?) is the inverse of mk.selector/mk.framePath:
// it returns the element or null.
mk.query = (selector, frame) => mk.withScan(() => {
  let doc = document;
  if (frame) {
    for (const f of frame.split(' >> ')) {
      const fe = queryIn(doc, f);
      doc = fe && isFrame(fe) ? frameDoc(fe) : null;
      if (!doc) return null;
    }
  }
  return queryIn(doc, selector);
});
// queryIn resolves a mk.selector string inside one document.
const queryIn = (doc, selector) => {
  let root = doc;
  let el = null;
  for (const seg of selector.split(' >>> ')) {
    if (!root) return null;
    el = null;
    let list;
    try { list = root.querySelectorAll(seg); } catch (e) { return null; }
    for (const cand of list) if (segment(cand) === seg) { el = cand; break; }
    if (!el) return null;
    root = el.shadowRoot;
  }
  return el;
};
