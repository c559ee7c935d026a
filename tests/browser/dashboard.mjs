// dashboard.mjs BASE_URL SCREENSHOT.png READY_FILE DONE_FILE — lunlab-target's dashboard in a real browser.
//
// Debian's chromium (/usr/bin/chromium, headless, never a downloaded browser) driven by
// playwright-core opens BASE_URL/ while lunlab-bench clones (run-dashboard.sh starts both) and
//   1. fails on any console error, uncaught page error or failed request;
//   2. once the page shows its first reading, creates READY_FILE (run-dashboard.sh then
//      starts the clone); once the clone is over (DONE_FILE exists) and the page has read
//      the figures after it, the copy chart's "cloned (XCOPY)" series shows non-zero
//      bandwidth, a reading with the wire under 1% of the bytes cloned, and the CPU chart
//      the copy's load;
//   3. once the array's accounting has settled, holds every figure the page shows
//      (data-metric / data-value) against /metrics;
//   4. saves a screenshot (a CI artifact under build/).
// Every wait is for an event, with no time limit of its own (playwright's default 30 s
// included): meson's timeout is the hang guard, so a slow machine only makes it slower.
// What is asserted holds however the page's readings fall: each rate is a counter's delta
// between two readings, the page read once before the clone started and once after it
// ended, so the clone's bytes are in some reading of the chart (it keeps 300).
// Prints one line per check and "N passed, N failed"; exits 1 on any failure.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

const [base, shot, readyFile, doneFile] = process.argv.slice(2);
if (!base || !shot || !readyFile || !doneFile) {
  console.log('usage: dashboard.mjs BASE_URL SCREENSHOT.png READY_FILE DONE_FILE');
  process.exit(2);
}
// /metrics is read with node's fetch: trust the target's self-signed certificate (127.0.0.1 only)
process.removeAllListeners('warning');
process.env.NODE_TLS_REJECT_UNAUTHORIZED = '0';

