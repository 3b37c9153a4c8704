// Reaction tracking for the step runner: did the action have an effect a
// user or the server could see? Only such an effect stops a retry (it could
// be a first submit that worked); style and class churn, hidden nodes and
// screen-reader-only text are not effects. A request or navigation is
// judged in Go; here: visible text added or removed, visible elements
// added, a control's value or checked state, and ARIA state on a visible
// control. mk.reactionMark() takes the "before" picture (rendered text of
// each document, the controls' values) in the same evaluation that reads
// the mutation counter; mk.reactionSince(seq) compares against it.
{
  let raw = 0;
  let obs = null;
  const observed = new WeakSet();
  const opts = { subtree: true, childList: true, attributes: true, characterData: true };
  const ADDED = 1, TEXT = 2, REMOVED = 4, STATE = 8, ATTR = 16;
  const STATE_ATTRS = new Set(['aria-checked', 'aria-pressed', 'aria-selected', 'aria-expanded', 'aria-valuenow', 'value', 'checked', 'selected']);
  const CAP = 400;
  let touched = new Map();
  let overflow = false;
  let mark = null;
  let seq = 0;
  const ours = (n) => {
    for (; n; n = n.parentNode) if (n.id === mk.OVERLAY_ID) return true;
    return false;
  };
  const touch = (n, flag) => {
    if (!n) return;
    if (touched.size >= CAP && !touched.has(n)) { overflow = true; return; }
    touched.set(n, (touched.get(n) || 0) | flag);
  };
  const tally = (recs) => {
    for (const r of recs) {
      if (ours(r.target)) continue;
      raw++;
      if (r.type === 'childList') {
        for (const n of r.addedNodes) touch(n, n.nodeType === 3 ? TEXT : ADDED);
        if (r.removedNodes.length) touch(r.target, REMOVED);
      } else if (r.type === 'characterData') {
        touch(r.target, TEXT);
      } else {
        touch(r.target, STATE_ATTRS.has(r.attributeName) ? STATE : ATTR);
      }
    }
  };
  const cover = (roots) => {
    for (const { root } of roots) {
      if (observed.has(root)) continue;
      observed.add(root);
      try { obs.observe(root, opts); } catch (e) { /* detached root */ }
    }
  };
  const norm = (s) => (s || '').replace(/\s+/g, ' ').trim();
  const controlKey = (el) => {
    if (el.type === 'checkbox' || el.type === 'radio') return el.checked ? '1' : '0';
    if (el.type === 'file') return Array.from(el.files || []).map((f) => f.name).join('\n');
    if (el.tagName === 'SELECT') return el.multiple ? Array.from(el.selectedOptions || []).map((o) => o.index).join(',') : String(el.selectedIndex);
    return el.value;
  };
  const docText = (doc) => (doc.body ? doc.body.innerText : '');
  // srOnly: a box clipped to a pixel or less (the visually-hidden pattern
  // of live regions and screen-reader labels), itself or close above.
  const srOnly = (el) => {
    for (let e = el, i = 0; e && e.nodeType === 1 && i < 4; e = e.parentElement, i++) {
      const r = e.getBoundingClientRect();
      if (r.width <= 1 && r.height <= 1) {
        const cs = getComputedStyle(e);
        if (cs.overflow === 'hidden' || cs.clip !== 'auto' || (cs.clipPath && cs.clipPath !== 'none')) return true;
      }
    }
    return false;
  };
  // textIn: a text node under el holding probe, in a visible place.
  const textIn = (el, probe) => {
    const w = el.ownerDocument.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    for (let t = w.nextNode(), i = 0; t && i < 2000; t = w.nextNode(), i++) {
      if (t.data.toLowerCase().includes(probe) && seen(t.parentElement)) return true;
    }
    return false;
  };
  const elOf = (n) => (n && n.nodeType === 1 ? n : n && n.parentElement);
  // shown: not hidden by display, visibility or opacity (an empty box
  // still counts: a list whose last item went).
  const shown = (e) => (e.checkVisibility ? e.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true }) : true);
  const seen = (n) => { const e = elOf(n); return !!e && e.isConnected && mk.visible(e) && !srOnly(e); };
  const inShadow = (n) => !!n && n.isConnected && n.getRootNode() instanceof ShadowRoot;
  const label = (el) => {
    const d = mk.describe(el);
    return (d.role ? d.role + ' ' : '') + '<' + d.tag + '>' + (d.name ? ' "' + d.name.slice(0, 40) + '"' : '');
  };
  const snip = (s) => JSON.stringify(s.length > 60 ? s.slice(0, 57) + '...' : s);

  // mk.reactionMark() -> {count (mutation records seen), doc (document id),
  // seq}: installs the observer on first call and takes the picture that
  // mk.reactionSince(seq) compares against.
  mk.reactionMark = () => {
    const roots = mk.roots();
    if (!obs) obs = new MutationObserver(tally);
    else tally(obs.takeRecords());
    cover(roots);
    touched = new Map();
    overflow = false;
    const docs = [], controls = [];
    for (const { root } of roots) {
      if (root.nodeType === 9) docs.push({ doc: root, text: docText(root) });
      for (const el of root.querySelectorAll('input,select,textarea')) {
        if (el.type !== 'hidden') controls.push([el, controlKey(el)]);
      }
    }
    mark = { seq: ++seq, docs, controls, raw };
    return { count: raw, doc: document.__mkDocID || (document.__mkDocID = Math.random().toString(36).slice(2)), seq };
  };

  // mk.reactionSince(seq) -> {ok, doc, count, effects}: the effects seen
  // since mark seq, described (values are never quoted). ok is false when
  // another mark replaced seq's picture.
  mk.reactionSince = (s) => {
    const doc = document.__mkDocID || (document.__mkDocID = Math.random().toString(36).slice(2));
    if (!obs || !mark || mark.seq !== s) return { ok: false, doc, count: raw, effects: [] };
    tally(obs.takeRecords());
    const effects = [];
    const add = (e) => { if (effects.length < 3) effects.push(e); };
    for (const [el, v] of mark.controls) {
      if (el.isConnected && controlKey(el) !== v) add((el.type === 'checkbox' || el.type === 'radio' ? 'checked state' : 'value') + ' of ' + label(el) + ' changed');
    }
    const nodes = Array.from(touched.entries());
    for (const { doc: d, text } of mark.docs) {
      if (!d.defaultView) continue;
      const a = norm(text), b = norm(docText(d));
      if (a === b) continue;
      let p = 0;
      while (p < a.length && p < b.length && a[p] === b[p]) p++;
      let q = 0;
      while (q < a.length - p && q < b.length - p && a[a.length - 1 - q] === b[b.length - 1 - q]) q++;
      // Whole words: the changed part widened to the spaces around it.
      const edge = (x, i) => i === 0 || i === x.length || x[i - 1] === ' ' || x[i] === ' ';
      while (p > 0 && !(edge(a, p) && edge(b, p))) p--;
      while (q > 0 && !(edge(a, a.length - q) && edge(b, b.length - q))) q--;
      const removed = a.slice(p, a.length - q).trim(), added = b.slice(p, b.length - q).trim();
      if (added) {
        // Seen if a text node holding its first word sits in a visible,
        // not screen-reader-only element, among the nodes that changed.
        // (Case-blind: innerText applies text-transform.)
        const probe = added.split(' ')[0].slice(0, 24).toLowerCase();
        const hit = overflow || nodes.some(([n, f]) => {
          if (!n.isConnected || (n.ownerDocument || n) !== d) return false;
          if (n.nodeType === 3) return (f & TEXT) && n.data.toLowerCase().includes(probe) && seen(n.parentElement);
          return (f & (ADDED | ATTR | STATE)) && n.nodeType === 1 && textIn(n, probe);
        });
        if (hit) add('visible text added: ' + snip(added));
      }
      if (removed) {
        // The text was rendered before. It was seen if it went from a
        // visible place, or with an element whose attributes hid it.
        const probe = removed.split(' ')[0].slice(0, 24).toLowerCase();
        const hit = overflow || nodes.some(([n, f]) => {
          const e = elOf(n);
          if (!e || e.ownerDocument !== d || !e.isConnected) return false;
          if (f & (TEXT | REMOVED | ADDED)) return shown(e) && !srOnly(e);
          return (f & ATTR) && e.textContent.toLowerCase().includes(probe);
        });
        if (hit) add('visible text removed: ' + snip(removed));
      }
    }
    for (const [n, f] of nodes) {
      if (effects.length >= 3) break;
      const e = elOf(n);
      if (!e || !e.isConnected) continue;
      if ((f & STATE) && (seen(e) || (e.parentElement && seen(e.parentElement)))) {
        add('state of ' + label(e) + ' changed');
      } else if ((f & ADDED) && n.nodeType === 1 && seen(e)) {
        const media = /^(IMG|SVG|CANVAS|VIDEO|PICTURE|IFRAME)$/i.test(e.tagName) || e.querySelector('img,svg,canvas,video');
        const text = norm(e.textContent) !== '';
        if (inShadow(e) || media || (!text && getComputedStyle(e).pointerEvents !== 'none')) add('visible ' + label(e) + ' added');
      } else if ((f & (TEXT | REMOVED)) && inShadow(e) && seen(e)) {
        add('visible content of ' + label(e) + ' changed');
      }
    }
    return { ok: true, doc, count: raw - mark.raw, effects };
  };
}

