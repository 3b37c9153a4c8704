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

  const editable = (el) => el.tagName === 'INPUT' || el.tagName === 'TEXTAREA' || el.isContentEditable;
  const focusable = (el) => editable(el) || el.tagName === 'SELECT' || el.tagName === 'BUTTON' ||
    (el.hasAttribute && el.hasAttribute('tabindex') && el.tabIndex >= 0);

  // mk.actTypeTarget picks what the focusing click goes to: the element
  // when it takes focus itself, else the first visible focusable part
  // inside it (a sectioned field's first section: where a person clicks to
  // type a whole date), else the element.
  mk.actTypeTarget = (ref) => {
    const el = mk.deref(ref);
    if (!el || !el.isConnected) return {ok: false, reason: 'detached'};
    if (focusable(el)) return {ok: true, ref};
    let first = null, firstEditable = null;
    mk.withScan(() => mk.walk((c) => {
      if (c === el || !mk.visible(c)) return;
      if (!firstEditable && editable(c) && c.tabIndex >= -1) firstEditable = c;
      if (focusable(c)) { first = c; return false; }
    }, el));
    const t = first || firstEditable;
    return t ? {ok: true, ref: mk.ref(t), via: mk.describe(t)} : {ok: true, ref};
  };

  // mk.actTypePrep runs after the focusing click: whether focus is on the
  // element or inside it (else it focuses the element itself), whether the
  // element is a plain text control, and its text before typing.
  // field is what is read back: the focused part when it is a plain
  // control inside the element, else the element.
  const field = (el, f) => (f && f !== el && isPlain(f) ? f : el);
  mk.actTypePrep = (ref, focusRef) => {
    const el = mk.deref(ref), f = mk.deref(focusRef) || el;
    if (!el || !el.isConnected) return {ok: false, reason: 'detached'};
    let a = deepActive();
    if (!a || !mk.contains(el, a)) {
      if (f.focus) f.focus();
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
