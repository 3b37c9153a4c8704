// 42_check.js — the in-page half of check and uncheck (check.go): the
// checkable control a target stands for, the state a user sees, and what
// to click. (Post-condition checks are 55_checks.js.)
{
  const checkRoles = new Set(['checkbox', 'switch', 'radio', 'menuitemcheckbox', 'menuitemradio']);
  const isNative = (el) => el.tagName === 'INPUT' && (el.type === 'checkbox' || el.type === 'radio');
  const checkable = 'input[type=checkbox],input[type=radio],[role=checkbox],[role=switch],[role=radio],[role=menuitemcheckbox]';
  // controlOf finds the checkable control of a target: itself, the control
  // of a label, or the single checkable element inside it.
  const controlOf = (el) => {
    if (isNative(el)) return el;
    if (checkRoles.has(el.getAttribute('role') || '')) return el;
    if (el.tagName === 'LABEL' && el.control && isNative(el.control)) return el.control;
    const inner = el.querySelectorAll(checkable);
    if (inner.length === 1) return inner[0];
    return null;
  };
  // ariaWrapper: a visible role=switch/checkbox/radio element close above a
  // hidden native input, carrying the state the user sees.
  const ariaWrapper = (c) => {
    let e = c.parentElement;
    for (let i = 0; e && i < 3; e = e.parentElement, i++) {
      if (checkRoles.has(e.getAttribute('role') || '') && e.hasAttribute('aria-checked')) return mk.visible(e) ? e : null;
    }
    return null;
  };
  // visibleWrapper: the nearest visible ancestor of a hidden control that
  // stands for it alone (holds no other checkable control): the element a
  // user clicks when the input itself is hidden and has no visible label
  // (Element Plus el-switch).
  const visibleWrapper = (c) => {
    let e = c.parentElement;
    for (let i = 0; e && i < 3 && e.tagName !== 'BODY' && e.tagName !== 'FORM'; e = e.parentElement, i++) {
      if (e.querySelectorAll(checkable).length > 1) return null;
      if (mk.visible(e)) return e;
    }
    return null;
  };
  const ariaState = (a) => (a === 'mixed' ? 'mixed' : a === 'true');
  // stateOf reads the state a user sees. A native input's own checked
  // state counts while the input is visible; a hidden one defers to ARIA:
  // a visible role=switch/checkbox wrapper, else the aria-checked it
  // carries itself, which custom switches keep in step with what they
  // show while their hidden input may lag (Element Plus el-switch).
  const stateOf = (c) => {
    if (!isNative(c)) return {kind: 'aria', type: c.getAttribute('role'), checked: ariaState(c.getAttribute('aria-checked'))};
    const native = {kind: 'native', type: c.type, checked: c.indeterminate ? 'mixed' : c.checked};
    if (mk.visible(c)) return native;
    const w = ariaWrapper(c);
    if (w) return {kind: 'aria', type: c.type, checked: ariaState(w.getAttribute('aria-checked')), from: 'visible role wrapper'};
    if (c.hasAttribute('aria-checked')) return {kind: 'aria', type: c.type, checked: ariaState(c.getAttribute('aria-checked')), from: 'aria-checked'};
    return native;
  };
  const visibleLabel = (c) => {
    if (!c.labels) return false;
    for (const l of c.labels) if (mk.visible(l)) return true;
    return false;
  };
  // mk.actChecked reports {ok, kind ('native'|'aria'), type, checked
  // (true|false|'mixed'), control (ref), click (ref of the element to
  // click: 0 for the target itself)} for a checkable target.
  mk.actChecked = (ref) => {
    const el = mk.deref(ref);
    if (!el || !el.isConnected) return {ok: false, reason: 'detached'};
    const c = controlOf(el);
    if (!c) return {ok: false, reason: 'not a checkbox, radio or switch'};
    const st = Object.assign({ok: true, control: mk.ref(c), click: 0}, stateOf(c));
    if (!mk.visible(el) && !(isNative(c) && visibleLabel(c))) {
      const w = ariaWrapper(c) || visibleWrapper(c);
      if (w) st.click = mk.ref(w);
    }
    return st;
  };
  // mk.actWaitChecked waits (ms) for the control's state to equal want.
  mk.actWaitChecked = async (ref, want, wait) => {
    const deadline = performance.now() + (wait || 0);
    for (;;) {
      const st = mk.actChecked(ref);
      if (!st.ok || st.checked === want || performance.now() >= deadline) return st;
      await changeOrFrame(deadline);
    }
  };
}
