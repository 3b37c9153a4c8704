// Perception: one evaluation lists the page's interactive and landmark
// elements with role, name, value, states, visibility, geometry and page
// signals (open dialogs, validation messages, live-region text).
//
// Cost model: a single walk with cheap attribute/tag checks; per kept element
// one getBoundingClientRect, one checkVisibility and, when on screen, one
// elementFromPoint. No getComputedStyle per node, no DOM writes.
{
  const norm = mk.norm;

  const INTERACTIVE = new Set(['button', 'link', 'checkbox', 'radio', 'switch', 'tab', 'menuitem', 'menuitemcheckbox',
    'menuitemradio', 'option', 'combobox', 'textbox', 'searchbox', 'slider', 'spinbutton', 'treeitem', 'listbox',
    'scrollbar']);
  const LANDMARK = new Set(['banner', 'navigation', 'main', 'contentinfo', 'complementary', 'region', 'form', 'search',
    'dialog', 'alertdialog']);
  const LIVE_ROLES = new Set(['status', 'alert', 'log', 'marquee', 'timer']);
  mk.INTERACTIVE_ROLES = INTERACTIVE;
  mk.LANDMARK_ROLES = LANDMARK;

  // deepActive is the focused element, drilled through shadow roots and
  // same-origin iframes.
  const deepActive = () => {
    let a = document.activeElement;
    for (let guard = 0; a && guard < 32; guard++) {
      if (a.shadowRoot && a.shadowRoot.activeElement) { a = a.shadowRoot.activeElement; continue; }
      if (a.tagName === 'IFRAME' || a.tagName === 'FRAME') {
        const d = mk.frameDoc(a);
        if (d && d.activeElement && d.activeElement !== d.body) { a = d.activeElement; continue; }
      }
      break;
    }
    return a;
  };
  mk.deepActive = deepActive;

  const isFormControl = (el) => el.tagName === 'INPUT' || el.tagName === 'SELECT' || el.tagName === 'TEXTAREA' || el.tagName === 'BUTTON';

  // invalid: aria-invalid, :user-invalid (after interaction or a submit
  // attempt), or a non-empty value that fails constraint validation.
  const isInvalid = (el) => {
    const ai = el.getAttribute('aria-invalid');
    if (ai && ai !== 'false') return true;
    if (!(el.tagName === 'INPUT' || el.tagName === 'SELECT' || el.tagName === 'TEXTAREA')) return false;
    if (!el.willValidate) return false;
    try { if (el.matches(':user-invalid')) return true; } catch (e) { /* old engines */ }
    return !!el.value && !el.validity.valid;
  };
  mk.isInvalid = isInvalid;

  const MAX_VALUE = 200;
  const valueOf = (el, role) => {
    const tag = el.tagName;
    if (tag === 'INPUT') {
      const t = (el.type || '').toLowerCase();
      if (t === 'checkbox' || t === 'radio' || t === 'submit' || t === 'button' || t === 'reset' || t === 'image' || t === 'hidden') return '';
      if (t === 'password') return el.value ? '\u2022'.repeat(Math.min(el.value.length, 8)) : '';
      if (t === 'file') return Array.from(el.files || [], (f) => f.name).join(', ');
      return el.value.slice(0, MAX_VALUE);
    }
    if (tag === 'TEXTAREA') return el.value.slice(0, MAX_VALUE);
    if (tag === 'SELECT') return Array.from(el.selectedOptions, (o) => norm(o.label || o.textContent)).join(', ').slice(0, MAX_VALUE);
    if (role === 'slider' || role === 'spinbutton' || role === 'progressbar' || role === 'meter' || role === 'scrollbar') {
      return el.getAttribute('aria-valuetext') || el.getAttribute('aria-valuenow') || '';
    }
    if ((role === 'textbox' || role === 'searchbox' || role === 'combobox') && el.isContentEditable) return norm(el.textContent).slice(0, MAX_VALUE);
    if (role === 'combobox' || role === 'textbox' || role === 'searchbox') return el.getAttribute('aria-valuetext') || '';
    return '';
  };
  mk.valueOf = valueOf;

  // states packs the element's ARIA/HTML states.
  const statesOf = (el, role, focused) => {
    const s = {};
    const tag = el.tagName;
    const type = tag === 'INPUT' ? (el.type || '').toLowerCase() : '';
    if (type === 'checkbox' || type === 'radio') {
      s.checkable = true;
      if (el.indeterminate) s.mixed = true;
      else if (el.checked) s.checked = true;
    } else if (role === 'checkbox' || role === 'radio' || role === 'switch' || role === 'menuitemcheckbox' || role === 'menuitemradio' || el.hasAttribute('aria-pressed')) {
      s.checkable = true;
      const v = el.getAttribute('aria-checked') ?? el.getAttribute('aria-pressed');
      if (v === 'mixed') s.mixed = true;
      else if (v === 'true') s.checked = true;
    }
    const exp = el.getAttribute('aria-expanded');
    if (exp === 'true' || exp === 'false') {
      s.expandable = true;
      s.expanded = exp === 'true';
    } else if (tag === 'SUMMARY' && el.parentElement && el.parentElement.tagName === 'DETAILS') {
      s.expandable = true;
      s.expanded = el.parentElement.open;
    }
    if (tag === 'OPTION' ? el.selected : el.getAttribute('aria-selected') === 'true') s.selected = true;
    if ((isFormControl(el) || tag === 'OPTION' || tag === 'FIELDSET') && el.matches(':disabled')) s.disabled = true;
    else if (el.getAttribute('aria-disabled') === 'true' || (el.closest && el.closest('[aria-disabled="true"]'))) s.disabled = true;
    if (el.required || el.getAttribute('aria-required') === 'true') s.required = true;
    if (el.readOnly && (tag === 'INPUT' || tag === 'TEXTAREA')) s.readonly = true;
    else if (el.getAttribute('aria-readonly') === 'true') s.readonly = true;
    if (isInvalid(el)) s.invalid = true;
    if (el === focused) s.focused = true;
    return s;
  };
  mk.statesOf = (el) => statesOf(el, mk.role(el), deepActive());

  // errorText is the message that explains an invalid field.
  const errorText = (el) => {
    if (el.validationMessage && el.validity && !el.validity.valid) return norm(el.validationMessage);
    for (const attr of ['aria-errormessage', 'aria-describedby']) {
      const refs = mk.byIds(el, attr);
      const s = norm(refs.map((r) => norm(r.innerText || r.textContent)).join(' '));
      if (s) return s;
    }
    return '';
  };
  mk.errorText = errorText;

  const isLive = (el, role) => {
    const live = el.getAttribute('aria-live');
    if (live) return live !== 'off';
    return LIVE_ROLES.has(role);
  };

  // mk.snapshot(opts) -> {url, title, viewport, elements, signals, truncated, ms}
  // opts: {headings: bool, max: int, noHitTest: bool}. Each element:
  // {ref, role, name, tag, states, visible, in_viewport, occluded, box,
  // selector, frame, type?, value?, level?, href?, landmark?}.
  mk.snapshot = (opts) => mk.withScan(() => {
    opts = opts || {};
    const t0 = performance.now();
    const max = opts.max > 0 ? opts.max : 5000;
    const vw = window.innerWidth;
    const vh = window.innerHeight;
    const focused = deepActive();
    const topClip = mk.frameClip(document);
    const elements = [];
    const dialogs = [];
    const validation = [];
    const live = [];
    let truncated = false;
    mk.walk((el, frame) => {
      const role = mk.role(el);
      const tag = el.tagName;
      if (role === 'option' && tag === 'OPTION') return; // the select reports its value
      if (isLive(el, role)) {
        // Nested regions report once, through the outermost.
        if (!live.some((l) => l.el.contains(el))) live.push({ el, role, frame });
      }
      let keep = INTERACTIVE.has(role) || LANDMARK.has(role) || (opts.headings && role === 'heading');
      if (!keep && !role) {
        // Generic elements a user can still operate: focusable or inline
        // click handlers.
        const ti = el.getAttribute('tabindex');
        keep = (ti !== null && +ti >= 0) || el.hasAttribute('onclick');
      }
      if (!keep) return;
      if (elements.length >= max) { truncated = true; return false; }
      const r = el.getBoundingClientRect();
      const off = el.ownerDocument === document ? null : mk.frameOffset(el.ownerDocument);
      const box = { x: r.left + (off ? off.x : 0), y: r.top + (off ? off.y : 0), width: r.width, height: r.height };
      let visible = el.isConnected && r.width > 0 && r.height > 0 && el.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true });
      if (visible && off) visible = mk.visible(el.ownerDocument.defaultView.frameElement);
      const clip = off ? mk.frameClip(el.ownerDocument) : topClip;
      const inViewport = visible && box.x < clip.x2 && box.y < clip.y2 && box.x + box.width > clip.x1 && box.y + box.height > clip.y1;
      // Default-valued keys (no states, not occluded, top frame) are left
      // out: the result of a 2,000-element page is ~0.5 MB of JSON.
      const e = {
        ref: mk.ref(el),
        role: role || 'generic',
        name: mk.name(el) || (role ? '' : mk.contentText(el).slice(0, 80)),
        tag: el.localName,
        visible,
        in_viewport: inViewport,
        box,
        selector: mk.selector(el),
      };
      const st = statesOf(el, role, focused);
      for (const k in st) { e.states = st; break; }
      if (frame) e.frame = frame;
      if (tag === 'INPUT') e.type = (el.type || '').toLowerCase();
      const v = valueOf(el, role);
      if (v) e.value = v;
      if (role === 'heading') e.level = +(el.getAttribute('aria-level') || tag.slice(1)) || 0;
      if (role === 'link') e.href = el.getAttribute('href') || '';
      if (LANDMARK.has(role)) e.landmark = true;
      if (inViewport && !opts.noHitTest && !e.landmark && mk.hitTest(el, box).occluded) e.occluded = true;
      if ((role === 'dialog' || role === 'alertdialog') && visible) {
        let modal = el.getAttribute('aria-modal') === 'true';
        try { modal = modal || el.matches(':modal'); } catch (err) { /* ignore */ }
        dialogs.push({ index: elements.length, role, name: e.name, modal, selector: e.selector, frame, text: norm(el.innerText).slice(0, 300) });
      }
      if (st.invalid) {
        validation.push({ index: elements.length, role: e.role, name: e.name, selector: e.selector, frame, message: errorText(el) });
      }
      elements.push(e);
    });
    // Invalid fields the walk dropped (e.g. no role) are rare; live regions
    // need their text, read only for the few that exist.
    const liveOut = [];
    for (const l of live) {
      if (!mk.visible(l.el)) continue;
      const text = norm(l.el.innerText).slice(0, 300);
      if (!text) continue;
      liveOut.push({ role: l.role || '', live: l.el.getAttribute('aria-live') || (l.role === 'alert' ? 'assertive' : 'polite'), text, selector: mk.selector(l.el), frame: l.frame });
    }
    // <dialog open> elements that are not visible are closed for a user.
    return {
      url: location.href,
      title: document.title,
      viewport: { width: vw, height: vh },
      elements,
      signals: { dialogs, validation, live: liveOut },
      truncated,
      ms: performance.now() - t0,
    };
  });
}
