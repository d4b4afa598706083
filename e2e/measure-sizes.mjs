// Prints, per route, what a cold browser downloads before the route's first paint: every response that finished
// before the page's section was in the DOM, with its bytes raw, gzip -9 and brotli 11 (what a host serving the
// build's precompressed .gz/.br files sends), and the time from navigation to that paint. Then the size of
// each wasm module. Run after a release build:
//   . scripts/wasm-env.sh && trunk build --release --dist /tmp/dist && ARBIGRAPH_DIST=/tmp/dist node e2e/measure-sizes.mjs
import { readFileSync } from 'node:fs';
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
  const fetched = new Set();
  const onResponse = (response) => {
    const url = new URL(response.url());
    if (url.origin === base.origin && url.pathname.startsWith(base.pathname)) {
      const file = decodeURIComponent(url.pathname.slice(base.pathname.length)) || 'index.html';
      if (response.status() === 200) fetched.add(file);
    }
  };
  context.on('response', onResponse);
  const started = Date.now();
  await page.goto(`${server.url}#/${route}`);
  await page.waitForSelector(`#page-${route}`);
  await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
  const paintMs = Date.now() - started;
  context.off('response', onResponse);
  const files = [...fetched].sort();
  const measured = files.map(sizeOf);
  lines.push(`#/${route}: ${files.length} files before first paint (${paintMs} ms): ${kb(sum(measured, 'raw'))} raw, ` +
    `${kb(sum(measured, 'gzip'))} gzip, ${kb(sum(measured, 'brotli'))} brotli (${files.filter((f) => f.endsWith('.wasm')).join(', ')})`);
  console.log(lines.at(-1));
  await context.close();
}
await server.close();
const wasm = [...sizes.keys()].filter((f) => f.endsWith('.wasm')).sort();
for (const file of wasm) {
  const s = sizeOf(file);
  lines.push(`${file}: ${s.raw} raw, ${s.gzip} gzip, ${s.brotli} brotli`);
  console.log(lines.at(-1));
}
console.log('\n' + lines.map((l) => `- ${l}`).join('\n'));
