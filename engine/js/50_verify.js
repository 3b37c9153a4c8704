// Verification: post-conditions evaluated against the live page, and the
// event-driven wait that re-evaluates them.
//
//   mk.check(cond, base)            one evaluation -> {status, expected, actual, evidence}
//   mk.waitChecks(conds, base, opt) Promise -> {results, replaced, total, doc}
//   mk.verifyCancel(token)          settle a pending waitChecks now
//   mk.verifyBaseline()             {url, title, doc}
//   mk.waitReady()                  Promise -> 'complete' | 'replaced'
//   mk.nextFrame()                  Promise resolved after the next frame
//
// A wait never polls: it re-evaluates on MutationObserver callbacks (every
// document, open shadow root and same-origin iframe), on input, change,
// focus, load, toggle and animation/transition-end events, on navigation
// entry changes, and once more on the animation frame after each batch. A
// per-check timer fires only at that check's deadline for the last
// evaluation. When the document is being replaced (pagehide) the promise
// resolves with what has settled so far and replaced: true, so Go can re-arm
// the rest on the new document.
{
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

  // ---- patterns -----------------------------------------------------------
  // A text is a substring (whitespace-normalised, case-sensitive) or a
  // /regex/flags literal tested against the normalised text.
  const REGEX_LIT = /^\/(.+)\/([dgimsuvy]*)$/s;
  const regex = (src, flags) => {
    try {
      return new RegExp(src, (flags || '').replace(/[gy]/g, ''));
    } catch (e) {
      throw new Unverifiable('invalid regular expression ' + JSON.stringify(src) + ': ' + e.message);
    }
  };
  const textMatcher = (s) => {
    const m = REGEX_LIT.exec(s);
    if (m) {
      const re = regex(m[1], m[2]);
      return {
        desc: s,
        regex: true,
        find: (t) => {
          const r = re.exec(t);
          return r ? { index: r.index, len: r[0].length } : null;
        },
      };
    }
    const needle = norm(s);
    if (!needle) throw new Unverifiable('empty text');
    return {
      desc: JSON.stringify(needle),
      regex: false,
      needle,
      find: (t) => {
        const i = t.indexOf(needle);
        return i >= 0 ? { index: i, len: needle.length } : null;
      },
    };
  };
  const snippet = (t, hit) => {
    const a = Math.max(0, hit.index - 40);
    const b = Math.min(t.length, hit.index + hit.len + 40);
    return (a > 0 ? '…' : '') + t.slice(a, b) + (b < t.length ? '…' : '');
  };

  // ---- rendered text --------------------------------------------------------
  // The rendered text of a subtree in composed (flat-tree) order: innerText
  // wherever the subtree holds no shadow root or iframe (fast, native,
  // visibility-aware), and a manual descent along the paths that lead to
  // shadow hosts, slots and same-origin iframes, which innerText skips.
  const frameElementOf = (doc) => {
    try {
      return doc.defaultView && doc.defaultView.frameElement;
    } catch (e) {
      return null;
    }
  };
  const composedParent = (n) => (mk.composedParent ? mk.composedParent(n) : n.parentNode);
  const allRoots = () => (mk.roots ? mk.roots() : [{ root: document, frame: '' }]);
  const specialPaths = (roots) => {
    const set = new Set();
    const up = (n) => {
      for (; n && n.nodeType === 1 && !set.has(n); n = composedParent(n)) set.add(n);
    };
    for (const { root } of roots) {
      if (root.nodeType === 11) {
        up(root.host);
        for (const s of root.querySelectorAll('slot')) up(s);
      } else if (root !== document) {
        up(frameElementOf(root));
      }
    }
    return set;
  };
  const rendered = (el) => !el.checkVisibility || el.checkVisibility();
  const styleVisible = (el) => {
    try {
      return getComputedStyle(el).visibility !== 'hidden';
    } catch (e) {
      return true;
    }
  };
  const SKIP = { SCRIPT: 1, STYLE: 1, NOSCRIPT: 1, TEMPLATE: 1, HEAD: 1, TITLE: 1 };
  const collect = (node, parent, special, out) => {
    if (node.nodeType === 3) {
      if (parent && styleVisible(parent)) out.push(node.data);
      return;
    }
    if (node.nodeType !== 1 || SKIP[node.tagName]) return;
    const el = node;
    if (!rendered(el)) return;
    if (!special.has(el)) {
      const t = el.innerText;
      out.push(t === undefined ? el.textContent : t);
      return;
    }
    if (isFrame(el)) {
      const d = frameDoc(el);
      if (d) collect(d.body || d.documentElement, null, special, out);
      return;
    }
    let kids;
    if (el.tagName === 'SLOT') {
      const a = el.assignedNodes({ flatten: true });
      kids = a.length ? a : el.childNodes;
    } else {
      kids = el.shadowRoot ? el.shadowRoot.childNodes : el.childNodes;
    }
    out.push('\n');
    for (const k of kids) collect(k, el, special, out);
    out.push('\n');
  };
  // textOf(el, st) -> {raw, norm}; st caches the special-path set per pass.
  const rootsOf = (st) => st.roots || (st.roots = allRoots());
  const textOf = (el, st) => {
    if (!st.special) st.special = specialPaths(rootsOf(st));
    const out = [];
    collect(el, null, st.special, out);
    const raw = out.join('\n');
    return { raw, norm: norm(raw) };
  };
  const pageRoot = () => document.body || document.documentElement;
  const composedChildren = (el) => {
    if (isFrame(el)) {
      const d = frameDoc(el);
      return d ? [d.body || d.documentElement] : [];
    }
    if (el.tagName === 'SLOT') {
      const a = el.assignedElements({ flatten: true });
      return a.length ? a : Array.from(el.children);
    }
    return Array.from((el.shadowRoot || el).children);
  };
  // locate descends to the deepest element whose rendered text matches.
  const locate = (el, m, st) => {
    for (let depth = 0; depth < 256; depth++) {
      let next = null;
      for (const k of composedChildren(el)) {
        if (SKIP[k.tagName]) continue;
        if (m.find(textOf(k, st).norm)) {
          next = k;
          break;
        }
      }
      if (!next) break;
      el = next;
    }
    return el;
  };

  // nearest lists the page lines most similar to a wanted substring
  // (bigram Dice coefficient over windows of the wanted length), so a failed
  // text_present shows what the page said instead.
  const bigrams = (s) => {
    const m = new Map();
    for (let i = 0; i < s.length - 1; i++) {
      const b = s.substr(i, 2);
      m.set(b, (m.get(b) || 0) + 1);
    }
    return m;
  };
  const dice = (a, bm, bn) => {
    const am = bigrams(a);
    let inter = 0;
    for (const [k, v] of am) inter += Math.min(v, bm.get(k) || 0);
    const an = Math.max(a.length - 1, 0);
    return an + bn === 0 ? 0 : (2 * inter) / (an + bn);
  };
  const nearest = (raw, needle) => {
    const want = needle.toLowerCase();
    const wm = bigrams(want);
    const wn = Math.max(want.length - 1, 0);
    const seen = new Set();
    const scored = [];
    let budget = 200000; // characters compared, bounds the cost on huge pages
    for (const line0 of raw.split('\n')) {
      const line = norm(line0);
      if (!line || seen.has(line)) continue;
      seen.add(line);
      const low = line.toLowerCase();
      let score;
      if (low.includes(want)) {
        score = 1;
      } else if (low.length <= want.length * 2) {
        score = dice(low, wm, wn);
        budget -= low.length;
      } else {
        score = 0;
        const step = Math.max(1, Math.floor(want.length / 2));
        for (let i = 0; i < low.length && budget > 0; i += step) {
          score = Math.max(score, dice(low.substr(i, want.length + 2), wm, wn));
          budget -= want.length;
        }
      }
      if (score >= 0.3) scored.push({ text: clip(line, 160), score: Math.round(score * 100) / 100 });
      if (budget <= 0 || seen.size > 5000) break;
    }
    scored.sort((x, y) => y.score - x.score);
    return scored.slice(0, 3);
  };

  // ---- targets ------------------------------------------------------------
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

  // ---- element values and states ----------------------------------------------
  const isPassword = (el) => el.tagName === 'INPUT' && el.type === 'password';
  const masked = (el, v) => (isPassword(el) ? '[password: ' + v.length + ' chars]' : v);
  const valueOf = (el) => {
    if (el.tagName === 'SELECT') {
      const sel = Array.from(el.selectedOptions || []);
      return { value: sel.map((o) => o.value).join(', '), label: sel.map((o) => norm(o.label || o.text)).join(', ') };
    }
    if (el.isContentEditable && !('value' in el && typeof el.value === 'string')) {
      return { value: norm(el.innerText) };
    }
    if (typeof el.value === 'string' && (el.tagName === 'INPUT' || el.tagName === 'TEXTAREA' || el.tagName === 'OUTPUT' || el.tagName === 'BUTTON' || el.tagName === 'OPTION' || el.tagName === 'DATA' || el.tagName === 'LI' || el.tagName === 'METER' || el.tagName === 'PROGRESS')) {
      return { value: el.value };
    }
    const vt = el.getAttribute('aria-valuetext') || el.getAttribute('aria-valuenow');
    if (vt !== null) return { value: vt };
    if (typeof el.value === 'string') return { value: el.value };
    return { value: norm(el.textContent) };
  };
  const deepActive = () => {
    const chain = [];
    let a = document.activeElement;
    for (let guard = 0; a && guard < 32; guard++) {
      chain.push(a);
      if (a.shadowRoot && a.shadowRoot.activeElement) {
        a = a.shadowRoot.activeElement;
      } else if (isFrame(a)) {
        const d = frameDoc(a);
        a = d && d.activeElement && d.activeElement !== d.body ? d.activeElement : null;
      } else {
        a = null;
      }
    }
    return chain;
  };
  const SELECTABLE_ROLES = { tab: 1, option: 1, row: 1, gridcell: 1, treeitem: 1, columnheader: 1, rowheader: 1 };
  const roleOf = (el) => {
    try {
      return mk.role ? mk.role(el) : el.getAttribute('role') || '';
    } catch (e) {
      return el.getAttribute('role') || '';
    }
  };
  // stateOf returns {value: bool, detail} or throws Unverifiable when el has
  // no such state at all (unchecked on a <div> proves nothing).
  const STATES = {
    checked: (el) => {
      const t = el.tagName === 'LABEL' && el.control ? el.control : el;
      if (t.tagName === 'INPUT' && (t.type === 'checkbox' || t.type === 'radio')) {
        return { value: t.checked && !t.indeterminate, detail: t.indeterminate ? 'indeterminate' : t.checked ? 'checked' : 'unchecked' };
      }
      const a = t.getAttribute('aria-checked') ?? t.getAttribute('aria-pressed');
      if (a !== null) return { value: a === 'true', detail: 'aria-checked=' + a };
      throw new Unverifiable('element has no checked state');
    },
    disabled: (el) => {
      let d = false;
      try {
        d = el.matches(':disabled');
      } catch (e) {
        d = false;
      }
      if (d) return { value: true, detail: 'disabled' };
      const ad = el.closest('[aria-disabled]');
      if (ad && ad.getAttribute('aria-disabled') === 'true') return { value: true, detail: 'aria-disabled=true' };
      return { value: false, detail: 'enabled' };
    },
    expanded: (el) => {
      const a = el.getAttribute('aria-expanded');
      if (a !== null) return { value: a === 'true', detail: 'aria-expanded=' + a };
      const det = el.tagName === 'DETAILS' ? el : el.tagName === 'SUMMARY' ? el.parentElement : null;
      if (det && det.tagName === 'DETAILS') return { value: det.open, detail: det.open ? 'details open' : 'details closed' };
      if (el.tagName === 'DIALOG') return { value: el.open, detail: el.open ? 'dialog open' : 'dialog closed' };
      throw new Unverifiable('element has no expanded state (no aria-expanded, not <details>)');
    },
    selected: (el) => {
      if (el.tagName === 'OPTION') return { value: el.selected, detail: el.selected ? 'selected' : 'not selected' };
      const a = el.getAttribute('aria-selected');
      if (a !== null) return { value: a === 'true', detail: 'aria-selected=' + a };
      if (SELECTABLE_ROLES[roleOf(el)]) return { value: false, detail: 'no aria-selected' };
      throw new Unverifiable('element has no selected state');
    },
    visible: (el) => {
      const v = mk.visible ? mk.visible(el) : rendered(el);
      return { value: v, detail: v ? 'visible' : 'hidden' };
    },
    focused: (el) => {
      const chain = deepActive();
      const f = chain.includes(el);
      const a = chain[chain.length - 1];
      return { value: f, detail: f ? 'focused' : 'focus is on ' + (a ? describe(a).selector || a.localName : 'nothing') };
    },
  };
  const STATE_OF = {
    checked: ['checked', true], unchecked: ['checked', false],
    disabled: ['disabled', true], enabled: ['disabled', false],
    expanded: ['expanded', true], collapsed: ['expanded', false],
    selected: ['selected', true],
    visible: ['visible', true], hidden: ['visible', false],
    focused: ['focused', true],
  };

  // ---- the checks -------------------------------------------------------------
  const pass = (expected, actual, evidence, more) => ({ status: PASS, expected, actual, evidence, more });
  const fail = (expected, actual, evidence, more) => ({ status: FAIL, expected, actual, evidence, more });
  const tdesc = (c) => c.targetDesc || JSON.stringify(c.target);

  const CHECKS = {
    url_matches: (c, base) => {
      need(c, c.pattern, 'a pattern');
      const re = regex(c.pattern);
      const u = location.href;
      const exp = 'url matches ' + JSON.stringify(c.pattern);
      const ev = { url: u, before: base && base.url };
      return re.test(u) ? pass(exp, u, ev) : fail(exp, u, ev);
    },
    title_matches: (c, base) => {
      need(c, c.pattern, 'a pattern');
      const re = regex(c.pattern);
      const t = document.title;
      const exp = 'title matches ' + JSON.stringify(c.pattern);
      const ev = { title: t, before: base && base.title };
      return re.test(t) ? pass(exp, t, ev) : fail(exp, t, ev);
    },
    text_present: (c, base, st) => textCheck(c, st, true),
    text_absent: (c, base, st) => textCheck(c, st, false),
    element_exists: (c) => {
      need(c, c.target, 'a target');
      const exp = 'element ' + tdesc(c) + ' exists';
      const sel = selection(c.target);
      if (sel.els.length) {
        return pass(exp, sel.els.length + (sel.els.length === 1 ? ' match' : ' matches'), { count: sel.count, element: describe(sel.els[0]) });
      }
      const ev = { count: sel.count, target: tdesc(c) };
      if (sel.why) ev.error = sel.why;
      return fail(exp, 'no match', ev, () => nearMisses(c.target));
    },
    element_gone: (c) => {
      need(c, c.target, 'a target');
      const exp = 'element ' + tdesc(c) + ' gone';
      const sel = selection(c.target);
      if (!sel.els.length) {
        const ev = { count: 0 };
        if (sel.why) ev.note = sel.why;
        return pass(exp, 'gone', ev);
      }
      return fail(exp, sel.els.length + (sel.els.length === 1 ? ' match' : ' matches'), { count: sel.els.length, element: describe(sel.els[0]) });
    },
    value_equals: (c) => {
      need(c, c.target, 'a target');
      const want = c.value == null ? '' : String(c.value);
      const exp = 'value ' + JSON.stringify(want);
      const r = one(c.target);
      if (!r.el) return notFound(r, exp, tdesc(c));
      const v = valueOf(r.el);
      const ok = v.value === want || (v.label !== undefined && v.label === want);
      const shown = masked(r.el, v.value);
      const ev = { element: describe(r.el), value: shown };
      if (v.label !== undefined) ev.label = v.label;
      const act = 'value ' + JSON.stringify(shown) + (v.label !== undefined && v.label !== v.value ? ' (label ' + JSON.stringify(v.label) + ')' : '');
      return ok ? pass(exp, act, ev) : fail(exp, act, ev);
    },
    attribute_equals: (c) => {
      need(c, c.target, 'a target');
      need(c, c.attr, 'attr');
      const want = c.value == null ? '' : String(c.value);
      const exp = c.attr + '=' + JSON.stringify(want);
      const r = one(c.target);
      if (!r.el) return notFound(r, exp, tdesc(c));
      const v = r.el.getAttribute(c.attr);
      const ev = { element: describe(r.el), attr: c.attr, value: v };
      if (v === null) return fail(exp, c.attr + ' absent', ev);
      const act = c.attr + '=' + JSON.stringify(v);
      return v === want ? pass(exp, act, ev) : fail(exp, act, ev);
    },
    element_state: (c) => {
      need(c, c.target, 'a target');
      need(c, c.state, 'a state');
      const spec = STATE_OF[String(c.state).toLowerCase()];
      if (!spec) throw new Unverifiable('unknown state ' + JSON.stringify(c.state) + ' (want one of ' + Object.keys(STATE_OF).join(', ') + ')');
      const exp = tdesc(c) + ' ' + c.state;
      const [prop, want] = spec;
      if (prop === 'visible' && !want) {
        // hidden: an element that is not there at all is hidden too.
        const sel = selection(c.target).els;
        if (!sel.length) return pass(exp, 'not in the page', { count: 0 });
        const shown = sel.filter((el) => STATES.visible(el).value);
        if (!shown.length) return pass(exp, 'hidden', { count: sel.length, element: describe(sel[0]) });
        return fail(exp, 'visible', { count: sel.length, element: describe(shown[0]) });
      }
      const r = one(c.target);
      if (!r.el) return notFound(r, exp, tdesc(c));
      const s = STATES[prop](r.el);
      const ev = { element: describe(r.el), state: s.detail };
      return s.value === want ? pass(exp, s.detail, ev) : fail(exp, s.detail, ev);
    },
    list_count_delta: (c) => {
      need(c, c.target, 'a target');
      if (typeof c.before !== 'number') throw new Unverifiable('no baseline count for ' + tdesc(c) + ' (Baseline must be captured before the action)');
      const delta = c.delta || 0;
      const tt = Object.assign({}, c.target, { nth: undefined, last: false });
      const after = matchAll(tt).els.length;
      const got = after - c.before;
      const exp = 'count of ' + tdesc(c) + ' changes by ' + (delta > 0 ? '+' : '') + delta;
      const act = 'before=' + c.before + ' after=' + after + ' (delta ' + (got > 0 ? '+' : '') + got + ')';
      const ev = { before: c.before, after, delta: got, want_delta: delta };
      return got === delta ? pass(exp, act, ev) : fail(exp, act, ev);
    },
  };


  const textCheck = (c, st, present) => {
    need(c, c.text, 'text');
    const m = textMatcher(c.text);
    const where = c.target ? ' within ' + tdesc(c) : '';
    const exp = 'text ' + m.desc + (present ? ' present' : ' absent') + where;
    let scopes;
    if (c.target) {
      scopes = selection(c.target).els;
      if (!scopes.length) {
        const ev = { target: tdesc(c), count: 0 };
        if (present) return fail(exp, 'target not found', ev, () => nearMisses(c.target));
        ev.note = 'the target is not in the page, so the text cannot be in it';
        return pass(exp, 'target not in the page', ev);
      }
    } else {
      scopes = [pageRoot()];
    }
    for (const el of scopes) {
      const t = el === pageRoot() ? (st.page || (st.page = textOf(el, st))) : textOf(el, st);
      const hit = m.find(t.norm);
      if (hit) {
        const found = snippet(t.norm, hit);
        const ev = { found };
        const more = () => ({ element: describe(locate(el, m, st)) });
        return present ? pass(exp, 'found ' + JSON.stringify(found), ev, more) : fail(exp, 'found ' + JSON.stringify(found), ev, more);
      }
    }
    const ev = { scope: c.target ? tdesc(c) : 'page' };
    if (!present) return pass(exp, 'absent', ev);
    const more = () => {
      const raw = scopes.map((el) => textOf(el, st).raw).join('\n');
      const out = {};
      if (!m.regex) {
        const n = nearest(raw, m.needle);
        if (n.length) out.nearest = n;
      }
      if (!out.nearest) out.text_sample = clip(norm(raw), 300);
      return out;
    };
    return fail(exp, 'not found', ev, more);
  };

  // mk.check(cond, base) evaluates one condition now. Result:
  // {status: passed|failed|unverifiable, expected, actual, evidence}.
  const evalOne = (c, base, st) => {
    const fn = CHECKS[c.kind];
    if (!fn) return { status: UNVER, expected: String(c.kind), actual: 'unknown condition kind', evidence: { error: 'unknown condition kind ' + JSON.stringify(c.kind) } };
    try {
      return fn(c, base, st);
    } catch (e) {
      const msg = e instanceof Unverifiable ? e.message : 'check threw: ' + (e && e.message || e);
      return { status: UNVER, expected: String(c.kind), actual: msg, evidence: { error: msg } };
    }
  };
  const finalize = (r) => {
    const out = { status: r.status, expected: r.expected, actual: r.actual, evidence: r.evidence || {} };
    if (r.more) {
      try {
        const extra = r.more();
        if (extra) Object.assign(out.evidence, extra);
      } catch (e) {
        out.evidence.evidence_error = String(e && e.message || e);
      }
    }
    return out;
  };
  const scanned = (fn) => (mk.withScan ? mk.withScan(fn) : fn());
  mk.check = (cond, base) => scanned(() => finalize(evalOne(cond, base, {})));

  // ---- the wait ----------------------------------------------------------------
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
}
