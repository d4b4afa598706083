// Measures the instance pages in headless Chromium and prints the figures of the README's instances paragraph:
// the paper's whole dataset generated with one worker and with one per core (time, samples per second against
// the native CLI, the longest main-thread task), frame times while scrolling its 10,000+ samples, opening a 50 MB file, and
// opening a 100,000-sample static site. Run after a release build:
//   trunk build --release && cargo build --release --bin arbigraph && node e2e/measure.mjs
// `node e2e/measure.mjs --paper 3` times only the paper's dataset, with 1 and with N workers, three times each.
import http from 'node:http';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, statSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { extname, join, normalize } from 'node:path';
import { serveDist, launch, removeQuietly, ROOT, DIST } from './harness.mjs';

const scratch = mkdtempSync(join(tmpdir(), 'arbigraph-measure-'));
process.on('exit', () => removeQuietly(scratch));
const release = join(ROOT, 'target', 'release', 'arbigraph');
const binary = existsSync(release) ? release : join(ROOT, 'target', 'debug', 'arbigraph');
const run = (...args) => execFileSync(binary, args, { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

const LONG_TASKS = `
  window.__longTasks = [];
  new PerformanceObserver((list) => { for (const e of list.getEntries()) window.__longTasks.push(e.duration); })
    .observe({ type: 'longtask', buffered: true });
`;

async function serveDir(dir, base) {
  const srv = http.createServer(async (req, res) => {
    const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    let file = normalize(join(dir, path.slice(base.length)));
    if (!path.startsWith(base) || !file.startsWith(dir)) { res.writeHead(404).end(); return; }
    try {
      if ((await stat(file)).isDirectory()) file = join(file, 'index.html');
      const type = { '.html': 'text/html', '.js': 'text/javascript', '.wasm': 'application/wasm', '.css': 'text/css' }[extname(file)] ?? 'application/octet-stream';
      res.writeHead(200, { 'Content-Type': type }).end(await readFile(file));
    } catch { res.writeHead(404).end(); }
  });
  await new Promise((ok) => srv.listen(0, '127.0.0.1', ok));
  return { url: `http://127.0.0.1:${srv.address().port}${base}`, close: () => new Promise((ok) => srv.close(ok)) };
}

const quantile = (values, q) => { const s = [...values].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor(q * s.length))]; };
const figures = [];
const say = (text) => { figures.push(text); console.log(text); };

const server = await serveDist();

/** Generates the paper's whole dataset in a fresh browser whose page reports `cores` logical cores (the
 * machine's own when null), so the page spreads it over that many workers. */
async function paperRun(cores) {
  const session = await launch();
  await session.context.addInitScript(LONG_TASKS);
  if (cores) await session.context.addInitScript(`Object.defineProperty(Navigator.prototype, 'hardwareConcurrency', { get: () => ${cores} });`);
  const { page } = session;
  await page.goto(`${server.url}#/generate?topology=paper&family=all&spt=16&seed=0`);
  await page.waitForSelector('[data-testid="generate"]');
  const workers = await page.evaluate(() => Math.min(8, Math.max(1, navigator.hardwareConcurrency || 1)));
  // Let the demo datasets and the workers start first: the figure is generation alone.
  await page.waitForTimeout(3000);
  await page.evaluate(() => { window.__longTasks = []; });
  // Timed in the page, from the click to the status line's change: Playwright's polling for a selector backs
  // off to 500 ms steps, which would put every figure on a half-second grid.
  // The status says "… samples generated" once a run ends; a run counts as ended when it says so after having
  // said something else since the click.
  const timeRun = () => page.evaluate(() => new Promise((done) => {
    const status = document.querySelector('#gen-status');
    const t0 = performance.now();
    let running = false;
    new MutationObserver((_, observer) => {
      const ended = /samples generated/.test(status.textContent);
      if (!ended) running = true;
      else if (running) {
        observer.disconnect();
        done(performance.now() - t0);
      }
    }).observe(status, { childList: true, subtree: true, characterData: true });
    document.querySelector('[data-testid="generate"]').click();
  }));
  const seconds = (await timeRun()) / 1000;
  const count = Number((await page.textContent('#gen-status')).match(/(\d+) samples generated/)[1]);
  const longest = await page.evaluate(() => Math.max(0, ...window.__longTasks));
  // Again in the same page: the browser has compiled the hot code fully by now (its first run starts on
  // baseline-compiled WebAssembly, tiered up in the background while both cores are busy).
  const again = (await timeRun()) / 1000;
  return { session, workers, seconds, again, count, longest };
}

