// The strategy lab from the page: `arbigraph probe-server` (a perfect solver with amnesia, answering the browser's
// CORS preflight) on a long-range workload (a chain of 22 math tasks whose target reads a pack of the first and
// the last, with two filler turns per task), three strategies added from the picker with their parameters
// (full, window of 4 exchanges, acg), run in one go on the same samples; Results then opens the comparison,
// paired against full: full and acg keep every node, the window loses the first task's value and every target.
// The comparison survives leaving Results, and the run list opens it again. Screenshots light and dark land in
// target/screenshots/.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { nativeCli, serveDist, launch, removeQuietly, shoot, ROOT } from './harness.mjs';

let server, browser, probe;
const scratch = mkdtempSync(join(tmpdir(), 'arbigraph-lab-'));

/** A chain of 22 scalar math tasks whose target reads a pack of task 1 and task 22: a value read 22 tasks later. */
function longEdgeGraph() {
  const nodes = Array.from({ length: 22 }, (_, i) => ({ id: `t${i + 1}`, kind: 'task', family: 'math', input_kind: 'scalar', output_kind: 'scalar' }));
  nodes.push({ id: 'merge', kind: 'adapter', op: 'pack' }, { id: 'target', kind: 'task', family: 'math', input_kind: 'list' });
  const edges = Array.from({ length: 21 }, (_, i) => ({ source: `t${i + 1}`, destination: `t${i + 2}` }));
  edges.push({ source: 't1', destination: 'merge', slot: 0 }, { source: 't22', destination: 'merge', slot: 1 }, { source: 'merge', destination: 'target' });
  return { directed: true, multigraph: false, graph: { target_node: 'target' }, nodes, edges };
}

/** Starts the probe server on a free port with `dataset`; resolves once it listens. */
function startProbe(dataset) {
  return new Promise((resolve, reject) => {
    const child = spawn(nativeCli(), ['probe-server', '--port', '0', '--noise', '2', '--noise-chars', '1200', '--dataset', dataset], { stdio: ['ignore', 'ignore', 'pipe'] });
    let text = '';
    const timer = setTimeout(() => reject(new Error(`the probe server did not start: ${text}`)), 30000);
    child.stderr.on('data', (chunk) => {
      text += chunk;
      const found = text.match(/listening on (http:\/\/\S+\/v1)/);
      if (found && timer) {
        clearTimeout(timer);
        resolve({ url: found[1], close: () => child.kill() });
      }
    });
    child.on('exit', (code) => reject(new Error(`the probe server exited (${code}): ${text}`)));
  });
}

const graph = join(scratch, 'long-edge.graph.json');
const dataset = join(scratch, 'long-edge.json');

before(async () => {
  writeFileSync(graph, JSON.stringify(longEdgeGraph()));
  execFileSync(nativeCli(), ['generate', '--topology', 'custom', '--graph', graph, '--samples-per-target', '1', '--seed', '0', '-o', dataset], { stdio: 'ignore' });
  probe = await startProbe(dataset);
  server = await serveDist();
  browser = await launch();
});
after(async () => { await browser?.context.close(); await server?.close(); probe?.close(); removeQuietly(scratch); });

/** The comparison table's cells, row by row, keyed by its header. */
const compareRows = (page) => page.evaluate(() => {
  const table = document.querySelector('[data-testid="compare-table"]');
  const header = [...table.querySelectorAll('th')].map((th) => th.textContent.replace(/\u200B/g, ''));
  return [...table.querySelectorAll('[data-testid="compare-row"]')].map((tr) => Object.fromEntries([...tr.children].map((td, i) => [header[i], td.textContent])));
});

/** Chooses `name` in the strategy picker, sets `params`, and adds it to the lab. */
async function addToLab(page, name, params = {}) {
  await page.selectOption('[data-testid="strategy"]', name);
  for (const [key, value] of Object.entries(params)) {
    const field = page.locator(`[data-testid="strategy-param"][data-key="${key}"]`);
    await field.fill(String(value));
    await field.dispatchEvent('change');
  }
  const before = await page.locator('[data-testid="lab-item"]').count();
  await page.click('[data-testid="lab-add"]');
  await page.waitForFunction((n) => document.querySelectorAll('[data-testid="lab-item"]').length === n, before + 1);
}

