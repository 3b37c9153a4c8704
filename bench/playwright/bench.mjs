// Playwright baseline for macrokit's engine benchmarks. See ../README.md.
//
//   node bench.mjs BASE_URL [ITERATIONS] [--warmup N] [--only a,b]
//
// Drives the system Chromium ($MACROKIT_BROWSER or /usr/bin/chromium; never a
// downloaded browser) through the four bench pages served by bench/server and
// prints one JSON object on stdout:
//
//   {"verified_click": {"median_ms": .., "p90_ms": .., "mean_ms": .., "n": ..,
//                       "method": ".."}, ...}
//
// Per iteration the page is reset in-page (window.benchReset(), outside the
// timed region); only the action and its verification are timed.
import { chromium } from 'playwright-core';
import { expect } from '@playwright/test';

const usage = 'usage: node bench.mjs BASE_URL [ITERATIONS] [--warmup N] [--only scenario,...]';

function parseArgs(argv) {
  const pos = [];
  const opts = { warmup: 5, only: null };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--warmup') opts.warmup = Number(argv[++i]);
    else if (a === '--only') opts.only = new Set(argv[++i].split(','));
    else if (a === '-h' || a === '--help') { console.log(usage); process.exit(0); }
    else pos.push(a);
  }
  if (pos.length < 1 || pos.length > 2) { console.error(usage); process.exit(2); }
  opts.base = pos[0].replace(/\/+$/, '');
  opts.n = pos.length > 1 ? Number(pos[1]) : 30;
  if (!Number.isInteger(opts.n) || opts.n < 1 || !Number.isInteger(opts.warmup) || opts.warmup < 0) {
    console.error(usage); process.exit(2);
  }
  return opts;
}

// Same definitions as engine/bench_test.go: the median of an even count is the
// mean of the two middle values; p90 is the nearest-rank 90th percentile.
function stats(ms) {
  const s = [...ms].sort((a, b) => a - b);
  const n = s.length;
  const median = n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
  const p90 = s[Math.max(0, Math.ceil((9 * n) / 10) - 1)];
  const mean = s.reduce((a, b) => a + b, 0) / n;
  const r = (x) => Math.round(x * 1000) / 1000;
  return { median_ms: r(median), p90_ms: r(p90), mean_ms: r(mean), n };
}

const FILL_VALUE = 'Ada Lovelace 1815';

