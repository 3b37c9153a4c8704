// Fingerprints: what identifies an element (mk.fingerprint), and re-finding
// it after a re-render (mk.refind).

const FP_ATTRS = ['id', 'name', 'type', 'data-testid', 'aria-label', 'href', 'placeholder'];
// domPath is the structural path (tag + nth-of-type, no ids: generated
// ids change between renders), shadow boundaries marked "#shadow".
const domPath = (el) => {
  const parts = [];
  for (let cur = el; cur; ) {
    if (cur.nodeType !== 1) break;
    const p = cur.parentNode;
    const idx = p ? mk.nthOfType(cur)[0] : 1;
    parts.unshift(cur.localName + (idx > 1 ? '[' + idx + ']' : ''));
    if (p && p.nodeType === 11 && p.host) { parts.unshift('#shadow'); cur = p.host; continue; }
    cur = cur.parentElement;
  }
  return parts.join('/');
};
mk.domPath = domPath;
const pathSim = (a, b) => {
  if (a === b) return 1;
  const A = a.split('/');
  const B = b.split('/');
  const n = Math.max(A.length, B.length);
  let score = 0;
  let weight = 0;
  // Closer ancestors weigh more.
  for (let i = 0; i < n; i++) {
    const w = 1 / (1 + i * 0.5);
    weight += w;
    const x = A[A.length - 1 - i];
    const y = B[B.length - 1 - i];
    if (x === undefined || y === undefined) continue;
    if (x === y) score += w;
    else if (x.replace(/\[\d+\]$/, '') === y.replace(/\[\d+\]$/, '')) score += w * 0.5;
  }
  return score / weight;
};
// nearbyText is the text of the closest ancestor that says more than the
// element itself (its row, card or field group), capped.
const nearbyText = (el, own) => {
  let cur = el;
  for (let i = 0; i < 4; i++) {
    cur = mk.composedParent(cur);
    if (!cur || cur.nodeType !== 1 || cur.tagName === 'BODY' || cur.tagName === 'HTML') break;
    const tx = norm(cur.textContent);
    if (tx && tx !== own) return tx.slice(0, 160);
  }
  return '';
};
const fingerprint = (el) => {
  const name = mk.name(el);
  const attrs = {};
  for (const a of FP_ATTRS) {
    const v = el.getAttribute(a);
    if (v != null && v !== '') attrs[a] = v;
  }
  // twins: other elements of the same tag, role and name (rows' "Delete"
  // buttons). For those the surrounding text is part of the identity.
  const role = mk.role(el);
  let twins = 0;
  if (name) {
    mk.walk((o) => {
      if (o !== el && o.localName === el.localName && mk.role(o) === role && mk.name(o) === name) twins++;
    });
  }
  return {
    role,
    twins,
    name: name.slice(0, 200),
    tag: el.localName,
    attrs,
    path: domPath(el),
    text: nearbyText(el, norm(el.textContent)),
    frame: mk.framePath(el),
  };
};
// mk.fingerprint(refOrElement) -> Fingerprint, or null when detached.
mk.fingerprint = (x) => {
  const el = typeof x === 'number' ? mk.deref(x) : x;
  return el ? mk.withScan(() => fingerprint(el)) : null;
};

const ATTR_W = { 'data-testid': 3, id: 2, name: 2, 'aria-label': 2, placeholder: 1.5, href: 1.5, type: 0.5 };
const STRONG = { 'data-testid': 1, id: 1 };
// score is a weighted feature similarity in [0,1]. Identity features
// (name, test id, id, name attr, label, placeholder, href) weigh most. When
// the identity clearly differs -- another name, or for an element that had
// twins another surrounding text -- and no strong attribute (id, test id)
// agrees, the score is damped (x0.6), so a neighbour of the same shape is
// not taken for an element that is gone.
const score = (fp, el) => {
  let num = 0;
  let den = 0;
  const add = (w, s) => { num += w * s; den += w; };
  const name = mk.name(el);
  let nameSim = 1;
  if (fp.name) { nameSim = sim(fp.name, name); add(3, nameSim); }
  let strong = false;
  for (const a in fp.attrs || {}) {
    const want = fp.attrs[a];
    const got = el.getAttribute(a);
    const s = got === want ? 1 : got ? (a === 'type' ? 0 : sim(want, got) * 0.8) : 0;
    if (s === 1 && STRONG[a]) strong = true;
    add(ATTR_W[a] || 1, s);
  }
  if (fp.role) add(1.5, mk.role(el) === fp.role ? 1 : 0);
  add(0.5, el.localName === fp.tag ? 1 : 0);
  let textSim = 1;
  if (fp.text) { textSim = sim(fp.text, nearbyText(el, norm(el.textContent))); add(2, textSim); }
  if (fp.path) add(1.5, pathSim(fp.path, domPath(el)));
  add(0.5, mk.framePath(el) === (fp.frame || '') ? 1 : 0);
  let s = den ? num / den : 0;
  if (!strong && ((fp.name && nameSim < 0.5) || (fp.twins > 0 && fp.text && textSim < 0.75))) s *= 0.6;
  return Math.round(s * 1000) / 1000;
};

// mk.refind(fp, threshold, margin) -> {ok, ref, el, score} or
// {ok:false, code, msg, candidates(with score)}.
mk.refind = (fp, threshold, margin) => mk.withScan(() => {
  threshold = threshold || 0.6;
  margin = margin == null ? 0.02 : margin;
  const scored = [];
  mk.walk((el) => {
    if (el.localName !== fp.tag && !(fp.role && mk.role(el) === fp.role)) return;
    scored.push({ el, score: score(fp, el) });
  });
  scored.sort((a, b) => b.score - a.score);
  const list = scored.slice(0, 8).map((x) => cand(x.el, { score: x.score }));
  if (!scored.length || scored[0].score < threshold) {
    return { ok: false, code: 'not_found', msg: 'no element resembles the fingerprint (best score ' + (scored.length ? scored[0].score : 0) + ' < ' + threshold + ')', candidates: list };
  }
  if (scored.length > 1 && scored[0].score - scored[1].score < margin) {
    return { ok: false, code: 'ambiguous', msg: 'two elements resemble the fingerprint equally (' + scored[0].score + ' vs ' + scored[1].score + ')', candidates: list };
  }
  const el = scored[0].el;
  return { ok: true, ref: mk.ref(el), el: elementInfo(el), score: scored[0].score, candidates: list };
});
