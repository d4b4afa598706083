// Run by scripts/wasm-ld on the page's main module after the split: exports its function table a second time, as
// `__wasm_split_table`. The split modules call into the main module through that table, and wasm-bindgen (as Trunk
// runs it) drops the export `__indirect_function_table`; the loader (scripts/split-assets.mjs) reads the alias.
//   node scripts/wasm-table-alias.mjs MODULE.wasm
import { readFileSync, writeFileSync } from 'node:fs';

const [path] = process.argv.slice(2);
const ALIAS = '__wasm_split_table';
const bytes = readFileSync(path);

function readU32(at) {
  let value = 0, shift = 0, byte;
  do {
    byte = bytes[at++];
    value |= (byte & 0x7f) << shift;
    shift += 7;
  } while (byte & 0x80);
  return { value: value >>> 0, at };
}
function u32(value) {
  const out = [];
  do {
    let byte = value & 0x7f;
    value >>>= 7;
    if (value) byte |= 0x80;
    out.push(byte);
  } while (value);
  return Buffer.from(out);
}
function fail(message) {
  console.error(`wasm-table-alias: ${path}: ${message}`);
  process.exit(1);
}

if (bytes.readUInt32LE(0) !== 0x6d736100) fail('not a WebAssembly module');
let at = 8;
while (at < bytes.length) {
  const id = bytes[at];
  const size = readU32(at + 1);
  const start = size.at, end = size.at + size.value;
  if (id === 7) {
    const count = readU32(start);
    let entry = count.at, table = null;
    for (let i = 0; i < count.value; i++) {
      const length = readU32(entry);
      const name = bytes.toString('utf8', length.at, length.at + length.value);
      const kind = bytes[length.at + length.value];
      const index = readU32(length.at + length.value + 1);
      if (name === ALIAS) process.exit(0);
      if (name === '__indirect_function_table' && kind === 1) table = index.value;
      entry = index.at;
    }
    if (table === null) fail('exports no __indirect_function_table');
    const alias = Buffer.concat([u32(ALIAS.length), Buffer.from(ALIAS), Buffer.from([1]), u32(table)]);
    const body = Buffer.concat([u32(count.value + 1), bytes.subarray(count.at, end), alias]);
    writeFileSync(path, Buffer.concat([bytes.subarray(0, at), Buffer.from([7]), u32(body.length), body, bytes.subarray(end)]));
    process.exit(0);
  }
  at = end;
}
fail('has no export section');