// Each scenario: page path, what it does, and run(page) -> the timed work.
// prepare(page) builds locators and runs once, untimed; check(page) asserts
// the end state once after the warmup, untimed.
const scenarios = {
  verified_click: {
    path: '/click.html',
    method: "getByRole('button',{name:'Add'}).click() + expect(#status).toHaveText('Row 1 added')",
    prepare: (page) => ({
      button: page.getByRole('button', { name: 'Add', exact: true }),
      status: page.locator('#status'),
    }),
    run: async (_page, l) => {
      await l.button.click();
      await expect(l.status).toHaveText('Row 1 added');
    },
  },
  click_async_request: {
    path: '/async.html?ms=100',
    method: "getByRole('button',{name:'Load'}).click() + expect(#status).toHaveText('Loaded 100 ms') [page fetches /api/slow?ms=100]",
    prepare: (page) => ({
      button: page.getByRole('button', { name: 'Load', exact: true }),
      status: page.locator('#status'),
    }),
    run: async (_page, l) => {
      await l.button.click();
      await expect(l.status).toHaveText('Loaded 100 ms');
    },
  },
  fill_value: {
    path: '/fill.html',
    method: "getByLabel('Full name').fill(v) + expect(input).toHaveValue(v)",
    prepare: (page) => ({ input: page.getByLabel('Full name', { exact: true }) }),
    run: async (_page, l) => {
      await l.input.fill(FILL_VALUE);
      await expect(l.input).toHaveValue(FILL_VALUE);
    },
  },
  perception_2000: {
    path: '/perception.html',
    method: "page.ariaSnapshotJSON({mode:'ai', boxes:true}) (roles, accessible names, states, refs, boxes)",
    prepare: () => ({}),
    run: async (page) => page.ariaSnapshotJSON({ mode: 'ai', boxes: true }),
    check: async (page, out) => {
      const n = countRefs(out);
      if (n < 2000) throw new Error(`perception_2000: ai snapshot has ${n} refs, want >= 2000`);
    },
  },
  // Reference only (not compared): a hand-written evaluateAll that lists the
  // interactive elements with a naive role/name and their boxes. It skips the
  // accessible-name computation and the tree, so it is a lower bound for any
  // perception, not Playwright's equivalent of a snapshot.
  perception_2000_evaluate_all: {
    path: '/perception.html',
    method: "locator('button, a, input, select, textarea, [role]').evaluateAll(naive role/name/box)",
    prepare: (page) => ({ all: page.locator('button, a[href], input, select, textarea, [role]') }),
    run: async (_page, l) => l.all.evaluateAll((els) => els.map((e) => {
      const r = e.getBoundingClientRect();
      return {
        role: e.getAttribute('role') || e.tagName.toLowerCase(),
        name: e.getAttribute('aria-label') || (e.labels && e.labels[0] ? e.labels[0].textContent : e.textContent).trim(),
        box: { x: r.x, y: r.y, width: r.width, height: r.height },
      };
    })),
    check: async (_page, out) => {
      const n = out.filter((e) => !['tablist', 'region'].includes(e.role)).length;
      if (n !== 2000) throw new Error(`perception_2000_evaluate_all: ${n} elements, want 2000`);
    },
  },
};

function countRefs(node) {
  // Counts nodes carrying a ref, whatever the JSON shape (objects or arrays).
  let n = 0;
  const seen = [node];
  while (seen.length) {
    const v = seen.pop();
    if (Array.isArray(v)) { seen.push(...v); continue; }
    if (v && typeof v === 'object') {
      if (typeof v.ref === 'string') n++;
      for (const k in v) if (v[k] && typeof v[k] === 'object') seen.push(v[k]);
    }
  }
  return n;
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  for (const k of opts.only || []) {
    if (!(k in scenarios)) { console.error(`unknown scenario ${k}; known: ${Object.keys(scenarios).join(', ')}`); process.exit(2); }
  }
  process.env.PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD = '1';
  const browser = await chromium.launch({
    executablePath: process.env.MACROKIT_BROWSER || '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
      '--disable-quic', '--no-first-run', '--disable-sync'],
  });
  const out = {};
  try {
    for (const [name, sc] of Object.entries(scenarios)) {
      if (opts.only && !opts.only.has(name)) continue;
      // A fresh context per scenario, as the Go benchmarks open one per
      // benchmark; 1280x800 is the engine's default viewport.
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      try {
        const page = await context.newPage();
        await page.goto(opts.base + sc.path, { waitUntil: 'load' });
        const l = sc.prepare(page);
        const reset = async () => {
          if (await page.evaluate(() => window.benchReset()) !== true) throw new Error(name + ': benchReset failed');
        };
        for (let i = 0; i < opts.warmup; i++) { await reset(); await sc.run(page, l); }
        if (sc.check) { await reset(); await sc.check(page, await sc.run(page, l)); }
        const ms = [];
        for (let i = 0; i < opts.n; i++) {
          await reset();
          const t0 = performance.now();
          await sc.run(page, l);
          ms.push(performance.now() - t0);
        }
        out[name] = { ...stats(ms), method: sc.method };
      } finally {
        await context.close();
      }
    }
  } finally {
    await browser.close();
  }
  out._meta = {
    playwright: (await import('playwright-core/package.json', { with: { type: 'json' } })).default.version,
    browser_version: browser.version(),
    node: process.version,
    warmup: opts.warmup,
  };
  process.stdout.write(JSON.stringify(out, null, 2) + '\n');
}

main().catch((err) => { console.error(err); process.exit(1); });