test('three strategies run from the page in one go on a long-range workload, and Results opens their comparison', async () => {
  const page = await browser.context.newPage();
  await page.goto(`${server.url}#/evaluate`);
  await page.waitForSelector('[data-testid="start-run"]:not([disabled])');
  await page.fill('[data-testid="base-url"]', probe.url);
  await page.fill('[data-testid="model"]', 'probe');
  await page.setInputFiles('#eval-file', dataset);
  await page.waitForFunction(() => document.querySelector('.page-evaluate')?.textContent.includes('using long-edge.json'));
  // The page's turn limit (60 unless set) is too short for 23 tasks with two filler turns each.
  for (const [field, value] of [['sample-limit', 2], ['concurrency', 2], ['epochs', 1], ['turn-limit', 400]]) {
    await page.fill(`[data-testid="${field}"]`, String(value));
    await page.locator(`[data-testid="${field}"]`).dispatchEvent('change');
  }
  // Running is refused until the lab holds two strategies; the same strategy twice is refused by name.
  assert.equal(await page.locator('[data-testid="lab-run"]').isDisabled(), true);
  await addToLab(page, 'full');
  await addToLab(page, 'window', { exchanges: 4 });
  await addToLab(page, 'acg');
  await page.selectOption('[data-testid="strategy"]', 'full');
  await page.click('[data-testid="lab-add"]');
  assert.match(await page.textContent('[data-testid="lab-error"]'), /full is already in the lab \(#1\)/);
  const items = await page.locator('[data-testid="lab-item"]').evaluateAll((els) => els.map((e) => e.dataset.strategy));
  assert.deepEqual(items, ['full', 'window:exchanges=4', 'acg'], 'each named by what it changes from the defaults');
  await shoot(page, 'lab-evaluate', { target: page.locator('[data-testid="lab"]') });

  await page.click('[data-testid="lab-run"]');
  await page.waitForFunction(() => /lab: strategy 1 of 3 \(full\) running/.test(document.querySelector('[data-testid="lab-status"]')?.textContent ?? ''));
  assert.equal(await page.locator('[data-testid="start-run"]').isDisabled(), true, 'no other run starts while the lab goes');
  await page.waitForFunction(() => location.hash === '#/results' && document.querySelectorAll('[data-testid="compare-row"]').length === 3, null, { timeout: 600000 });

  const rows = await compareRows(page);
  assert.deepEqual(rows.map((r) => r.run), items);
  const [full, window, acg] = rows;
  assert.match(full['accuracy [95% CI]'], /^100\.0% .* 2\/2$/);
  assert.equal(full['nodes correct'], '100.0% 46/46');
  assert.equal(full['vs baseline (McNemar p)'], 'baseline');
  assert.match(acg['accuracy [95% CI]'], /^100\.0% .* 2\/2$/, 'acg keeps every target');
  assert.equal(acg['nodes correct'], '100.0% 46/46', 'acg brings back the value read 22 tasks later');
  assert.equal(acg['vs baseline (McNemar p)'], '+0.0 pts (p 1.0000)');
  assert.match(window['accuracy [95% CI]'], /^0\.0% .* 0\/2$/, 'the window loses every target');
  const [kept, total] = window['nodes correct'].split(' ')[1].split('/').map(Number);
  assert.equal(total, 46);
  assert.ok(kept < 46, `the window loses values: ${kept}/46 nodes`);
  assert.equal(window['vs baseline (McNemar p)'], '-100.0 pts (p 0.5000)');
  // Prompt tokens: both managed strategies send less than full.
  const prompt = rows.map((r) => Number(r['mean prompt']));
  assert.ok(prompt[1] < prompt[0] && prompt[2] < prompt[0], `mean prompt tokens ${prompt}`);
  const inView = await page.locator('[data-testid="compare-panel"]').evaluate((el) => { const r = el.getBoundingClientRect(); return r.top < innerHeight && r.bottom > 0; });
  assert.ok(inView, 'the comparison is brought into view');
  await shoot(page, 'lab-compare', { target: page.locator('[data-testid="compare-panel"]') });

  // Navigation keeps the comparison; the run list opens it again from any of the lab's runs.
  await page.goto(`${server.url}#/evaluate`);
  await page.waitForSelector('[data-testid="run-compare-lab"]');
  assert.equal(await page.locator('[data-testid="run-compare-lab"]').count(), 3, 'each of the lab\'s runs offers its comparison');
  await page.goto(`${server.url}#/results`);
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="compare-row"]').length === 3);
  await page.goto(`${server.url}#/evaluate`);
  await page.locator('[data-testid="run-compare-lab"]').last().click();
  await page.waitForFunction(() => location.hash === '#/results' && document.querySelectorAll('[data-testid="compare-row"]').length === 3);
  assert.deepEqual((await compareRows(page)).map((r) => r.run), items);
  await page.close();
});
