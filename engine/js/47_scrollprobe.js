// 47_scrollprobe.js — the in-page half of the not_found scroll probe
// (scrollprobe.go): virtualized and lazy lists render a row only once it
// is scrolled to, in their own scroller or the page. The probe scrolls
// the scrollable containers a page at a time, re-matching the target after
// each page renders, until it matches or the budget runs out. Uses the
// helpers shared by 40_act.js (winOf).
{
  const page = () => document.scrollingElement || document.documentElement;
  const scrollsY = (el) => {
    if (el.scrollHeight <= el.clientHeight + 4 || el.clientHeight < 24) return false;
    const o = winOf(el).getComputedStyle(el).overflowY;
    return o === 'auto' || o === 'scroll' || o === 'overlay';
  };
  // rowCount is the size of the largest group of alike children (same tag,
  // role and class) of el or of one of its children: a list's rows.
  const rowCount = (el) => {
    let best = 0;
    const group = (p) => {
      const m = new Map();
      for (const c of p.children) {
        const k = c.tagName + '|' + (c.getAttribute('role') || '') + '|' + (c.getAttribute('class') || '');
        const n = (m.get(k) || 0) + 1;
        m.set(k, n);
        if (n > best) best = n;
      }
    };
    group(el);
    for (const c of el.children) if (c.children.length > 1) group(c);
    return best;
  };
  // likeness is how much an element resembles the target (0 to 1): its
  // name's similarity when it has the target's role, its text's for a
  // text target.
  const likeness = (el, t) => {
    if (t.role) return mk.role(el) === t.role && t.name && !/^\/.*\/[a-z]*$/.test(t.name) ? mk.sim(mk.name(el), t.name) : 0;
    if (t.text && el.childElementCount === 0) return mk.sim(norm(el.textContent), t.text);
    return 0;
  };
  // scrollers lists the visible scrollable containers and the page, in the
  // order they are probed: the one holding the element most like the
  // target (a near miss: "Open row 12" for "Open row 1500") first, then
  // those holding repeated rows (most rows), then the page, then the rest
  // by area.
  const scrollers = (t) => mk.withScan(() => {
    const out = [];
    const pg = page();
    mk.walk((el) => {
      if (el === pg || el === document.body || !scrollsY(el) || !mk.visible(el)) return;
      const b = mk.rect(el);
      out.push({el, rows: rowCount(el), area: b.width * b.height, like: 0});
    });
    const pageEntry = {el: pg, rows: 0, area: 0, like: 0, page: true};
    if (pg.scrollHeight > winOf(pg).innerHeight + 4) out.push(pageEntry);
    const by = new Map(out.map((s) => [s.el, s]));
    let n = 0;
    mk.walk((el) => {
      if (++n > 5000) return false;
      const l = likeness(el, t);
      if (l <= 0) return;
      let s = null;
      for (let c = mk.composedParent(el); c && !s; c = mk.composedParent(c)) s = by.get(c) || null;
      s = s || (by.has(pg) ? pageEntry : null);
      if (s && l > s.like) s.like = l;
    });
    const rank = (s) => (s.rows >= 3 ? 2 : 0) + (s.page ? 1 : 0);
    out.sort((a, b) => (Math.round(b.like * 5) - Math.round(a.like * 5)) || (rank(b) - rank(a)) || (b.rows - a.rows) || (b.area - a.area));
    return out.map((s) => s.el);
  });
  // rendered resolves once the scroller's content changed after a scroll
  // (and one more task turn for the framework to finish), or after quiet ms.
  const rendered = (s, quiet, deadline) => new Promise((resolve) => {
    let done = false, changed = false;
    const root = s === page() ? document : s;
    // A framework commits a render in one go: the first mutation record
    // arrives once it is done.
    const mo = new MutationObserver(() => {
      changed = true;
      finish();
    });
    const finish = () => { if (done) return; done = true; mo.disconnect(); resolve(changed); };
    mo.observe(root, {subtree: true, childList: true, attributes: true, characterData: true});
    setTimeout(finish, Math.max(0, Math.min(quiet, deadline - performance.now())));
  });
  // stepOf is how far the next page is: 0.9 of the view, or, when the
  // scroller renders rows past its view (a virtualized list's overscan),
  // up to the bottom of the last row rendered, so no row is skipped.
  const stepOf = (s) => {
    const view = (s === page() ? winOf(s).innerHeight : s.clientHeight);
    if (s === page()) return view * 0.9;
    const top = s.getBoundingClientRect().top + s.clientTop;
    let bottom = 0;
    const rows = s.children.length === 1 && s.children[0].children.length > 1 ? s.children[0].children : s.children;
    for (const r of rows) {
      const b = r.getBoundingClientRect();
      if (b.height > 0 && b.bottom - top <= view * 3) bottom = Math.max(bottom, b.bottom - top);
    }
    return Math.max(view * 0.9, Math.min(bottom, view * 3) - 1);
  };
  const scrollTo = (s, top) => {
    s.scrollTop = top;
    // Frameworks read the position in their scroll listener: give them the
    // event now rather than at the next frame.
    (s === page() ? winOf(s) : s).dispatchEvent(new Event('scroll'));
  };

  // Row numbers: a target named like its near misses but for a number
  // ("Archive ticket 4321" among "Archive ticket 3821"...) lets the probe
  // jump close to its row instead of rendering every page on the way.
  const template = (x) => (x || '').replace(/\d+/g, '#');
  const lastNum = (x) => {
    const m = (x || '').match(/\d+/g);
    return m ? Number(m[m.length - 1]) : NaN;
  };
  const labelOf = (t) => (t.role && t.name && !/^\/.*\/[a-z]*$/.test(t.name) ? t.name : (t.text || ''));
  // shownNums lists the numbers of the elements in s named like the target
  // (same role, same name but for its numbers), mean and extent.
  const shownNums = (s, t) => {
    const tpl = template(labelOf(t));
    let n = 0, sum = 0, lo = Infinity, hi = -Infinity, seen = 0;
    for (const el of s.querySelectorAll(t.role ? '*' : '*')) {
      if (++seen > 4000) break;
      let nm = '';
      if (t.role) {
        if (mk.role(el) !== t.role) continue;
        nm = mk.name(el);
      } else if (el.childElementCount === 0) {
        nm = norm(el.textContent);
      }
      if (!nm || template(nm) !== tpl) continue;
      const v = lastNum(nm);
      if (Number.isNaN(v)) continue;
      n++; sum += v; lo = Math.min(lo, v); hi = Math.max(hi, v);
    }
    return n ? {mean: sum / n, lo, hi} : null;
  };

  // mk.scrollProbe(target, budget) scrolls each scroller (see scrollers)
  // down from where it is, a page at a time, then from its top back to
  // where it was, re-matching target (mk.count) after each page renders;
  // it stops at the first match (leaving it scrolled there) or when budget
  // ms are spent (scroll positions restored). Reports {found, steps,
  // scroller, timeout}.
  mk.scrollProbe = async (t, budget) => {
    const deadline = performance.now() + (budget || 0);
    const matches = () => {
      const r = mk.count(t);
      return r.ok && r.count > 0;
    };
    // found brings the match into its scroller's view: a virtualized list
    // renders rows past its view (overscan), clipped, where a click would
    // land on whatever is below.
    const found = async (s, steps) => {
      let el = null;
      try { el = mk.match(t)[0] || null; } catch (_) { el = null; }
      if (el) {
        el.scrollIntoView({block: 'center', inline: 'nearest', behavior: 'instant'});
        await rendered(s, 80, performance.now() + 80);
      }
      return {found: true, steps, scroller: mk.describe(s)};
    };
    if (matches()) return {found: true, steps: 0};
    const want = lastNum(labelOf(t));
    let steps = 0;
    const restore = [];
    for (const s of scrollers(t).slice(0, 4)) {
      const start = s.scrollTop;
      restore.push([s, start]);
      // wrapEnd is where the pass from the top stops: the start, or past
      // the rows a jump skipped.
      let wrapEnd = start, prev = null, jumps = 0;
      const quiet = s === page() ? 60 : 80;
      let idle = 0;
      for (const wrap of [false, true]) {
        if (wrap) {
          if (wrapEnd <= 0) break;
          scrollTo(s, 0);
          await rendered(s, quiet, deadline);
          if (matches()) return found(s, steps);
        }
        for (;;) {
          if (performance.now() >= deadline) {
            for (const [el, top] of restore) scrollTo(el, top);
            return {found: false, steps, timeout: true};
          }
          const before = s.scrollTop;
          if (wrap && before >= wrapEnd) break;
          let next = before + stepOf(s);
          const now = want && s !== page() ? shownNums(s, t) : null;
          if (now && prev && jumps < 3 && now.mean !== prev.mean && (want < now.lo || want > now.hi)) {
            // Pixels per row number, from the last two positions: aim one
            // view short of the row, then go on page by page from there.
            const perNum = (before - prev.top) / (now.mean - prev.mean);
            const aim = before + (want - now.mean) * perNum - s.clientHeight;
            if (perNum > 0 && Number.isFinite(aim) && Math.abs(aim - before) > 2 * stepOf(s)) {
              next = Math.max(0, aim);
              jumps++;
              if (next > before) wrapEnd = Math.max(wrapEnd, next);
            }
          }
          if (now) prev = {top: before, mean: now.mean};
          scrollTo(s, next);
          steps++;
          let changed = await rendered(s, quiet, deadline);
          if (matches()) return found(s, steps);
          if (s.scrollTop <= before) {
            // The end: a lazy list may still be loading more.
            const h = s.scrollHeight;
            changed = await rendered(s, 600, deadline);
            if (s.scrollHeight > h) continue;
            break;
          }
          // A container that never re-renders on scroll holds all its
          // rows already: the target is not in it.
          // The page's own content is all there but for what loads at
          // its end: jump there.
          idle = changed ? 0 : idle + 1;
          if (idle >= 3 && s !== page()) break;
          if (idle >= 3) {
            idle = 0;
            scrollTo(s, s.scrollHeight);
            await rendered(s, quiet, deadline);
            if (matches()) return found(s, steps);
          }
        }
        if (idle >= 3) break;
      }
      scrollTo(s, start);
      restore.pop();
    }
    return {found: false, steps};
  };
}
