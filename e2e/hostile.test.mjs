// Hostile inputs: files built to break parsers or to smuggle markup (100,000 levels of nested arrays, invalid
// UTF-8, markup in file names and in model text) are refused or shown as text within seconds, the tab stays
// alive, and what the user had open stays as it was; a 1,000,000-node graph is refused by its size at once; a
// base URL with a password in it is refused on Evaluate before anything is sent or stored.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { serveDist, launch, removeQuietly, assertNoSecrets, ROOT } from './harness.mjs';

let server, browser;
before(async () => { server = await serveDist(); browser = await launch(); });
after(async () => { await browser?.context.close(); await server?.close(); });

const DEPTH = 100000;
const nested = '['.repeat(DEPTH) + ']'.repeat(DEPTH);
const badUtf8 = Buffer.concat([Buffer.from('{"samples": ["'), Buffer.from([0xff, 0xfe, 0xc3, 0x28]), Buffer.from('"]}')]);
const file = (name, body) => ({ name, mimeType: 'application/json', buffer: Buffer.isBuffer(body) ? body : Buffer.from(body) });
const MARKUP = '<script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2"><a href="javascript:window.__pwned = 3">x</a>';

/** The tab still runs script and nothing injected ran. */
async function alive(page) {
  assert.equal(await page.evaluate(() => 6 * 7), 42, 'the tab answers');
  assert.equal(await page.evaluate(() => window.__pwned), undefined, 'no injected script ran');
}

test('the instance browser refuses nested and invalid-UTF-8 files by name and keeps the dataset it has', async () => {
  const { page, errors } = browser;
  await page.goto(`${server.url}#/browse`);
  await page.setInputFiles('#open-dataset', join(ROOT, 'tests/fixtures/reference/math_chain.sample.json'));
  await page.waitForSelector('#browse-notice:has-text("opened math_chain.sample.json")');
  const count = await page.textContent('#browse-count');
  for (const [name, body] of [['deep.json', nested], ['latin1.json', badUtf8]]) {
    const started = Date.now();
    await page.setInputFiles('#open-dataset', file(name, body));
    await page.waitForFunction((n) => document.querySelector('.error-view')?.textContent.startsWith(n), name, { timeout: 10000 });
    const shown = await page.textContent('.error-view');
    console.log(`${name}: "${shown.slice(0, 120)}" after ${Date.now() - started} ms`);
    assert.equal(shown.split(name).length - 1, 1, `the file is named once: ${shown}`);
    assert.equal(await page.textContent('#browse-count'), count, `${name} leaves the loaded dataset`);
    await alive(page);
  }
  assert.deepEqual(errors, []);
});

