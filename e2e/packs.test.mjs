// Task packs on the page: a LeetCode-style pool picked on Generate and GSM-Symbolic templates dropped on the
// designer's palette are read in the worker, listed with their tasks' kinds and the entries refused with why,
// and generated from in the worker; the downloaded file is the CLI's with the same pack, byte for byte. The packs
// are the small ones written for the tests (tests/fixtures/packs/), in the reference's formats.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { nativeCli, serveDist, launch, removeQuietly, shoot, ROOT } from './harness.mjs';

const POOL = join(ROOT, 'tests', 'fixtures', 'packs', 'python', 'pool.txt');
const TEMPLATES = join(ROOT, 'tests', 'fixtures', 'packs', 'gsm');
const CANVAS = 'svg[data-testid="canvas"]';

let server, browser;
const scratch = mkdtempSync(join(tmpdir(), 'arbigraph-packs-'));

function arbigraph(...args) {
  return execFileSync(nativeCli(), args, { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

before(async () => {
  server = await serveDist();
  browser = await launch();
});
after(async () => { await browser?.context.close(); await server?.close(); removeQuietly(scratch); });

test("a pool picked on Generate lists its tasks' kinds and refusals, and a chain drawn from it is the CLI's file", async () => {
  const { page, errors } = browser;
  await page.goto(`${server.url}#/generate?topology=chain&family=python&spt=2&seed=3&length=3`);
  await page.setInputFiles('[data-testid="pack-panel"] [data-testid="pack-file"]', POOL);
  const loaded = page.locator('[data-testid="pack-loaded"][data-kind="python.ref"]');
  await loaded.waitFor({ timeout: 30000 });
  const text = await loaded.textContent();
  assert.match(text, /python\.ref: 4 tasks from pool\.txt/);
  // The CLI's listing of the same pack gives the same kinds.
  const listing = arbigraph('packs', '--pack', `python=${POOL}`);
  for (const [name, signature] of [['runLengthPeaks', 'list → scalar'], ['digitWeight', 'scalar → scalar']]) {
    assert.match(listing, new RegExp(name), `the CLI lists ${name}`);
    assert.ok(text.includes(signature), `the page shows a task ${signature}: ${text}`);
  }
  assert.ok(text.includes('2 list | scalar → list'), text);
  await loaded.locator('[data-testid="pack-refused"] summary').click();
  const refused = await loaded.locator('[data-testid="pack-refused"]').textContent();
  assert.match(refused, /3 refused/);
  assert.match(refused, /guardedOpen \(line 44\): line 48, column 9: unsupported: with statements/);
  // The family list now says that python is the pack's, and offers ours alone or both.
  const options = await page.locator('#gen-family option').allTextContents();
  assert.ok(options.includes('python (the pack)') && options.includes('python: ours only') && options.includes('python: ours and the pack'), options.join(' | '));
  await shoot(page, 'packs-generate', { target: page.locator('[data-testid="pack-panel"]') });

  await page.click('[data-testid="generate"]');
  await page.waitForSelector('#gen-status:has-text("generated")', { timeout: 60000 });
  const download = page.waitForEvent('download');
  await page.click('#gen-download-json');
  const file = await download;
  const saved = join(scratch, 'page.json');
  await file.saveAs(saved);
  const cli = join(scratch, 'cli.json');
  arbigraph('generate', '--pack', `python=${POOL}`, '--topology', 'chain', '--family', 'python', '--length', '3', '--samples-per-target', '2', '--seed', '3', '-o', cli);
  assert.ok(readFileSync(saved).equals(readFileSync(cli)), 'the page\'s file equals the CLI\'s with the same pack');
  const names = new Set(JSON.parse(readFileSync(saved, 'utf8')).samples.map((s) => s.task_name));
  assert.ok([...names].every((n) => ['runLengthPeaks', 'rotateBy', 'digitWeight'].includes(n)), [...names].join(', '));
  // The run's link names the pack's source, so it cannot quietly draw from our tasks elsewhere.
  await page.click('#gen-browse');
  await page.waitForSelector('[data-testid="instance-row"]');
  await page.locator('[data-testid="instance-row"]').first().click();
  await page.keyboard.press('Enter');
  await page.waitForSelector('[data-testid="prompt"]');
  const link = await page.evaluate(() => location.hash);
  assert.match(decodeURIComponent(link), /python\.ref/, link);

  // Something that is not a pack is refused with what a pack is; the loaded pack stays.
  await page.goto(`${server.url}#/generate`);
  await page.setInputFiles('[data-testid="pack-panel"] [data-testid="pack-file"]', [
    { name: 'a.txt', mimeType: 'text/plain', buffer: Buffer.from('x') },
    { name: 'b.txt', mimeType: 'text/plain', buffer: Buffer.from('y') },
  ]);
  assert.match(await page.textContent('[data-testid="pack-error"]'), /a\.txt, b\.txt: one pool file at a time/);
  assert.equal(await page.locator('[data-testid="pack-loaded"]').count(), 1);
  await page.click('[data-testid="pack-loaded"] .pack-remove');
  assert.equal(await page.locator('[data-testid="pack-loaded"]').count(), 0);
  assert.deepEqual(errors, []);
});

test("templates dropped on the designer's palette list their tasks; Enter adds one pinned and the preview generates it", async () => {
  const { page, errors } = browser;
  await page.goto(`${server.url}#/design`);
  await page.waitForSelector(CANVAS);
  const files = readdirSync(TEMPLATES).filter((n) => n.endsWith('.json')).map((name) => ({ name, text: readFileSync(join(TEMPLATES, name), 'utf8') }));
  const drop = await page.evaluateHandle((all) => {
    const transfer = new DataTransfer();
    for (const { name, text } of all) transfer.items.add(new File([text], name, { type: 'application/json' }));
    return transfer;
  }, files);
  await page.dispatchEvent('.design-palette [data-testid="pack-panel"]', 'drop', { dataTransfer: drop });
  const group = page.locator('[data-testid="palette-pack-tasks"][data-kind="gsm.symbolic"]');
  await group.waitFor({ timeout: 30000 });
  const listing = arbigraph('packs', '--pack', `gsm=${TEMPLATES}`);
  const usable = (await group.locator('[data-testid="palette-pack-task"]').evaluateAll((all) => all.map((e) => e.dataset.key)));
  assert.ok(usable.length > 0, 'the templates give tasks');
  for (const key of usable) assert.ok(listing.includes(key), `the CLI lists ${key} too`);
  assert.match(await group.locator('[data-testid="palette-pack-task"]').first().textContent(), /→ scalar/, 'each task shows its kinds');
  assert.equal(await page.locator('[data-testid="pack-error"]').count(), 0);

  // On an empty graph: found by name, added with the keyboard, pinned to the template; the canvas names it.
  await page.click(CANVAS, { position: { x: 5, y: 5 } });
  await page.keyboard.press('Control+a');
  await page.keyboard.press('Delete');
  await page.waitForFunction((sel) => document.querySelectorAll(sel).length === 0, `${CANVAS} [data-node-id]`);
  const key = usable[0];
  const id = key.split('.').pop();
  await page.fill('[data-testid="palette-pack-filter"]', id);
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="palette-pack-task"]').length === 1);
  await page.focus('[data-testid="palette-pack-task"]');
  await page.keyboard.press('Enter');
  await page.waitForFunction((name) => document.querySelector('svg[data-testid="canvas"]').textContent.includes(name), `GSM_${id}.json`);
  assert.match(await page.textContent('[data-testid="counts"]'), /^1 nodes/);
  await shoot(page, 'packs-palette', { target: page.locator('.design-left') });

  // The graph of that one task: its preview is made in the worker from the pack, with the template's question.
  await page.click('#design-generate');
  await page.waitForSelector('#design-answer', { timeout: 30000 });
  assert.deepEqual(errors, []);
});
