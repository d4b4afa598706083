// Trunk post_build hook: takes the page's split modules into the build. scripts/wasm-ld split the page's module at
// its split points into the main module (which Trunk has run through wasm-bindgen and wasm-opt like any other) and
// the modules in target/wasm-split/PROFILE/arbigraph_studio/ with the JavaScript that fetches them (__wasm_split.js). Each
// file gets its content's hash in its name, as Trunk names its own, so a host may cache them for good; the loader
// imports the main bindings by the name Trunk gave them, and the main bindings import the loader by its new name.
// Release builds run the split modules through wasm-opt -Oz, as Trunk does the main module. Run by post-build.mjs.
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const staging = process.env.TRUNK_STAGING_DIR ?? process.argv[2];
if (!staging) {
  console.error('split-assets: run by trunk as a post_build hook, or give the directory: node scripts/split-assets.mjs DIR');
  process.exit(2);
}
const release = process.env.TRUNK_PROFILE === 'release';
// The cargo profile Trunk built the page with: index.html names the release one (data-cargo-profile-release).
const pageLink = readFileSync(join(root, 'index.html'), 'utf8').match(/<link[^>]*data-bin="arbigraph-studio"[^>]*>/)?.[0] ?? '';
const cargoProfile = (release ? pageLink.match(/data-cargo-profile-release="([^"]+)"/)?.[1] ?? 'release'
  : pageLink.match(/data-cargo-profile-dev="([^"]+)"/)?.[1] ?? 'debug');
const splitDir = join(process.env.CARGO_TARGET_DIR ?? join(root, 'target'), 'wasm-split', cargoProfile, 'arbigraph_studio');

const bindings = readdirSync(staging).filter((name) => /^arbigraph-studio-[0-9a-f]+\.js$/.test(name));
if (bindings.length !== 1) {
  console.error(`split-assets: expected one arbigraph-studio-HASH.js in ${staging}, found ${bindings.length}`);
  process.exit(1);
}
const bindingsPath = join(staging, bindings[0]);
let bindingsJs = readFileSync(bindingsPath, 'utf8');
if (!/from\s*(['"])\.\/__wasm_split\.js\1/.test(bindingsJs)) {
  console.error(`split-assets: ${bindings[0]} does not import ./__wasm_split.js: the page was built without its split points`);
  process.exit(1);
}
if (!existsSync(join(splitDir, '__wasm_split.js'))) {
  console.error(`split-assets: ${splitDir}/__wasm_split.js is missing: scripts/wasm-ld did not split the page's module (when cargo found the page up to date and did not link it, \`touch src/main.rs\` makes it link again)`);
  process.exit(1);
}

const hash = (bytes) => createHash('sha256').update(bytes).digest('hex').slice(0, 16);
const wasmOpt = join(root, 'tools', 'node_modules', '.bin', 'wasm-opt');

/** wasm-opt -Oz, as Trunk runs it on the main module. It warns of the name section's subsection 3 (the names of
 * labels, which it does not read) in every module the split writes: that line alone is left out of its output. */
function optimise(source, target) {
  const run = spawnSync(wasmOpt, ['-Oz', '--enable-bulk-memory', '--enable-nontrapping-float-to-int', '--enable-sign-ext',
    '--enable-mutable-globals', source, '-o', target], { encoding: 'utf8' });
  const said = `${run.stdout}${run.stderr}`.split('\n').filter((line) => line && !/^warning: unknown name subsection with id 3 at \d+$/.test(line));
  if (said.length) console.error(said.join('\n'));
  if (run.status !== 0) {
    console.error(`split-assets: wasm-opt failed on ${source}`);
    process.exit(1);
  }
}

let loader = readFileSync(join(splitDir, '__wasm_split.js'), 'utf8');
let raw = 0, count = 0;
for (const name of readdirSync(splitDir).filter((n) => n.endsWith('.wasm')).sort()) {
  const source = join(splitDir, name);
  const stem = name.slice(0, -'.wasm'.length);
  const temp = join(staging, `${stem}.tmp.wasm`);
  if (release) optimise(source, temp);
  const bytes = readFileSync(release ? temp : source);
  if (release) rmSync(temp);
  const hashed = `${stem}-${hash(bytes)}.wasm`;
  writeFileSync(join(staging, hashed), bytes);
  const quoted = `"./${name}"`;
  if (!loader.includes(quoted)) {
    console.error(`split-assets: __wasm_split.js does not name ${name}`);
    process.exit(1);
  }
  loader = loader.replaceAll(quoted, `"./${hashed}"`);
  raw += bytes.length; count += 1;
}
loader = loader.replace(/from "\.\/main\.js";/, `from "./${bindings[0]}";`);
// The main module's table, under the second name scripts/wasm-table-alias.mjs gave it (wasm-bindgen drops the first).
const tableRead = 'const { __indirect_function_table,';
if (!loader.includes(tableRead)) {
  console.error('split-assets: __wasm_split.js does not read the main module\'s __indirect_function_table as expected');
  process.exit(1);
}
loader = loader.replace(tableRead, 'const { __wasm_split_table: __indirect_function_table,');
const loaderName = `__wasm_split-${hash(loader)}.js`;
writeFileSync(join(staging, loaderName), loader);
// Only the import's source: the wasm module's import keeps its name in the imports object.
bindingsJs = bindingsJs.replace(/(from\s*)(['"])\.\/__wasm_split\.js\2/g, `$1$2./${loaderName}$2`);
writeFileSync(bindingsPath, bindingsJs);
// Trunk's index.html preloads the bindings with their subresource integrity: it must be that of the edited file.
const indexPath = join(staging, 'index.html');
const index = readFileSync(indexPath, 'utf8');
const integrity = `sha384-${createHash('sha384').update(bindingsJs).digest('base64')}`;
const preload = new RegExp(`(href="\\./${bindings[0].replace('.', '\\.')}"[^>]*integrity=")sha384-[^"]*(")`);
if (preload.test(index)) writeFileSync(indexPath, index.replace(preload, `$1${integrity}$2`));
console.error(`split-assets: ${count} page modules, ${raw} bytes raw, loader ${loaderName}`);
