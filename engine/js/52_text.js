// Rendered text: what a user sees of a subtree, where a pattern hits it, and
// the nearest text to one that is missing.

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
