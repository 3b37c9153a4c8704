// Roles: an element's explicit or implicit ARIA role (mk.role).

const INPUT_ROLE = {
  button: 'button', submit: 'button', reset: 'button', image: 'button', file: 'button', color: 'button',
  checkbox: 'checkbox', radio: 'radio', range: 'slider', number: 'spinbutton', search: 'searchbox',
};
const LISTABLE = { text: 1, search: 1, email: 1, tel: 1, url: 1, '': 1 };
const SECTIONING = 'article,aside,main,nav,section,[role=article],[role=complementary],[role=main],[role=navigation],[role=region]';
const IMPLICIT = {
  ARTICLE: 'article', ASIDE: 'complementary', BUTTON: 'button', DATALIST: 'listbox', DD: 'definition',
  DT: 'term', DETAILS: 'group', DIALOG: 'dialog', FIELDSET: 'group', FIGURE: 'figure', HR: 'separator',
  H1: 'heading', H2: 'heading', H3: 'heading', H4: 'heading', H5: 'heading', H6: 'heading',
  LI: 'listitem', MAIN: 'main', MENU: 'list', OL: 'list', UL: 'list', NAV: 'navigation', OPTGROUP: 'group',
  OPTION: 'option', OUTPUT: 'status', P: 'paragraph', PROGRESS: 'progressbar', METER: 'meter', SEARCH: 'search',
  TABLE: 'table', CAPTION: 'caption', TR: 'row', THEAD: 'rowgroup', TBODY: 'rowgroup', TFOOT: 'rowgroup',
  TEXTAREA: 'textbox', SUMMARY: 'button', MATH: 'math', BLOCKQUOTE: 'blockquote',
};
const labelledByAttr = (el) => el.hasAttribute('aria-label') || el.hasAttribute('aria-labelledby') || el.hasAttribute('title');
const implicitRole = (el) => {
  const tag = el.tagName;
  const r = IMPLICIT[tag];
  if (r) return r;
  switch (tag) {
    case 'A': case 'AREA': return el.hasAttribute('href') ? 'link' : '';
    case 'INPUT': {
      const t = (el.getAttribute('type') || '').toLowerCase();
      if (t === 'hidden') return '';
      if (el.hasAttribute('list') && LISTABLE[t]) return 'combobox';
      return INPUT_ROLE[t] || 'textbox';
    }
    case 'SELECT': return el.multiple || el.size > 1 ? 'listbox' : 'combobox';
    case 'IMG': return el.getAttribute('alt') === '' && !el.hasAttribute('title') ? 'presentation' : 'img';
    case 'HEADER': return el.parentElement && el.parentElement.closest(SECTIONING) ? '' : 'banner';
    case 'FOOTER': return el.parentElement && el.parentElement.closest(SECTIONING) ? '' : 'contentinfo';
    case 'SECTION': return labelledByAttr(el) ? 'region' : '';
    case 'FORM': return labelledByAttr(el) ? 'form' : '';
    case 'TD': return el.closest('table,[role=grid],[role=treegrid]')?.getAttribute('role') === 'grid' ? 'gridcell' : 'cell';
    case 'TH': return el.getAttribute('scope') === 'row' ? 'rowheader' : 'columnheader';
    case 'SVG': case 'svg': return '';
  }
  if (el.hasAttribute('contenteditable') && el.isContentEditable && !(el.parentElement && el.parentElement.isContentEditable)) return 'textbox';
  return '';
};
// mk.role(el) is the explicit role (first token of role=) or the implicit
// ARIA role; "" for generic elements.
mk.role = (el) => {
  const c = scan;
  if (c) {
    const hit = c.role.get(el);
    if (hit !== undefined) return hit;
  }
  let r = '';
  const attr = el.getAttribute('role');
  if (attr) r = attr.trim().split(/\s+/)[0].toLowerCase();
  if (!r || ((r === 'none' || r === 'presentation') && focusable(el))) r = implicitRole(el);
  if (c) c.role.set(el, r);
  return r;
};
const focusable = (el) => el.tabIndex >= 0 && !el.disabled;
mk.implicitRole = implicitRole;
