// What a wasm module holds: its code bytes per crate (or per module path, `--depth N`), read from the code
// section and the function names of the name section (Rust's v0 and legacy manglings). Run it on cargo's
// output, before wasm-bindgen and wasm-opt strip the names:
//   node e2e/measure-wasm.mjs target/wasm32-unknown-unknown/wasm-release/arbigraph-studio.wasm --depth 3
import { readFileSync } from 'node:fs';

const args = process.argv.slice(2);
const file = args.find((a) => !a.startsWith('--') && !/^\d+$/.test(a));
const depth = Number(args[args.indexOf('--depth') + 1] ?? 1) || 1;
const top = Number(args[args.indexOf('--top') + 1] ?? 30) || 30;
if (!file) {
  console.error('usage: node e2e/measure-wasm.mjs FILE.wasm [--depth N] [--top N]');
  process.exit(2);
}
const data = readFileSync(file);
let at = 8;
const leb = () => { let r = 0, s = 0, x; do { x = data[at++]; r += (x & 0x7f) * 2 ** s; s += 7; } while (x & 0x80); return r; };
const bytesName = () => { const n = leb(); const t = data.toString('utf8', at, at + n); at += n; return t; };
const limits = () => { const flags = data[at++]; leb(); if (flags & 1) leb(); };

let imported = 0, dataBytes = 0;
const bodies = [];
const names = new Map();
while (at < data.length) {
  const id = data[at++];
  const size = leb();
  const end = at + size;
  if (id === 2) {
    for (let n = leb(); n > 0; n--) {
      bytesName(); bytesName();
      const kind = data[at++];
      if (kind === 0) { leb(); imported++; } else if (kind === 1) { at++; limits(); } else if (kind === 2) limits(); else if (kind === 3) at += 2;
    }
  } else if (id === 10) {
    for (let n = leb(); n > 0; n--) { const start = at; const len = leb(); at += len; bodies.push(at - start); }
  } else if (id === 11) {
    dataBytes += size;
  } else if (id === 0 && bytesName() === 'name') {
    while (at < end) {
      const sub = data[at++]; const len = leb(); const next = at + len;
      if (sub === 1) for (let n = leb(); n > 0; n--) { const index = leb(); names.set(index, bytesName()); }
      at = next;
    }
  }
  at = end;
}

/** The first `depth` path segments of a mangled Rust name (`crate::module::…`), or the name itself. */
function path(name) {
  let rest;
  if (name.startsWith('_R')) {
    const m = /C(?:s[0-9a-zA-Z]*_)?(\d+)/.exec(name);
    if (!m) return name.slice(0, 40);
    rest = name.slice(m.index + 1);
  } else if (name.startsWith('_ZN')) {
    rest = name.slice(3);
  } else {
    return name.includes('::') ? name.split('::')[0] : name.slice(0, 40);
  }
  const parts = [];
  while (parts.length < depth) {
    const m = /^(?:s[0-9a-zA-Z]*_)?(\d+)_?/.exec(rest);
    if (!m) break;
    const len = Number(m[1]);
    parts.push(rest.slice(m[0].length, m[0].length + len));
    rest = rest.slice(m[0].length + len);
  }
  return parts.join('::') || name.slice(0, 40);
}

const by = new Map();
bodies.forEach((size, k) => { const key = path(names.get(imported + k) ?? '?'); by.set(key, (by.get(key) ?? 0) + size); });
const total = bodies.reduce((a, b) => a + b, 0);
console.log(`${file}: ${data.length} bytes; code ${total} bytes in ${bodies.length} functions (${names.size ? 'named' : 'no name section'}); data ${dataBytes} bytes`);
for (const [key, size] of [...by].sort((a, b) => b[1] - a[1]).slice(0, top)) {
  console.log(`${String(size).padStart(9)} ${(100 * size / total).toFixed(1).padStart(5)}%  ${key}`);
}
