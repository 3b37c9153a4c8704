// Geometry and visibility: boxes in top-level viewport pixels, whether a
// user could see an element, and hit testing through shadow roots and
// iframes.

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

// slottedTextAt returns the text node directly under host (light DOM) whose
// rendered box holds the top-level point, or null. Hit testing retargets a
// hit on slotted text to its host (the text's parent), so a host "hit" may
// really be text rendered inside a slot deep in the host's shadow tree.
const slottedTextAt = (host, pt) => {
  const o = host.ownerDocument === document ? { x: 0, y: 0 } : frameOffset(host.ownerDocument);
  const x = pt.x - o.x;
  const y = pt.y - o.y;
  let range = null;
  for (let n = host.firstChild; n; n = n.nextSibling) {
    if (n.nodeType !== 3 || !n.assignedSlot || !n.data.trim()) continue;
    range = range || host.ownerDocument.createRange();
    range.selectNodeContents(n);
    for (const r of range.getClientRects()) {
      if (x >= r.left && x <= r.right && y >= r.top && y <= r.bottom) return n;
    }
  }
  return null;
};

// receives says whether a hit at the element's point lands on el: on el
// itself, a composed descendant, or a <label> whose control is el. A host,
// its shadow tree and its slotted content are one element here: when the
// hit is a shadow host enclosing el and pt (the top-level point tested) is
// on light-DOM text the host slots into el, the pointer lands on el.
const receives = (el, hit, pt) => {
  if (!hit) return false;
  if (mk.contains(el, hit)) return true;
  const lab = hit.closest && hit.closest('label');
  if (lab && lab.control === el) return true;
  if (pt && hit.shadowRoot && hit !== el && mk.contains(hit, el)) {
    const tx = slottedTextAt(hit, pt);
    if (tx && mk.contains(el, tx)) return true;
  }
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
  const ok = receives(el, at, pt);
  return { inViewport: true, occluded: !ok, x: pt.x, y: pt.y, hit: ok || !at ? null : { tag: at.localName, selector: mk.selector(at), role: mk.role(at) } };
};
