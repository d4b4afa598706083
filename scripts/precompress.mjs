// Trunk post_build hook (release builds): writes NAME.gz (gzip -9) and NAME.br (brotli, quality 11) next to every
// text or wasm asset of the build, so a static host that serves precompressed files (nginx gzip_static and
// brotli_static, Caddy's `precompressed`, see docs/DEPLOY.md) sends them without compressing on each request.
// Node's own zlib: nothing to install. Debug builds are left alone (their wasm is large and never deployed).
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { brotliCompressSync, gzipSync, constants } from 'node:zlib';

const dir = process.env.TRUNK_STAGING_DIR ?? process.argv[2];
if (!dir) {
  console.error('precompress: run by trunk as a post_build hook, or give the directory: node scripts/precompress.mjs DIR');
  process.exit(2);
}
if (process.env.TRUNK_PROFILE && process.env.TRUNK_PROFILE !== 'release') process.exit(0);

const COMPRESSIBLE = new Set(['.html', '.js', '.mjs', '.wasm', '.css', '.svg', '.json', '.jsonl', '.txt']);

/** Every compressible file under `root`. */
function* files(root) {
  for (const entry of readdirSync(root, { withFileTypes: true })) {
    const path = join(root, entry.name);
    if (entry.isDirectory()) yield* files(path);
    else if (COMPRESSIBLE.has(extname(entry.name))) yield path;
  }
}

let raw = 0, gz = 0, br = 0, count = 0;
for (const path of files(dir)) {
  const bytes = readFileSync(path);
  const gzipped = gzipSync(bytes, { level: 9 });
  const brotli = brotliCompressSync(bytes, {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: 11,
      [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length,
      [constants.BROTLI_PARAM_MODE]: extname(path) === '.wasm' ? constants.BROTLI_MODE_GENERIC : constants.BROTLI_MODE_TEXT,
    },
  });
  writeFileSync(`${path}.gz`, gzipped);
  writeFileSync(`${path}.br`, brotli);
  raw += bytes.length; gz += gzipped.length; br += brotli.length; count += 1;
}
console.error(`precompress: ${count} files, ${raw} bytes raw, ${gz} gzip, ${br} brotli (${dir})`);
