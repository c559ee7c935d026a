// dashboard.mjs BASE_URL SCREENSHOT.png READY_FILE DONE_FILE — lunlab-target's dashboard in a real browser.
//
// Debian's chromium (/usr/bin/chromium, headless, never a downloaded browser) driven by
// playwright-core opens BASE_URL/ while lunlab-bench clones (run-dashboard.sh starts both) and
//   1. fails on any console error, uncaught page error or failed request;
//   2. once the page shows its first reading, creates READY_FILE (run-dashboard.sh then
//      starts the clone) and waits until the copy chart's "cloned (XCOPY)" series shows
//      non-zero bandwidth;
//   3. once the clone is over (DONE_FILE exists) and the array's accounting has settled,
//      holds every figure the page shows (data-metric / data-value) against /metrics;
//   4. saves a screenshot (a CI artifact under build/).
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
  const page = context.pages()[0] || await context.newPage();
  page.on('console', (msg) => { if (msg.type() === 'error') problems.push(`console error: ${msg.text()}`); });
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  page.on('requestfailed', (req) => problems.push(`request failed: ${req.url()} ${req.failure()?.errorText}`));
  page.on('response', (res) => { if (res.status() >= 400) problems.push(`HTTP ${res.status()} for ${res.url()}`); });

  const resp = await page.goto(`${base}/`, { waitUntil: 'load' });
  check(resp && resp.status() === 200, `GET / answers 200 (${resp && resp.status()})`);
  check(await page.title() === 'lunlab — array dashboard', 'the page is the dashboard');

  // the charts: uPlot drew them (canvas elements inside each array card)
  await page.waitForSelector('.array[data-array] canvas', { timeout: 30000 });
  const arrays = await page.$$eval('.array[data-array]', (els) => els.map((e) => e.getAttribute('data-array')));
  check(arrays.length > 0, `array cards shown: ${arrays.join(', ')}`);
  const array = arrays[0];

  // 2. non-zero copy bandwidth in the chart while the clone runs (started now)
  await page.waitForFunction(() => window.lunlab.state.readings >= 2, null, { timeout: 30000 });
  writeFileSync(readyFile, 'page ready\n');
  let peak = 0;
  for (let i = 0; i < 120 && peak <= 0; i++) {
    peak = await page.evaluate((a) => {
      const c = window.lunlab.charts[a + ':copy'];
      return c ? Math.max(0, ...c.data[1].filter((v) => v != null)) : 0;
    }, array);
    if (peak <= 0) await sleep(500);
  }
  check(peak > 0, `copy chart of array ${array} shows non-zero copy bandwidth (first: ${(peak / 1048576).toFixed(1)} MiB/s)`);
  // next to the bytes cloned, the bytes that crossed the wire: a reading of the copy alone
  // (the template's writes come before it) shows the wire at under 1% of the bytes cloned
  await sleep(3000);
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
  for (let i = 0; i < 600 && !existsSync(doneFile); i++) await sleep(500);
  check(existsSync(doneFile), 'the clone finished');
  let m;
  for (let i = 0; i < 60; i++) { // accounting settles: no pending blocks
    m = await scrape();
    if (sumWhere(m, 'lunlab_array_pending_blocks', `array="${array}"`) === 0) break;
    await sleep(500);
  }
  let mismatches = [];
  for (let attempt = 0; attempt < 10; attempt++) {
    await sleep(1500); // one more reading by the page
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
