// Masks for screenshots: where a page shows a secret. Read-only like the
// scan files: it draws nothing in the page (the engine paints the boxes on
// the captured image), so no listener, mutation observer, focus or scroll
// of the page ever notices a screenshot.
{
  // Elements whose text is never rendered.
  const SKIP = new Set(['SCRIPT', 'STYLE', 'TEMPLATE', 'NOSCRIPT', 'HEAD', 'TITLE']);

  const box = (r, o) => ({ x: r.left + o.x, y: r.top + o.y, width: r.width, height: r.height });
  const offsetOf = (doc) => (doc === document ? { x: 0, y: 0 } : mk.frameOffset(doc));
  const includesAny = (s, secrets) => {
    if (!s) return false;
    for (const v of secrets) if (s.includes(v)) return true;
    return false;
  };

  // textBoxes adds the boxes of the text under el that shows a secret: the
  // secret's own line boxes when one text node holds it, else (a secret
  // split across elements) the box of the smallest element holding it all.
  const textBoxes = (el, secret, out) => {
    if (SKIP.has(el.tagName)) return;
    let deeper = false;
    for (const c of el.children) {
      if (!SKIP.has(c.tagName) && (c.textContent || '').includes(secret)) {
        deeper = true;
        textBoxes(c, secret, out);
      }
    }
    const o = offsetOf(el.ownerDocument);
    let own = false;
    for (const n of el.childNodes) {
      if (n.nodeType !== 3) continue;
      const t = n.data;
      for (let i = t.indexOf(secret); i >= 0; i = t.indexOf(secret, i + secret.length)) {
        own = true;
        const r = el.ownerDocument.createRange();
        r.setStart(n, i);
        r.setEnd(n, i + secret.length);
        for (const cr of r.getClientRects()) out.push(box(cr, o));
      }
    }
    if (!own && !deeper) out.push(mk.rect(el));
  };

  // mk.maskBoxes(secrets) lists the boxes to cover, in top-level viewport
  // CSS pixels, with the viewport they were measured in: every password
  // input, every input/textarea/select whose value shows a secret, and
  // every text that contains one, across open shadow roots and same-origin
  // iframes.
  mk.maskBoxes = (secrets) => mk.withScan(() => {
    secrets = (secrets || []).filter((s) => typeof s === 'string' && s.length > 0);
    const out = [];
    mk.walk((el) => {
      const tag = el.tagName;
      if (tag === 'INPUT') {
        if ((el.type || '').toLowerCase() === 'password' || includesAny(el.value, secrets)) out.push(mk.rect(el));
      } else if (tag === 'TEXTAREA') {
        if (includesAny(el.value, secrets)) out.push(mk.rect(el));
      } else if (tag === 'SELECT') {
        let shown = el.value;
        for (const o of el.selectedOptions || []) shown += '\n' + o.label + '\n' + o.textContent;
        if (includesAny(shown, secrets)) out.push(mk.rect(el));
      }
    });
    if (secrets.length > 0) {
      for (const { root } of mk.roots()) {
        const tops = root.nodeType === 9 ? [root.documentElement] : Array.from(root.children);
        for (const top of tops) {
          if (!top) continue;
          const text = top.textContent || '';
          for (const s of secrets) if (text.includes(s)) textBoxes(top, s, out);
        }
      }
    }
    const vv = window.visualViewport;
    return {
      boxes: out.filter((b) => b.width > 0 && b.height > 0),
      width: window.innerWidth,
      height: window.innerHeight,
      offsetX: vv ? vv.offsetLeft : 0,
      offsetY: vv ? vv.offsetTop : 0,
      scale: vv ? vv.scale : 1,
    };
  });
}
