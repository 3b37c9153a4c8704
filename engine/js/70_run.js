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

// mk.dismissOverlay(selector) clicks the close control of the element that
// covers the target (or of its enclosing dialog): a button or link whose
// accessible name is a plain close/dismiss word. It never clicks a button
// that would confirm something (OK, Accept, Yes, Delete...).
{
  const CLOSE = /^(close|dismiss|×|✕|✖|x|no thanks|not now|skip|maybe later|close dialog|close banner)$/i;
  mk.dismissOverlay = (sel) => {
    let occ = document.querySelector(sel);
    if (!occ) return false;
    const dlg = occ.closest('[role=dialog],[role=alertdialog],dialog,[aria-modal=true]') || occ;
    const btns = dlg.querySelectorAll('button,[role=button],a[href],input[type=button]');
    for (const b of btns) {
      if (CLOSE.test(mk.name(b)) && mk.visible(b)) {
        b.click();
        return true;
      }
    }
    return false;
  };
}
