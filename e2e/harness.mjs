// Shared end-to-end plumbing: a static server for dist/ mounted under a sub-path, and Debian's headless
// Chromium driven by playwright-core (no browser download), failing on any console error.
import http from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import { mkdtempSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, extname, normalize, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const DIST = join(ROOT, 'dist');
export const SHOTS = join(ROOT, 'target', 'screenshots');
/** The sub-path the app is served under, to prove asset URLs are relative. */
export const BASE = '/studio/';

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
