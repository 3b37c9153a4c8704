// Grounding (30_match.js to 33_fingerprint.js): a Target resolves to exactly
// one element, or to a typed failure listing candidates; a fingerprint
// re-finds an element after a re-render. This file turns a target into the
// elements it matches.

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

// wordMatcher(n) tests whether a name contains the words of n, in order,
// as whole words, ignoring case: "Upload invoice" is in "upload Upload
// invoice" (an icon's label before the text) but not in "Upload invoices".
const wordMatcher = (n) => {
  if (!n) return null;
  const esc = n.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const re = new RegExp('(?:^|[^\\p{L}\\p{N}_])' + esc + '(?:$|[^\\p{L}\\p{N}_])', 'iu');
  return (v) => re.test(v);
};
mk.wordMatcher = wordMatcher;

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

// ariaHidden: el or a composed ancestor has aria-hidden="true" (a mirror a
// widget keeps for forms, not what a user operates).
const ariaHidden = (el) => {
  for (let n = el; n && n.nodeType === 1; n = mk.composedParent(n)) if (n.getAttribute('aria-hidden') === 'true') return true;
  return false;
};
// operable narrows the matches of one label to what a user operates, when
// the label names a control together with parts of it: a match another
// match controls or owns (aria-controls / aria-owns: a combobox's listbox)
// goes, a match in an aria-hidden subtree (a sectioned date field's hidden
// input) goes, and of two nested matches the inner one stays when visible,
// else the outer. Nothing is dropped when that would leave no match.
const operable = (els) => {
  if (els.length < 2) return els;
  const tied = new Set();
  for (const el of els) for (const attr of ['aria-controls', 'aria-owns']) for (const t of mk.byIds(el, attr)) tied.add(t);
  let keep = els.filter((el) => !tied.has(el) && !ariaHidden(el));
  if (!keep.length) keep = els;
  if (keep.length < 2) return keep;
  const drop = new Set();
  for (const a of keep) for (const b of keep) {
    if (a === b || !mk.contains(a, b)) continue;
    drop.add(mk.visible(b) ? a : b);
  }
  const out = keep.filter((el) => !drop.has(el));
  return out.length ? out : keep;
};
mk.operable = operable;

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
      const words = m && !m.regex ? wordMatcher(m.src) : null;
      mk.walk((el) => {
        const r = mk.role(el);
        if (want ? r !== want : GENERIC[r]) return;
        if (!m) { exact.push(el); return; }
        const nm = mk.name(el);
        if (m.exact(nm)) exact.push(el);
        else if (words && words(nm)) loose.push(el);
      }, scope);
      if (exact.length || !loose.length) return { els: exact, loose: false, kind };
      // Word containment is a fallback for what a user sees: only visible
      // elements count (several of them are ambiguous).
      const vis = loose.filter((el) => mk.visible(el));
      return { els: vis, loose: vis.length > 0, kind, words: true };
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
      if (exact.length) return { els: operable(exact), loose: false, kind };
      return { els: operable(loose), loose: loose.length > 0, kind };
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