let passed = 0;
let failed = 0;
const problems = [];
function check(ok, what) {
  if (ok) passed++; else failed++;
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}`);
  return ok;
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
// until the page has applied a reading it fetched after this call: the reading in flight now
// may be older, the one after it is not (each poll starts after the last is applied)
async function afterNextReading(page) {
  const r0 = await page.evaluate(() => window.lunlab.state.readings);
  await page.waitForFunction((r) => window.lunlab.state.readings >= r + 2, r0, { timeout: 0 });
}

// /metrics as a map "name{labels}" -> number (exact series lines only; this reads the
// handful of series the page shows, it is not a general parser of the format)
async function scrape() {
  const r = await fetch(`${base}/metrics`);
  if (!r.ok) throw new Error(`/metrics: HTTP ${r.status}`);
  const m = new Map();
  for (const line of (await r.text()).split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const sp = line.lastIndexOf(' ');
    m.set(line.slice(0, sp), Number(line.slice(sp + 1)));
  }
  return m;
}
function sumWhere(m, name, labelPart) {
  let t = 0;
  for (const [k, v] of m) if (k.startsWith(name + '{') && k.includes(labelPart)) t += v;
  return t;
}

const profile = mkdtempSync(join(tmpdir(), 'lunlab-chromium-'));
// a fresh profile directory (--user-data-dir) for every run
const context = await chromium.launchPersistentContext(profile, {
  executablePath: '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  ignoreHTTPSErrors: true,
  viewport: { width: 1400, height: 1100 },
});
let exitCode = 1;
try {
  context.setDefaultTimeout(0);
  context.setDefaultNavigationTimeout(0);
  const page = context.pages()[0] || await context.newPage();
  page.on('console', (msg) => { if (msg.type() === 'error') problems.push(`console error: ${msg.text()}`); });
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  page.on('requestfailed', (req) => problems.push(`request failed: ${req.url()} ${req.failure()?.errorText}`));
  page.on('response', (res) => { if (res.status() >= 400) problems.push(`HTTP ${res.status()} for ${res.url()}`); });

  const resp = await page.goto(`${base}/`, { waitUntil: 'load' });
  check(resp && resp.status() === 200, `GET / answers 200 (${resp && resp.status()})`);
  check(await page.title() === 'lunlab — array dashboard', 'the page is the dashboard');

  // the charts: uPlot drew them (canvas elements inside each array card)
  await page.waitForSelector('.array[data-array] canvas', { timeout: 0 });
  const arrays = await page.$$eval('.array[data-array]', (els) => els.map((e) => e.getAttribute('data-array')));
  check(arrays.length > 0, `array cards shown: ${arrays.join(', ')}`);
  const array = arrays[0];

  // 2. the clone (started now) in the charts, read once the page has a reading taken after it
  await page.waitForFunction(() => window.lunlab.state.readings >= 2, null, { timeout: 0 });
  writeFileSync(readyFile, 'page ready\n');
  while (!existsSync(doneFile)) await sleep(200);
  check(true, 'the clone finished');
  await afterNextReading(page);
  const peak = await page.evaluate((a) => {
    const c = window.lunlab.charts[a + ':copy'];
    return c ? Math.max(0, ...c.data[1].filter((v) => v != null)) : 0;
  }, array);
  check(peak > 0, `copy chart of array ${array} shows non-zero copy bandwidth (peak: ${(peak / 1048576).toFixed(1)} MiB/s)`);
  // next to the bytes cloned, the bytes that crossed the wire: the template was written before
  // the page opened (run-dashboard.sh), so every reading with bytes cloned has only the copy's
  // own commands on the wire, under 1% of them
  const offloaded = await page.evaluate((a) => {
    const d = window.lunlab.charts[a + ':copy'].data;
    return d[1].map((c, i) => [c || 0, d[2][i] || 0]).filter(([c, w]) => c > 0 && w * 100 < c);
  }, array);
  check(offloaded.length > 0, `copy offloaded: ${offloaded.length} reading(s) with bytes cloned and under 1% of them over the wire` +
    (offloaded.length ? ` (e.g. ${(offloaded[0][0] / 1048576).toFixed(1)} MiB/s cloned, ${(offloaded[0][1] / 1024).toFixed(1)} KiB/s wire)` : ''));
  const cpuPeak = await page.evaluate((a) => Math.max(0, ...window.lunlab.charts[a + ':cpu'].data[1]
    .filter((v) => v != null)), array);
  check(cpuPeak > 0, `modeled CPU chart shows the copy's load (peak ${cpuPeak.toFixed(1)}%)`);

  // 3. after the clone: the page's figures equal /metrics
  let m;
  for (;;) { // accounting settles: no pending blocks (no limit of its own)
    m = await scrape();
    if (sumWhere(m, 'lunlab_array_pending_blocks', `array="${array}"`) === 0) break;
    await sleep(500);
  }
  let mismatches = [];
  for (let attempt = 0; attempt < 10; attempt++) {
    await afterNextReading(page); // a reading by the page after the figures settled
    m = await scrape();
    const shown = await page.$$eval(`.array[data-array="${array}"] [data-metric]`,
      (els) => els.map((e) => [e.getAttribute('data-metric'), e.getAttribute('data-value')]));
    mismatches = [];
    for (const [name, value] of shown) {
      const want = name === 'lunlab_xcopy_covered_bytes_total'
        ? sumWhere(m, name, `array="${array}"`)
        : sumWhere(m, name, `array="${array}",`);
      if (Math.abs(Number(value) - want) > 1e-9 * Math.max(1, Math.abs(want))) {
        mismatches.push(`${name}: page ${value}, /metrics ${want}`);
      }
    }
    const lus = await page.$$eval('#luns tr[data-lun]', (rows) => rows.map((r) => [r.getAttribute('data-lun'),
      r.querySelector('[data-metric="lunlab_lu_mapped_bytes"]')?.getAttribute('data-value')]));
    for (const [lun, value] of lus) {
      const want = sumWhere(m, 'lunlab_lu_mapped_bytes', `lun="${lun}",`);
      if (value !== undefined && Number(value) !== want) mismatches.push(`LUN ${lun} mapped: page ${value}, /metrics ${want}`);
    }
    if (shown.length && !mismatches.length) {
      check(true, `${shown.length} array figures and ${lus.length} LU rows equal /metrics`);
      break;
    }
  }
  if (mismatches.length) check(false, `page vs /metrics: ${mismatches.join('; ')}`);
  const logical = sumWhere(m, 'lunlab_array_logical_bytes', `array="${array}",`);
  const cloned = sumWhere(m, 'lunlab_xcopy_covered_bytes_total', `array="${array}"`);
  check(logical > 0 && cloned > 0, `/metrics: logical ${logical} bytes, ${cloned} bytes cloned by XCOPY`);

  // 4. screenshot
  await page.screenshot({ path: shot, fullPage: true });
  check(existsSync(shot), `screenshot saved: ${shot}`);

  check(problems.length === 0, `no console errors, page errors or failed requests${problems.length ? ': ' + problems.join(' | ') : ''}`);
  exitCode = failed ? 1 : 0;
} catch (e) {
  check(false, `the test itself failed: ${e.stack || e}`);
} finally {
  await context.close();
  rmSync(profile, { recursive: true, force: true });
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : exitCode);
