// 46_path.js — the in-page half of a cascader select (path.go): the option
// of one level, by its visible name, in the newest open menu; and the value
// the control displays.
{
  const OPTION_ROLES = new Set(['option', 'menuitem', 'menuitemcheckbox', 'menuitemradio', 'treeitem']);
  const POPUP_ROLES = new Set(['menu', 'listbox', 'tree', 'grid', 'dialog']);

  // labelsOf are the texts an option is known by: its accessible name, its
  // title, and its own visible text (antd adds its expand icon's "right" to
  // the accessible name; the visible text is the option's name).
  const labelsOf = (el) => {
    const out = [norm(mk.name(el))];
    const t = el.getAttribute && el.getAttribute('title');
    if (t) out.push(norm(t));
    const own = norm(el.innerText || '');
    if (own) out.push(own, norm(own.split('\n')[0]));
    return out;
  };

  // innermostText: a visible element whose whole text is want, with no
  // child element that has the same text (the text fallback for menus whose
  // entries carry no role).
  const textHit = (el, want, eq) => {
    if (!eq(norm(el.innerText || ''), want)) return false;
    for (const c of el.children) if (eq(norm(c.innerText || ''), want)) return false;
    return true;
  };

  // find lists the visible candidates for want, by role first, then by
  // visible text outside the control itself; exact names before
  // case-insensitive ones.
  const find = (want, exclude, control) => {
    const exact = (a, b) => a === b;
    const loose = (a, b) => a.toLowerCase() === b.toLowerCase();
    const byRole = [[], []], byText = [[], []];
    mk.withScan(() => mk.walk((el) => {
      if (exclude.has(el)) return;
      const role = mk.role(el);
      if (OPTION_ROLES.has(role)) {
        const ls = labelsOf(el);
        const i = ls.some((l) => exact(l, want)) ? 0 : ls.some((l) => loose(l, want)) ? 1 : -1;
        if (i >= 0 && mk.visible(el)) byRole[i].push(el);
        return;
      }
      if (control && mk.contains(control, el)) return;
      const tc = el.textContent || '';
      if (tc.length < want.length || tc.length > want.length * 3 + 40) return; // cheap bound before layout
      for (const [i, eq] of [[0, exact], [1, loose]]) {
        if (textHit(el, want, eq) && mk.visible(el)) { byText[i].push(el); break; }
      }
    }));
    for (const l of [byRole[0], byRole[1], byText[0], byText[1]]) if (l.length) return l;
    return [];
  };

  // mk.pathName is the name a level's option is picked by: its own
  // visible text (the recorder writes it into a path).
  mk.pathName = (el) => labelsOf(el).pop();

  // popupOf is the nearest menu-like ancestor of el (for evidence).
  const popupOf = (el) => {
    for (let c = parentOf(el); c; c = parentOf(c)) if (c.nodeType === 1 && POPUP_ROLES.has(mk.role(c))) return c;
    return null;
  };

  // mk.actPathOption waits up to wait ms for a visible option named want
  // that is none of the refs in exclude (the levels already picked), and
  // returns the last one in document order: menus of later levels, and
  // popups, come after the ones they open from. {ref: 0, near} when none
  // appeared: near lists the option names that are visible.
  mk.actPathOption = async (want, exclude, control, wait) => {
    want = norm(want);
    const deadline = performance.now() + (wait || 0);
    const ex = new Set((exclude || []).map((r) => mk.deref(r)).filter(Boolean));
    const ctl = control ? mk.deref(control) : null;
    for (;;) {
      const hits = find(want, ex, ctl);
      if (hits.length) {
        const el = hits[hits.length - 1];
        const pop = popupOf(el);
        return {ref: mk.ref(el), option: mk.describe(el), popup: pop ? mk.describe(pop) : null, count: hits.length};
      }
      if (performance.now() >= deadline) break;
      await changeOrFrame(deadline);
    }
    const near = [];
    mk.withScan(() => mk.walk((el) => {
      if (near.length < 20 && OPTION_ROLES.has(mk.role(el)) && mk.visible(el)) near.push(labelsOf(el).pop());
    }));
    return {ref: 0, near};
  };

  // shownOf is the value a control displays: an input's value, else the
  // text of the control or of its nearest ancestors that still hold no
  // other control, label or menu (antd shows the path beside its input).
  const shownOf = (el) => {
    if ((el.tagName === 'INPUT' || el.tagName === 'TEXTAREA') && norm(el.value)) return norm(el.value);
    let c = el;
    for (let i = 0; i < 4 && c && c.nodeType === 1; i++) {
      const t = norm(c.innerText || '') || norm(c.getAttribute('title') || '');
      if (t) return t;
      const up = parentOf(c);
      if (!up || up.nodeType !== 1 || up === document.body) break;
      if (up.querySelectorAll('input, select, textarea, label, [role=combobox], [role=menu], [role=listbox], [role=tree]').length > 1) break;
      c = up;
    }
    return '';
  };

  // mk.actPathShown reports what the control displays and whether it is
  // expanded, waiting up to wait ms for the display to contain want.
  mk.actPathShown = async (ref, want, wait) => {
    want = norm(want || '').toLowerCase();
    const deadline = performance.now() + (wait || 0);
    for (;;) {
      const el = mk.deref(ref);
      if (!el || !el.isConnected) return {attached: false, shown: '', expanded: false};
      const shown = shownOf(el);
      if (!want || shown.toLowerCase().includes(want) || performance.now() >= deadline) {
        return {attached: true, shown, expanded: el.getAttribute('aria-expanded') === 'true'};
      }
      await changeOrFrame(deadline);
    }
  };
}
