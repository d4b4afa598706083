// Shared end-to-end plumbing: a static server for dist/ mounted under a sub-path, and Debian's headless
// Chromium driven by playwright-core (no browser download), failing on any console error.
import http from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, mkdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, extname, normalize, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import assert from 'node:assert/strict';
import { chromium } from 'playwright-core';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
/** The built app: dist/, or the folder ARBIGRAPH_DIST names (a build of its own, e.g. `trunk build --dist`). */
export const DIST = process.env.ARBIGRAPH_DIST ?? join(ROOT, 'dist');
export const SHOTS = join(ROOT, 'target', 'screenshots');
/** The sub-path the app is served under, to prove asset URLs are relative. */
export const BASE = '/studio/';

/** The native CLI: the most recently built of the release and debug builds (an older one may predate the
 * sources), or a fresh debug build. */
export function nativeCli() {
  const built = ['release', 'debug']
    .map((profile) => join(ROOT, 'target', profile, 'arbigraph'))
    .filter((path) => existsSync(path))
    .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs);
  if (built.length > 0) return built[0];
  execFileSync('cargo', ['build', '--locked', '--bin', 'arbigraph'], { cwd: ROOT, stdio: 'inherit' });
  return join(ROOT, 'target', 'debug', 'arbigraph');
}

const TYPES = {
  '.html': 'text/html', '.js': 'text/javascript', '.wasm': 'application/wasm', '.css': 'text/css',
  '.svg': 'image/svg+xml', '.json': 'application/json', '.png': 'image/png',
};

/** Serves dist/ under BASE on a free 127.0.0.1 port; resolves to { url, close }. */
export async function serveDist() {
  const server = http.createServer(async (req, res) => {
    const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    if (!path.startsWith(BASE)) { res.writeHead(404).end('outside the app'); return; }
    let file = normalize(join(DIST, path.slice(BASE.length)));
    if (!file.startsWith(DIST)) { res.writeHead(403).end(); return; }
    try {
      if ((await stat(file)).isDirectory()) file = join(file, 'index.html');
      const body = await readFile(file);
      res.writeHead(200, { 'Content-Type': TYPES[extname(file)] ?? 'application/octet-stream' }).end(body);
    } catch {
      res.writeHead(404).end('not found');
    }
  });
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  const { port } = server.address();
  return { url: `http://127.0.0.1:${port}${BASE}`, close: () => new Promise((ok) => server.close(ok)) };
}

/** Removes a scratch folder; Chromium may still be writing its profile as it closes, so retry and never throw. */
export function removeQuietly(path) {
  try {
    rmSync(path, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  } catch {
    // A leftover folder in the temporary directory is not worth failing a test for.
  }
}

/** Launches headless Chromium with a fresh profile; resolves to { context, page, errors }. */
export async function launch() {
  const profile = mkdtempSync(join(tmpdir(), 'arbigraph-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'],
    viewport: { width: 1280, height: 900 },
  });
  // The profile is ours alone: remove it when the browser closes, so test runs leave nothing behind in /tmp.
  context.on('close', () => removeQuietly(profile));
  const page = context.pages()[0] ?? await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(`console.error: ${m.text()}`); });
  mkdirSync(SHOTS, { recursive: true });
  return { context, page, errors };
}

/** What the page keeps: local and session storage, and every IndexedDB database's stores with their keys and
 * values, as `{ localStorage, sessionStorage, databases: { name: { store: { keys, values } } } }`. */
export function dumpStorage(page) {
  return page.evaluate(async () => {
    const out = { localStorage: JSON.stringify({ ...localStorage }), sessionStorage: JSON.stringify({ ...sessionStorage }), databases: {} };
    for (const { name } of await indexedDB.databases()) {
      const db = await new Promise((ok, fail) => { const r = indexedDB.open(name); r.onsuccess = () => ok(r.result); r.onerror = () => fail(r.error); });
      const stores = {};
      for (const store of db.objectStoreNames) {
        stores[store] = await new Promise((ok, fail) => {
          const tx = db.transaction(store, 'readonly');
          const keys = tx.objectStore(store).getAllKeys();
          const values = tx.objectStore(store).getAll();
          tx.oncomplete = () => ok({ keys: keys.result, values: values.result });
          tx.onerror = () => fail(tx.error);
        });
      }
      db.close();
      out.databases[name] = stores;
    }
    return out;
  });
}

/** Fails if any of `secrets` is in the page's storage (`dumpStorage`), in its URL, or in one of `texts`
 * (`{ 'the export': text, … }`). Resolves to the storage dump, for further checks. */
export async function assertNoSecrets(page, secrets, texts = {}) {
  const stored = await dumpStorage(page);
  const places = { 'the stores': JSON.stringify(stored), 'the URL': page.url(), ...texts };
  for (const [i, secret] of secrets.entries()) {
    assert.ok(secret.length >= 6, 'a secret to look for is long enough not to match by chance');
    for (const [what, body] of Object.entries(places)) {
      assert.ok(!body.includes(secret), `secret #${i + 1} found in ${what}`);
    }
  }
  return stored;
}

/** Clicks Run on Evaluate and waits until the new run heads the run list. The last run's rows stay on the page
 * (they are the app's, not the page's) until the new run lays out its own: waiting for the run, not for the
 * rows, never reads the last run's as this one's. */
export async function startRun(page) {
  const newest = () => document.querySelector('[data-testid="run-item"]')?.dataset.id ?? null;
  const before = await page.evaluate(newest);
  await page.click('[data-testid="start-run"]');
  await page.waitForFunction((was) => (document.querySelector('[data-testid="run-item"]')?.dataset.id ?? null) !== was, before, { timeout: 10000 });
}

/** Screenshots in light then dark, as SHOTS/<name>-light.png and <name>-dark.png: the page (with the screenshot
 * `options` given, e.g. `fullPage`), or `target` (a locator); `narrow` adds the same at a phone's 390 px width,
 * as <name>-narrow-light.png and <name>-narrow-dark.png. */
export async function shoot(page, name, { target = page, narrow = false, ...options } = {}) {
  const wide = page.viewportSize();
  for (const [suffix, viewport] of narrow ? [['', null], ['-narrow', { width: 390, height: 844 }]] : [['', null]]) {
    if (viewport) await page.setViewportSize(viewport);
    for (const scheme of ['light', 'dark']) {
      await page.emulateMedia({ colorScheme: scheme });
      await target.screenshot({ path: join(SHOTS, `${name}${suffix}-${scheme}.png`), ...options });
    }
  }
  if (narrow) await page.setViewportSize(wide);
  await page.emulateMedia({ colorScheme: 'light' });
}

/** Clicks Evaluate's "Download results" and resolves to the downloaded file's text. */
export async function exportedText(page) {
  const download = page.waitForEvent('download');
  await page.click('[data-testid="export-results"]');
  return (await (await download).createReadStream()).toArray().then((c) => Buffer.concat(c).toString());
}
