// The wait (mk.waitChecks) re-evaluates conditions until each settles;
// mk.verifyCancel, mk.verifyBaseline, mk.waitReady and mk.nextFrame serve it.
//
// A wait never polls: it re-evaluates on MutationObserver callbacks (every
// document, open shadow root and same-origin iframe), on input, change,
// focus, load, toggle and animation/transition-end events, on navigation
// entry changes, and once more on the animation frame after each batch. A
// per-check timer fires only at that check's deadline for the last
// evaluation. When the document is being replaced (pagehide) the promise
// resolves with what has settled so far and replaced: true, so Go can re-arm
// the rest on the new document.

// DOC identifies this document, so Go can tell a check that settled on
// the document that followed a navigation.
const DOC = performance.timeOrigin.toFixed(3) + '-' + Math.random().toString(36).slice(2, 8);
const waits = new Map();
const EVENTS = ['input', 'change', 'focusin', 'focusout', 'load', 'toggle', 'animationend', 'transitionend', 'animationcancel', 'transitioncancel'];
const WIN_EVENTS = ['hashchange', 'popstate'];

// mk.waitChecks(conds, base, {token}) resolves {results, replaced, total,
// doc} once every condition has settled: passed or unverifiable as soon as
// it is, or failed at its own deadline (cond.timeoutMs from now).
// results[i] is {status, expected, actual, evidence, ms} (ms: when it
// settled, since the wait began), or null when the document was replaced
// before condition i settled; total is the wait's own length in ms and doc
// the document's id.
mk.waitChecks = (conds, base, opt) => new Promise((resolve) => {
  const token = opt && opt.token;
  const t0 = performance.now();
  const n = conds.length;
  const out = new Array(n).fill(null);
  let left = n;
  let done = false;
  let timer = 0;
  let raf = 0;
  const observed = new Set();
  const offs = [];
  const on = (target, type, fn, capture) => {
    target.addEventListener(type, fn, capture);
    offs.push(() => target.removeEventListener(type, fn, capture));
  };
  const cleanup = () => {
    mo.disconnect();
    if (timer) clearTimeout(timer);
    if (raf) cancelAnimationFrame(raf);
    for (const f of offs) f();
    if (token) waits.delete(token);
  };
  const finish = (replaced) => {
    if (done) return;
    done = true;
    cleanup();
    resolve({ results: out, replaced: !!replaced, total: performance.now() - t0, doc: DOC });
  };
  const settle = (i, r, ms) => {
    const f = finalize(r);
    f.ms = ms;
    out[i] = f;
    left--;
  };
  const evaluate = () => {
    if (done) return;
    try {
      scanned(() => {
        const st = {};
        const now = performance.now() - t0;
        for (let i = 0; i < n; i++) {
          if (out[i]) continue;
          const r = evalOne(conds[i], base, st);
          if (r.status !== FAIL || now >= (conds[i].timeoutMs || 0) - 0.5) settle(i, r, now);
        }
        if (left > 0) observe(st);
      });
    } catch (e) {
      // Never leave the promise hanging: what cannot be evaluated is
      // unverifiable.
      const msg = 'verification failed in page: ' + (e && e.message || e);
      const now = performance.now() - t0;
      for (let i = 0; i < n; i++) {
        if (!out[i]) settle(i, { status: UNVER, expected: String(conds[i].kind), actual: msg, evidence: { error: msg } }, now);
      }
    }
    if (left === 0) {
      finish(false);
      return;
    }
    arm();
  };
  const frame = () => {
    if (!raf && !done) raf = requestAnimationFrame(() => { raf = 0; evaluate(); });
  };
  const kick = () => { evaluate(); frame(); };
  const mo = new MutationObserver(kick);
  const observe = (st) => {
    let roots;
    try {
      roots = rootsOf(st);
    } catch (e) {
      roots = [{ root: document }];
    }
    for (const { root } of roots) {
      if (observed.has(root)) continue;
      observed.add(root);
      mo.observe(root, { subtree: true, childList: true, attributes: true, characterData: true });
      for (const ev of EVENTS) on(root, ev, kick, true);
    }
    // Roots of documents that were replaced (iframe navigations) or of
    // detached shadow hosts stay in the set: observing them is harmless.
  };
  const arm = () => {
    let next = Infinity;
    for (let i = 0; i < n; i++) if (!out[i]) next = Math.min(next, conds[i].timeoutMs || 0);
    if (timer) clearTimeout(timer);
    timer = 0;
    if (next === Infinity) return;
    const wait = Math.max(0, next - (performance.now() - t0));
    timer = setTimeout(() => { timer = 0; evaluate(); }, wait);
  };
  if (token) waits.set(token, () => finish(false));
  for (const ev of WIN_EVENTS) on(window, ev, kick, false);
  on(window, 'pagehide', () => finish(true), false);
  if (window.navigation && window.navigation.addEventListener) on(window.navigation, 'currententrychange', kick, false);
  evaluate();
});

// mk.verifyCancel(token) settles a pending wait now (unsettled checks come
// back as null) and reports whether there was one.
mk.verifyCancel = (token) => {
  const f = waits.get(token);
  if (f) f();
  return !!f;
};

// mk.verifyBaseline() is what a Baseline records from the page itself.
mk.verifyBaseline = () => ({ url: location.href, title: document.title, doc: DOC });

// mk.waitReady() resolves 'complete' once document.readyState is
// complete, or 'replaced' if the document is unloaded first.
mk.waitReady = () => new Promise((resolve) => {
  if (document.readyState === 'complete') {
    resolve('complete');
    return;
  }
  const check = () => {
    if (document.readyState !== 'complete') return;
    off();
    resolve('complete');
  };
  const gone = () => {
    off();
    resolve('replaced');
  };
  const off = () => {
    document.removeEventListener('readystatechange', check);
    window.removeEventListener('load', check);
    window.removeEventListener('pagehide', gone);
  };
  document.addEventListener('readystatechange', check);
  window.addEventListener('load', check);
  window.addEventListener('pagehide', gone);
});

// mk.nextFrame() resolves after the next animation frame and the task
// after it (so promise callbacks queued by that frame have run). A hidden
// document gets no frames: then only the task hop is awaited.
mk.nextFrame = () => new Promise((resolve) => {
  const hop = () => {
    const ch = new MessageChannel();
    ch.port1.onmessage = () => resolve(document.readyState);
    ch.port2.postMessage(0);
  };
  if (document.hidden) hop();
  else requestAnimationFrame(hop);
});
