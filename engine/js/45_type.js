// 45_type.js — the in-page half of type (type.go): is the field a plain
// text control, did the click focus it, and what does it hold.
{
  const PLAIN_TYPES = new Set(['', 'text', 'search', 'email', 'url', 'tel', 'password', 'number']);
  // plain: an input or textarea whose value is the typed text (not a
  // sectioned or masked widget made of spans).
  const isPlain = (el) => el.tagName === 'TEXTAREA' || (el.tagName === 'INPUT' && PLAIN_TYPES.has(el.type));
  const deepActive = () => {
    let a = document.activeElement;
    while (a && a.shadowRoot && a.shadowRoot.activeElement) a = a.shadowRoot.activeElement;
    while (a && a.tagName === 'IFRAME') {
      let d = null;
      try { d = a.contentDocument; } catch (_) { d = null; }
      if (!d || !d.activeElement) break;
      a = d.activeElement;
    }
    return a;
  };
  const textOf = (el) => (isPlain(el) ? el.value : norm(el.innerText || el.textContent || ''));

  const editable = (el) => el.tagName === 'TEXTAREA' || el.isContentEditable ||
    (el.tagName === 'INPUT' && el.type !== 'hidden' && el.getAttribute('aria-hidden') !== 'true');
  const focusable = (el) => editable(el) || el.tagName === 'SELECT' || el.tagName === 'BUTTON' ||
    (el.hasAttribute && el.hasAttribute('tabindex') && el.tabIndex >= 0);
  // firstEditable is the first editable part inside el (tabbable ones
  // first), visible or not: null when there is none.
  const firstEditable = (el, visibleOnly) => {
    let first = null, tabbable = null;
    mk.withScan(() => mk.walk((c) => {
      if (c === el || !editable(c) || (visibleOnly && !mk.visible(c))) return;
      if (!first) first = c;
      if (c.tabIndex >= 0) { tabbable = c; return false; }
    }, el));
    return tabbable || first;
  };

  // mk.actTypeTarget picks what the focusing click goes to: the element
  // when it takes focus itself, else its first visible editable part (a
  // sectioned field's first section: where a person clicks to type a whole
  // date), else the element. Never a button inside it (a picker's opener).
  mk.actTypeTarget = (ref) => {
    const el = mk.deref(ref);
    if (!el || !el.isConnected) return {ok: false, reason: 'detached'};
    if (focusable(el)) return {ok: true, ref};
    const t = firstEditable(el, true);
    return t ? {ok: true, ref: mk.ref(t), via: mk.describe(t)} : {ok: true, ref};
  };

  // field is what is read back: the focused part when it is a plain
  // control inside the element, else the element.
  const field = (el, f) => (f && f !== el && isPlain(f) ? f : el);
  mk.actTypePrep = (ref, focusRef) => {
    const el = mk.deref(ref), f = mk.deref(focusRef) || el;
    if (!el || !el.isConnected) return {ok: false, reason: 'detached'};
    let a = deepActive();
    if (!a || !mk.contains(el, a)) {
      // The click did not focus it: focus it, or its first editable part
      // (a sectioned field hides its sections until focused).
      const g = focusable(f) ? f : (firstEditable(el, false) || f);
      if (g.focus) g.focus();
      a = deepActive();
    }
    const fd = field(el, f);
    return {ok: true, plain: isPlain(fd), before: textOf(fd), focused: !!a && mk.contains(el, a),
      active: a && a !== document.body ? mk.describe(a) : null};
  };

  // alnum keeps letters and digits: a plain field that formats what is
  // typed (a phone mask adding spaces and dashes) still holds the text.
  const alnum = (s) => String(s).replace(/[^\p{L}\p{N}]/gu, '').toLowerCase();

  // mk.actTypeRead reads the element's text after typing, waiting up to wait
  // ms, on a plain field, for its value to contain the typed text.
  mk.actTypeRead = async (ref, focusRef, typed, wait) => {
    const deadline = performance.now() + (wait || 0);
    for (;;) {
      const el = mk.deref(ref);
      if (!el || !el.isConnected) return {attached: false, value: '', holds: false};
      const fd = field(el, mk.deref(focusRef));
      const v = textOf(fd);
      const holds = isPlain(fd) && alnum(v).includes(alnum(typed));
      if (!isPlain(fd) || holds || performance.now() >= deadline) return {attached: true, value: v, holds};
      await changeOrFrame(deadline);
    }
  };
}
