// The targets of checks: what a condition's target matches, through
// grounding.

// Grounding (32_resolve.js) decides what a target matches: mk.match lists
// every match (within applied, nth/last not; it throws a GroundError with
// a code), mk.resolve picks exactly one the way actions do. An invalid
// target is unverifiable; a within that does not resolve (yet) means no
// match, which may change while we wait.
const groundErr = (e) => {
  if (e && e.code === 'invalid_step') return new Unverifiable('invalid target: ' + e.message);
  if (e && (e.code === 'not_found' || e.code === 'ambiguous')) return null;
  return new Unverifiable('grounding failed: ' + (e && e.message || e));
};
const needGround = () => {
  if (typeof mk.match !== 'function' || typeof mk.resolve !== 'function') throw new Unverifiable('grounding is not available (mk.match / mk.resolve)');
};
// matchAll -> {els, why}: why explains an empty list caused by within.
const matchAll = (t) => {
  needGround();
  try {
    return { els: mk.match(t), why: '' };
  } catch (e) {
    const u = groundErr(e);
    if (u) throw u;
    return { els: [], why: e.message, candidates: e.candidates };
  }
};
const hasPick = (t) => (t.nth !== undefined && t.nth !== null) || !!t.last;
// one resolves a target to exactly one element the way actions do:
// {el, count} or {el: null, count, why, code, candidates}.
const one = (t) => {
  needGround();
  let r;
  try {
    r = mk.resolve(t);
  } catch (e) {
    throw new Unverifiable('grounding failed: ' + (e && e.message || e));
  }
  if (r && r.ok) {
    const el = mk.deref(r.ref);
    if (el) return { el, count: r.count };
    return { el: null, count: 0, why: 'element detached', code: 'not_found', candidates: [] };
  }
  if (r && r.code === 'invalid_step') throw new Unverifiable('invalid target: ' + r.msg);
  if (r && r.code && r.code !== 'not_found' && r.code !== 'ambiguous') throw new Unverifiable('grounding failed: ' + r.msg);
  const cands = (r && r.candidates) || [];
  const amb = r && r.code === 'ambiguous';
  return { el: null, count: (r && r.count) || (amb ? cands.length : 0), why: (amb ? 'ambiguous: ' : '') + ((r && r.msg) || 'not resolved'), code: r && r.code, candidates: cands };
};
// selection lists the elements a check looks at: the one nth/last picks
// (resolved like an action would), else every match.
const selection = (t) => {
  if (hasPick(t)) {
    const r = one(t);
    return r.el ? { els: [r.el], count: r.count } : { els: [], count: r.count, why: r.why, candidates: r.candidates };
  }
  const m = matchAll(t);
  return { els: m.els, count: m.els.length, why: m.why, candidates: m.candidates };
};
const candList = (cs) => (cs || []).slice(0, 10).map((c) => ({ role: c.role, name: c.name, tag: c.tag, selector: c.selector, frame: c.frame || undefined, visible: c.visible }));
const notFound = (res, expected, t) => ({
  status: FAIL,
  expected,
  actual: res.why || 'no element matches',
  evidence: { target: t, count: res.count || 0, error: res.why || 'no element matches' },
  more: () => (res.candidates && res.candidates.length ? { candidates: candList(res.candidates) } : null),
});
// nearMisses asks grounding why nothing matched (its candidates).
const nearMisses = (t) => {
  try {
    const r = mk.resolve(t);
    return r && !r.ok && r.candidates && r.candidates.length ? { candidates: candList(r.candidates), why: r.msg } : null;
  } catch (e) {
    return null;
  }
};