// 1. The paper's whole dataset in the browser: one worker, then every core's. `--paper N` times that N times
// and stops.
const paperOnly = process.argv.indexOf('--paper');
if (paperOnly > 0) {
  for (let i = 0; i < Number(process.argv[paperOnly + 1] ?? 1); i++) {
    for (const cores of [1, null]) {
      const r = await paperRun(cores);
      say(`paper dataset (${r.count} samples): ${r.seconds.toFixed(2)} s with ${r.workers} worker(s), ${r.again.toFixed(2)} s again in the same page; longest main-thread task ${r.longest.toFixed(0)} ms`);
      await r.session.context.close();
    }
  }
  await server.close?.();
  process.exit(0);
}
const one = await paperRun(1);
await one.session.context.close();
const all = await paperRun(null);
const { context, page } = all.session;
const samples = all.count;
const browserSeconds = all.seconds;
const longestGenerating = all.longest;
say(`paper dataset (${samples} samples) in the browser: ${one.seconds.toFixed(2)} s with 1 worker, ${all.seconds.toFixed(2)} s with ${all.workers} workers ` +
  `(${(one.seconds / all.seconds).toFixed(2)}x); again in the same page ${one.again.toFixed(2)} s and ${all.again.toFixed(2)} s; ` +
  `longest main-thread task ${one.longest.toFixed(0)} ms and ${all.longest.toFixed(0)} ms`);
let started;

// The same eleven runs natively.
started = process.hrtime.bigint();
for (const family of ['math', 'gsm', 'python']) {
  for (const topology of ['baseline', 'forgetting', 'chain', 'multichain']) {
    if (family === 'gsm' && topology === 'multichain') continue;
    run('generate', '--topology', topology, '--family', family, '--samples-per-target', '16', '--seed', '0', '-o', join(scratch, `${family}_${topology}.json`));
  }
}
const nativeSeconds = Number(process.hrtime.bigint() - started) / 1e9;
say(`paper dataset (${samples} samples, 11 runs): ${browserSeconds.toFixed(1)} s in ${all.workers} workers = ${(samples / browserSeconds).toFixed(0)} samples/s; ` +
  `native ${binary.includes('release') ? 'release' : 'debug'} CLI ${nativeSeconds.toFixed(1)} s = ${(samples / nativeSeconds).toFixed(0)} samples/s (files written included); ` +
  `longest main-thread task while generating ${longestGenerating.toFixed(0)} ms`);

// 2. Scrolling the list of those samples: frame intervals from requestAnimationFrame.
await page.goto(`${server.url}#/browse`);
await page.waitForSelector('[data-testid="instance-row"]');
const box = await page.locator('[data-testid="instance-list"]').boundingBox();
await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
await page.evaluate(() => {
  window.__frames = [];
  window.__longTasks = [];
  let last = performance.now();
  const tick = (now) => { window.__frames.push(now - last); last = now; if (window.__frames.length < 100000) requestAnimationFrame(tick); };
  requestAnimationFrame(tick);
});
for (let i = 0; i < 150; i++) { await page.mouse.wheel(0, 2000); await page.waitForTimeout(16); }
const frames = (await page.evaluate(() => window.__frames)).slice(2);
const longestScrolling = await page.evaluate(() => Math.max(0, ...window.__longTasks));
const rows = await page.locator('[data-testid="instance-row"]').count();
say(`scrolling ${samples} samples (150 wheel steps of 2,000 px): frame interval median ${quantile(frames, 0.5).toFixed(1)} ms, ` +
  `95th percentile ${quantile(frames, 0.95).toFixed(1)} ms, worst ${Math.max(...frames).toFixed(1)} ms; ${rows} rows in the DOM; longest task ${longestScrolling.toFixed(0)} ms`);

// 3. Opening a 50 MB file.
const big = join(scratch, 'big.json');
run('generate', '--topology', 'chain', '--family', 'math', '--samples-per-target', '260', '--seed', '1', '-o', big);
await page.evaluate(() => { window.__longTasks = []; });
started = Date.now();
await page.setInputFiles('#open-dataset', big);
await page.waitForSelector('#browse-notice:has-text("opened big.json")', { timeout: 600000 });
say(`opening a ${(statSync(big).size / 1e6).toFixed(1)} MB dataset file (10,400 samples): ${((Date.now() - started) / 1000).toFixed(1)} s, ` +
  `longest main-thread task ${(await page.evaluate(() => Math.max(0, ...window.__longTasks))).toFixed(0)} ms`);
await context.close();
await server.close();

// 4. A 100,000-sample static site: time from navigation to the first rows shown.
const huge = join(scratch, 'math_100k.json');
run('generate', '--topology', 'baseline', '--family', 'math', '--samples-per-target', '2500', '--seed', '0', '-o', huge);
const siteDir = join(scratch, 'site');
run('site', '--out', siteDir, '--dist', DIST, '--dataset', huge);
const site = await serveDir(siteDir, '/site/');
const visitor = await launch();
const times = [];
for (let i = 0; i < 3; i++) {
  await visitor.page.goto('about:blank');
  const t0 = Date.now();
  await visitor.page.goto(`${site.url}#/browse?dataset=math_100k&index=0`);
  await visitor.page.waitForSelector('[data-testid="instance-row"][data-index="0"] .c-target');
  times.push(Date.now() - t0);
}
say(`a 100,000-sample site (${(statSync(huge).size / 1e6).toFixed(0)} MB, 100 shards): first rows shown ${Math.min(...times)}–${Math.max(...times)} ms after navigation (3 loads)`);
await visitor.context.close();
await site.close();
console.log('\n' + figures.map((f) => `- ${f}`).join('\n'));
