// Traversal: every element of the page in document order, across open
// shadow roots and same-origin iframes; composed parents and frame paths.

// OVERLAY_ID is the annotation overlay's host (mk.annotate); walks skip it.
const OVERLAY_ID = '__mk_overlay';
mk.OVERLAY_ID = OVERLAY_ID;

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

// mk.flatQueryAll(scope, sel) lists the elements matching sel under scope
// in the flat (rendered) tree of scope's own tree: scope's descendants plus
// the light-DOM elements its <slot>s show (and their descendants), e.g. a
// web component's listbox whose options are slotted by its host. Elements
// inside nested shadow roots are not included.
mk.flatQueryAll = (scope, sel) => {
  const out = [];
  const seen = new Set();
  const add = (e) => { if (!seen.has(e)) { seen.add(e); out.push(e); } };
  const visit = (root, depth) => {
    if (!root.querySelectorAll || depth > 8) return;
    for (const e of root.querySelectorAll(sel)) add(e);
    for (const slot of root.querySelectorAll('slot')) {
      for (const a of slot.assignedElements({ flatten: true })) {
        if (a.matches(sel)) add(a);
        visit(a, depth + 1);
      }
    }
  };
  if (scope.localName === 'slot') {
    for (const a of scope.assignedElements({ flatten: true })) {
      if (a.matches(sel)) add(a);
      visit(a, 1);
    }
  }
  visit(scope, 0);
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