test('Results refuses nested and invalid-UTF-8 files by name, with where, and keeps the results shown', async () => {
  const { page, errors } = browser;
  await page.goto(`${server.url}#/results`);
  await page.setInputFiles('[data-testid="results-file"]', join(ROOT, 'tests/fixtures/reference/results_gsm_baseline.sample.json'));
  await page.waitForSelector('#results-metrics');
  const shown = await page.textContent('#results-metrics');
  const deepSample = `{"samples": [${nested}]}`;
  for (const [name, body, where] of [['deep.json', nested, /line 1, column 1: a results file is a JSON object/], ['deep-sample.json', deepSample, /line 1, column \d+: recursion limit exceeded/],
    ['latin1.json', badUtf8, /not UTF-8 text \(byte 14 /]]) {
    const started = Date.now();
    await page.setInputFiles('[data-testid="results-file"]', file(name, body));
    await page.waitForFunction((n) => document.querySelector('.error-view')?.textContent.startsWith(n), name, { timeout: 10000 });
    const message = await page.textContent('.error-view');
    console.log(`Results, ${name}: "${message.slice(0, 120)}" after ${Date.now() - started} ms`);
    assert.equal(message.split(name).length - 1, 1, `the file is named once: ${message}`);
    assert.match(message, where);
    assert.equal(await page.textContent('#results-metrics'), shown, `${name} leaves the results shown`);
    await alive(page);
  }
  assert.deepEqual(errors, []);
});

/** Opens the designer on the reference's branched example; resolves to its number of nodes. */
async function openBranched(page) {
  await page.goto(`${server.url}#/design`);
  await page.waitForSelector('input[data-testid="import"]', { state: 'attached' });
  await page.setInputFiles('input[data-testid="import"]', join(ROOT, 'tests/fixtures/reference/branched_test.json'));
  await page.waitForFunction(() => /opened branched_test\.json/.test(document.querySelector('[data-testid="notice"]')?.textContent ?? ''));
  return page.locator('[data-node-id]').count();
}

test('the designer refuses a deeply nested file with a located notice and keeps the graph', async () => {
  const { page, errors } = browser;
  const nodes = await openBranched(page);
  assert.ok(nodes > 0);
  for (const [name, body] of [['deep.json', nested], ['latin1.json', badUtf8]]) {
    await page.setInputFiles('input[data-testid="import"]', file(name, body));
    await page.waitForFunction((n) => (document.querySelector('[data-testid="notice"]')?.textContent ?? '').includes(n), name, { timeout: 10000 });
    console.log(`${name}: "${(await page.textContent('[data-testid="notice"]')).slice(0, 120)}"`);
    assert.equal(await page.locator('[data-node-id]').count(), nodes, `${name} leaves the graph`);
    await alive(page);
  }
  assert.deepEqual(errors, []);
});

test('the designer refuses a 1,000,000-node graph at once, by its size, and keeps the graph', async () => {
  const { page, errors } = browser;
  const nodes = await openBranched(page);
  // A million task nodes in a chain, written as compactly as the format allows.
  const parts = ['{"directed":true,"multigraph":false,"graph":{"target_node":"999999"},"nodes":['];
  for (let i = 0; i < 1000000; i++) parts.push(`${i ? ',' : ''}{"id":${i},"kind":"task","family":"math","input_kind":"scalar","output_kind":"scalar"}`);
  parts.push('],"edges":[');
  for (let i = 1; i < 1000000; i++) parts.push(`${i > 1 ? ',' : ''}{"source":${i - 1},"destination":${i}}`);
  parts.push(']}');
  const huge = Buffer.from(parts.join(''));
  const path = join(mkdtempSync(join(tmpdir(), 'arbigraph-hostile-')), 'million.json');
  writeFileSync(path, huge);
  const started = Date.now();
  await page.setInputFiles('input[data-testid="import"]', path);
  await page.waitForFunction(() => (document.querySelector('[data-testid="notice"]')?.textContent ?? '').includes('million.json'), null, { timeout: 30000 });
  removeQuietly(dirname(path));
  const notice = await page.textContent('[data-testid="notice"]');
  console.log(`a 1,000,000-node graph (${(huge.length / 1e6).toFixed(0)} MB): "${notice.slice(0, 120)}" after ${Date.now() - started} ms`);
  assert.match(notice, new RegExp(`million\\.json: ${huge.length} bytes is too large to open`));
  assert.equal(await page.locator('[data-node-id]').count(), nodes, 'the open graph stays');
  await alive(page);
  assert.deepEqual(errors, []);
});

test('markup in model text and in file names stays text on Results', async () => {
  const { page, errors } = browser;
  await page.goto(`${server.url}#/results`);
  const sample = (i, answer) => ({ prompt: 'Compute task_1_out.', ground_truth: 7, task_id: 0, task_name: `Add${MARKUP}`, sample_idx: i,
    agent_status: 'success', final_response: `${MARKUP} \\boxed{task_1_out = ${answer}}`, strategy: 'full', strategy_params: {},
    task_answers: { task_1_out: { answer, turn: 0 } }, turn_outputs: { 0: MARKUP } });
  const run = { summary: { generation_params: {}, model: MARKUP, base_url: 'http://user:secret@example.test/v1' }, samples: [sample(0, '7'), sample(1, '8')] };
  await page.setInputFiles('[data-testid="results-file"]', file('run.json', JSON.stringify(run)));
  await page.waitForSelector('#results-metrics');
  await page.setInputFiles('[data-testid="compare-files"]', [file('<img src=x onerror="window.__pwned=4">.json', JSON.stringify(run)), file('b.json', JSON.stringify(run))]);
  await page.waitForSelector('[data-testid="compare-table"]');
  assert.equal(await page.locator('#page-results script, #page-results img, #page-results a[href^="javascript:"]').count(), 0, 'no markup became elements');
  assert.match(await page.textContent('[data-testid="compare-table"]'), /<img src=x onerror=/, 'the file name shows as text');
  await alive(page);
  assert.deepEqual(errors, []);
});

test('a base URL with a password in it is refused on Evaluate before anything is sent or stored', async () => {
  const { page, errors } = browser;
  await page.goto(`${server.url}#/about`);
  await page.goto(`${server.url}#/evaluate`);
  await page.waitForSelector('[data-testid="start-run"]:not([disabled])');
  const rowsBefore = await page.locator('[data-testid="sample-row"]').count();
  await page.fill('[data-testid="base-url"]', 'http://alice:hunter2-secret@127.0.0.1:9/v1');
  await page.click('[data-testid="start-run"]');
  await page.waitForSelector('.error-view');
  const message = await page.textContent('.error-view');
  assert.match(message, /carries a user name or password/);
  assert.ok(!message.includes('hunter2'), 'the message does not repeat the password');
  assert.equal(await page.locator('[data-testid="sample-row"]').count(), rowsBefore, 'no run started');
  assert.ok(await page.isEnabled('[data-testid="start-run"]'), 'the page is ready for the next try');
  await page.click('[data-testid="check-endpoint"]');
  await page.waitForSelector('[data-testid="check-result"][data-ok="false"]');
  assert.match(await page.textContent('[data-testid="check-result"]'), /carries a user name or password/);
  // The password is in no storage and not in the URL.
  await assertNoSecrets(page, ['hunter2']);
  assert.deepEqual(errors, []);
});
