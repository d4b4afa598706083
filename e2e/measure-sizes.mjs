// Prints, per route, what a cold browser downloads before the route's page is painted, and when. The page's module
// is split at its routes (scripts/wasm-ld): the shell (header and navigation) paints first, from the main module,
// and the route's page follows once its modules arrive. So the figure is taken at the page's own paint (the first
// frame after the route's section is in the DOM), with every response that finished before it, each file's bytes
// raw, gzip -9 and brotli 11 (what a host serving the build's precompressed .gz/.br files sends); the shell's first
// contentful paint is printed beside it. Then the size of each wasm module. Run after a release build:
//   . scripts/wasm-env.sh && trunk build --release --dist /tmp/dist && ARBIGRAPH_DIST=/tmp/dist node e2e/measure-sizes.mjs
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliCompressSync, gzipSync, constants } from 'node:zlib';
import { serveDist, launch, DIST } from './harness.mjs';

const ROUTES = ['design', 'generate', 'browse', 'evaluate', 'results', 'about'];

/** Bytes of `file` under DIST: raw, gzip -9, brotli 11. */
const sizes = new Map();
function sizeOf(file) {
  if (!sizes.has(file)) {
    const bytes = readFileSync(join(DIST, file));
    const brotli = brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length } });
    sizes.set(file, { raw: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length, brotli: brotli.length });
  }
  return sizes.get(file);
}
const kb = (n) => `${(n / 1000).toFixed(0)} kB`;
const sum = (list, key) => list.reduce((total, s) => total + s[key], 0);

const server = await serveDist();
const base = new URL(server.url);
const lines = [];
for (const route of ROUTES) {
  const { context, page } = await launch();
  // Every request that finished, with when (epoch ms); the page's first contentful paint on the same clock.
  const finished = [];
  const onFinished = (request) => {
    const url = new URL(request.url());
    const timing = request.timing();
    if (url.origin === base.origin && url.pathname.startsWith(base.pathname) && timing.responseEnd >= 0) {
      const file = decodeURIComponent(url.pathname.slice(base.pathname.length)) || 'index.html';
      finished.push({ file, end: timing.startTime + timing.responseEnd });
    }
  };
  context.on('requestfinished', onFinished);
  // The page's paint: the frame after the route's section joins the DOM (a task queued from that frame's
  // animation callback runs once the frame is painted).
  await page.addInitScript((id) => {
    const seen = () => {
      if (!document.getElementById(id)) return false;
      requestAnimationFrame(() => setTimeout(() => { window.__pagePaint = performance.timeOrigin + performance.now(); }));
      return true;
    };
    new MutationObserver((_, observer) => { if (seen()) observer.disconnect(); })
      .observe(document, { subtree: true, childList: true });
  }, `page-${route}`);
  const started = Date.now();
  await page.goto(`${server.url}#/${route}`);
  await page.waitForSelector(`#page-${route}`);
  await page.waitForFunction(() => window.__pagePaint !== undefined);
  const paint = await page.evaluate(() => window.__pagePaint);
  const shellPaint = await page.evaluate(() => new Promise((done) => {
    const look = () => {
      const fcp = performance.getEntriesByName('first-contentful-paint')[0];
      if (fcp) done(performance.timeOrigin + fcp.startTime); else requestAnimationFrame(look);
    };
    look();
  }));
  const paintMs = Math.round(paint - started);
  const shellMs = Math.round(shellPaint - started);
  await page.waitForTimeout(500);
  context.off('requestfinished', onFinished);
  const fetched = new Set(finished.filter((f) => f.end <= paint).map((f) => f.file));
  const files = [...fetched].sort();
  const measured = files.map(sizeOf);
  lines.push(`#/${route}: ${files.length} files before the page's paint (${paintMs} ms; the shell's first paint ${shellMs} ms): ${kb(sum(measured, 'raw'))} raw, ` +
    `${kb(sum(measured, 'gzip'))} gzip, ${kb(sum(measured, 'brotli'))} brotli (${files.filter((f) => f.endsWith('.wasm')).join(', ')})`);
  console.log(lines.at(-1));
  await context.close();
}
await server.close();
const wasm = readdirSync(DIST).filter((f) => f.endsWith('.wasm')).sort();
for (const file of wasm) {
  const s = sizeOf(file);
  lines.push(`${file}: ${s.raw} raw, ${s.gzip} gzip, ${s.brotli} brotli`);
  console.log(lines.at(-1));
}
console.log('\n' + lines.map((l) => `- ${l}`).join('\n'));
