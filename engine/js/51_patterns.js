// Text patterns of the checks: a substring or a /regex/ literal, and the
// snippet around a hit.

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
