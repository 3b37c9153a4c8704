// 42_check.js — the in-page half of check and uncheck (check.go): the
// checkable control a target stands for and its state. (Post-condition
// checks are 55_checks.js.)
{
  const checkRoles = new Set(['checkbox', 'switch', 'radio', 'menuitemcheckbox', 'menuitemradio']);
  // controlOf finds the checkable control of a target: itself, the control
  // of a label, or the single checkable element inside it.
  const controlOf = (el) => {
    if (el.tagName === 'INPUT' && (el.type === 'checkbox' || el.type === 'radio')) return el;
    if (checkRoles.has(el.getAttribute('role') || '')) return el;
    if (el.tagName === 'LABEL' && el.control && (el.control.type === 'checkbox' || el.control.type === 'radio')) return el.control;
    const inner = el.querySelectorAll('input[type=checkbox],input[type=radio],[role=checkbox],[role=switch],[role=radio],[role=menuitemcheckbox]');
    if (inner.length === 1) return inner[0];
    return null;
  };
  // mk.actChecked reports {ok, kind ('native'|'aria'), type, checked
  // (true|false|'mixed'), control (ref)} for a checkable target.
  mk.actChecked = (ref) => {
    const el = mk.deref(ref);
    if (!el || !el.isConnected) return {ok: false, reason: 'detached'};
    const c = controlOf(el);
    if (!c) return {ok: false, reason: 'not a checkbox, radio or switch'};
    if (c.tagName === 'INPUT') return {ok: true, kind: 'native', type: c.type, checked: c.indeterminate ? 'mixed' : c.checked, control: mk.ref(c)};
    const a = c.getAttribute('aria-checked');
    const role = c.getAttribute('role');
    return {ok: true, kind: 'aria', type: role, checked: a === 'mixed' ? 'mixed' : a === 'true', control: mk.ref(c)};
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
