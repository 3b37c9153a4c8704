// Extraction: read text, values and attributes of grounded elements, and
// lists of rows, for extract steps. Read-only.
{
  const textOf = (el) => mk.norm(el.innerText !== undefined && el.isConnected && el.offsetParent !== null ? el.innerText : el.textContent);

  const valueOf = (el) => {
    if (el.tagName === 'SELECT') {
      const opts = Array.from(el.selectedOptions || []);
      return el.multiple ? opts.map((o) => mk.norm(o.textContent)).join(', ') : (opts[0] ? mk.norm(opts[0].textContent) : '');
    }
    if ('value' in el && (el.tagName === 'INPUT' || el.tagName === 'TEXTAREA')) {
      if (el.type === 'checkbox' || el.type === 'radio') return el.checked ? 'true' : 'false';
      return el.value;
    }
    if (el.isContentEditable) return mk.norm(el.innerText);
    const v = el.getAttribute('aria-valuetext') || el.getAttribute('aria-valuenow');
    if (v != null) return v;
    return textOf(el);
  };

  // read returns one field of el: {text}, {value} or {attr: name}.
  const read = (el, f) => {
    if (f.attr) {
      const v = el.getAttribute(f.attr);
      return v == null ? null : v;
    }
    if (f.value) return valueOf(el);
    return textOf(el);
  };

  // mk.extract(target, field) -> {ok, value, found} for one element.
  mk.extract = (t, f) => {
    const r = mk.resolve(t);
    if (!r.ok) return r;
    const el = mk.deref(r.ref);
    if (!el) return { ok: false, code: 'not_found', msg: 'element detached' };
    const v = read(el, f);
    return { ok: true, value: v, found: v != null, el: r.el };
  };

  // mk.extractRows(target, cols, max) -> {ok, rows, total}: one object per
  // element matching target (document order), with each column read from
  // the row itself or from the single match of col.in inside it.
  mk.extractRows = (t, cols, max) => mk.withScan(() => {
    let rows;
    try {
      rows = mk.match(t);
    } catch (e) {
      return { ok: false, code: e.code || 'browser', msg: String(e.message || e) };
    }
    const total = rows.length;
    if (max > 0 && rows.length > max) rows = rows.slice(0, max);
    const names = Object.keys(cols).sort();
    const subs = {};
    for (const n of names) {
      if (cols[n].in) {
        try {
          subs[n] = mk.match(cols[n].in);
        } catch (e) {
          return { ok: false, code: e.code || 'browser', msg: n + ': ' + String(e.message || e) };
        }
      }
    }
    const out = rows.map((row) => {
      const o = {};
      for (const n of names) {
        let el = row;
        if (subs[n]) {
          el = subs[n].find((c) => mk.contains(row, c)) || null;
        }
        o[n] = el ? read(el, cols[n]) : null;
      }
      return o;
    });
    return { ok: true, rows: out, total };
  });
}
