// Reaction tracking for the step runner: did the page react at all to an
// action? A page that reacted (changed its DOM) but failed the
// post-conditions must not be acted on again (that could submit twice); a
// page that did not react at all may be retried.
{
  let count = 0;
  let obs = null;
  const observed = new WeakSet();
  const opts = { subtree: true, childList: true, attributes: true, characterData: true };
  const ours = (r) => {
    for (let n = r.target; n; n = n.parentNode) if (n.id === mk.OVERLAY_ID) return true;
    return false;
  };
  const tally = (recs) => {
    for (const r of recs) if (!ours(r)) count++;
  };
  const cover = () => {
    for (const { root } of mk.roots()) {
      if (observed.has(root)) continue;
      observed.add(root);
      try { obs.observe(root, opts); } catch (e) { /* detached root */ }
    }
  };

  // mk.reactionMark() -> the number of DOM mutations seen since the
  // observer was installed in this document (installed on first call).
  mk.reactionMark = () => {
    if (!obs) {
      obs = new MutationObserver(tally);
      cover();
    } else {
      cover();
      tally(obs.takeRecords());
    }
    return { count, doc: document.__mkDocID || (document.__mkDocID = Math.random().toString(36).slice(2)) };
  };
}

// mk.dismissOverlay(selector, ref, mode) deals with the element that
// covered the step's target (selector: mk.selector syntax, " >>> " for
// shadow roots, resolved with mk.query, never querySelector; ref: the
// target). With mode "escape" it only answers whether pressing Escape is
// safe; otherwise it clicks the close control of the occluder (or of its
// enclosing dialog): a button or link whose accessible name is a plain
// close/dismiss word, never one that would confirm (OK, Accept, Yes,
// Delete...). Neither ever happens to the dialog the target is inside (the
// user's input would be lost), nor when the "occluder" is the target's own
// host, shadow tree or slotted content (a false hit, not an overlay).
{
  const CLOSE = /^(close|dismiss|×|✕|✖|x|no thanks|not now|skip|maybe later|close dialog|close banner)$/i;
  const DIALOG = '[role=dialog],[role=alertdialog],dialog,[aria-modal=true]';
  // dialogOf is the nearest composed ancestor (or el) that is a dialog.
  const dialogOf = (el) => {
    for (let n = el; n; n = mk.composedParent(n)) if (n.nodeType === 1 && n.matches(DIALOG)) return n;
    return null;
  };
  mk.dismissOverlay = (sel, ref, mode) => {
    const target = ref ? mk.deref(ref) : null;
    const occ = sel ? mk.query(sel, '') : null;
    if (target && occ && (mk.contains(occ, target) || mk.contains(target, occ))) return false;
    const own = target && dialogOf(target);
    if (mode === 'escape') return !own;
    if (!occ) return false;
    const dlg = dialogOf(occ) || occ;
    if (target && mk.contains(dlg, target)) return false;
    for (const { root } of mk.roots(dlg)) {
      for (const b of root.querySelectorAll('button,[role=button],a[href],input[type=button]')) {
        if (!mk.contains(dlg, b) || (own && mk.contains(own, b))) continue;
        if (CLOSE.test(mk.name(b)) && mk.visible(b)) {
          b.click();
          return true;
        }
      }
    }
    return false;
  };
}
