// 41_select.js — the in-page half of select (select.go): native <select>
// options, and ARIA comboboxes and listboxes: finding the listbox a
// combobox controls (or, when that listbox is virtual, detached or empty,
// the popup a user sees), its options, its selection and the value the
// widget displays. Uses the helpers shared by 40_act.js (norm, parentOf,
// nativeSetter, fireInput, idrefs, nextFrame, changeOrFrame).
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
      if ((skip && skip.has(lb)) || !mk.visible(lb) || !visibleOptions(lb)) continue;
      const d = commonDepth(el, lb), b = mk.rect(lb);
      const dist = Math.hypot(b.x - eb.x, b.y - (eb.y + eb.height));
      if (d > bestDepth || (d === bestDepth && dist < bestDist)) { best = lb; bestDepth = d; bestDist = dist; }
    }
    return best;
  };
  const ariaOptionsOf = (lb) => {
    // Options slotted into a shadow-DOM listbox count (mk.flatQueryAll).
    const out = mk.flatQueryAll(lb, '[role="option"]');
    for (const t of idrefs(lb, 'aria-owns')) {
      if (t.getAttribute('role') === 'option') out.push(t); else out.push(...t.querySelectorAll('[role="option"]'));
    }
    return out;
  };
  // visibleOptions says whether a listbox shows its options: a listbox
  // whose options have no box (a 0x0 accessibility mirror, as antd
  // renders) is virtual, and its visible popup is searched instead.
  const visibleOptions = (lb) => ariaOptionsOf(lb).some((o) => mk.visible(o));

  // Popups: the options a user sees, when they carry no role (or their
  // listbox is virtual). An option-like element is a role=option, an
  // element with aria-selected, one whose title is its text, or one whose
  // class names it an option or item (ant-select-item-option,
  // el-select-dropdown__item, css-…-option).
  const classParts = (e) => String(e.getAttribute('class') || '').toLowerCase().split(/[^a-z0-9]+/);
  const optionish = (e) => {
    const r = e.getAttribute('role');
    if (r === 'option' || r === 'menuitem' || r === 'menuitemradio' || r === 'menuitemcheckbox' || r === 'treeitem') return true;
    if (r === 'listbox' || r === 'menu' || r === 'presentation' || r === 'none') return false;
    if (e.hasAttribute('aria-selected')) return true;
    const t = e.getAttribute('title');
    if (t && norm(t) === norm(e.textContent)) return true;
    const parts = classParts(e);
    return parts.includes('option') || parts.includes('item');
  };
  const textOf = (e) => norm(e.innerText != null ? e.innerText : e.textContent);
  // inVirtualListbox: an option of a listbox without a box.
  const inVirtualListbox = (e, popup) => {
    for (let c = e; c && c !== popup; c = parentOf(c)) if (isListbox(c) && !mk.visible(c)) return true;
    return false;
  };
  // popupItems lists the outermost visible option-like elements of a popup.
  const popupItems = (popup) => {
    const out = [];
    const seen = new Set();
    for (const e of popup.querySelectorAll('*')) {
      if (!optionish(e)) continue;
      let nested = false;
      for (let c = parentOf(e); c && c !== popup; c = parentOf(c)) if (seen.has(c)) { nested = true; break; }
      if (nested || !mk.visible(e) || inVirtualListbox(e, popup) || !textOf(e)) continue;
      seen.add(e);
      out.push(e);
    }
    return out;
  };
  // popupOf returns the visible element holding a virtual listbox's
  // visible options: its nearest visible ancestor listing option-like
  // items.
  const popupOf = (lb, el) => {
    if (!virtual(lb)) return null;
    for (let c = parentOf(lb), i = 0; c && i < 8 && c.nodeType === 1 && c.tagName !== 'BODY' && !mk.contains(c, el); c = parentOf(c), i++) {
      if (mk.visible(c) && popupItems(c).length) return c;
    }
    return null;
  };
  // virtual: a listbox that is laid out (not display:none) but shows no
  // option: no box of its own, or options without boxes.
  const virtual = (lb) => lb.getClientRects().length > 0 && (!mk.visible(lb) || !visibleOptions(lb));
  const classSays = (e, word) => classParts(e).includes(word);
  const selectedState = (e) => e.getAttribute('aria-selected') === 'true' || e.getAttribute('aria-checked') === 'true' || classSays(e, 'selected');
  const disabledState = (e) => e.getAttribute('aria-disabled') === 'true' || classSays(e, 'disabled');

  // New popups: between describing the combobox (mk.actCombo) and waiting
  // for its listbox, a MutationObserver records what was added or changed,
  // so a popup tied to the combobox by no markup is still found: the
  // newest visible one listing option-like items.
  const watches = new Map();
  const watchPopups = (ref) => {
    const old = watches.get(ref);
    if (old) old.mo.disconnect();
    const w = {mo: null, nodes: []};
    w.mo = new MutationObserver((recs) => {
      for (const r of recs) {
        if (r.type === 'childList') { for (const n of r.addedNodes) if (n.nodeType === 1) w.nodes.push(n); } else if (r.target.nodeType === 1) w.nodes.push(r.target);
      }
      if (w.nodes.length > 400) w.nodes.splice(0, w.nodes.length - 400);
    });
    w.mo.observe(document, {subtree: true, childList: true, attributes: true, attributeFilter: ['style', 'class', 'hidden', 'aria-hidden', 'open']});
    watches.set(ref, w);
    setTimeout(() => { if (watches.get(ref) === w) { w.mo.disconnect(); watches.delete(ref); } }, 30000);
  };
  // floating: an element laid out above the page (a popup layer).
  const floating = (e) => {
    const pos = winOf(e).getComputedStyle(e).position;
    return pos === 'absolute' || pos === 'fixed' || e.matches(':popover-open, dialog[open]');
  };
  // newPopup returns the newest recorded element that is (inside) a
  // visible popup of option-like items and does not contain el: the
  // highest such ancestor not containing el.
  const newPopup = (el) => {
    const w = watches.get(mk.ref(el));
    if (!w) return null;
    for (let i = w.nodes.length - 1; i >= 0; i--) {
      const n = w.nodes[i];
      if (!n.isConnected || mk.contains(n, el) || !mk.visible(n)) continue;
      let root = n, layer = floating(n);
      for (let c = parentOf(n); c && c.nodeType === 1 && c.tagName !== 'BODY' && c.tagName !== 'HTML' && !mk.contains(c, el); c = parentOf(c)) {
        root = c;
        layer = layer || floating(c);
      }
      if (layer && !root.querySelector('label') && popupItems(root).length) return root;
    }
    return null;
  };

  // The widget around a combobox input: the control a user clicks when
  // the labelled input itself is hidden, and the element whose text shows
  // the chosen value (react-select's singleValue, antd's chips).
  const FIELD_SEL = 'input:not([type=hidden]), select, textarea, button, [role="combobox"], [role="textbox"], [role="spinbutton"], [contenteditable=""], [contenteditable="true"]';
  const otherField = (c, el) => {
    for (const f of c.querySelectorAll(FIELD_SEL)) if (f !== el && !mk.contains(el, f) && !mk.contains(f, el)) return true;
    return false;
  };
  // boundary: where the widget around el ends — a form, a label, a live
  // region, another field, page content (headings, paragraphs, tables)
  // or more elements than one widget has.
  const boundary = (c, el) => !c || c.nodeType !== 1 || ['BODY', 'HTML', 'FORM', 'FIELDSET', 'LABEL'].includes(c.tagName) ||
    !!c.querySelector('label, [role="alert"], [role="status"], [role="log"], [aria-live], h1, h2, h3, h4, h5, h6, p, table, nav, section, article') ||
    c.getElementsByTagName('*').length > 120 || otherField(c, el) ||
    idrefs(el, 'aria-labelledby').some((l) => l !== el && mk.contains(c, l));
  // visibleControl: el when it is visible; else the nearest visible
  // ancestor of the same widget (bounded by a label, another field or a
  // form) that is a combobox or takes focus (tabindex), else the nearest
  // visible one with a pointer cursor; null when there is none.
  const visibleControl = (el) => {
    if (mk.visible(el)) return el;
    let pointer = null;
    for (let c = parentOf(el), i = 0; i < 6 && !boundary(c, el); c = parentOf(c), i++) {
      if (!mk.visible(c)) continue;
      if (c.getAttribute('role') === 'combobox' || c.hasAttribute('tabindex')) return c;
      if (!pointer && winOf(c).getComputedStyle(c).cursor === 'pointer') pointer = c;
    }
    return pointer;
  };
  // widgetRoot: the outermost ancestor of el within the same widget.
  const widgetRoot = (el) => {
    let root = el;
    for (let c = parentOf(el), i = 0; i < 8 && !boundary(c, el); c = parentOf(c), i++) root = c;
    return root;
  };
  const SKIP_SEL = 'input, select, textarea, [role="listbox"], [role="log"], [role="status"], [role="alert"], [aria-live], [aria-hidden="true"]';
  // displayed lists the texts the widget shows (each element's own text),
  // outside its input, listbox, live regions and placeholder.
  const displayed = (el) => {
    const root = widgetRoot(el), out = [];
    const ph = norm(el.getAttribute('placeholder'));
    const walk = (n) => {
      for (const c of n.children) {
        if (c.matches(SKIP_SEL)) continue;
        const parts = classParts(c);
        if (parts.includes('placeholder') && !parts.includes('selected')) continue;
        const b = c.getBoundingClientRect();
        if (b.width <= 2 || b.height <= 2 || !mk.visible(c)) continue;
        let own = '';
        for (const t of c.childNodes) if (t.nodeType === 3) own += t.data;
        own = norm(own);
        if (own && own !== ph) out.push(own);
        walk(c);
      }
    };
    if (root !== el) walk(root);
    return out;
  };
  const editableOf = (el) => (el.tagName === 'INPUT' || el.tagName === 'TEXTAREA') ? !el.readOnly && !el.disabled : el.isContentEditable;
  const multipleOf = (el, lb) => {
    if (lb && lb.getAttribute('aria-multiselectable') === 'true') return true;
    if (el.getAttribute('aria-multiselectable') === 'true') return true;
    for (let c = el, i = 0; c && i < 8 && !boundary(c, el); c = parentOf(c), i++) {
      const parts = classParts(c);
      if (parts.includes('multiple') || parts.includes('multi') || parts.includes('tags')) return true;
    }
    return false;
  };
  // searchRoot returns where a combobox's options are looked up: its
  // listbox when that shows its options, else (virtual, detached or empty
  // listbox) the popup a user sees; popup says which.
  const searchRoot = (el, skip, fallback, fresh = true) => {
    const rel = relatedListbox(el);
    if (rel && rel.isConnected && mk.visible(rel) && visibleOptions(rel)) return {lb: rel, popup: false};
    if (rel && rel.isConnected) {
      const p = popupOf(rel, el);
      if (p) return {lb: p, popup: true, aria: rel};
    }
    const near = fresh && nearestListbox(el, skip);
    if (near) return {lb: near, popup: false};
    const np = fresh && newPopup(el);
    if (np) return {lb: np, popup: true};
    if (fallback) {
      if (rel && rel.isConnected && mk.visible(rel)) return {lb: rel, popup: false};
      const any = el.getAttribute('aria-expanded') !== 'false' && nearestListbox(el, null);
      if (any) return {lb: any, popup: false};
    }
    return null;
  };

  // mk.actCombo describes a select target: kind 'native' (<select>),
  // 'listbox' (the target is the listbox), 'combobox' (a widget controlling
  // a listbox), with expanded state, the listbox (or popup) ref when it
  // shows options now (open), the refs of the listboxes visible now (to
  // tell a listbox that opens from one that was there), the control to
  // operate (the visible wrapper of a hidden input), whether the widget
  // takes typed text and several values, and what it displays. It starts
  // recording new popups for mk.actWaitListbox.
  mk.actCombo = (ref) => {
    const el = mk.deref(ref);
    if (!el || !el.isConnected) return {ok: false, reason: 'detached'};
    if (el.tagName === 'SELECT') return {ok: true, kind: 'native', multiple: el.multiple};
    const expanded = el.getAttribute('aria-expanded') === 'true';
    const kind = isListbox(el) ? 'listbox' : 'combobox';
    const sr = kind === 'listbox' ? {lb: el, popup: false} : searchRoot(el, null, expanded, expanded);
    const rel = relatedListbox(el);
    const control = visibleControl(el);
    if (kind === 'combobox') watchPopups(ref);
    return {
      ok: true, kind, expanded,
      listbox: sr ? mk.ref(sr.lb) : (rel ? mk.ref(rel) : 0),
      listboxVisible: !!sr,
      popup: !!sr && sr.popup,
      multiple: multipleOf(el, rel),
      editable: editableOf(el),
      control: control ? mk.ref(control) : 0,
      value: comboValue(el),
      displayed: displayed(el),
      visibleListboxes: allListboxes().filter((l) => mk.visible(l)).map((l) => mk.ref(l)),
    };
  };
  const comboValue = (el) => norm(el.tagName === 'INPUT' || el.tagName === 'TEXTAREA' ? el.value : el.textContent);

  // mk.actWaitListbox waits (ms) for the combobox's options to show and
  // resolves to {ref, popup} (ref 0 when none appeared): the listbox markup
  // ties to it, else that listbox's visible popup when the listbox is
  // virtual, else the nearest listbox that was not visible before opening
  // (before: refs), else the newest popup listing option-like items, else —
  // only once the wait is over — the nearest visible listbox at all.
  mk.actWaitListbox = async (ref, wait, before) => {
    const deadline = performance.now() + (wait || 0);
    const skip = new Set((before || []).map((r) => mk.deref(r)).filter(Boolean));
    for (;;) {
      const el = mk.deref(ref);
      if (!el || !el.isConnected) return {ref: 0};
      const last = performance.now() >= deadline;
      const sr = searchRoot(el, skip, last);
      if (sr) return {ref: mk.ref(sr.lb), popup: sr.popup};
      if (last) return {ref: 0};
      await changeOrFrame(deadline);
    }
  };

  const itemsOf = (lb) => (isListbox(lb) && visibleOptions(lb) ? ariaOptionsOf(lb) : popupItems(lb));
  const itemName = (o) => (o.getAttribute('role') === 'option' ? optName(o) : '') || textOf(o);
  const optName = (o) => norm(mk.name ? mk.name(o) : o.textContent) || norm(o.textContent);
  const isSelected = (o) => selectedState(o);
  const QUOTED = /["'“”‘’«»]/;
  // creates says whether an option offers to create name: its text quotes
  // the name (Create "x", Add 'x') or starts with create/add/new.
  const creates = (text, n) => {
    const t = text.toLowerCase(), w = n.toLowerCase();
    if (!w || !t.includes(w) || t === w) return false;
    const i = t.indexOf(w);
    return (QUOTED.test(t.charAt(i - 1)) && QUOTED.test(t.charAt(i + w.length))) || /^(create|add|new)\b/.test(t);
  };

  // listScroller returns the element that scrolls a popup's options
  // (antd's virtual list holder scrolls with overflow hidden), or null.
  const listScroller = (root) => {
    for (const e of [root, ...root.querySelectorAll('*')]) {
      if (e.scrollHeight > e.clientHeight + 4 && e.clientHeight > 20 && winOf(e).getComputedStyle(e).overflowY !== 'visible') return e;
    }
    return null;
  };
  // scrollList scrolls the options' scroller one page down (back to the
  // top once at its end, then no more); false when it has been through.
  const scrollList = (root, state) => {
    const sc = listScroller(root);
    if (!sc || state.done) return false;
    const before = sc.scrollTop;
    sc.scrollTop = before + sc.clientHeight * 0.9;
    if (sc.scrollTop <= before) {
      if (state.wrapped || before === 0) { state.done = true; return false; }
      state.wrapped = true;
      sc.scrollTop = 0;
    }
    // Virtual lists re-render in their scroll listener: give them the
    // event now.
    sc.dispatchEvent(new Event('scroll'));
    return true;
  };

  // mk.actFindOption waits (ms) for an option named name in the listbox or
  // popup and reports {ref, name, selected, visible, disabled, multiple,
  // names, creates} (ref 0 when not found; names lists the options
  // present). Matching is on the visible name: exact after whitespace
  // normalisation, then ignoring case; with create, an option offering to
  // create the name (Create "x") matches when no option is named so.
  mk.actFindOption = async (lbRef, name, wait, create, comboRef, before, sweepWait) => {
    const deadline = performance.now() + (wait || 0);
    // A sweep through a long (virtual) list that is still moving when the
    // wait is over goes on to its end, up to sweepWait (optionSweeps in
    // select.go).
    const sweepDeadline = performance.now() + Math.max(wait || 0, sweepWait || 0);
    let sweeping = false;
    const n = norm(name), nl = n.toLowerCase();
    const skip = new Set((before || []).map((r) => mk.deref(r)).filter(Boolean));
    const scrolled = {};
    for (;;) {
      // With comboRef, where the options show is looked up again each
      // time: a search re-renders (or replaces) the popup.
      const combo = comboRef ? mk.deref(comboRef) : null;
      const sr = combo && combo.isConnected ? searchRoot(combo, skip, false) : null;
      const lb = sr ? sr.lb : mk.deref(lbRef);
      if (!lb || !lb.isConnected) {
        if (performance.now() >= deadline) return {ref: 0, names: [], reason: 'listbox detached'};
        await changeOrFrame(deadline);
        continue;
      }
      const opts = itemsOf(lb);
      let o = opts.find((o) => itemName(o) === n) || opts.find((o) => itemName(o).toLowerCase() === nl);
      let made = false;
      if (!o && create) { o = opts.find((o) => creates(itemName(o), n)); made = !!o; }
      if (o) {
        o.scrollIntoView({block: 'nearest', inline: 'nearest', behavior: 'instant'});
        return {ref: mk.ref(o), name: itemName(o), selected: isSelected(o), visible: mk.visible(o),
          disabled: disabledState(o), names: [], creates: made,
          multiple: lb.getAttribute('aria-multiselectable') === 'true',
          lb: mk.ref(lb), popup: sr ? sr.popup : undefined};
      }
      const now = performance.now();
      if (now >= deadline && (!sweeping || now >= sweepDeadline)) return {ref: 0, names: opts.map(itemName), lb: mk.ref(lb), popup: sr ? sr.popup : undefined};
      // A long list renders (or shows) only part of its options: scroll it.
      sweeping = opts.length > 0 && mk.visible(lb) && scrollList(lb, scrolled);
      await changeOrFrame(now >= deadline ? sweepDeadline : deadline);
    }
  };

  // mk.actListboxState reports the selected option names of a listbox or
  // popup (null when it is gone or shows none), the combobox's own value
  // and the texts its widget displays (chips, a single value shown beside
  // the input).
  mk.actListboxState = (comboRef, lbRef) => {
    const el = mk.deref(comboRef), lb = lbRef ? mk.deref(lbRef) : null;
    const live = !!el && el.isConnected;
    const st = {selected: null, options: null, value: live ? comboValue(el) : '', displayed: live ? displayed(el) : [],
      expanded: live && el.getAttribute('aria-expanded') === 'true'};
    if (lb && lb.isConnected && (mk.visible(lb) || isListbox(lb))) {
      const opts = itemsOf(lb).length ? itemsOf(lb) : (isListbox(lb) ? ariaOptionsOf(lb) : []);
      st.options = opts.map(itemName);
      st.selected = opts.filter(isSelected).map(itemName);
    }
    return st;
  };

  // mk.actWaitSelection waits (ms) until every wanted name is selected in
  // the listbox, displayed by the widget, or (single, editable) shown in
  // the combobox value, then reports the state; readable says whether
  // anything could be read at all (a listbox, a displayed text, a value).
  mk.actWaitSelection = async (comboRef, lbRef, wanted, wait, multiple) => {
    const deadline = performance.now() + (wait || 0);
    const want = wanted.map((w) => norm(w).toLowerCase());
    for (;;) {
      await nextFrame();
      const st = mk.actListboxState(comboRef, lbRef);
      const val = st.value.toLowerCase();
      const sel = (st.selected || []).map((s) => s.toLowerCase()), shown = st.displayed.map((s) => s.toLowerCase());
      st.ok = want.every((w) => sel.includes(w) || shown.includes(w) || (!multiple && w && val.includes(w)));
      st.readable = !!(st.options && st.options.length) || shown.length > 0 || val !== '';
      if (st.ok || performance.now() >= deadline) return st;
      await changeOrFrame(deadline);
    }
  };

  // mk.optionAt reports the option a press at n picks among combobox
  // combo's options as select finds them (its listbox, or the popup a user
  // sees when that listbox is virtual: antd's options carry no role), or
  // null: {el, name, options, partial}. partial: options are only some
  // (the list scrolls past options it has not rendered, a virtual list, or
  // has more than the 100 reported). The recorder uses it to tell a pick
  // from a click.
  mk.optionAt = (combo, n) => {
    if (!combo || !combo.isConnected || !n) return null;
    const sr = searchRoot(combo, null, true);
    if (!sr || !mk.contains(sr.lb, n)) return null;
    const opts = itemsOf(sr.lb);
    const o = opts.find((x) => x === n || mk.contains(x, n));
    if (!o) return null;
    return {el: o, name: itemName(o), options: opts.slice(0, 100).map(itemName), partial: opts.length > 100 || mk.listPartial(sr.lb, opts)};
  };

  // mk.comboMultiple says whether a combobox holds several values (as
  // select's options: decides it), so each pick adds one.
  mk.comboMultiple = (combo) => !!combo && combo.isConnected && multipleOf(combo, relatedListbox(combo));

  // mk.listPartial says whether a list's scroller holds more than the
  // items it has rendered: the items' boxes fill under nine tenths of
  // what it scrolls through.
  mk.listPartial = (root, items) => {
    const sc = listScroller(root);
    if (!sc || !items.length) return false;
    let sum = 0;
    for (const o of items) sum += o.getBoundingClientRect().height;
    return sum < sc.scrollHeight * 0.9;
  };
}
