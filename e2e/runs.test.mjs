// Runs on the Evaluate page that nothing can lose, against the fault-injecting endpoint (tools/fault_server.py on
// 127.0.0.1): 50 samples at concurrency 8 through 429s, 500s, timeouts, truncated replies and dropped
// connections, with a reload halfway, end with exactly 50 results and no sample run twice; a pause holds every
// next request until resumed; the run list keeps runs across reloads, renames them, retries only the failed
// samples and deletes a run with everything stored for it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serveDist, launch, removeQuietly, SHOTS } from './harness.mjs';
import { startFaultServer, until } from './fault_server.mjs';

let server, browser, llm;
const scratch = mkdtempSync(join(tmpdir(), 'arbigraph-runs-'));

before(async () => {
  server = await serveDist();
  browser = await launch();
  llm = await startFaultServer(['--faults', 'off', '--hang-secs', '6']);
});
after(async () => { await browser?.context.close(); await server?.close(); await llm?.close(); removeQuietly(scratch); });

/** A dataset of `n` one-task samples whose prompts start with "Case <i>." (the server counts requests per case). */
function dataset(n) {
  const samples = Array.from({ length: n }, (_, i) => {
    const x = ((i * 37) % 201) - 100, k = (i % 9) + 2, c = (i * 7) % 50;
    return {
      task_id: i % 10, task_name: `Load${i % 10}`, sample_idx: i,
      prompt: `Case ${i}. Define task_1_input = ${x}.\nTask 1:\nCompute task_1_input * ${k} + ${c} and call the result task_1_out.\n`,
      ground_truth: x * k + c,
    };
  });
  const path = join(scratch, `dataset-${n}.json`);
  writeFileSync(path, JSON.stringify({ summary: { mode: 'math', num_tasks: 10, num_samples_per_task: Math.ceil(n / 10) }, samples }));
  return path;
}

/** Opens Evaluate afresh on a dataset of `n` samples, with `concurrency` and a request timeout in seconds. */
async function setUp(page, n, concurrency, timeout = '') {
  await page.goto(`${server.url}#/about`);
  await page.goto(`${server.url}#/evaluate`);
  await page.waitForSelector('[data-testid="start-run"]:not([disabled])');
  await page.fill('[data-testid="base-url"]', llm.url);
  await page.setInputFiles('#eval-file', dataset(n));
  await page.waitForFunction(() => document.querySelector('.page-evaluate')?.textContent.includes('using dataset-'));
  // Settings outlive the page (they are the app's): each test states the ones it relies on.
  for (const [field, value] of [['sample-limit', n], ['concurrency', concurrency], ['request-timeout', timeout], ['epochs', 1]]) {
    await page.fill(`[data-testid="${field}"]`, String(value));
    await page.locator(`[data-testid="${field}"]`).dispatchEvent('change');
  }
}

const statuses = (page) => page.locator('[data-testid="sample-row"]').evaluateAll((rows) => rows.map((r) => r.dataset.status));
const settled = (s) => !['queued', 'running', 'not run', 'stopped', 'paused'].includes(s);

async function waitFinished(page, n, timeout = 180000) {
  await page.waitForFunction((n) => {
    const rows = [...document.querySelectorAll('[data-testid="sample-row"]')];
    return rows.length === n && document.querySelector('#eval-done')?.textContent === 'finished';
  }, n, { timeout });
}

async function exported(page) {
  const download = page.waitForEvent('download');
  await page.click('[data-testid="export-results"]');
  return JSON.parse(await (await (await download).createReadStream()).toArray().then((c) => Buffer.concat(c).toString()));
}

/** Every key of the run store, by object store. */
const storedKeys = (page) => page.evaluate(async () => {
  const db = await new Promise((ok, fail) => { const r = indexedDB.open('arbigraph-runs'); r.onsuccess = () => ok(r.result); r.onerror = () => fail(r.error); });
  const out = {};
  for (const name of db.objectStoreNames) {
    out[name] = await new Promise((ok) => { const q = db.transaction(name, 'readonly').objectStore(name).getAllKeys(); q.onsuccess = () => ok(q.result); });
  }
  db.close();
  return out;
});

