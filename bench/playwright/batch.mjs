// Playwright baseline for the batch throughput figure. See ../README.md.
//
//   node batch.mjs BASE_URL ROWS.csv
//
// Signs in once on the demo site (served by bench/compare with
// RequireLogin), then adds every row of ROWS.csv (header name,email,tier;
// plain cells, no quoting) as a customer, one after another, with the same
// steps and assertions as macros.d/add_customer.yaml: open /customers, New
// customer (the dialog shows), fill Name and Email, pick the Tier, Save; the
// POST /api/customers answered 2xx, the list grew by one row, the email is on
// the page; the new row's id is read. Prints one JSON object on stdout:
//
//   {"rows": 50, "wall_ms": .., "rows_per_min": .., "method": "..", "_meta": {..}}
//
// wall_ms runs from before the browser launch to after the last row, as
// `macrokit batch` is timed from its start to its exit.
import { readFileSync } from 'node:fs';
import { chromium } from 'playwright-core';
import { expect } from '@playwright/test';

const usage = 'usage: node batch.mjs BASE_URL ROWS.csv';

function readRows(path) {
  const lines = readFileSync(path, 'utf8').split(/\r?\n/).filter((l) => l.trim() !== '');
  const header = lines.shift().split(',');
  for (const col of ['name', 'email', 'tier']) {
    if (!header.includes(col)) throw new Error(`${path}: no ${col} column`);
  }
  return lines.map((l, i) => {
    const cells = l.split(',');
    if (cells.length !== header.length) throw new Error(`${path}:${i + 2}: ${cells.length} cells, want ${header.length}`);
    return Object.fromEntries(header.map((h, j) => [h, cells[j]]));
  });
}

const title = (s) => s[0].toUpperCase() + s.slice(1);

async function login(page, base) {
  await page.goto(base + '/login', { waitUntil: 'load' });
  await expect(page).toHaveURL(/\/login/);
  await page.getByLabel('Username', { exact: true }).fill(process.env.DEMO_USER || 'admin');
  await page.getByLabel('Password', { exact: true }).fill(process.env.DEMO_PASSWORD || 'demo-password');
  const [resp] = await Promise.all([
    page.waitForResponse((r) => new URL(r.url()).pathname === '/api/login' && r.request().method() === 'POST'),
    page.getByRole('button', { name: 'Sign in', exact: true }).click(),
  ]);
  expect(resp.status()).toBeGreaterThanOrEqual(200);
  expect(resp.status()).toBeLessThan(300);
  await expect(page).toHaveURL(/\/customers/);
}

async function addCustomer(page, base, row) {
  await page.goto(base + '/customers', { waitUntil: 'load' });
  await expect(page).toHaveURL(/\/customers/);
  const rows = page.getByTestId('customer-row');
  // The list loads after the page: count it once it has.
  await expect(page.locator('#customers-table')).toHaveAttribute('aria-busy', 'false');
  await page.getByRole('button', { name: 'New customer', exact: true }).click();
  await expect(page.getByRole('dialog', { name: 'New customer' })).toBeVisible();
  await page.getByLabel('Name', { exact: true }).fill(row.name);
  await page.getByLabel('Email', { exact: true }).fill(row.email);
  const tier = page.getByRole('combobox', { name: 'Tier' });
  await tier.click();
  await page.getByRole('option', { name: title(row.tier), exact: true }).click();
  await expect(tier).toHaveText(title(row.tier));
  const before = await rows.count();
  const [resp] = await Promise.all([
    page.waitForResponse((r) => new URL(r.url()).pathname === '/api/customers' && r.request().method() === 'POST'),
    page.getByRole('button', { name: 'Save', exact: true }).click(),
  ]);
  expect(resp.status()).toBeGreaterThanOrEqual(200);
  expect(resp.status()).toBeLessThan(300);
  await expect(rows).toHaveCount(before + 1);
  await expect(page.getByText(row.email, { exact: true })).toBeVisible();
  const id = await rows.last().getAttribute('data-id');
  if (!/^c[0-9]+$/.test(id || '')) throw new Error(`${row.email}: new row id ${id}`);
  return id;
}

async function main() {
  const argv = process.argv.slice(2);
  if (argv.length !== 2) { console.error(usage); process.exit(2); }
  const base = argv[0].replace(/\/+$/, '');
  const rows = readRows(argv[1]);
  process.env.PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD = '1';
  const t0 = performance.now();
  const browser = await chromium.launch({
    executablePath: process.env.MACROKIT_BROWSER || '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
      '--disable-quic', '--no-first-run', '--disable-sync'],
  });
  let version;
  try {
    version = browser.version();
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    await login(page, base);
    for (const row of rows) await addCustomer(page, base, row);
    await context.close();
  } finally {
    await browser.close();
  }
  const wall = performance.now() - t0;
  const r = (x) => Math.round(x * 1000) / 1000;
  process.stdout.write(JSON.stringify({
    rows: rows.length,
    wall_ms: r(wall),
    rows_per_min: r(rows.length / (wall / 60000)),
    method: 'sequential: login once, then per row goto /customers, New customer + expect dialog, fill Name/Email, '
      + 'pick Tier + expect it, Save + waitForResponse POST /api/customers 2xx, expect rows toHaveCount(+1), '
      + 'expect getByText(email) visible, read the new row id',
    _meta: {
      playwright: (await import('playwright-core/package.json', { with: { type: 'json' } })).default.version,
      browser_version: version,
      node: process.version,
    },
  }, null, 2) + '\n');
}

main().catch((err) => { console.error(err); process.exit(1); });
