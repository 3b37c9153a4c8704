// 40_act.js — execution: actionability, the click guard, the DOM input
// channel (hover, click, focus, fill) and scroll; the in-page halves of
// select, check, upload and press are 41_select.js to 44_press.js.
// Builds on 10_scan.js to 16_refs.js (mk.deref, mk.ref, mk.rect,
// mk.visible, mk.describe, mk.name, mk.role, mk.elementAt, mk.receives,
// mk.hitPoint, mk.frameClip, mk.composedParent, mk.contains) and
// 20_snapshot.js (mk.deepActive). Every function takes element refs, never
// selectors: grounding (30_match.js to 33_fingerprint.js) is the only target
// matcher.
//
// The helpers below, outside any block, are shared with 41_select.js to
// 43_upload.js: the loader (agent.go) puts the 4x files in one block, so
// they are in scope there. Private helpers live in the block.
const topWin = window;

// nextFrame resolves at the next animation frame of the top window. A
// document that produces no frames (hidden, throttled) falls back to a
// 100ms timer so waits stay bounded.
const nextFrame = () => new Promise((resolve) => {
  let done = false;
  const fire = () => { if (!done) { done = true; resolve(); } };
  topWin.requestAnimationFrame(fire);
  topWin.setTimeout(fire, 100);
});

// changeOrFrame resolves on the first DOM mutation, CSS transition or
// animation end anywhere in the top document, or at the next animation
// frame, or at the deadline (performance.now() ms), whichever is first.
const changeOrFrame = (deadline) => new Promise((resolve) => {
  let done = false, mo = null, timer = 0;
  const evs = ['transitionend', 'animationend', 'scroll', 'input', 'change'];
  const fire = () => {
    if (done) return;
    done = true;
    if (mo) mo.disconnect();
    topWin.clearTimeout(timer);
    for (const e of evs) topWin.removeEventListener(e, fire, true);
    resolve();
  };
  try {
    mo = new MutationObserver(fire);
    mo.observe(document, {subtree: true, childList: true, attributes: true, characterData: true});
  } catch (_) { mo = null; }
  for (const e of evs) topWin.addEventListener(e, fire, true);
  topWin.requestAnimationFrame(fire);
  timer = topWin.setTimeout(fire, Math.max(0, Math.min(100, deadline - performance.now())));
});

const norm = (s) => String(s == null ? '' : s).replace(/\s+/g, ' ').trim();
const parentOf = (n) => mk.composedParent(n);
const winOf = (el) => (el.ownerDocument && el.ownerDocument.defaultView) || topWin;

// nativeSetter returns the prototype's value setter for el, bypassing any
// instance-level setter a framework installed (React's value tracker), so
// the framework sees the change in the following input event.
const nativeSetter = (el, prop) => {
  const W = winOf(el);
  for (const C of [W.HTMLInputElement, W.HTMLTextAreaElement, W.HTMLSelectElement]) {
    if (el instanceof C) {
      const d = Object.getOwnPropertyDescriptor(C.prototype, prop);
      if (d && d.set) return d.set;
    }
  }
  return null;
};
// fireInput dispatches the input and change events of a value change.
const fireInput = (el, data) => {
  const W = winOf(el);
  let ev;
  try { ev = new W.InputEvent('input', {bubbles: true, composed: true, inputType: 'insertText', data}); } catch (_) { ev = new W.Event('input', {bubbles: true, composed: true}); }
  el.dispatchEvent(ev);
  el.dispatchEvent(new W.Event('change', {bubbles: true}));
};

// idrefs resolves an IDREF list attribute (aria-controls, aria-owns, for)
// in el's tree scope, then its document.
const idrefs = (el, attr) => {
  const v = el.getAttribute(attr);
  if (!v) return [];
  const root = el.getRootNode();
  return v.split(/\s+/).map((id) => (root.getElementById ? root.getElementById(id) : null) || el.ownerDocument.getElementById(id)).filter(Boolean);
};