test('50 samples at concurrency 8 through 429s, 500s, timeouts and dropped connections: a reload halfway resumes to exactly 50 results, none run twice', async () => {
  const { page, errors } = browser;
  errors.length = 0;
  const n = 50;
  const mix = '429=8,500=5,hang=3,drop=5,truncated=3,badjson=1';
  // An uninterrupted run first: how many proper replies each sample takes (the server's scripted model needs a
  // third turn for some prompts). Faults add only improper replies, so the counts do not depend on them.
  await llm.control({ delay_ms: 0, faults: 'off', mix });
  await llm.reset();
  await setUp(page, n, 8, 3);
  await page.click('[data-testid="start-run"]');
  await waitFinished(page, n);
  const baseline = (await llm.stats()).per_sample_ok;
  const baselineStatuses = await statuses(page);

  await llm.control({ delay_ms: 150 });
  await llm.reset();
  await setUp(page, n, 8, 3);
  await page.click('[data-testid="start-run"]');
  await page.waitForFunction(() => [...document.querySelectorAll('[data-testid="sample-row"]')].filter((r) => r.dataset.status === 'running').length >= 2);
  await page.screenshot({ path: join(SHOTS, 'runs-concurrent-light.png'), fullPage: true });
  await page.waitForFunction(() => [...document.querySelectorAll('[data-testid="sample-row"]')].filter((r) => r.classList.contains('eval-row--done')).length >= 20, null, { timeout: 120000 });
  const before = await llm.stats();
  assert.ok(before.max_in_flight >= 2 && before.max_in_flight <= 8, `concurrency 8 kept: at most ${before.max_in_flight} requests at once`);
  await page.reload();
  await page.waitForSelector('[data-testid="resume-run"]', { timeout: 15000 });
  const done = Number((await page.textContent('.eval-resume')).match(/\((\d+) of 50 samples done/)[1]);
  assert.ok(done >= 20 && done < n, `resumable with ${done} samples done`);
  await page.click('[data-testid="resume-run"]');
  await waitFinished(page, n);
  assert.ok((await statuses(page)).every(settled));

  const results = await exported(page);
  assert.equal(results.samples.length, n, 'exactly 50 results');
  assert.deepEqual(results.samples.map((s) => s.prompt.match(/^Case (\d+)\./)[1]).map(Number), [...Array(n).keys()], 'each sample once, in order');
  assert.ok(results.samples.every((s) => s.agent_status && s.agent_status !== 'in_progress'), 'every sample graded');
  const stats = await llm.stats();
  const faults = stats.faults;
  assert.ok(faults['429'] > 0 && faults['500'] > 0 && faults.hang > 0 && (faults.drop ?? 0) + (faults.truncated ?? 0) > 0,
    `429s, 500s, timeouts and dropped connections were all met: ${JSON.stringify(faults)}`);
  // Only a reply the server sent while the reload cut the page off can be asked again: at most one per sample,
  // and one per lane in flight. A sample run twice would take all its replies again.
  // Samples that ended with api_error in either run (the endpoint gave up) took fewer replies: left out.
  const extra = results.samples.map((s, i) => ([s.agent_status, baselineStatuses[i]].includes('api_error') ? 0 : (stats.per_sample_ok[String(i)] ?? 0) - (baseline[String(i)] ?? 0)));
  console.log(`faults met ${JSON.stringify(faults)}; proper replies per sample beyond an uninterrupted run: ${extra.join(' ')}`);
  assert.ok(extra.every((e, i) => e >= 0 && (e === 0 || e < baseline[String(i)])), `no sample ran twice (uninterrupted: ${JSON.stringify(baseline)})`);
  assert.ok(extra.filter((e) => e > 0).length <= 8, 'replies asked again only for the samples in flight at the reload, one per lane');
  // A dropped connection or a truncated reply reaches the page as a failed fetch, which Chromium reports as CORS.
  assert.deepEqual(errors.filter((e) => !/Failed to load resource|net::ERR_|CORS policy/.test(e)), []);
  await llm.control({ delay_ms: 0, mix: '' });
});

test('a pause holds every next request until resumed; the run list renames runs, retries only failed samples and deletes a run with all it stored', async () => {
  const { page, errors } = browser;
  errors.length = 0;
  // Every request fails: three samples end with api_error.
  await llm.control({ delay_ms: 0, faults: 'off', mix: '500=100' });
  await llm.reset();
  await setUp(page, 3, 3);
  await page.click('[data-testid="start-run"]');
  await waitFinished(page, 3, 60000);
  assert.deepEqual(await statuses(page), ['api_error', 'api_error', 'api_error']);
  const failedRun = page.locator('[data-testid="run-item"]').first();
  await until(async () => (await failedRun.locator('[data-testid="run-progress-line"]').textContent()).includes('3 failed'), 10000, 'the run list to count the failures');

  // The endpoint recovers: "Retry 3 failed" runs those three again, and only them.
  await llm.control({ mix: '' });
  await llm.reset();
  await failedRun.locator('[data-testid="run-retry-failed"]').click();
  await until(async () => (await statuses(page)).every((s) => s === 'success'), 60000, 'the failed samples to run again and succeed');
  await waitFinished(page, 3, 60000);
  assert.deepEqual(Object.keys((await llm.stats()).per_sample_ok).sort(), ['0', '1', '2']);
  await until(async () => /^3 of 3 done · \d correct$/.test(await failedRun.locator('[data-testid="run-progress-line"]').textContent()), 10000, 'the run list to show the retried run');

  // Pause: the requests in flight finish and no new one goes out until Resume.
  await llm.control({ delay_ms: 400 });
  await setUp(page, 6, 2);
  await page.click('[data-testid="start-run"]');
  await page.waitForFunction(() => document.querySelectorAll('.eval-row--done').length >= 1, null, { timeout: 30000 });
  await page.click('[data-testid="pause-run"]');
  await until(async () => (await llm.stats()).in_flight === 0, 10000, 'the requests in flight to finish');
  const held = (await llm.stats()).requests;
  await new Promise((r) => setTimeout(r, 1500));
  assert.equal((await llm.stats()).requests, held, 'no request while paused');
  await until(async () => (await page.textContent('[data-testid="run-stats"]')).includes('paused'), 3000, 'the progress line to say paused');
  await page.screenshot({ path: join(SHOTS, 'runs-paused-light.png'), fullPage: true });
  await page.click('[data-testid="resume-run"]');
  await waitFinished(page, 6, 60000);
  await llm.control({ delay_ms: 0 });

  // Rename the newest run; the name outlives a reload.
  const newest = page.locator('[data-testid="run-item"]').first();
  await newest.locator('[data-testid="run-rename"]').click();
  await page.fill('[data-testid="run-name"]', '   ');
  await page.press('[data-testid="run-name"]', 'Enter');
  assert.match(await page.textContent('[data-testid="run-list-error"]'), /cannot be empty/);
  await page.fill('[data-testid="run-name"]', 'paused and resumed');
  await page.press('[data-testid="run-name"]', 'Enter');
  await page.waitForSelector('[data-testid="run-title"]:text("paused and resumed")');
  await page.reload();
  await page.waitForSelector('[data-testid="run-title"]:text("paused and resumed")');
  for (const scheme of ['light', 'dark']) {
    await page.emulateMedia({ colorScheme: scheme });
    await page.locator('[data-testid="run-list"]').screenshot({ path: join(SHOTS, `run-list-${scheme}.png`) });
  }
  await page.emulateMedia({ colorScheme: 'light' });

  // Open a stored run's results on Results.
  await page.locator('[data-testid="run-item"]').first().locator('[data-testid="run-open"]').click();
  await page.waitForSelector('svg[data-testid="accuracy-chart"]');
  assert.equal(await page.locator('[data-testid="sample-row"], [data-testid="transcript-row"]').count() >= 6, true);
  await page.goto(`${server.url}#/evaluate`);

  // Delete the renamed run (asked twice): it leaves the list and the store.
  const items = page.locator('[data-testid="run-item"]');
  await page.waitForSelector('[data-testid="run-item"]');
  const count = await items.count();
  const id = await items.first().getAttribute('data-id');
  await items.first().locator('[data-testid="run-delete"]').click();
  assert.equal(await items.first().locator('[data-testid="run-delete"]').textContent(), 'Really delete?');
  await items.first().locator('[data-testid="run-delete"]').click();
  await until(async () => (await items.count()) === count - 1, 10000, 'the run to leave the list');
  const keys = await storedKeys(page);
  for (const [store, list] of Object.entries(keys)) {
    assert.ok(!list.some((k) => k === id || k.startsWith(`${id}|`)), `nothing of ${id} left in ${store}`);
  }
  assert.ok(keys.runs.length === count - 1, 'the other runs stay');
  assert.deepEqual(errors.filter((e) => !/Failed to load resource|net::ERR_|CORS policy/.test(e)), []);
});

test('the estimate gives tokens and cost before a run; a token budget stops the run cleanly and a raised one resumes it; epochs report pass^k', async () => {
  const { page, errors } = browser;
  errors.length = 0;
  await llm.control({ delay_ms: 0, faults: 'off', mix: '' });
  await setUp(page, 6, 1);
  await page.fill('[data-testid="price-in"]', '3');
  await page.locator('[data-testid="price-in"]').dispatchEvent('change');
  await page.fill('[data-testid="price-out"]', '15');
  await page.locator('[data-testid="price-out"]').dispatchEvent('change');
  await page.fill('[data-testid="budget-cost"]', '-2');
  await page.locator('[data-testid="budget-cost"]').dispatchEvent('change');
  assert.match(await page.textContent('[data-testid="budget-error"]'), /cannot be negative/);
  await page.click('[data-testid="estimate"]');
  const estimate = await page.textContent('[data-testid="estimate-line"]');
  assert.match(estimate, /^about [\d,]+ input and [\d,]+ output tokens over 6 samples \(about 3 turns each\), about \$[\d.]+ at the prices given/);

  // A budget of about a third of the run: it stops with samples left, none lost.
  await page.fill('[data-testid="budget-tokens"]', '1500');
  await page.locator('[data-testid="budget-tokens"]').dispatchEvent('change');
  await page.click('[data-testid="start-run"]');
  await page.waitForSelector('[data-testid="run-notice"]', { timeout: 30000 });
  assert.match(await page.textContent('[data-testid="run-notice"]'), /the token budget \(1,500\) is spent/);
  await page.waitForFunction(() => document.querySelector('#eval-done')?.textContent === 'stopped');
  const stopped = await statuses(page);
  assert.ok(stopped.includes('not run') || stopped.includes('stopped'), stopped.join(', '));
  assert.match(await page.textContent('[data-testid="run-stats"]'), /tokens in, [\d,]+ out \(\$[\d.]+\)/);
  await page.screenshot({ path: join(SHOTS, 'runs-budget-light.png'), fullPage: true });
  const item = page.locator('[data-testid="run-item"]').first();
  await until(async () => (await item.getAttribute('data-finished')) === 'false' && (await item.locator('[data-testid="run-resume"]').count()) === 1, 10000, 'the run to be listed as unfinished');

  // Raised (cleared) budget: the run resumes from the list and finishes.
  await page.fill('[data-testid="budget-tokens"]', '');
  await page.locator('[data-testid="budget-tokens"]').dispatchEvent('change');
  await item.locator('[data-testid="run-resume"]').click();
  await waitFinished(page, 6, 60000);
  assert.ok((await statuses(page)).every(settled));

  // Two epochs of three samples: six attempts; Results reports pass^2 and each row its instance's consistency.
  await setUp(page, 3, 2);
  await page.fill('[data-testid="epochs"]', '2');
  await page.locator('[data-testid="epochs"]').dispatchEvent('change');
  await page.click('[data-testid="start-run"]');
  await waitFinished(page, 6, 60000);
  await page.goto(`${server.url}#/results`);
  await page.waitForSelector('[data-testid="epoch-report"]');
  assert.match(await page.textContent('[data-testid="epoch-report"]'), /^2 epochs · mean accuracy [\d.]+% · pass\^2 [\d.]+% \[[\d.]+, [\d.]+\] \(\d\/3 instances\) · pass@2/);
  const consistency = await page.locator('[data-testid="consistency"]').allTextContents();
  assert.equal(consistency.length, 6);
  assert.ok(consistency.every((c) => /^ ?e[12] · [0-2]\/2$/.test(c.trim()) || /^e[12] · [0-2]\/2$/.test(c.trim())), consistency.join(' | '));
  // Figures 4 and 5: mean tokens and turns per topology × family.
  for (const chart of ['tokens-chart', 'turns-chart']) {
    assert.ok(await page.locator(`svg[data-testid="${chart}"] rect.bar`).count() >= 2, `${chart} has a bar and a legend key`);
  }
  // The per-node heat map: the instance's node coloured by its accuracy, with the figure beside it.
  const heat = await page.locator('[data-testid="node-heat-map"] svg .node').evaluateAll((ns) => ns.map((n) => [n.getAttribute('class'), n.textContent]));
  assert.ok(heat.length >= 1 && heat.every(([c, t]) => /heat-\d+/.test(c) && /\d+% \(\d+\/6\)/.test(t)), JSON.stringify(heat));
  for (const scheme of ['light', 'dark']) {
    await page.emulateMedia({ colorScheme: scheme });
    await page.screenshot({ path: join(SHOTS, `results-epochs-${scheme}.png`), fullPage: true });
  }
  await page.emulateMedia({ colorScheme: 'light' });
  assert.deepEqual(errors.filter((e) => !/Failed to load resource|net::ERR_|CORS policy/.test(e)), []);
});

test('streamed replies show their text in the row as it arrives, and the run ends as without streaming', async () => {
  const { page, errors } = browser;
  errors.length = 0;
  // The scripted model's answer arrives in 8-character pieces, 250 ms apart.
  await llm.control({ delay_ms: 0, faults: 'off', mix: '', stream_gap_ms: 250 });
  await llm.reset();
  await setUp(page, 2, 1);
  await page.check('[data-testid="stream"]');
  await page.click('[data-testid="start-run"]');
  const live = page.locator('[data-testid="live-text"]');
  await live.first().waitFor({ timeout: 30000 });
  const seen = new Set();
  await until(async () => {
    for (const text of await live.allTextContents()) seen.add(text);
    return [...seen].some((t) => t.startsWith('The calculator') && !t.includes('}'));
  }, 20000, 'part of an answer before the rest arrived');
  await page.screenshot({ path: join(SHOTS, 'runs-streaming-light.png'), fullPage: true });
  await waitFinished(page, 2, 60000);
  assert.equal(await live.count(), 0, 'no live text once every sample is done');
  const results = await exported(page);
  assert.equal(results.samples.length, 2);
  assert.ok(results.samples.every((s) => s.agent_status === 'success' && s.transcript.some((m) => m.content?.includes('\\boxed{task_1_out'))),
    'the streamed answers were put together and graded');
  assert.ok(results.samples.every((s) => s.transcript.some((m) => m.tool_calls?.length)), 'streamed tool calls were put together');
  await llm.control({ stream_gap_ms: 0 });
  assert.deepEqual(errors.filter((e) => !/Failed to load resource|net::ERR_|CORS policy/.test(e)), []);
});
