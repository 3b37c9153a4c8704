// Perception primitives shared by every other agent file: traversal across
// open shadow roots and same-origin iframes, ARIA roles, accessible names,
// visibility, top-level geometry, hit testing, selectors and element refs.
//
// Everything here is read-only with respect to the page: it never writes to
// the DOM or to styles, so a scan causes at most one layout and no thrash.
{
  const OVERLAY_ID = '__mk_overlay';
  mk.OVERLAY_ID = OVERLAY_ID;

  // norm collapses runs of whitespace and trims: names and texts are compared
  // in this form.
  const norm = (s) => (s == null ? '' : String(s)).replace(/[\s\u00a0\u200b]+/g, ' ').trim();
  mk.norm = norm;

  // ---- scan cache -------------------------------------------------------
  // A scan (one snapshot, one resolve) caches per-root id/test-id/name counts,
  // sibling indices and iframe offsets. Outside a scan every helper builds a
  // throwaway cache, so results are never stale.
  let scan = null;
  const newScan = () => ({ seg: new Map(), roots: new Map(), nth: new Map(), frames: new Map(), clips: new Map(), labels: new Map(), sel: new Map(), role: new Map(), name: new Map(), vis: new Map() });
  mk.withScan = (fn) => {
    if (scan) return fn();
    scan = newScan();
    try { return fn(); } finally { scan = null; }
  };
  const cache = () => scan || newScan();

  // ---- traversal ---------------------------------------------------------
  const frameDoc = (el) => {
    try {
      const d = el.contentDocument;
      return d && d.documentElement ? d : null;
    } catch (e) {
      return null; // cross-origin
    }
  };
  mk.frameDoc = frameDoc;
  const isFrame = (el) => el.tagName === 'IFRAME' || el.tagName === 'FRAME';

  const joinFrame = (frame, iframe) => (frame ? frame + ' >> ' : '') + mk.selector(iframe);

  // walkRoot visits every element under root (a Document, ShadowRoot or
  // Element) in document order; a shadow root's content comes right after
  // its host, an iframe's document right after the iframe element.
  const walkRoot = (root, frame, visit, st) => {
    const all = root.querySelectorAll('*');
    for (let i = 0; i < all.length; i++) {
      const el = all[i];
      if (el.id === OVERLAY_ID) continue;
      if (visit(el, frame) === false) { st.stop = true; return; }
      const sr = el.shadowRoot;
      if (sr) {
        walkRoot(sr, frame, visit, st);
        if (st.stop) return;
      }
      if (isFrame(el)) {
        const d = frameDoc(el);
        if (d) {
          walkRoot(d, joinFrame(frame, el), visit, st);
          if (st.stop) return;
        }
      }
    }
  };

  // mk.walk(visit, scope?) calls visit(el, framePath) for every element of the
  // page (or every descendant of scope, composed: its shadow root and iframe
  // document included). visit returning false stops the walk.
  mk.walk = (visit, scope) => {
    const st = { stop: false };
    if (!scope) {
      walkRoot(document, '', visit, st);
      return;
    }
    const frame = mk.framePath(scope);
    if (scope.shadowRoot) {
      walkRoot(scope.shadowRoot, frame, visit, st);
      if (st.stop) return;
    }
    if (isFrame(scope)) {
      const d = frameDoc(scope);
      if (d) walkRoot(d, joinFrame(frame, scope), visit, st);
      return;
    }
    walkRoot(scope, frame, visit, st);
  };

  // mk.roots(scope?) lists the Documents and ShadowRoots to search with
  // querySelectorAll, each with its frame path, in document order.
  mk.roots = (scope) => {
    const out = [];
    const add = (root, frame) => {
      out.push({ root, frame });
      const hosts = [];
      walkRootShallow(root, frame, hosts);
      for (const h of hosts) add(h.root, h.frame);
    };
    // walkRootShallow finds shadow roots and frame documents directly under
    // root (not nested in another shadow root / frame).
    const walkRootShallow = (root, frame, hosts) => {
      const all = root.querySelectorAll('*');
      for (let i = 0; i < all.length; i++) {
        const el = all[i];
        if (el.shadowRoot) hosts.push({ root: el.shadowRoot, frame });
        if (isFrame(el)) {
          const d = frameDoc(el);
          if (d) hosts.push({ root: d, frame: joinFrame(frame, el) });
        }
      }
    };
    if (!scope) {
      add(document, '');
    } else {
      const frame = mk.framePath(scope);
      if (scope.shadowRoot) add(scope.shadowRoot, frame);
      if (isFrame(scope)) {
        const d = frameDoc(scope);
        if (d) add(d, joinFrame(frame, scope));
      } else {
        add(scope, frame);
      }
    }
    return out;
  };

  // composedParent steps out of shadow roots (to the host) and out of
  // iframes (to the frame element).
  const composedParent = (n) => {
    if (n.assignedSlot) return n.assignedSlot;
    const p = n.parentNode;
    if (!p) return null;
    if (p.nodeType === 11 && p.host) return p.host; // ShadowRoot
    if (p.nodeType === 9) { // Document
      try { return p.defaultView && p.defaultView.frameElement; } catch (e) { return null; }
    }
    return p;
  };
  mk.composedParent = composedParent;

  // mk.contains reports whether b is a (composed) descendant of a, or a itself.
  mk.contains = (a, b) => {
    for (let n = b; n; n = composedParent(n)) if (n === a) return true;
    return false;
  };

  // mk.framePath(el) is "" in the top document, else the selectors of the
  // enclosing iframes joined with " >> ", outermost first.
  mk.framePath = (el) => {
    const parts = [];
    let win = el.ownerDocument && el.ownerDocument.defaultView;
    while (win) {
      let fe = null;
      try { fe = win.frameElement; } catch (e) { fe = null; }
      if (!fe) break;
      parts.unshift(mk.selector(fe));
      win = fe.ownerDocument.defaultView;
    }
    return parts.join(' >> ');
  };

  // ---- selectors ---------------------------------------------------------
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

  // ---- roles -------------------------------------------------------------
  const INPUT_ROLE = {
    button: 'button', submit: 'button', reset: 'button', image: 'button', file: 'button', color: 'button',
    checkbox: 'checkbox', radio: 'radio', range: 'slider', number: 'spinbutton', search: 'searchbox',
  };
  const LISTABLE = { text: 1, search: 1, email: 1, tel: 1, url: 1, '': 1 };
  const SECTIONING = 'article,aside,main,nav,section,[role=article],[role=complementary],[role=main],[role=navigation],[role=region]';
  const IMPLICIT = {
    ARTICLE: 'article', ASIDE: 'complementary', BUTTON: 'button', DATALIST: 'listbox', DD: 'definition',
    DT: 'term', DETAILS: 'group', DIALOG: 'dialog', FIELDSET: 'group', FIGURE: 'figure', HR: 'separator',
    H1: 'heading', H2: 'heading', H3: 'heading', H4: 'heading', H5: 'heading', H6: 'heading',
    LI: 'listitem', MAIN: 'main', MENU: 'list', OL: 'list', UL: 'list', NAV: 'navigation', OPTGROUP: 'group',
    OPTION: 'option', OUTPUT: 'status', P: 'paragraph', PROGRESS: 'progressbar', METER: 'meter', SEARCH: 'search',
    TABLE: 'table', CAPTION: 'caption', TR: 'row', THEAD: 'rowgroup', TBODY: 'rowgroup', TFOOT: 'rowgroup',
    TEXTAREA: 'textbox', SUMMARY: 'button', MATH: 'math', BLOCKQUOTE: 'blockquote',
  };
  const labelledByAttr = (el) => el.hasAttribute('aria-label') || el.hasAttribute('aria-labelledby') || el.hasAttribute('title');
  const implicitRole = (el) => {
    const tag = el.tagName;
    const r = IMPLICIT[tag];
    if (r) return r;
    switch (tag) {
      case 'A': case 'AREA': return el.hasAttribute('href') ? 'link' : '';
      case 'INPUT': {
        const t = (el.getAttribute('type') || '').toLowerCase();
        if (t === 'hidden') return '';
        if (el.hasAttribute('list') && LISTABLE[t]) return 'combobox';
        return INPUT_ROLE[t] || 'textbox';
      }
      case 'SELECT': return el.multiple || el.size > 1 ? 'listbox' : 'combobox';
      case 'IMG': return el.getAttribute('alt') === '' && !el.hasAttribute('title') ? 'presentation' : 'img';
      case 'HEADER': return el.parentElement && el.parentElement.closest(SECTIONING) ? '' : 'banner';
      case 'FOOTER': return el.parentElement && el.parentElement.closest(SECTIONING) ? '' : 'contentinfo';
      case 'SECTION': return labelledByAttr(el) ? 'region' : '';
      case 'FORM': return labelledByAttr(el) ? 'form' : '';
      case 'TD': return el.closest('table,[role=grid],[role=treegrid]')?.getAttribute('role') === 'grid' ? 'gridcell' : 'cell';
      case 'TH': return el.getAttribute('scope') === 'row' ? 'rowheader' : 'columnheader';
      case 'SVG': case 'svg': return '';
    }
    if (el.hasAttribute('contenteditable') && el.isContentEditable && !(el.parentElement && el.parentElement.isContentEditable)) return 'textbox';
    return '';
  };
  // mk.role(el) is the explicit role (first token of role=) or the implicit
  // ARIA role; "" for generic elements.
  mk.role = (el) => {
    const c = scan;
    if (c) {
      const hit = c.role.get(el);
      if (hit !== undefined) return hit;
    }
    let r = '';
    const attr = el.getAttribute('role');
    if (attr) r = attr.trim().split(/\s+/)[0].toLowerCase();
    if (!r || ((r === 'none' || r === 'presentation') && focusable(el))) r = implicitRole(el);
    if (c) c.role.set(el, r);
    return r;
  };
  const focusable = (el) => el.tabIndex >= 0 && !el.disabled;
  mk.implicitRole = implicitRole;

  // ---- accessible names ---------------------------------------------------
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
      if (el.checkVisibility && el.firstChild && !el.checkVisibility()) return;
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
  const contentText = (node, skip) => {
    const out = { s: '', n: 0 };
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
    const out = { s: '', n: 0 };
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

  // ---- geometry & visibility ------------------------------------------
  // frameOffset is where a frame's viewport origin sits in the top-level
  // viewport (iframe border and padding included).
  const frameOffset = (doc) => {
    let x = 0;
    let y = 0;
    let win = doc.defaultView;
    const c = cache();
    const hit = c.frames.get(doc);
    if (hit) return hit;
    while (win) {
      let fe = null;
      try { fe = win.frameElement; } catch (e) { fe = null; }
      if (!fe) break;
      const r = fe.getBoundingClientRect();
      const cs = fe.ownerDocument.defaultView.getComputedStyle(fe);
      x += r.left + fe.clientLeft + (parseFloat(cs.paddingLeft) || 0);
      y += r.top + fe.clientTop + (parseFloat(cs.paddingTop) || 0);
      win = fe.ownerDocument.defaultView;
    }
    const o = { x, y };
    c.frames.set(doc, o);
    return o;
  };
  mk.frameOffset = frameOffset;

  // mk.rect(el) is el's border box in top-level viewport CSS pixels.
  mk.rect = (el) => {
    const r = el.getBoundingClientRect();
    const doc = el.ownerDocument;
    const o = doc === document ? { x: 0, y: 0 } : frameOffset(doc);
    return { x: r.left + o.x, y: r.top + o.y, width: r.width, height: r.height };
  };

  const frameVisible = (doc) => {
    if (doc === document) return true;
    let fe = null;
    try { fe = doc.defaultView.frameElement; } catch (e) { fe = null; }
    return !fe || mk.visible(fe);
  };
  // mk.visible(el) says whether a user could see el: connected, a non-empty
  // box, not display:none / visibility:hidden / opacity:0 (itself or an
  // ancestor), and its iframe chain visible too.
  mk.visible = (el) => {
    const c = scan;
    if (c) {
      const hit = c.vis.get(el);
      if (hit !== undefined) return hit;
    }
    let v = !!el.isConnected;
    if (v) {
      const r = el.getBoundingClientRect();
      v = r.width > 0 && r.height > 0;
    }
    if (v && el.checkVisibility) v = el.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true });
    if (v) v = frameVisible(el.ownerDocument);
    if (c) c.vis.set(el, v);
    return v;
  };
  mk.viewport = () => ({ width: window.innerWidth, height: window.innerHeight });

  // mk.elementAt(x, y) is the topmost element at a top-level viewport point,
  // drilled through open shadow roots and same-origin iframes.
  mk.elementAt = (x, y) => {
    let doc = document;
    let ox = 0;
    let oy = 0;
    let el = doc.elementFromPoint(x, y);
    for (let guard = 0; el && guard < 64; guard++) {
      if (el.shadowRoot) {
        const inner = el.shadowRoot.elementFromPoint(x - ox, y - oy);
        if (inner && inner !== el) { el = inner; continue; }
      }
      if (isFrame(el)) {
        const d = frameDoc(el);
        if (d) {
          const o = frameOffset(d);
          ox = o.x; oy = o.y;
          doc = d;
          const inner = d.elementFromPoint(x - ox, y - oy);
          if (inner) { el = inner; continue; }
        }
      }
      break;
    }
    return el;
  };

  // frameClip is the part of the top-level viewport through which a
  // document is seen: the viewport itself, or for an iframe document its
  // frame viewport intersected with every enclosing one.
  const frameClip = (doc) => {
    const m = cache().clips;
    let clip = m.get(doc);
    if (clip) return clip;
    if (doc === document) {
      clip = { x1: 0, y1: 0, x2: window.innerWidth, y2: window.innerHeight };
    } else {
      let fe = null;
      try { fe = doc.defaultView.frameElement; } catch (e) { fe = null; }
      const outer = fe ? frameClip(fe.ownerDocument) : { x1: 0, y1: 0, x2: window.innerWidth, y2: window.innerHeight };
      const o = frameOffset(doc);
      const w = doc.defaultView.innerWidth;
      const h = doc.defaultView.innerHeight;
      clip = { x1: Math.max(outer.x1, o.x), y1: Math.max(outer.y1, o.y), x2: Math.min(outer.x2, o.x + w), y2: Math.min(outer.y2, o.y + h) };
    }
    m.set(doc, clip);
    return clip;
  };
  mk.frameClip = frameClip;

  // hitPoint is the centre of the part of the box a user can see through
  // the viewport (and its iframes' viewports), or null when none is.
  const hitPoint = (b, clip) => {
    clip = clip || frameClip(document);
    const x1 = Math.max(b.x, clip.x1);
    const y1 = Math.max(b.y, clip.y1);
    const x2 = Math.min(b.x + b.width, clip.x2);
    const y2 = Math.min(b.y + b.height, clip.y2);
    if (x2 <= x1 || y2 <= y1) return null;
    return { x: (x1 + x2) / 2, y: (y1 + y2) / 2 };
  };
  mk.hitPoint = hitPoint;

  // receives says whether a hit at the element's point lands on el: on el
  // itself, a composed descendant, or a <label> whose control is el.
  const receives = (el, hit) => {
    if (!hit) return false;
    if (mk.contains(el, hit)) return true;
    const lab = hit.closest && hit.closest('label');
    if (lab && lab.control === el) return true;
    return false;
  };
  mk.receives = receives;

  // mk.hitTest(el, box?) -> {inViewport, occluded, x, y, hit}: an
  // elementFromPoint test at the centre of el's on-screen part. occluded
  // means something else is on top there; hit describes what.
  mk.hitTest = (el, box) => {
    const b = box || mk.rect(el);
    const pt = hitPoint(b, frameClip(el.ownerDocument));
    if (!pt) return { inViewport: false, occluded: false, x: b.x + b.width / 2, y: b.y + b.height / 2, hit: null };
    const at = mk.elementAt(pt.x, pt.y);
    const ok = receives(el, at);
    return { inViewport: true, occluded: !ok, x: pt.x, y: pt.y, hit: ok || !at ? null : { tag: at.localName, selector: mk.selector(at), role: mk.role(at) } };
  };

  // ---- refs --------------------------------------------------------------
  // Refs let Go name an element across evaluations. A ref holds the element
  // weakly; mk.deref returns null once the node is detached, which is how a
  // re-render is detected.
  const refs = new Map();
  const refOf = new WeakMap();
  let nextRef = 1;
  const sweep = () => {
    for (const [id, w] of refs) {
      const el = w.deref();
      if (!el || !el.isConnected) refs.delete(id);
    }
  };
  mk.ref = (el) => {
    let id = refOf.get(el);
    if (id && refs.has(id)) return id;
    id = nextRef++;
    refOf.set(el, id);
    refs.set(id, new WeakRef(el));
    if (refs.size > 20000 && refs.size % 1000 === 0) sweep();
    return id;
  };
  mk.deref = (id) => {
    const w = refs.get(id);
    const el = w && w.deref();
    if (!el) {
      refs.delete(id);
      return null;
    }
    return el.isConnected ? el : null;
  };

  // mk.describe(el) is the summary used in candidate lists and errors.
  mk.describe = (el) => mk.withScan(() => ({
    role: mk.role(el),
    name: mk.name(el),
    tag: el.localName,
    selector: mk.selector(el),
    frame: mk.framePath(el),
    visible: mk.visible(el),
  }));

  // mk.info(ref) re-reads a ref'd element: {connected:false} once detached.
  mk.info = (id) => {
    const el = mk.deref(id);
    if (!el) return { connected: false };
    return mk.withScan(() => Object.assign(mk.describe(el), { connected: true, ref: id, box: mk.rect(el) }));
  };
}