// mk.dismissOverlay(selector, ref, mode) deals with the element that
// covered the step's target (selector: mk.selector syntax, " >>> " for
// shadow roots, resolved with mk.query, never querySelector; ref: the
// target). With mode "escape" it only answers whether pressing Escape is
// safe; otherwise it clicks the close control of the occluder (or of its
// enclosing dialog): a button or link whose accessible name is a plain
// close/dismiss word, never one that would confirm (OK, Accept, Yes,
// Delete...). Neither ever happens to the dialog the target is inside (the
// user's input would be lost), nor when the "occluder" is the target's own
// host, shadow tree or slotted content (a false hit, not an overlay).
{
  const CLOSE = /^(close|dismiss|×|✕|✖|x|no thanks|not now|skip|maybe later|close dialog|close banner)$/i;
  const DIALOG = '[role=dialog],[role=alertdialog],dialog,[aria-modal=true]';
  // dialogOf is the nearest composed ancestor (or el) that is a dialog.
  const dialogOf = (el) => {
    for (let n = el; n; n = mk.composedParent(n)) if (n.nodeType === 1 && n.matches(DIALOG)) return n;
    return null;
  };
  mk.dismissOverlay = (sel, ref, mode) => {
    const target = ref ? mk.deref(ref) : null;
    const occ = sel ? mk.query(sel, '') : null;
    if (target && occ && (mk.contains(occ, target) || mk.contains(target, occ))) return false;
    const own = target && dialogOf(target);
    if (mode === 'escape') return !own;
    if (!occ) return false;
    const dlg = dialogOf(occ) || occ;
    if (target && mk.contains(dlg, target)) return false;
    for (const { root } of mk.roots(dlg)) {
      for (const b of root.querySelectorAll('button,[role=button],a[href],input[type=button]')) {
        if (!mk.contains(dlg, b) || (own && mk.contains(own, b))) continue;
        if (CLOSE.test(mk.name(b)) && mk.visible(b)) {
          b.click();
          return true;
        }
      }
    }
    return false;
  };
}
