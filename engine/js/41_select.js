// 41_select.js — the in-page half of select (select.go): native <select>
// options, and ARIA comboboxes and listboxes: finding the listbox a
// combobox controls, its options and its selection. Uses the helpers shared
// by 40_act.js (norm, parentOf, nativeSetter, fireInput, idrefs, nextFrame,
// changeOrFrame).
{
  const optionLabel = (o) => norm(o.label || o.textContent);
  // mk.actSelectNative selects, in a native <select>, exactly the options
  // named by wanted (matched by label, then value, then label ignoring
  // case), dispatching input and change. Reports {ok, before, after,
  // missing, disabled, multiple, options}.
  mk.actSelectNative = (ref, wanted) => {
    const el = mk.deref(ref);
    if (!el || !el.isConnected) return {ok: false, reason: 'detached'};
    const opts = Array.from(el.options);
    const labels = (list) => list.map(optionLabel);
    const before = labels(opts.filter((o) => o.selected));
    const pick = [], missing = [], disabled = [];
    for (const w of wanted) {
      const n = norm(w);
      const o = opts.find((o) => optionLabel(o) === n) || opts.find((o) => o.value === w) ||
        opts.find((o) => optionLabel(o).toLowerCase() === n.toLowerCase());
      if (!o) missing.push(w); else if (o.disabled || (o.parentElement && o.parentElement.tagName === 'OPTGROUP' && o.parentElement.disabled)) disabled.push(w); else pick.push(o);
    }
    const res = {ok: false, before, after: before, missing, disabled, multiple: el.multiple, options: labels(opts)};
    if (missing.length || disabled.length) return res;
    if (!el.multiple && pick.length > 1) { res.reason = 'several options for a single select'; return res; }
    if (el.focus) el.focus();
    if (el.multiple) {
      for (const o of opts) o.selected = pick.includes(o);
    } else if (pick.length) {
      const set = nativeSetter(el, 'value');
      if (set) set.call(el, pick[0].value); else el.value = pick[0].value;
      pick[0].selected = true;
    }
    fireInput(el, null);
    res.after = labels(Array.from(el.options).filter((o) => o.selected));
    res.ok = true;
    return res;
  };

  const roleOf = (el) => (mk.role ? mk.role(el) : el.getAttribute('role')) || '';
  const isListbox = (el) => el && (el.getAttribute('role') === 'listbox' || roleOf(el) === 'listbox') && el.tagName !== 'SELECT';
  // allListboxes lists role=listbox elements in the document, open shadow
  // roots and same-origin iframes.
  const allListboxes = () => {
    const out = [];
    const walk = (root) => {
      for (const e of root.querySelectorAll('[role="listbox"]')) out.push(e);
      for (const e of root.querySelectorAll('*')) {
        if (e.shadowRoot) walk(e.shadowRoot);
        if (e.tagName === 'IFRAME') { let d = null; try { d = e.contentDocument; } catch (_) { d = null; } if (d) walk(d); }
      }
    };
    walk(document);
    return out;
  };
  const depth = (n) => { let d = 0; for (let c = n; c; c = parentOf(c)) d++; return d; };
  const commonDepth = (a, b) => {
    const anc = new Set();
    for (let c = a; c; c = parentOf(c)) anc.add(c);
    for (let c = b; c; c = parentOf(c)) if (anc.has(c)) return depth(c);
    return 0;
  };
  // relatedListbox returns the listbox a combobox is tied to by markup:
  // itself, its aria-controls/aria-owns targets, its active descendant's
  // listbox, or a listbox inside it.
  const relatedListbox = (el) => {
    if (isListbox(el)) return el;
    for (const attr of ['aria-controls', 'aria-owns']) {
      for (const t of idrefs(el, attr)) {
        if (isListbox(t)) return t;
        const inner = t.querySelector && t.querySelector('[role="listbox"]');
        if (inner) return inner;
      }
    }
    for (const t of idrefs(el, 'aria-activedescendant')) {
      const lb = t.closest && t.closest('[role="listbox"]');
      if (lb) return lb;
    }
    const inside = el.querySelector && el.querySelector('[role="listbox"]');
    return inside || null;
  };
  // nearestListbox returns the visible listbox (not in skip) nearest to el:
  // deepest common ancestor first, then distance below el.
  const nearestListbox = (el, skip) => {
    let best = null, bestDepth = -1, bestDist = Infinity;
    const eb = mk.rect(el);
    for (const lb of allListboxes()) {
      if ((skip && skip.has(lb)) || !mk.visible(lb)) continue;
      const d = commonDepth(el, lb), b = mk.rect(lb);
      const dist = Math.hypot(b.x - eb.x, b.y - (eb.y + eb.height));
      if (d > bestDepth || (d === bestDepth && dist < bestDist)) { best = lb; bestDepth = d; bestDist = dist; }
    }
    return best;
  };
  const optionsOf = (lb) => {
    // Options slotted into a shadow-DOM listbox count (mk.flatQueryAll).
    const out = mk.flatQueryAll(lb, '[role="option"]');
    for (const t of idrefs(lb, 'aria-owns')) {
      if (t.getAttribute('role') === 'option') out.push(t); else out.push(...t.querySelectorAll('[role="option"]'));
    }
    return out;
  };
  const optName = (o) => norm(mk.name ? mk.name(o) : o.textContent) || norm(o.textContent);
  const isSelected = (o) => o.getAttribute('aria-selected') === 'true' || o.getAttribute('aria-checked') === 'true';

  // mk.actCombo describes a select target: kind 'native' (<select>),
  // 'listbox' (the target is the listbox), 'combobox' (a widget controlling
  // a listbox), with expanded state, the listbox ref when markup ties one to
  // it (or, when it is expanded, the nearest visible one), the refs of the
  // listboxes visible now (to tell a listbox that opens from one that was
  // there) and the combobox's displayed value.
  mk.actCombo = (ref) => {
    const el = mk.deref(ref);
    if (!el || !el.isConnected) return {ok: false, reason: 'detached'};
    if (el.tagName === 'SELECT') return {ok: true, kind: 'native', multiple: el.multiple};
    const expanded = el.getAttribute('aria-expanded') === 'true';
    let lb = relatedListbox(el);
    if (!lb && expanded) lb = nearestListbox(el, null);
    const kind = isListbox(el) ? 'listbox' : 'combobox';
    return {
      ok: true, kind, expanded,
      listbox: lb ? mk.ref(lb) : 0,
      listboxVisible: !!lb && mk.visible(lb),
      multiple: !!lb && lb.getAttribute('aria-multiselectable') === 'true',
      editable: el.tagName === 'INPUT' || el.tagName === 'TEXTAREA' || el.isContentEditable,
      value: comboValue(el),
      visibleListboxes: allListboxes().filter((l) => mk.visible(l)).map((l) => mk.ref(l)),
    };
  };
  const comboValue = (el) => norm(el.tagName === 'INPUT' || el.tagName === 'TEXTAREA' ? el.value || shownValue(el) : el.textContent);
  // shownValue: what an input combobox with an empty input shows beside
  // it (react-select renders the chosen value in a sibling element): the
  // text of the closest ancestor, up to 3 levels, holding no other form
  // control, leaving out labels, placeholders, live regions, listboxes and
  // hidden parts.
  const shownValue = (el) => {
    const skip = new Set([...idrefs(el, 'aria-describedby'), ...idrefs(el, 'aria-labelledby')]);
    const out = (e) => skip.has(e) || e.tagName === 'LABEL' || e.hasAttribute('aria-live') || e.getAttribute('aria-hidden') === 'true' ||
      /^(log|status|alert|listbox|option)$/.test(e.getAttribute('role') || '') || /placeholder/i.test(typeof e.className === 'string' ? e.className : '');
    const text = (e) => {
      let s = '';
      for (const c of e.childNodes) {
        if (c.nodeType === 3) s += c.data + ' ';
        else if (c.nodeType === 1 && !out(c)) s += text(c);
      }
      return s;
    };
    let a = el.parentElement;
    for (let i = 0; a && i < 3; a = a.parentElement, i++) {
      if (a.querySelectorAll('input:not([type=hidden]),select,textarea').length > 1) return '';
      const t = norm(text(a));
      if (t) return t;
    }
    return '';
  };

  // mk.actWaitListbox waits (ms) for the combobox's listbox to show options
  // and resolves to its ref (0 when none appeared): the listbox markup ties
  // to it, else the nearest listbox that was not visible before opening
  // (before: refs), else — only once the wait is over — the nearest visible
  // listbox at all.
  mk.actWaitListbox = async (ref, wait, before) => {
    const deadline = performance.now() + (wait || 0);
    const skip = new Set((before || []).map((r) => mk.deref(r)).filter(Boolean));
    const ready = (lb) => lb && mk.visible(lb) && optionsOf(lb).length > 0;
    for (;;) {
      const el = mk.deref(ref);
      if (!el || !el.isConnected) return 0;
      const rel = relatedListbox(el);
      if (ready(rel)) return mk.ref(rel);
      const fresh = nearestListbox(el, skip);
      if (ready(fresh)) return mk.ref(fresh);
      if (performance.now() >= deadline) {
        if (rel && mk.visible(rel)) return mk.ref(rel);
        const any = nearestListbox(el, null);
        return ready(any) && el.getAttribute('aria-expanded') !== 'false' ? mk.ref(any) : 0;
      }
      await changeOrFrame(deadline);
    }
  };

  // mk.actFindOption waits (ms) for an option named name in the listbox and
  // reports {ref, name, selected, visible, disabled, multiple, names} (ref 0
  // when not found;
  // names lists the options present). Matching is on the accessible name:
  // exact after whitespace normalisation, then ignoring case.
  mk.actFindOption = async (lbRef, name, wait) => {
    const deadline = performance.now() + (wait || 0);
    const n = norm(name);
    for (;;) {
      const lb = mk.deref(lbRef);
      if (!lb || !lb.isConnected) return {ref: 0, names: [], reason: 'listbox detached'};
      const opts = optionsOf(lb);
      const o = opts.find((o) => optName(o) === n) || opts.find((o) => optName(o).toLowerCase() === n.toLowerCase());
      if (o) {
        o.scrollIntoView({block: 'nearest', inline: 'nearest', behavior: 'instant'});
        return {ref: mk.ref(o), name: optName(o), selected: isSelected(o), visible: mk.visible(o),
          disabled: o.getAttribute('aria-disabled') === 'true', names: [],
          multiple: lb.getAttribute('aria-multiselectable') === 'true'};
      }
      if (performance.now() >= deadline) return {ref: 0, names: opts.map(optName)};
      await changeOrFrame(deadline);
    }
  };

  // mk.actListboxState reports the selected option names of a listbox
  // (null when it is gone) and the combobox's displayed value.
  mk.actListboxState = (comboRef, lbRef) => {
    const el = mk.deref(comboRef), lb = lbRef ? mk.deref(lbRef) : null;
    const st = {selected: null, options: null, value: el && el.isConnected ? comboValue(el) : '', expanded: !!el && el.getAttribute('aria-expanded') === 'true'};
    if (lb && lb.isConnected) {
      const opts = optionsOf(lb);
      st.options = opts.map(optName);
      st.selected = opts.filter(isSelected).map(optName);
    }
    return st;
  };

  // mk.actWaitSelection waits (ms) until every wanted name is selected in
  // the listbox or shown in the combobox value, then reports the state.
  mk.actWaitSelection = async (comboRef, lbRef, wanted, wait) => {
    const deadline = performance.now() + (wait || 0);
    const want = wanted.map(norm);
    for (;;) {
      await nextFrame();
      const st = mk.actListboxState(comboRef, lbRef);
      const val = st.value.toLowerCase();
      st.ok = want.every((w) => (st.selected && st.selected.includes(w)) || (w && val.includes(w.toLowerCase())));
      if (st.ok || performance.now() >= deadline) return st;
      await changeOrFrame(deadline);
    }
  };
}
