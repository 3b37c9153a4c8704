// The scan cache of the perception primitives (10_scan.js to 16_refs.js),
// which every other agent file builds on. They are read-only with respect to
// the page: they never write to the DOM or to styles, so a scan causes at
// most one layout and no thrash.

// A scan (one snapshot, one resolve) caches per-root id/test-id/name counts,
// sibling indices and iframe offsets. Outside a scan every helper builds a
// throwaway cache, so results are never stale.
let scan = null;
const newScan = () => ({ seg: new Map(), roots: new Map(), nth: new Map(), frames: new Map(), clips: new Map(), labels: new Map(), sel: new Map(), role: new Map(), name: new Map(), vis: new Map() });
mk.withScan = (fn) => {
  if (scan) return fn();
  scan = newScan();
  try { return fn(); } finally { scan = null; }
};
const cache = () => scan || newScan();
