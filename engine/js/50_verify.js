// Verification (50_verify.js to 56_wait.js): post-conditions evaluated
// against the live page, and the event-driven wait that re-evaluates them.
//
//   mk.check(cond, base)            one evaluation -> {status, expected, actual, evidence}
//   mk.waitChecks(conds, base, opt) Promise -> {results, replaced, total, doc}
//   mk.verifyCancel(token)          settle a pending waitChecks now
//   mk.verifyBaseline()             {url, title, doc}
//   mk.waitReady()                  Promise -> 'complete' | 'replaced'
//   mk.nextFrame()                  Promise resolved after the next frame
//
// This file holds what the checks share: the statuses, Unverifiable and
// small helpers.

const PASS = 'passed';
const FAIL = 'failed';
const UNVER = 'unverifiable';

const norm = (s) => (s == null ? '' : String(s)).replace(/[\s\u00a0\u200b]+/g, ' ').trim();
const clip = (s, n) => {
  s = s == null ? '' : String(s);
  return s.length > n ? s.slice(0, n) + '…' : s;
};
const isFrame = (el) => el.tagName === 'IFRAME' || el.tagName === 'FRAME';
const frameDoc = (el) => {
  try {
    const d = el.contentDocument;
    return d && d.documentElement ? d : null;
  } catch (e) {
    return null;
  }
};
const describe = (el) => {
  try {
    return mk.describe(el);
  } catch (e) {
    return { tag: el && el.localName, error: String(e && e.message || e) };
  }
};

// A check that cannot be evaluated throws Unverifiable.
class Unverifiable extends Error {}
const need = (cond, v, what) => {
  if (v === undefined || v === null || v === '') throw new Unverifiable(cond.kind + ' needs ' + what);
};
