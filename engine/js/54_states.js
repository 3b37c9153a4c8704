// Element values and states (checked, disabled, expanded, ...) as the
// checks read them.

const isPassword = (el) => el.tagName === 'INPUT' && el.type === 'password';
const masked = (el, v) => (isPassword(el) ? '[password: ' + v.length + ' chars]' : v);
const valueOf = (el) => {
  if (el.tagName === 'SELECT') {
    const sel = Array.from(el.selectedOptions || []);
    return { value: sel.map((o) => o.value).join(', '), label: sel.map((o) => norm(o.label || o.text)).join(', ') };
  }
  if (el.isContentEditable && !('value' in el && typeof el.value === 'string')) {
    return { value: norm(el.innerText) };
  }
  if (typeof el.value === 'string' && (el.tagName === 'INPUT' || el.tagName === 'TEXTAREA' || el.tagName === 'OUTPUT' || el.tagName === 'BUTTON' || el.tagName === 'OPTION' || el.tagName === 'DATA' || el.tagName === 'LI' || el.tagName === 'METER' || el.tagName === 'PROGRESS')) {
    return { value: el.value };
  }
  const vt = el.getAttribute('aria-valuetext') || el.getAttribute('aria-valuenow');
  if (vt !== null) return { value: vt };
  if (typeof el.value === 'string') return { value: el.value };
  return { value: norm(el.textContent) };
};
const deepActive = () => {
  const chain = [];
  let a = document.activeElement;
  for (let guard = 0; a && guard < 32; guard++) {
    chain.push(a);
    if (a.shadowRoot && a.shadowRoot.activeElement) {
      a = a.shadowRoot.activeElement;
    } else if (isFrame(a)) {
      const d = frameDoc(a);
      a = d && d.activeElement && d.activeElement !== d.body ? d.activeElement : null;
    } else {
      a = null;
    }
  }
  return chain;
};
const SELECTABLE_ROLES = { tab: 1, option: 1, row: 1, gridcell: 1, treeitem: 1, columnheader: 1, rowheader: 1 };
const roleOf = (el) => {
  try {
    return mk.role ? mk.role(el) : el.getAttribute('role') || '';
  } catch (e) {
    return el.getAttribute('role') || '';
  }
};
// stateOf returns {value: bool, detail} or throws Unverifiable when el has
// no such state at all (unchecked on a <div> proves nothing).
const STATES = {
  checked: (el) => {
    const t = el.tagName === 'LABEL' && el.control ? el.control : el;
    if (t.tagName === 'INPUT' && (t.type === 'checkbox' || t.type === 'radio')) {
      // A hidden input defers to its own aria-checked, the state its switch
      // shows (as check and uncheck read it, 42_check.js).
      const aria = t.getAttribute('aria-checked');
      if (aria !== null && !mk.visible(t)) return { value: aria === 'true', detail: 'aria-checked=' + aria + ' (hidden input)' };
      return { value: t.checked && !t.indeterminate, detail: t.indeterminate ? 'indeterminate' : t.checked ? 'checked' : 'unchecked' };
    }
    const a = t.getAttribute('aria-checked') ?? t.getAttribute('aria-pressed');
    if (a !== null) return { value: a === 'true', detail: 'aria-checked=' + a };
    throw new Unverifiable('element has no checked state');
  },
  disabled: (el) => {
    let d = false;
    try {
      d = el.matches(':disabled');
    } catch (e) {
      d = false;
    }
    if (d) return { value: true, detail: 'disabled' };
    const ad = el.closest('[aria-disabled]');
    if (ad && ad.getAttribute('aria-disabled') === 'true') return { value: true, detail: 'aria-disabled=true' };
    return { value: false, detail: 'enabled' };
  },
  expanded: (el) => {
    const a = el.getAttribute('aria-expanded');
    if (a !== null) return { value: a === 'true', detail: 'aria-expanded=' + a };
    const det = el.tagName === 'DETAILS' ? el : el.tagName === 'SUMMARY' ? el.parentElement : null;
    if (det && det.tagName === 'DETAILS') return { value: det.open, detail: det.open ? 'details open' : 'details closed' };
    if (el.tagName === 'DIALOG') return { value: el.open, detail: el.open ? 'dialog open' : 'dialog closed' };
    throw new Unverifiable('element has no expanded state (no aria-expanded, not <details>)');
  },
  selected: (el) => {
    if (el.tagName === 'OPTION') return { value: el.selected, detail: el.selected ? 'selected' : 'not selected' };
    const a = el.getAttribute('aria-selected');
    if (a !== null) return { value: a === 'true', detail: 'aria-selected=' + a };
    if (SELECTABLE_ROLES[roleOf(el)]) return { value: false, detail: 'no aria-selected' };
    throw new Unverifiable('element has no selected state');
  },
  visible: (el) => {
    const v = mk.visible ? mk.visible(el) : rendered(el);
    return { value: v, detail: v ? 'visible' : 'hidden' };
  },
  focused: (el) => {
    const chain = deepActive();
    const f = chain.includes(el);
    const a = chain[chain.length - 1];
    return { value: f, detail: f ? 'focused' : 'focus is on ' + (a ? describe(a).selector || a.localName : 'nothing') };
  },
};
const STATE_OF = {
  checked: ['checked', true], unchecked: ['checked', false],
  disabled: ['disabled', true], enabled: ['disabled', false],
  expanded: ['expanded', true], collapsed: ['expanded', false],
  selected: ['selected', true],
  visible: ['visible', true], hidden: ['visible', false],
  focused: ['focused', true],
};

// shown is what element_exists and element_gone count: an element a user
// can see, or a control a widget keeps visually hidden (opacity 0, no
// size) inside the visible wrapper that stands for it (antd's select
// input, el-switch's input, sl-checkbox's input): rendered — not
// display:none, not visibility:hidden — with a visible composed parent. A
// closed dialog left in the DOM (display:none) is not shown.
const SHOWN_TAGS = { INPUT: 1, SELECT: 1, TEXTAREA: 1, BUTTON: 1 };
const SHOWN_ROLES = { button: 1, checkbox: 1, combobox: 1, radio: 1, searchbox: 1, slider: 1, spinbutton: 1, switch: 1, textbox: 1 };
const shown = (el) => {
  if (STATES.visible(el).value) return true;
  if (!el.isConnected || !(SHOWN_TAGS[el.tagName] || SHOWN_ROLES[roleOf(el)])) return false;
  if (el.checkVisibility && !el.checkVisibility({ checkVisibilityCSS: true, visibilityProperty: true })) return false;
  const p = mk.composedParent ? mk.composedParent(el) : el.parentElement;
  return !!p && p.nodeType === 1 && STATES.visible(p).value;
};