{
  // animating reports whether a CSS animation, transition or Web Animation
  // is running in the element's document or the top document.
  const animating = (el) => {
    const running = (d) => {
      try {
        return d.getAnimations().some((a) => a.playState === 'running');
      } catch (_) {
        return true; // cannot tell: be careful
      }
    };
    const own = el.ownerDocument;
    return running(own) || (own !== document && running(document));
  };
  // nextTask resolves after one task turn. A MessageChannel message is a
  // task without setTimeout's clamping, so the turn costs no idle time.
  const nextTask = () => new Promise((resolve) => {
    const ch = new MessageChannel();
    ch.port1.onmessage = () => { ch.port1.close(); resolve(); };
    ch.port2.postMessage(0);
  });

  const styleOf = (el) => winOf(el).getComputedStyle(el);

  const FORM_TAGS = new Set(['BUTTON', 'INPUT', 'SELECT', 'TEXTAREA', 'OPTGROUP', 'OPTION', 'FIELDSET']);
  // disabledReason says why el cannot be operated, or '' when it can.
  const disabledReason = (el) => {
    if (FORM_TAGS.has(el.tagName)) {
      try { if (el.matches(':disabled')) return 'disabled'; } catch (_) { /* ignore */ }
    }
    for (let c = el; c; c = parentOf(c)) {
      if (c.getAttribute && c.getAttribute('aria-disabled') === 'true') return c === el ? 'aria-disabled' : 'ancestor aria-disabled';
      if (c.hasAttribute && c.hasAttribute('inert')) return 'inert';
    }
    // An element inside an inert (e.g. modal-backdrop) subtree or a frame
    // whose host is inert.
    const fe = winOf(el).frameElement;
    if (fe && fe.closest && fe.closest('[inert]')) return 'inert';
    return '';
  };

  const NON_TEXT_INPUTS = new Set(['button', 'checkbox', 'radio', 'file', 'submit', 'reset', 'image', 'hidden', 'range', 'color']);
  const notEditableReason = (el) => {
    if (el.tagName === 'INPUT') {
      if (NON_TEXT_INPUTS.has(el.type)) return 'input type=' + el.type + ' is not fillable';
      if (el.readOnly) return 'readonly';
    } else if (el.tagName === 'TEXTAREA') {
      if (el.readOnly) return 'readonly';
    } else if (!el.isContentEditable) {
      return 'not an input, textarea or contenteditable element';
    }
    if (el.getAttribute('aria-readonly') === 'true') return 'aria-readonly';
    return '';
  };

  const round = (v) => Math.round(v * 100) / 100;
  // boxOf is mk.rect rounded to 1/100 px: {x, y, width, height} in
  // top-level viewport CSS px.
  const boxOf = (el) => { const b = mk.rect(el); return {x: round(b.x), y: round(b.y), width: round(b.width), height: round(b.height)}; };
  const sameBox = (a, b) => Math.abs(a.x - b.x) < 0.5 && Math.abs(a.y - b.y) < 0.5 && Math.abs(a.width - b.width) < 0.5 && Math.abs(a.height - b.height) < 0.5;
  // clipOf is the part of the top-level viewport through which el's
  // document is seen (its iframes' viewports included).
  const clipOf = (el) => (mk.frameClip ? mk.frameClip(el.ownerDocument) : {x1: 0, y1: 0, x2: topWin.innerWidth, y2: topWin.innerHeight});
  const fullyInView = (b, el) => {
    const c = clipOf(el);
    return b.x >= c.x1 && b.y >= c.y1 && b.x + b.width <= c.x2 && b.y + b.height <= c.y2;
  };
  // clickPoint is the centre of the part of el's box a user can see
  // (mk.hitPoint), or null when none of it is.
  const clickPoint = (b, el) => {
    const p = mk.hitPoint(b, clipOf(el));
    return p ? {x: round(p.x), y: round(p.y)} : null;
  };

  // visibleLabel returns a visible <label> of a native control, for controls
  // that are themselves hidden behind a styled label.
  const visibleLabel = (el) => {
    if (!el.labels) return null;
    for (const l of el.labels) if (mk.visible(l)) return l;
    return null;
  };
  // hitAccepts: the hit element is el, inside el, in a label of el
  // (clicking a label operates its control), or the shadow host whose
  // slotted text at pt renders inside el — mk.receives.
  const hitAccepts = (el, hit, pt) => mk.receives(el, hit, pt);

  // check performs one actionability evaluation. opts:
  //   visible, enabled, editable, pointer, stable, scroll (booleans),
  //   label (a hidden native checkbox/radio may be operated through its label).
  const check = async (ref, opts) => {
    const rep = {ok: false, code: '', reason: '', attached: false, visible: false, stable: false, enabled: false,
      editable: false, in_viewport: false, receives_pointer: false, scrolled: false, box: null, point: null, hit: null, via: null, viaRef: 0};
    let el = mk.deref(ref);
    if (!el || !el.isConnected) { rep.code = 'not_found'; rep.reason = 'element is detached from the document'; return rep; }
    rep.attached = true;
    rep.target = mk.describe(el);
    const fail = (code, reason) => { rep.code = code; rep.reason = reason; return rep; };
    // A hidden native checkbox/radio is operated through its visible label.
    let acting = el;
    if (opts.label && el.tagName === 'INPUT' && (el.type === 'checkbox' || el.type === 'radio') && !mk.visible(el)) {
      const l = visibleLabel(el);
      if (l) { acting = l; rep.via = mk.describe(l); rep.viaRef = mk.ref(l); }
    }
    rep.visible = mk.visible(acting);
    if (opts.visible && !rep.visible) return fail('not_interactable', 'element is not visible');
    const dis = disabledReason(el);
    rep.enabled = !dis;
    if (opts.enabled && dis) return fail('not_interactable', 'element is ' + dis);
    if (opts.pointer && styleOf(acting).pointerEvents === 'none') return fail('not_interactable', 'element has pointer-events: none');
    const ne = notEditableReason(el);
    rep.editable = !ne && !dis;
    if (opts.editable && ne) return fail('not_interactable', ne);
    if (!opts.visible && !opts.pointer) { rep.ok = true; return rep; }
    let b = boxOf(acting);
    rep.box = b;
    if (opts.scroll !== false && !fullyInView(b, acting)) {
      acting.scrollIntoView({block: 'center', inline: 'center', behavior: 'instant'});
      rep.scrolled = true;
      b = boxOf(acting);
      rep.box = b;
    }
    rep.in_viewport = clickPoint(b, acting) !== null;
    if (opts.stable && !animating(acting)) {
      // Nothing is animating: a box only moves by script, and the click
      // guard catches a click that lands elsewhere. No frame to wait for.
      rep.stable = true;
    } else if (opts.stable) {
      await nextFrame();
      if (!acting.isConnected) { rep.attached = false; return fail('not_found', 'element was detached while checking'); }
      const b2 = boxOf(acting);
      rep.stable = sameBox(b, b2);
      rep.box = b = b2;
      if (!rep.stable) return fail('not_interactable', 'element is moving (box changed between animation frames)');
    } else {
      rep.stable = true;
    }
    const pt = clickPoint(b, acting);
    if (!pt) return fail('not_interactable', 'element is outside the viewport after scrolling');
    rep.point = pt;
    if (!opts.pointer) { rep.ok = true; return rep; }
    const hit = mk.elementAt(pt.x, pt.y);
    rep.hit = hit ? mk.describe(hit) : null;
    rep.receives_pointer = hitAccepts(acting, hit, pt);
    if (!rep.receives_pointer) {
      return fail('occluded', hit ? 'element is covered by ' + describeText(hit) : 'no element at the click point');
    }
    rep.ok = true;
    return rep;
  };
  const describeText = (el) => {
    const d = mk.describe(el);
    return (d.role ? d.role + ' ' : '') + (d.name ? JSON.stringify(d.name.slice(0, 60)) + ' ' : '') + '<' + d.tag + '> ' + d.selector;
  };

  // mk.actionable(ref, opts) evaluates actionability and, when opts.wait > 0
  // (ms), waits for it — re-checking on DOM mutations, transitions and
  // animation frames — until it holds or the wait ends. It resolves to the
  // last report: {ok, code, reason, attached, visible, stable, enabled,
  // editable, in_viewport, receives_pointer, scrolled, box, point, hit, via,
  // viaRef, target}. A detached element is reported at once (waiting cannot
  // re-attach the same node).
  mk.actionable = async (ref, opts) => {
    opts = Object.assign({visible: true, enabled: true, editable: false, pointer: true, stable: true, scroll: true, label: false, wait: 0}, opts || {});
    const deadline = performance.now() + (opts.wait || 0);
    for (;;) {
      const rep = await check(ref, opts);
      // opts.guard installs the click guard in the same round trip.
      if (rep.ok && opts.guard) rep.guard = mk.actGuard(rep.viaRef || ref);
      // opts.fillPrep runs the fill preparation in the same round trip.
      if (rep.ok && opts.fillPrep) rep.prep = mk.actFillPrep(ref);
      if (rep.ok || rep.code === 'not_found' || performance.now() >= deadline) return rep;
      await changeOrFrame(deadline);
    }
  };

  // mk.actGuard(ref) watches the next pointer/mouse/click events in el's
  // window and the top window (capture phase, so it runs first). When the
  // first event targets something that does not count as el (mk.receives),
  // that event and the rest of the click are blocked (preventDefault and
  // stopImmediatePropagation), so a click that something slid over in the
  // meantime never lands on it. mk.actGuardDone(id) removes the listeners
  // and reports {seen, ok, blocked, hit}.
  const guards = new Map();
  let guardSeq = 0;
  const GUARD_TYPES = ['pointerdown', 'mousedown', 'pointerup', 'mouseup', 'click', 'auxclick', 'dblclick'];
  mk.actGuard = (ref) => {
    const el = mk.deref(ref);
    if (!el) return 0;
    const id = ++guardSeq;
    const g = {el, seen: null, ok: true, blocked: false, wins: Array.from(new Set([topWin, winOf(el)]))};
    g.handler = (ev) => {
      const path = ev.composedPath ? ev.composedPath() : [];
      const t = path.length ? path[0] : ev.target;
      if (g.seen === null) {
        g.seen = t && t.nodeType === 1 ? t : (t && t.parentElement) || null;
        g.ok = mk.receives(el, g.seen);
      }
      if (!g.ok) {
        g.blocked = true;
        ev.preventDefault();
        ev.stopImmediatePropagation();
      }
    };
    for (const w of g.wins) for (const ty of GUARD_TYPES) w.addEventListener(ty, g.handler, true);
    guards.set(id, g);
    return id;
  };
  mk.actGuardDone = (id) => {
    const g = guards.get(id);
    if (!g) return {seen: false, ok: true, blocked: false, hit: null};
    guards.delete(id);
    for (const w of g.wins) for (const ty of GUARD_TYPES) w.removeEventListener(ty, g.handler, true);
    return {seen: !!g.seen, ok: g.ok, blocked: g.blocked, hit: g.seen && g.seen.isConnected ? mk.describe(g.seen) : null};
  };

  // mk.actSettle waits for the page to process what an input event queued:
  // one animation frame, then one task turn.
  // A click's handlers, a link's default action and window.open run while
  // the input is dispatched; a form submission is queued as a task. One
  // task turn lets those start so their CDP events precede our answer.
  mk.actSettle = async () => { await nextTask(); return true; };

  // mk.actGuardSettle(id) is actSettle and actGuardDone in one round trip.
  mk.actGuardSettle = async (id) => { await nextTask(); return mk.actGuardDone(id); };

  // mk.actDeref returns the node for ref (for Go handles), or null.
  mk.actDeref = (ref) => mk.deref(ref);

  const focusableAncestor = (el) => {
    for (let c = el; c; c = parentOf(c)) {
      if (c.tabIndex >= 0 || c.isContentEditable || FORM_TAGS.has(c.tagName) || (c.tagName === 'A' && c.hasAttribute('href'))) return c;
    }
    return null;
  };
  const mouseInit = (el, extra) => {
    const r = el.getBoundingClientRect();
    return Object.assign({bubbles: true, cancelable: true, composed: true, view: winOf(el),
      clientX: r.left + r.width / 2, clientY: r.top + r.height / 2, screenX: 0, screenY: 0,
      button: 0, buttons: 0, detail: 1, pointerId: 1, pointerType: 'mouse', isPrimary: true}, extra || {});
  };
  const fireMouse = (el, type, extra, pointer) => {
    const W = winOf(el);
    const Ctor = pointer && W.PointerEvent ? W.PointerEvent : W.MouseEvent;
    const init = mouseInit(el, extra);
    if (type.endsWith('enter') || type.endsWith('leave')) { init.bubbles = false; init.cancelable = false; }
    return el.dispatchEvent(new Ctor(type, init));
  };

  // mk.actDomHover dispatches the pointer/mouse events of moving onto el.
  mk.actDomHover = (ref) => {
    const el = mk.deref(ref);
    if (!el || !el.isConnected) return {ok: false, reason: 'detached'};
    fireMouse(el, 'pointerover', {}, true);
    fireMouse(el, 'pointerenter', {}, true);
    fireMouse(el, 'mouseover', {});
    fireMouse(el, 'mouseenter', {});
    fireMouse(el, 'pointermove', {}, true);
    fireMouse(el, 'mousemove', {});
    return {ok: true};
  };

  // mk.actDomClick clicks el through DOM events: the pointer and mouse event
  // sequence of a real click, focus, then el.click() (which runs the
  // element's activation behaviour: links, submit buttons, checkboxes).
  mk.actDomClick = (ref) => {
    const el = mk.deref(ref);
    if (!el || !el.isConnected) return {ok: false, reason: 'detached'};
    mk.actDomHover(ref);
    const down = fireMouse(el, 'pointerdown', {buttons: 1}, true) && fireMouse(el, 'mousedown', {buttons: 1});
    if (down) {
      const f = focusableAncestor(el);
      if (f && f.focus) f.focus({preventScroll: true});
    }
    fireMouse(el, 'pointerup', {}, true);
    fireMouse(el, 'mouseup', {});
    el.click();
    return {ok: true};
  };

  const deepActive = () => mk.deepActive();
  mk.actFocused = () => { const a = deepActive(); return a && a !== document.body ? mk.describe(a) : null; };

  // mk.actFocus focuses el (scrolling it into view); reports whether focus
  // landed on el or inside it.
  mk.actFocus = (ref) => {
    const el = mk.deref(ref);
    if (!el || !el.isConnected) return {ok: false, focused: false, reason: 'detached'};
    const f = el.focus ? el : focusableAncestor(el);
    if (f) f.focus();
    const a = deepActive();
    return {ok: true, focused: !!a && mk.contains(el, a), active: a && a !== document.body ? mk.describe(a) : null};
  };

  // valueOf reads what a fill changes: the value of inputs, textareas and
  // selects, the text of contenteditable elements.
  const valueOf = (el) => {
    if (el.tagName === 'INPUT' || el.tagName === 'TEXTAREA' || el.tagName === 'SELECT') return el.value;
    if (el.isContentEditable) return el.innerText.replace(/\n$/, '');
    if ('value' in el && typeof el.value === 'string') return el.value;
    return el.textContent;
  };

  // mk.actFillPrep focuses el and selects its whole content so typed text
  // replaces it. It reports the value before, the input type and whether
  // the value must be set through the DOM channel (date and similar inputs
  // take no typed text).
  const DOM_ONLY_TYPES = new Set(['date', 'time', 'datetime-local', 'month', 'week', 'color', 'range']);
  mk.actFillPrep = (ref) => {
    const el = mk.deref(ref);
    if (!el || !el.isConnected) return {ok: false, reason: 'detached'};
    const before = valueOf(el);
    const type = el.tagName === 'INPUT' ? el.type : el.tagName.toLowerCase();
    if (el.tagName === 'INPUT' && DOM_ONLY_TYPES.has(el.type)) return {ok: true, before, type, domOnly: true};
    el.focus();
    if (el.tagName === 'INPUT' || el.tagName === 'TEXTAREA') {
      try { el.select(); } catch (_) { /* ignore */ }
      try { el.setSelectionRange(0, el.value.length); } catch (_) { /* types without selection API */ }
    } else if (el.isContentEditable) {
      const sel = winOf(el).getSelection(), range = el.ownerDocument.createRange();
      range.selectNodeContents(el);
      sel.removeAllRanges();
      sel.addRange(range);
    }
    const a = deepActive();
    return {ok: true, before, type, domOnly: false, focused: !!a && mk.contains(el, a)};
  };

  // mk.setValue sets el's value through the DOM (the native prototype setter,
  // then bubbling input and change events) — the React/Vue-compatible
  // channel. Reports the value before and after.
  mk.setValue = (ref, value) => {
    const el = mk.deref(ref);
    if (!el || !el.isConnected) return {ok: false, reason: 'detached'};
    const before = valueOf(el);
    if (el.focus) el.focus();
    if (el.isContentEditable && !('value' in el)) {
      el.textContent = value;
    } else {
      const set = nativeSetter(el, 'value');
      if (set) set.call(el, value); else el.value = value;
    }
    fireInput(el, value);
    return {ok: true, before, after: valueOf(el)};
  };

  // mk.actReadValue reads el's value; with want and wait (ms) it waits, on
  // DOM mutations, input events and frames, for the value to equal want.
  // It reports {attached, value}.
  // A match is confirmed after one task turn: a framework's re-render
  // scheduled in a microtask of the input event (which may replace the node
  // or put another value in it) has run by then, so the match is not read
  // off a node in mid-update.
  mk.actReadValue = async (ref, want, wait) => {
    const deadline = performance.now() + (wait || 0);
    for (let confirmed = want == null; ;) {
      const el = mk.deref(ref);
      if (!el || !el.isConnected) return {attached: false, value: ''};
      const v = valueOf(el);
      if (v === want && !confirmed) {
        confirmed = true;
        await new Promise((r) => setTimeout(r, 0));
        continue;
      }
      if (want == null || v === want || performance.now() >= deadline) return {attached: true, value: v};
      confirmed = false;
      await changeOrFrame(deadline);
    }
  };

  const scrollerOf = (el) => {
    for (let c = el; c; c = parentOf(c)) {
      if (c === c.ownerDocument.documentElement || c === c.ownerDocument.body) break;
      const cs = styleOf(c);
      if (/(auto|scroll|overlay)/.test(cs.overflowY) && c.scrollHeight > c.clientHeight + 1) return c;
    }
    const doc = el.ownerDocument || document;
    return doc.scrollingElement || doc.documentElement;
  };
  const scrollPos = (s) => ({x: round(s.scrollLeft), y: round(s.scrollTop)});

  // mk.actScrollBy scrolls by dy pixels: the page when ref is 0, else the
  // nearest scrollable container of the element (itself included). It waits
  // for the position to settle and reports {before, after, scroller}.
  mk.actScrollBy = async (ref, dy) => {
    let s;
    if (ref) {
      const el = mk.deref(ref);
      if (!el || !el.isConnected) return {ok: false, reason: 'detached'};
      s = scrollerOf(el);
    } else {
      s = document.scrollingElement || document.documentElement;
    }
    const before = scrollPos(s);
    s.scrollBy({top: dy, left: 0, behavior: 'instant'});
    await nextFrame();
    return {ok: true, before, after: scrollPos(s), scroller: mk.describe(s)};
  };
  // mk.actScrollPos reports the scroll position of ref's scroller (the page
  // when ref is 0), for wheel scrolling through the CDP channel.
  mk.actScrollPos = (ref) => {
    const el = ref ? mk.deref(ref) : null;
    const s = el ? scrollerOf(el) : (document.scrollingElement || document.documentElement);
    return {pos: scrollPos(s), scroller: mk.describe(s)};
  };
  // mk.actWaitScroll waits until ref's scroller stops moving (two frames
  // without change, or scrollend) or wait ms pass, and reports the position.
  mk.actWaitScroll = async (ref, wait) => {
    const deadline = performance.now() + (wait || 0);
    let last = mk.actScrollPos(ref).pos, still = 0;
    for (;;) {
      await nextFrame();
      const p = mk.actScrollPos(ref).pos;
      still = (p.x === last.x && p.y === last.y) ? still + 1 : 0;
      last = p;
      if (still >= 2 || performance.now() >= deadline) return last;
    }
  };
  // mk.actScrollIntoView scrolls the element to the centre of the viewport
  // and reports whether it is now in view.
  mk.actScrollIntoView = async (ref) => {
    const el = mk.deref(ref);
    if (!el || !el.isConnected) return {ok: false, reason: 'detached'};
    const s = scrollPos(document.scrollingElement || document.documentElement);
    el.scrollIntoView({block: 'center', inline: 'center', behavior: 'instant'});
    await nextFrame();
    const b = boxOf(el);
    return {ok: true, before: s, after: scrollPos(document.scrollingElement || document.documentElement), box: b, inViewport: clickPoint(b, el) !== null};
  };
}
