// The checks: one evaluation of a condition (mk.check) -> {status,
// expected, actual, evidence}.

const pass = (expected, actual, evidence, more) => ({ status: PASS, expected, actual, evidence, more });
const fail = (expected, actual, evidence, more) => ({ status: FAIL, expected, actual, evidence, more });
const tdesc = (c) => c.targetDesc || JSON.stringify(c.target);

const CHECKS = {
  url_matches: (c, base) => {
    need(c, c.pattern, 'a pattern');
    const re = regex(c.pattern);
    const u = location.href;
    const exp = 'url matches ' + JSON.stringify(c.pattern);
    const ev = { url: u, before: base && base.url };
    return re.test(u) ? pass(exp, u, ev) : fail(exp, u, ev);
  },
  title_matches: (c, base) => {
    need(c, c.pattern, 'a pattern');
    const re = regex(c.pattern);
    const t = document.title;
    const exp = 'title matches ' + JSON.stringify(c.pattern);
    const ev = { title: t, before: base && base.title };
    return re.test(t) ? pass(exp, t, ev) : fail(exp, t, ev);
  },
  text_present: (c, base, st) => textCheck(c, st, true),
  text_absent: (c, base, st) => textCheck(c, st, false),
  // element_exists / element_gone are about what a user could see: a match
  // counts only when it is shown (54_states.js: visible, or a visually
  // hidden control in a visible wrapper), so a closed dialog that stays in
  // the DOM does not exist, and a hidden one is gone. Counting every match
  // in the DOM is list_count_delta's job.
  element_exists: (c) => {
    need(c, c.target, 'a target');
    const exp = 'element ' + tdesc(c) + ' exists';
    const sel = selection(c.target);
    const seen = sel.els.filter(shown);
    if (seen.length) {
      return pass(exp, seen.length + (seen.length === 1 ? ' shown match' : ' shown matches'), { count: sel.count, shown: seen.length, element: describe(seen[0]) });
    }
    const ev = { count: sel.count, shown: 0, target: tdesc(c) };
    if (sel.why) ev.error = sel.why;
    if (sel.els.length) {
      ev.hidden = describe(sel.els[0]);
      return fail(exp, sel.els.length + (sel.els.length === 1 ? ' match' : ' matches') + ', none shown', ev);
    }
    return fail(exp, 'no match', ev, () => nearMisses(c.target));
  },
  element_gone: (c) => {
    need(c, c.target, 'a target');
    const exp = 'element ' + tdesc(c) + ' gone';
    const sel = selection(c.target);
    const seen = sel.els.filter(shown);
    if (!seen.length) {
      const ev = { count: sel.els.length, shown: 0 };
      if (sel.why) ev.note = sel.why;
      if (sel.els.length) ev.note = sel.els.length + ' hidden match(es) remain in the DOM';
      return pass(exp, sel.els.length ? 'gone (hidden)' : 'gone', ev);
    }
    return fail(exp, seen.length + (seen.length === 1 ? ' shown match' : ' shown matches'), { count: sel.els.length, shown: seen.length, element: describe(seen[0]) });
  },
  value_equals: (c) => {
    need(c, c.target, 'a target');
    const want = c.value == null ? '' : String(c.value);
    const exp = 'value ' + JSON.stringify(want);
    const r = one(c.target);
    if (!r.el) return notFound(r, exp, tdesc(c));
    const v = valueOf(r.el);
    const ok = v.value === want || (v.label !== undefined && v.label === want);
    const shown = masked(r.el, v.value);
    const ev = { element: describe(r.el), value: shown };
    if (v.label !== undefined) ev.label = v.label;
    const act = 'value ' + JSON.stringify(shown) + (v.label !== undefined && v.label !== v.value ? ' (label ' + JSON.stringify(v.label) + ')' : '');
    return ok ? pass(exp, act, ev) : fail(exp, act, ev);
  },
  attribute_equals: (c) => {
    need(c, c.target, 'a target');
    need(c, c.attr, 'attr');
    const want = c.value == null ? '' : String(c.value);
    const exp = c.attr + '=' + JSON.stringify(want);
    const r = one(c.target);
    if (!r.el) return notFound(r, exp, tdesc(c));
    const v = r.el.getAttribute(c.attr);
    const ev = { element: describe(r.el), attr: c.attr, value: v };
    if (v === null) return fail(exp, c.attr + ' absent', ev);
    const act = c.attr + '=' + JSON.stringify(v);
    return v === want ? pass(exp, act, ev) : fail(exp, act, ev);
  },
  element_state: (c) => {
    need(c, c.target, 'a target');
    need(c, c.state, 'a state');
    const spec = STATE_OF[String(c.state).toLowerCase()];
    if (!spec) throw new Unverifiable('unknown state ' + JSON.stringify(c.state) + ' (want one of ' + Object.keys(STATE_OF).join(', ') + ')');
    const exp = tdesc(c) + ' ' + c.state;
    const [prop, want] = spec;
    if (prop === 'visible' && !want) {
      // hidden: an element that is not there at all is hidden too.
      const sel = selection(c.target).els;
      if (!sel.length) return pass(exp, 'not in the page', { count: 0 });
      const shown = sel.filter((el) => STATES.visible(el).value);
      if (!shown.length) return pass(exp, 'hidden', { count: sel.length, element: describe(sel[0]) });
      return fail(exp, 'visible', { count: sel.length, element: describe(shown[0]) });
    }
    const r = one(c.target);
    if (!r.el) return notFound(r, exp, tdesc(c));
    const s = STATES[prop](r.el);
    const ev = { element: describe(r.el), state: s.detail };
    return s.value === want ? pass(exp, s.detail, ev) : fail(exp, s.detail, ev);
  },
  list_count_delta: (c) => {
    need(c, c.target, 'a target');
    if (typeof c.before !== 'number') throw new Unverifiable('no baseline count for ' + tdesc(c) + ' (Baseline must be captured before the action)');
    const delta = c.delta || 0;
    const tt = Object.assign({}, c.target, { nth: undefined, last: false });
    const after = matchAll(tt).els.length;
    const got = after - c.before;
    const exp = 'count of ' + tdesc(c) + ' changes by ' + (delta > 0 ? '+' : '') + delta;
    const act = 'before=' + c.before + ' after=' + after + ' (delta ' + (got > 0 ? '+' : '') + got + ')';
    const ev = { before: c.before, after, delta: got, want_delta: delta };
    return got === delta ? pass(exp, act, ev) : fail(exp, act, ev);
  },
};


