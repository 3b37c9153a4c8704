// The recorder (engine/record.go): turns what a user does on the page into
// actions, each with the target a user would write (grounded by mk.resolve:
// exactly one match) and the page's "before" picture, taken in the capture
// phase before the page's own handlers run. Reports go to Go through the
// CDP binding window.__mkRecord (Runtime.addBinding); nothing is written to
// the page, so the recording does not change what the page shows.
{
  const BINDING = '__mkRecord';
  const MAX_LINES = 5000;
  const MAX_NAME = 200;
  const GENERIC = { '': 1, none: 1, presentation: 1, generic: 1, paragraph: 1, group: 1 };
  const INTERACTIVE = {
    button: 1, link: 1, checkbox: 1, radio: 1, switch: 1, tab: 1, menuitem: 1, menuitemcheckbox: 1, menuitemradio: 1,
    option: 1, combobox: 1, textbox: 1, searchbox: 1, slider: 1, spinbutton: 1, treeitem: 1, gridcell: 1, row: 1,
  };
  const NON_TEXT_INPUTS = { button: 1, submit: 1, reset: 1, checkbox: 1, radio: 1, file: 1, image: 1, range: 1, color: 1, hidden: 1 };
  const norm = mk.norm;

  const isTextEntry = (el) => {
    if (!el || el.nodeType !== 1) return false;
    if (el.tagName === 'TEXTAREA') return true;
    if (el.tagName === 'INPUT') return !NON_TEXT_INPUTS[(el.type || 'text').toLowerCase()];
    return el.isContentEditable === true;
  };
  const isCheckable = (el) => el && el.tagName === 'INPUT' && (el.type === 'checkbox' || el.type === 'radio');

  // controlOf is the nearest control, link, element with an interactive
  // role or label around n, or null.
  const controlOf = (n) => {
    for (let cur = n; cur; cur = mk.composedParent(cur)) {
      if (cur.nodeType !== 1) continue;
      const tag = cur.tagName;
      if (tag === 'BUTTON' || tag === 'SELECT' || tag === 'TEXTAREA' || tag === 'INPUT' || tag === 'SUMMARY' || (tag === 'A' && cur.hasAttribute('href'))) return cur;
      if (INTERACTIVE[mk.role(cur)]) return cur;
      if (cur.isContentEditable && !(cur.parentElement && cur.parentElement.isContentEditable)) return cur;
      if (tag === 'LABEL') return cur;
    }
    return null;
  };

  // lift goes from the node the event hit to the element a user operated:
  // the nearest control, link or element with an interactive role.
  const lift = (n) => {
    const c = controlOf(n);
    if (c) return c;
    // A widget's surface (react-select's control around its input): the
    // one combobox of the nearest wrapper holding one stands for it.
    let el = n && n.nodeType === 1 ? n : (n && n.parentElement) || null;
    for (let cur = el, i = 0; cur && i < 4; cur = cur.parentElement, i++) {
      const boxes = cur.querySelectorAll('[role=combobox]');
      if (boxes.length === 1) return boxes[0];
      if (boxes.length > 1) break;
    }
    return el;
  };

  const literalOK = (s) => s && s.length <= MAX_NAME && !(s.length >= 2 && s[0] === '/' && s[s.length - 1] === '/');

  // unique reports whether t grounds to el, and to nothing else.
  const unique = (t, el) => {
    const r = mk.resolve(t);
    if (!r || !r.ok || r.how !== 'unique') return false;
    const got = mk.deref(r.ref);
    return got === el || (got && mk.contains(el, got) && lift(got) === el);
  };

  // targetFor is the target a user would write for el: role and name, the
  // label (first for text fields), placeholder, visible text, then test id
  // and CSS only when nothing else matches it alone.
  const targetFor = (el) => mk.withScan(() => {
    const role = mk.role(el);
    const name = norm(mk.name(el) || '');
    const label = norm(mk.labelText(el) || '');
    const entry = isTextEntry(el) || el.tagName === 'SELECT';
    const cands = [];
    const push = (t, kind) => cands.push({ t, kind });
    if (entry && literalOK(label)) push({ label }, 'label');
    if (role && !GENERIC[role] && literalOK(name)) push({ role, name }, 'role');
    if (!entry && literalOK(label) && label !== name) push({ label }, 'label');
    const ph = el.getAttribute && el.getAttribute('placeholder');
    if (literalOK(norm(ph || ''))) push({ placeholder: norm(ph) }, 'placeholder');
    if (!entry) {
      const tx = norm(el.innerText || el.textContent || '');
      if (literalOK(tx) && tx.length <= 80) push({ text: tx }, 'text');
    }
    const tid = el.getAttribute && el.getAttribute('data-testid');
    if (tid) push({ testid: tid }, 'testid');
    for (const c of cands) if (unique(c.t, el)) return c;
    const css = mk.selector(el);
    if (css && unique({ css }, el)) return { t: { css }, kind: 'css' };
    return null;
  });

  // controlValues are the values of the visible text fields and selects
  // (at most MAX_VALUES, each with the target a user would write), so a
  // value an action put in another control can be checked. Password and
  // one-time-code fields are never read.
  const MAX_VALUES = 20;
  const SECRET_AC = /password|one-time-code|cc-/i;
  const controlValues = () => {
    const out = [];
    for (const el of document.querySelectorAll('input,textarea,select')) {
      if (out.length >= MAX_VALUES) break;
      if (el.tagName === 'INPUT' && (!isTextEntry(el) || (el.type || '').toLowerCase() === 'password')) continue;
      if (SECRET_AC.test((el.getAttribute && el.getAttribute('autocomplete')) || '')) continue;
      if (!mk.visible(el)) continue;
      let value = el.value;
      if (el.tagName === 'SELECT') {
        const o = el.selectedOptions && el.selectedOptions[0];
        value = o ? norm(o.label || o.textContent || '') : '';
      }
      if (typeof value !== 'string' || value.length > MAX_NAME) continue;
      const tc = targetFor(el);
      if (tc) out.push({ target: tc.t, value });
    }
    return out;
  };

  // state is the page's picture for the effects of an action: its text
  // lines, data-testid counts (and each id's DOM depth), open dialogs and
  // the values of its visible controls.
  const state = () => {
    const lines = [];
    const b = document.body;
    if (b) for (const l of (b.innerText || '').split('\n')) {
      const s = norm(l);
      if (s) lines.push(s);
      if (lines.length >= MAX_LINES) break;
    }
    const counts = {}, depths = {};
    for (const el of document.querySelectorAll('[data-testid]')) {
      const k = el.getAttribute('data-testid');
      counts[k] = (counts[k] || 0) + 1;
      if (!(k in depths)) {
        let d = 0;
        for (let p = el.parentElement; p; p = p.parentElement) d++;
        depths[k] = d;
      }
    }
    const dialogs = [];
    mk.withScan(() => {
      for (const el of document.querySelectorAll('dialog,[role=dialog],[role=alertdialog]')) {
        if (!mk.visible(el)) continue;
        const role = mk.role(el) || 'dialog';
        const name = norm(mk.name(el) || '');
        if (name) dialogs.push({ role, name });
      }
    });
    return { url: location.href, lines, counts, depths, dialogs, values: controlValues() };
  };
  mk.recordState = state;

  const describe = (el) => {
    const d = mk.describe(el);
    const out = { role: d.role, name: norm(d.name || ''), tag: d.tag };
    if (el.tagName === 'INPUT') out.type = (el.type || 'text').toLowerCase();
    const ac = el.getAttribute && el.getAttribute('autocomplete');
    if (ac) out.autocomplete = ac;
    if (el.getAttribute && (el.getAttribute('aria-haspopup') === 'listbox' || mk.role(el) === 'combobox' || pickerInput(el))) out.combobox = true;
    const tc = targetFor(el);
    if (tc) { out.target = tc.t; out.how = tc.kind; }
    return out;
  };

  // pointAt is the element a check by pointing is about: the control the
  // pointer is on (an icon in a button means the button), else the
  // innermost element around it that a target names alone (a table's cell,
  // not its row).
  const POINT_THROUGH = { row: 1, gridcell: 1 };
  const pointAt = (n) => {
    const c = controlOf(n);
    if (c && c.tagName !== 'LABEL' && !POINT_THROUGH[mk.role(c)]) return c;
    const start = n && n.nodeType === 1 ? n : (n && n.parentElement) || null;
    for (let cur = start, i = 0; cur && cur !== document.body && i < 8; cur = mk.composedParent(cur), i++) {
      if (cur.nodeType === 1 && targetFor(cur)) return cur;
    }
    return c || start;
  };

  // pointed reports a check on the element at n: its visible text, or a
  // field's value (never a password's or a one-time code's).
  const pointed = (n) => {
    const el = pointAt(n);
    if (!el) return;
    const ev = Object.assign({ kind: 'assert', text: norm(el.innerText || '').slice(0, 200) }, describe(el));
    if (isTextEntry(el) || el.tagName === 'SELECT') {
      ev.text = '';
      const secret = (el.type || '').toLowerCase() === 'password' || SECRET_AC.test((el.getAttribute && el.getAttribute('autocomplete')) || '');
      let value = el.value;
      if (el.tagName === 'SELECT') {
        const o = el.selectedOptions && el.selectedOptions[0];
        value = o ? norm(o.label || o.textContent || '') : '';
      }
      if (!secret && typeof value === 'string' && value.length <= MAX_NAME) ev.value = value;
    }
    send(ev);
  };

  const optionValue = (o) => (o.getAttribute('value') != null ? o.getAttribute('value') : o.getAttribute('data-value')) || '';

  // The options of the listbox an option sits in, by name and by value.
  const optionsAround = (el, out) => {
    let box = el.closest('[role=listbox]') || el.parentElement;
    if (!box) return;
    const all = Array.from(box.querySelectorAll('[role=option]'));
    const opts = all.slice(0, 100);
    out.options = opts.map((o) => norm(mk.name(o) || o.textContent || ''));
    out.optionValues = opts.map(optionValue);
    if (all.length > opts.length || mk.listPartial(box, all)) out.optionsPartial = true;
  };

  let seq = 0;
  let pendingFill = null; // {el, value}
  const emitted = new WeakMap(); // el -> last fill value reported
  let pendingDown = null; // {el, info, before}

  const send = (ev) => {
    const fn = window[BINDING];
    if (typeof fn !== 'function') return;
    ev.seq = ++seq;
    if (!ev.url) ev.url = location.href;
    try { fn(JSON.stringify(ev)); } catch (e) { /* the binding went away: the recording ended */ }
  };

  const fill = (el) => {
    const value = el.isContentEditable ? (el.innerText || '') : el.value;
    if (emitted.get(el) === value) return false;
    emitted.set(el, value);
    send(Object.assign({ kind: 'fill', value, before: state() }, describe(el)));
    return true;
  };
  const flush = () => {
    const p = pendingFill;
    pendingFill = null;
    return !!(p && p.el.isConnected && fill(p.el));
  };

  // pickerInput: a read-only text input is no field to type in; a click
  // on it opens what it shows (Element Plus' cascader and date inputs).
  const pickerInput = (el) => el.tagName === 'INPUT' && el.readOnly && !el.disabled && isTextEntry(el);

  const skipClick = (el) => {
    if (!el) return true;
    if ((isTextEntry(el) && mk.role(el) !== 'combobox' && !pickerInput(el)) || el.tagName === 'SELECT' || el.tagName === 'OPTION' || isCheckable(el)) return true;
    if (el.tagName === 'LABEL') {
      const c = el.control;
      if (c && (isTextEntry(c) || c.tagName === 'SELECT' || isCheckable(c))) return true;
    }
    return false;
  };

  const hit = (e) => (e.composedPath ? e.composedPath()[0] : e.target);

  // Pointing adds a check instead of a click: Alt+click (Ctrl+Alt+click
  // too, for desktops whose window manager takes Alt+click), or a click
  // after Ctrl+Shift+K armed point mode. The page sees none of it.
  let armed = false;
  let pointing = false; // the press that began was a pointing one
  const swallow = (e) => { e.preventDefault(); e.stopPropagation(); e.stopImmediatePropagation(); };
  const arm = (on) => {
    armed = on;
    send({ kind: 'point', value: on ? 'on' : 'off' });
  };

  // lastCombo is the combobox the last click was on. A press on one of
  // its options that carry no role (antd's popup shows role-less items
  // over a hidden ARIA list) is a pick, found as select finds options
  // (mk.optionAt), not a click on a nameless element.
  let lastCombo = null;
  const LEVEL_ROLES = new Set(['menuitem', 'menuitemcheckbox', 'menuitemradio', 'treeitem']);
  const pickAt = (n) => {
    if (!lastCombo || !lastCombo.isConnected) return null;
    const el = lift(n);
    if (el && mk.role(el) === 'option') return null; // an ARIA option: optionsAround
    return mk.optionAt(lastCombo, n);
  };
  const infoOf = (el, pick) => {
    const info = describe(el);
    if (pick) { info.role = 'option'; info.name = norm(pick.name); }
    return info;
  };

  const onPointerDown = (e) => {
    if (!e.isTrusted || e.button !== 0) return;
    entering = false; // its keyup went elsewhere
    pointing = e.altKey || armed;
    if (pointing) { swallow(e); return; }
    const n = hit(e);
    const pick = pickAt(n);
    const el = pick ? pick.el : lift(n);
    flush();
    if (skipClick(el)) { pendingDown = null; return; }
    pendingDown = { el, pick, info: infoOf(el, pick), before: state() };
  };

  // The mouse events between a pointing press and its click.
  const onPointingMouse = (e) => { if (e.isTrusted && pointing) swallow(e); };

  const onClick = (e) => {
    if (!e.isTrusted) return;
    if (entering && e.detail === 0) return; // an Enter's implicit submission (onKeyUp)
    if (pointing || e.altKey || armed) {
      // A check on this element, not a click.
      swallow(e);
      pointing = false;
      flush();
      pointed(hit(e));
      if (armed) arm(false);
      return;
    }
    const n = hit(e);
    let pick = pickAt(n);
    let el = pick ? pick.el : lift(n);
    // A pick may close its popup before the click: the press said what it was.
    if (!pick && pendingDown && pendingDown.pick && (!pendingDown.el.isConnected || mk.contains(pendingDown.el, n))) {
      el = pendingDown.el;
      pick = pendingDown.pick;
    }
    if (skipClick(el)) return;
    flush();
    const p = pendingDown && pendingDown.el === el ? pendingDown : { info: infoOf(el, pick), before: state() };
    pendingDown = null;
    const ev = Object.assign({ kind: 'click', before: p.before }, p.info);
    if (pick) {
      ev.options = pick.options.map(norm);
      if (pick.partial) ev.optionsPartial = true;
    } else if (p.info.role === 'option') optionsAround(el, ev);
    const combo = lastCombo && lastCombo.isConnected ? lastCombo : null;
    // A multiple select's popup stays open: the next option pressed is
    // another pick of the same combobox.
    if (ev.role === 'option' && mk.comboMultiple(combo)) ev.multiple = true;
    // A menu entry opened from a combobox is one level of a cascader's
    // path, named as select's path finds it (antd adds its arrow's "right"
    // to the accessible name).
    if (LEVEL_ROLES.has(ev.role) && combo) {
      ev.level = true;
      ev.name = norm(mk.pathName(el));
    }
    lastCombo = p.info.combobox ? el : (ev.role === 'option' || ev.level ? lastCombo : null);
    send(ev);
  };

  const onInput = (e) => {
    if (!e.isTrusted) return;
    const el = e.composedPath ? e.composedPath()[0] : e.target;
    if (isTextEntry(el)) {
      if (pendingFill && pendingFill.el !== el) flush();
      pendingFill = { el };
    }
  };

  const onChange = (e) => {
    if (!e.isTrusted) return;
    const el = e.composedPath ? e.composedPath()[0] : e.target;
    if (el.tagName === 'SELECT') {
      flush();
      const o = el.selectedOptions && el.selectedOptions[0];
      const ev = Object.assign({ kind: 'select', value: o ? norm(o.label || o.textContent || '') : '', before: state() }, describe(el));
      ev.options = Array.from(el.options).slice(0, 100).map((x) => norm(x.label || x.textContent || ''));
      ev.optionValues = Array.from(el.options).slice(0, 100).map((x) => x.value);
      if (el.options.length > 100) ev.optionsPartial = true;
      if (el.multiple) {
        ev.multiple = true;
        ev.values = Array.from(el.selectedOptions).map((x) => norm(x.label || x.textContent || ''));
      }
      send(ev);
    } else if (isCheckable(el)) {
      flush();
      send(Object.assign({ kind: el.checked || el.type === 'radio' ? 'check' : 'uncheck', before: state() }, describe(el)));
    } else if (isTextEntry(el)) {
      if (pendingFill && pendingFill.el === el) pendingFill = null;
      fill(el);
    }
  };

  const onKeyDown = (e) => {
    if (!e.isTrusted || e.isComposing) return;
    if (e.key !== 'Alt') pointing = false; // a press that never became a click
    if (e.ctrlKey && e.shiftKey && !e.altKey && e.code === 'KeyK') { swallow(e); arm(!armed); return; }
    if (armed && e.key === 'Escape') { swallow(e); arm(false); return; }
    if (e.key !== 'Enter') return;
    const el = e.composedPath ? e.composedPath()[0] : e.target;
    if (!isTextEntry(el) || el.tagName === 'TEXTAREA' || el.isContentEditable) return;
    flush();
    fill(el);
    send(Object.assign({ kind: 'press', key: 'Enter', before: state() }, describe(el)));
    entering = true;
  };

  // entering: a recorded Enter in a field is down. The click the browser
  // makes on the form's submit button for it (implicit submission:
  // trusted, detail 0) is that press's effect, not a second action —
  // recorded, a replay would submit twice.
  let entering = false;
  const onKeyUp = (e) => {
    if (e.key === 'Enter' && entering) setTimeout(() => { entering = false; }, 0);
  };

  // mk.recordStart() listens to the user's input in this document (once).
  mk.recordStart = () => {
    if (window.__mkRecording) return true;
    window.__mkRecording = true;
    const o = { capture: true };
    window.addEventListener('pointerdown', onPointerDown, o);
    for (const t of ['mousedown', 'pointerup', 'mouseup']) window.addEventListener(t, onPointingMouse, o);
    window.addEventListener('click', onClick, o);
    window.addEventListener('input', onInput, o);
    window.addEventListener('change', onChange, o);
    window.addEventListener('keydown', onKeyDown, o);
    window.addEventListener('keyup', onKeyUp, o);
    // A page left with a field typed into but not blurred: report it.
    window.addEventListener('pagehide', flush, o);
    return true;
  };

  // mk.recordFlush() reports a fill still pending (when the recording ends).
  mk.recordFlush = () => flush();
}
