// Resolving a target: exactly one element (mk.resolve), every match
// (mk.match), counts, and the candidates a failure lists.

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
  const { els, loose, kind, words } = collect(t, scope);
  const looseHow = words ? 'words' : 'substring';
  const vis = els.filter((el) => mk.visible(el));
  const pool = vis.length ? vis : els;
  if (t.nth != null || t.last) {
    if (t.nth != null && (!Number.isInteger(t.nth) || t.nth < 0)) throw new GroundError('invalid_step', 'nth must be a non-negative integer');
    if (!pool.length) throw new GroundError('not_found', 'no element matches' + whereText(scope), nearMisses(t, kind, scope));
    const i = t.last ? pool.length - 1 : t.nth;
    if (i >= pool.length) throw new GroundError('not_found', 'nth=' + i + ' but only ' + pool.length + (vis.length ? ' visible' : '') + ' element(s) match', pool.slice(0, MAX_CANDIDATES).map((el) => cand(el)));
    return { el: pool[i], how: t.last ? 'last' : 'nth', count: els.length, visible: vis.length, loose };
  }
  if (els.length === 1) return { el: els[0], how: loose ? looseHow : 'unique', count: 1, visible: vis.length, loose };
  if (!els.length) throw new GroundError('not_found', 'no element matches' + whereText(scope), nearMisses(t, kind, scope));
  if (vis.length === 1) return { el: vis[0], how: loose ? looseHow : 'visible', count: els.length, visible: 1, loose };
  const ordered = vis.length ? vis.concat(els.filter((el) => !vis.includes(el))) : els;
  throw new GroundError('ambiguous', els.length + ' elements match (' + vis.length + ' visible)' + (loose ? (words ? ' by name words (no exact name)' : ' by substring') : ''), ordered.slice(0, MAX_CANDIDATES).map((el) => cand(el)));
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