const textCheck = (c, st, present) => {
  need(c, c.text, 'text');
  const m = textMatcher(c.text);
  const where = c.target ? ' within ' + tdesc(c) : '';
  const exp = 'text ' + m.desc + (present ? ' present' : ' absent') + where;
  let scopes;
  if (c.target) {
    scopes = selection(c.target).els;
    if (!scopes.length) {
      const ev = { target: tdesc(c), count: 0 };
      if (present) return fail(exp, 'target not found', ev, () => nearMisses(c.target));
      ev.note = 'the target is not in the page, so the text cannot be in it';
      return pass(exp, 'target not in the page', ev);
    }
  } else {
    scopes = [pageRoot()];
  }
  for (const el of scopes) {
    const t = el === pageRoot() ? (st.page || (st.page = textOf(el, st))) : textOf(el, st);
    const hit = m.find(t.norm);
    if (hit) {
      const found = snippet(t.norm, hit);
      const ev = { found };
      const more = () => ({ element: describe(locate(el, m, st)) });
      return present ? pass(exp, 'found ' + JSON.stringify(found), ev, more) : fail(exp, 'found ' + JSON.stringify(found), ev, more);
    }
  }
  const ev = { scope: c.target ? tdesc(c) : 'page' };
  if (!present) return pass(exp, 'absent', ev);
  const more = () => {
    const raw = scopes.map((el) => textOf(el, st).raw).join('\n');
    const out = {};
    if (!m.regex) {
      const n = nearest(raw, m.needle);
      if (n.length) out.nearest = n;
    }
    if (!out.nearest) out.text_sample = clip(norm(raw), 300);
    return out;
  };
  return fail(exp, 'not found', ev, more);
};

// mk.check(cond, base) evaluates one condition now. Result:
// {status: passed|failed|unverifiable, expected, actual, evidence}.
const evalOne = (c, base, st) => {
  const fn = CHECKS[c.kind];
  if (!fn) return { status: UNVER, expected: String(c.kind), actual: 'unknown condition kind', evidence: { error: 'unknown condition kind ' + JSON.stringify(c.kind) } };
  try {
    return fn(c, base, st);
  } catch (e) {
    const msg = e instanceof Unverifiable ? e.message : 'check threw: ' + (e && e.message || e);
    return { status: UNVER, expected: String(c.kind), actual: msg, evidence: { error: msg } };
  }
};
const finalize = (r) => {
  const out = { status: r.status, expected: r.expected, actual: r.actual, evidence: r.evidence || {} };
  if (r.more) {
    try {
      const extra = r.more();
      if (extra) Object.assign(out.evidence, extra);
    } catch (e) {
      out.evidence.evidence_error = String(e && e.message || e);
    }
  }
  return out;
};
const scanned = (fn) => (mk.withScan ? mk.withScan(fn) : fn());
mk.check = (cond, base) => scanned(() => finalize(evalOne(cond, base, {})));
