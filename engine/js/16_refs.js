// Element refs, and the element summaries (mk.describe, mk.info) Go reads
// through them.

// Refs let Go name an element across evaluations. A ref holds the element
// weakly; mk.deref returns null once the node is detached, which is how a
// re-render is detected.
const refs = new Map();
const refOf = new WeakMap();
let nextRef = 1;
const sweep = () => {
  for (const [id, w] of refs) {
    const el = w.deref();
    if (!el || !el.isConnected) refs.delete(id);
  }
};
mk.ref = (el) => {
  let id = refOf.get(el);
  if (id && refs.has(id)) return id;
  id = nextRef++;
  refOf.set(el, id);
  refs.set(id, new WeakRef(el));
  if (refs.size > 20000 && refs.size % 1000 === 0) sweep();
  return id;
};
mk.deref = (id) => {
  const w = refs.get(id);
  const el = w && w.deref();
  if (!el) {
    refs.delete(id);
    return null;
  }
  return el.isConnected ? el : null;
};

// mk.describe(el) is the summary used in candidate lists and errors.
mk.describe = (el) => mk.withScan(() => ({
  role: mk.role(el),
  name: mk.name(el),
  tag: el.localName,
  selector: mk.selector(el),
  frame: mk.framePath(el),
  visible: mk.visible(el),
}));

// mk.info(ref) re-reads a ref'd element: {connected:false} once detached.
mk.info = (id) => {
  const el = mk.deref(id);
  if (!el) return { connected: false };
  return mk.withScan(() => Object.assign(mk.describe(el), { connected: true, ref: id, box: mk.rect(el) }));
};
