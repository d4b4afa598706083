// The Evaluate page against the fault-injecting endpoint (tools/fault_server.py on 127.0.0.1): Stop aborts the
// request in flight at once, a stopped run is reported as unfinished on Results (never as the previous run's
// figures), and old error lines go when the next action succeeds.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { serveDist, launch, SHOTS } from './harness.mjs';
import { startFaultServer, until } from './fault_server.mjs';

let server, browser, llm;

before(async () => {
  server = await serveDist();
  browser = await launch();
  llm = await startFaultServer(['--faults', 'off']);
});
after(async () => { await browser?.context.close(); await server?.close(); await llm?.close(); });

async function setUp(page, samples) {
  await page.goto(`${server.url}#/evaluate`);
  await page.waitForSelector('[data-testid="start-run"]');
  await page.fill('[data-testid="base-url"]', llm.url);
  await page.fill('[data-testid="sample-limit"]', String(samples));
  await page.locator('[data-testid="sample-limit"]').dispatchEvent('change');
}

test('Stop aborts the request in flight at once against a slow endpoint', async () => {
  const { page, errors } = browser;
  await llm.control({ delay_ms: 30000, faults: 'off' });
  await setUp(page, 3);
  await page.click('[data-testid="start-run"]');
  await until(async () => (await llm.stats()).in_flight >= 1, 15000, 'a request in flight');
  await page.waitForSelector('[data-testid="sample-row"][data-status="running"]');
  const started = Date.now();
  await page.click('[data-testid="stop-run"]');
  await page.waitForSelector('[data-testid="sample-row"][data-status="stopped"]', { timeout: 5000 });
  await page.waitForSelector('[data-testid="start-run"]:not([disabled])', { timeout: 5000 });
  const elapsed = Date.now() - started;
  console.log(`stopped ${elapsed} ms after the click, with a reply 30 s away`);
  assert.ok(elapsed < 1000, `stopping took ${elapsed} ms`);
  const statuses = await page.locator('[data-testid="sample-row"]').evaluateAll((rows) => rows.map((r) => r.dataset.status));
  assert.deepEqual(statuses, ['stopped', 'not run', 'not run']);
  assert.match(await page.textContent('#eval-done'), /stopped/);
  assert.deepEqual(errors, []);
});

test('after a finished run, a stopped run shows on Results as unfinished, not as the finished run', async () => {
  const { page, errors } = browser;
  await llm.control({ delay_ms: 0 });
  await setUp(page, 2);
  await page.click('[data-testid="start-run"]');
  await page.waitForSelector('#eval-done:has-text("finished")', { timeout: 30000 });
  assert.equal(await page.getAttribute('[data-testid="run-progress"]', 'value'), '2');
  await page.click('text=see metrics');
  await page.waitForSelector('#results-metrics');
  assert.equal(await page.locator('[data-testid="results-note"]').count(), 0, 'a finished run has no note');

  await llm.control({ delay_ms: 30000 });
  await setUp(page, 2);
  await page.click('[data-testid="start-run"]');
  await page.waitForSelector('[data-testid="sample-row"][data-status="running"]');
  await page.click('[data-testid="stop-run"]');
  await page.waitForSelector('#eval-done:has-text("stopped")');
  await page.click('text=see metrics');
  await page.waitForSelector('[data-testid="results-note"]');
  const note = await page.textContent('[data-testid="results-note"]');
  assert.match(note, /Unfinished run: 2 of 2 samples have no result yet \(the run was stopped/);
  assert.equal(await page.locator("#results-metrics").count(), 0, "no figures of the finished run, none for an empty one");
  await page.screenshot({ path: join(SHOTS, 'results-unfinished-light.png') });
  assert.deepEqual(errors, []);
});

test('an error line goes away when the next action succeeds', async () => {
  const { page, errors } = browser;
  await llm.control({ delay_ms: 0 });
  await setUp(page, 1);
  await page.setInputFiles('#eval-file', { name: 'broken.json', mimeType: 'application/json', buffer: Buffer.from('{"samples": [') });
  await page.waitForSelector('.error-view');
  assert.match(await page.textContent('.error-view'), /broken\.json: malformed JSON at line 1/);
  await page.click('[data-testid="start-run"]');
  await page.waitForSelector('#eval-done:has-text("finished")', { timeout: 30000 });
  assert.equal(await page.locator('.error-view').count(), 0, 'the run cleared the old error');
  await page.setInputFiles('#eval-file', { name: 'broken.json', mimeType: 'application/json', buffer: Buffer.from('{"samples": [') });
  await page.waitForSelector('.error-view');
  const dataset = { summary: { mode: 'chain' }, samples: [{ prompt: 'Define task_1_input = 3.\nTask 1:\nCompute task_1_input + 1 and call the result task_1_out.\n', ground_truth: 4, task_name: 'AddTask' }] };
  await page.setInputFiles('#eval-file', { name: 'ok.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(dataset)) });
  await page.waitForSelector('text=using ok.json');
  assert.equal(await page.locator('.error-view').count(), 0, 'loading a good file cleared the old error');
  assert.deepEqual(errors, []);
});
