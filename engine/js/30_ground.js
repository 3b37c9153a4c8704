// Grounding: a Target resolves to exactly one element, or to a typed failure
// listing candidates; a fingerprint re-finds an element after a re-render.
{
  const norm = mk.norm;

  class GroundError extends Error {
    constructor(code, msg, candidates) {
      super(msg);
      this.code = code;
      this.candidates = candidates || [];
    }
  }

  // matcher turns a target string into predicates: "/re/flags" is a regular
  // expression; anything else is compared exactly after whitespace
  // normalisation (exact), with a case-insensitive substring fallback
  // (loose) for label, text and placeholder targets.
  const matcher = (s) => {
    s = s == null ? '' : String(s);
    if (s.length > 2 && s[0] === '/') {
      const i = s.lastIndexOf('/');
      const flags = s.slice(i + 1);
      if (i > 0 && /^[dimsuv]*$/.test(flags.replace(/[gy]/g, ''))) {
        let re;
        try {
          re = new RegExp(s.slice(1, i), flags.replace(/[gy]/g, ''));
        } catch (e) {
          throw new GroundError('invalid_step', 'bad regular expression ' + s + ': ' + e.message);
        }
        return { regex: true, src: s, exact: (v) => re.test(v), loose: null };
      }
    }
    const n = norm(s);
    const low = n.toLowerCase();
    return { regex: false, src: n, exact: (v) => v === n, loose: (v) => v.toLowerCase().includes(low) };
  };
  mk.matcher = matcher;

  const KINDS = ['role', 'label', 'text', 'placeholder', 'testid', 'css'];
  const kindOf = (t) => {
    if (!t || typeof t !== 'object') throw new GroundError('invalid_step', 'no target');
    const ks = KINDS.filter((k) => t[k] != null && t[k] !== '');
    if (!ks.length && t.name) ks.push('role'); // {name} alone: any role
    if (ks.length !== 1) throw new GroundError('invalid_step', ks.length ? 'target sets more than one locator: ' + ks.join(', ') : 'target sets no locator');
    if (t.name && ks[0] !== 'role') throw new GroundError('invalid_step', 'name refines role only');
    return ks[0];
  };

  const LABELABLE = { INPUT: 1, SELECT: 1, TEXTAREA: 1, BUTTON: 1, METER: 1, OUTPUT: 1, PROGRESS: 1 };
  const NO_TEXT = { HTML: 1, HEAD: 1, BODY: 1, SCRIPT: 1, STYLE: 1, TEMPLATE: 1, NOSCRIPT: 1, TITLE: 1, META: 1, LINK: 1 };
  const GENERIC = { '': 1, none: 1, presentation: 1, generic: 1 };

  const buttonValue = (el) => {
    if (el.tagName !== 'INPUT') return null;
    const t = (el.type || '').toLowerCase();
    if (t === 'submit' || t === 'button' || t === 'reset') return norm(el.value) || (t === 'submit' ? 'Submit' : t === 'reset' ? 'Reset' : '');
    return null;
  };
  // textFor is what a {text} target compares against: rendered-ish text
  // content, or the label of a value button.
  const textFor = (el) => {
    const bv = buttonValue(el);
    if (bv != null) return bv;
    return norm(el.textContent);
  };

  // collect lists the elements matching t's locator inside scope (the whole
  // page when null), in document order. loose reports the substring fallback.
  const collect = (t, scope) => {
    const kind = kindOf(t);
    const exact = [];
    const loose = [];
    switch (kind) {
      case 'role': {
        const want = String(t.role || '').toLowerCase();
        const m = t.name ? matcher(t.name) : null;
        mk.walk((el) => {
          const r = mk.role(el);
          if (want ? r !== want : GENERIC[r]) return;
          if (!m || m.exact(mk.name(el))) exact.push(el);
        }, scope);
        return { els: exact, loose: false, kind };
      }
      case 'label': {
        const m = matcher(t.label);
        mk.walk((el) => {
          if (!LABELABLE[el.tagName] && !el.hasAttribute('aria-label') && !el.hasAttribute('aria-labelledby')) return;
          if (el.tagName === 'INPUT' && el.type === 'hidden') return;
          const lt = mk.labelText(el);
          if (!lt) return;
          if (m.exact(lt)) exact.push(el);
          else if (m.loose && m.loose(lt)) loose.push(el);
        }, scope);
        break;
      }
      case 'text': {
        const m = matcher(t.text);
        const minLen = m.regex ? 0 : m.src.length;
        mk.walk((el) => {
          if (NO_TEXT[el.tagName] || el.id === mk.OVERLAY_ID) return;
          const raw = el.textContent;
          if (!m.regex && raw.length < minLen && buttonValue(el) == null) return;
          const tx = textFor(el);
          if (!tx) return;
          if (m.exact(tx)) exact.push(el);
          else if (m.loose && m.loose(tx)) loose.push(el);
        }, scope);
        // Keep the innermost: drop an element whose next match is inside it
        // (document order keeps a subtree contiguous).
        const inner = (list) => list.filter((el, i) => !(i + 1 < list.length && mk.contains(el, list[i + 1])));
        if (exact.length) return { els: inner(exact), loose: false, kind };
        return { els: inner(loose), loose: loose.length > 0, kind };
      }
      case 'placeholder': {
        const m = matcher(t.placeholder);
        mk.walk((el) => {
          const ph = el.getAttribute('placeholder') ?? el.getAttribute('aria-placeholder');
          if (ph == null) return;
          const v = norm(ph);
          if (m.exact(v)) exact.push(el);
          else if (m.loose && m.loose(v)) loose.push(el);
        }, scope);
        break;
      }
      case 'testid': {
        const want = String(t.testid);
        mk.walk((el) => {
          if (el.getAttribute('data-testid') === want) exact.push(el);
        }, scope);
        return { els: exact, loose: false, kind };
      }
      case 'css': {
        try {
          document.createDocumentFragment().querySelector(t.css);
        } catch (e) {
          throw new GroundError('invalid_step', 'bad css selector ' + JSON.stringify(t.css));
        }
        mk.walk((el) => {
          if (el.matches(t.css)) exact.push(el);
        }, scope);
        return { els: exact, loose: false, kind };
      }
    }
    if (exact.length) return { els: exact, loose: false, kind };
    return { els: loose, loose: loose.length > 0, kind };
  };

  // ---- similarity --------------------------------------------------------
  const bigrams = (s) => {
    const m = new Map();
    for (let i = 0; i < s.length - 1; i++) {
      const g = s.slice(i, i + 2);
      m.set(g, (m.get(g) || 0) + 1);
    }
    return m;
  };
  // sim is a Dice coefficient over character bigrams, case-insensitive, in [0,1].
  const sim = (a, b, floor) => {
    a = norm(a).toLowerCase();
    b = norm(b).toLowerCase();
    if (a === b) return 1;
    if (!a || !b) return 0;
    if (a.length < 2 || b.length < 2) return 0;
    // Dice can be at most 2*min/(sum) of the bigram counts: skip hopeless pairs.
    if (floor > 0 && (2 * Math.min(a.length, b.length) - 2) / (a.length + b.length - 2) < floor) return 0;
    const A = bigrams(a);
    const B = bigrams(b);
    let inter = 0;
    for (const [g, n] of A) inter += Math.min(n, B.get(g) || 0);
    return (2 * inter) / (a.length - 1 + b.length - 1);
  };
  mk.sim = sim;

  // ---- candidates ----------------------------------------------------------
  const MAX_CANDIDATES = 20;
  const cand = (el, extra) => Object.assign(mk.describe(el), { ref: mk.ref(el) }, extra || {});

  // nearMisses explains a not_found: same-role elements with other names,
  // similarly labelled / worded elements, or other test ids.
  const nearMisses = (t, kind, scope) => {
    const scored = [];
    const want = (s) => String(s || '');
    const push = (el, score) => scored.push({ el, score });
    switch (kind) {
      case 'role': {
        const role = String(t.role || '').toLowerCase();
        const target = want(t.name);
        const re = target.startsWith('/');
        mk.walk((el) => {
          const r = mk.role(el);
          if (role && r === role) push(el, t.name && !re ? 0.5 + sim(target, mk.name(el)) : 1);
          else if (target && !re && !GENERIC[r]) {
            const s = sim(target, mk.name(el), 0.5);
            if (s >= 0.5) push(el, s);
          }
        }, scope);
        break;
      }
      case 'label': case 'placeholder': case 'text': {
        const target = want(t[kind]);
        if (target.startsWith('/')) break;
        mk.walk((el) => {
          let v;
          if (kind === 'placeholder') v = el.getAttribute('placeholder');
          else if (kind === 'label') v = LABELABLE[el.tagName] || el.hasAttribute('aria-label') ? mk.labelText(el) : '';
          else v = GENERIC[mk.role(el)] ? '' : mk.name(el);
          if (!v) return;
          const s = sim(target, v, 0.4);
          if (s >= 0.4) push(el, s);
        }, scope);
        break;
      }
      case 'testid': {
        const target = want(t.testid);
        mk.walk((el) => {
          const v = el.getAttribute('data-testid');
          if (v == null) return;
          const s = sim(target, v);
          if (s >= 0.4) push(el, s);
        }, scope);
        break;
      }
    }
    scored.sort((a, b) => b.score - a.score);
    return scored.slice(0, MAX_CANDIDATES).map((x) => cand(x.el));
  };

  const whereText = (scope) => (scope ? ' inside ' + mk.selector(scope) : '');

  // pick applies the resolution rules:
  //  - nth/last index into the visible matches when any is visible, else
  //    into all matches;
  //  - otherwise exactly one match wins, or exactly one visible match among
  //    several ("prefer visible"); anything else is ambiguous / not_found.
  const pick = (t) => {
    let scope = null;
    if (t.within) {
      try {
        scope = pick(t.within).el;
      } catch (e) {
        if (e instanceof GroundError) throw new GroundError(e.code, 'within ' + JSON.stringify(t.within) + ': ' + e.message, e.candidates);
        throw e;
      }
    }
    const { els, loose, kind } = collect(t, scope);
    const vis = els.filter((el) => mk.visible(el));
    const pool = vis.length ? vis : els;
    if (t.nth != null || t.last) {
      if (t.nth != null && (!Number.isInteger(t.nth) || t.nth < 0)) throw new GroundError('invalid_step', 'nth must be a non-negative integer');
      if (!pool.length) throw new GroundError('not_found', 'no element matches' + whereText(scope), nearMisses(t, kind, scope));
      const i = t.last ? pool.length - 1 : t.nth;
      if (i >= pool.length) throw new GroundError('not_found', 'nth=' + i + ' but only ' + pool.length + (vis.length ? ' visible' : '') + ' element(s) match', pool.slice(0, MAX_CANDIDATES).map((el) => cand(el)));
      return { el: pool[i], how: t.last ? 'last' : 'nth', count: els.length, visible: vis.length, loose };
    }
    if (els.length === 1) return { el: els[0], how: loose ? 'substring' : 'unique', count: 1, visible: vis.length, loose };
    if (!els.length) throw new GroundError('not_found', 'no element matches' + whereText(scope), nearMisses(t, kind, scope));
    if (vis.length === 1) return { el: vis[0], how: 'visible', count: els.length, visible: 1, loose };
    const ordered = vis.length ? vis.concat(els.filter((el) => !vis.includes(el))) : els;
    throw new GroundError('ambiguous', els.length + ' elements match (' + vis.length + ' visible)' + (loose ? ' by substring' : ''), ordered.slice(0, MAX_CANDIDATES).map((el) => cand(el)));
  };

  const fail = (e) => {
    if (e instanceof GroundError) return { ok: false, code: e.code, msg: e.message, candidates: e.candidates };
    return { ok: false, code: 'browser', msg: String((e && e.stack) || e) };
  };

  // elementInfo is what Go turns into an *Element. The fingerprint costs a
  // walk (for twins), so JS callers that poll leave it out.
  const elementInfo = (el, noFingerprint) => Object.assign(mk.describe(el), { ref: mk.ref(el), box: mk.rect(el) }, noFingerprint ? {} : { fingerprint: fingerprint(el) });
  mk.elementInfo = elementInfo;
  // mk.elementInfoRef(ref) -> elementInfo, or {ref: 0} once detached.
  mk.elementInfoRef = (id) => {
    const el = mk.deref(id);
    return el ? mk.withScan(() => elementInfo(el)) : { ref: 0 };
  };

  // mk.match(target) -> Element[] in document order, within applied, nth
  // and last not applied. Throws on an invalid target.
  mk.match = (t) => mk.withScan(() => {
    let scope = null;
    if (t.within) scope = pick(t.within).el;
    return collect(t, scope).els;
  });

  // mk.resolve(target, opts?) -> {ok, ref, el, how, count, visible} or
  // {ok:false, code, msg, candidates}. el is describe() + box, plus the
  // fingerprint when opts.fingerprint (Go's Page.Resolve asks for it).
  mk.resolve = (t, opts) => mk.withScan(() => {
    try {
      const r = pick(t);
      return { ok: true, ref: mk.ref(r.el), el: elementInfo(r.el, !(opts && opts.fingerprint)), how: r.how, count: r.count, visible: r.visible };
    } catch (e) {
      return fail(e);
    }
  });

  // mk.count(target) -> {ok, count, visible} (every match, nth/last ignored).
  mk.count = (t) => mk.withScan(() => {
    try {
      let scope = null;
      if (t.within) scope = pick(t.within).el;
      const { els } = collect(t, scope);
      return { ok: true, count: els.length, visible: els.filter((el) => mk.visible(el)).length };
    } catch (e) {
      return fail(e);
    }
  });

  // mk.matches(target) -> {ok, candidates} listing every match described.
  mk.matches = (t) => mk.withScan(() => {
    try {
      let scope = null;
      if (t.within) scope = pick(t.within).el;
      return { ok: true, candidates: collect(t, scope).els.map((el) => cand(el)) };
    } catch (e) {
      return fail(e);
    }
  });

  // ---- fingerprints ------------------------------------------------------
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
}
