// String similarity (mk.sim), for near misses and fingerprint scores.

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
