// The Evaluate page against the fault-injecting endpoint (tools/fault_server.py on 127.0.0.1): Stop aborts the
// request in flight at once, a stopped run is reported as unfinished on Results (never as the previous run's
// figures), and old error lines go when the next action succeeds.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { serveDist, launch, dumpStorage, assertNoSecrets, startRun, shoot, exportedText, SHOTS } from './harness.mjs';
import { startFaultServer, until } from './fault_server.mjs';

let server, browser, llm;

before(async () => {
  server = await serveDist();
  browser = await launch();
  llm = await startFaultServer(['--faults', 'off']);
});
after(async () => { await browser?.context.close(); await server?.close(); await llm?.close(); });

// Opens Evaluate afresh (leaving the page first, so it is built anew) with `samples` generated samples against
// the server. A dataset file loaded by an earlier test stays loaded across pages (it is the app's, like the
// run): it is dropped here, so the run takes the generated instances.
async function setUp(page, samples) {
  await page.goto(`${server.url}#/about`);
  await page.goto(`${server.url}#/evaluate`);
  await page.waitForSelector('[data-testid="start-run"]:not([disabled])');
  if (await page.locator('[data-testid="unload-dataset"]').count()) {
    await page.click('[data-testid="unload-dataset"]');
    await page.waitForSelector('[data-testid="loaded-dataset"]', { state: 'detached' });
  }
  await page.fill('[data-testid="base-url"]', llm.url);
  await page.fill('[data-testid="sample-limit"]', String(samples));
  await page.locator('[data-testid="sample-limit"]').dispatchEvent('change');
}

test('Stop aborts the request in flight at once against a slow endpoint', async () => {
  const { page, errors } = browser;
  await llm.control({ delay_ms: 30000, faults: 'off' });
  await setUp(page, 3);
  await startRun(page);
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
  await startRun(page);
  await page.waitForSelector('#eval-done:has-text("finished")', { timeout: 30000 });
  assert.equal(await page.getAttribute('[data-testid="run-progress"]', 'value'), '2');
  assert.match(await page.textContent('[data-testid="run-stats"]'), /^2 of 2 done · accuracy \d+\.\d% \[\d+\.\d, \d+\.\d\] \(\d\/2\) · [4-9] requests · 0 retries · [\d,]+ tokens in, [\d,]+ out · \d+ s elapsed$/);
  await page.click('text=see metrics');
  await page.waitForSelector('#results-metrics');
  assert.equal(await page.locator('[data-testid="results-note"]').count(), 0, 'a finished run has no note');

  await llm.control({ delay_ms: 30000 });
  await setUp(page, 2);
  await startRun(page);
  await page.waitForSelector('[data-testid="sample-row"][data-status="running"]');
  await page.click('[data-testid="stop-run"]');
  await page.waitForSelector('#eval-done:has-text("stopped")');
  await page.click('text=see metrics');
  await page.waitForSelector('[data-testid="results-note"]');
  const note = await page.textContent('[data-testid="results-note"]');
  assert.match(note, /Unfinished run: 2 of 2 samples have no result yet \(the run was stopped/);
  assert.equal(await page.locator("#results-metrics").count(), 0, "no figures of the finished run, none for an empty one");
  await shoot(page, 'results-unfinished');
  assert.deepEqual(errors, []);
});

test('an error line goes away when the next action succeeds', async () => {
  const { page, errors } = browser;
  await llm.control({ delay_ms: 0 });
  await setUp(page, 1);
  await page.setInputFiles('#eval-file', { name: 'broken.json', mimeType: 'application/json', buffer: Buffer.from('{"samples": [') });
  await page.waitForSelector('.error-view');
  assert.match(await page.textContent('.error-view'), /broken\.json: malformed JSON at line 1/);
  await startRun(page);
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

// Waits until all `n` rows of the run have ended.
async function waitFinished(page, n, timeout = 60000) {
  await page.waitForFunction((n) => {
    const rows = [...document.querySelectorAll('[data-testid="sample-row"]')];
    return rows.length === n && rows.every((r) => !['queued', 'running', 'not run', 'stopped'].includes(r.dataset.status))
      && document.querySelector('#eval-done')?.textContent === 'finished';
  }, n, { timeout });
}

const KEY = 'sk-test-key-never-stored-4242';

test('a reload mid-run resumes where it stopped: every sample once, no key stored anywhere', async () => {
  const { page, errors } = browser;
  const samples = 8;
  // An uninterrupted run of the same samples gives each sample's request count.
  await llm.control({ delay_ms: 0, faults: 'off' });
  await llm.reset();
  await setUp(page, samples);
  await startRun(page);
  await waitFinished(page, samples);
  const baseline = (await llm.stats()).per_sample;
  await llm.reset();

  await llm.control({ delay_ms: 250 });
  await setUp(page, samples);
  await page.fill('[data-testid="api-key"]', KEY);
  await startRun(page);
  await page.waitForFunction(() => [...document.querySelectorAll('[data-testid="sample-row"]')].filter((r) => !['queued', 'running'].includes(r.dataset.status)).length >= 3, null, { timeout: 60000 });
  await page.reload();
  await page.waitForSelector('[data-testid="resume-run"]', { timeout: 15000 });
  const banner = await page.textContent('.eval-resume');
  const done = Number(banner.match(/\((\d+) of 8 samples done/)[1]);
  assert.ok(done >= 2 && done < samples, `resumable with ${done} samples done`);
  await page.fill('[data-testid="api-key"]', KEY);
  await page.click('[data-testid="resume-run"]');
  await waitFinished(page, samples);
  const statuses = await page.locator('[data-testid="sample-row"]').evaluateAll((rows) => rows.map((r) => r.dataset.status));
  assert.equal(statuses.length, samples);
  assert.ok(statuses.every((s) => !['queued', 'running', 'not run', 'stopped'].includes(s)), statuses.join(', '));

  const stats = await llm.stats();
  assert.deepEqual(Object.keys(stats.per_sample).sort(), Object.keys(baseline).sort(), 'the same samples were asked');
  const extra = Object.entries(stats.per_sample).map(([k, n]) => n - baseline[k]);
  console.log(`requests per sample beyond an uninterrupted run: ${extra.join(' ')}`);
  assert.ok(extra.every((n) => n === 0 || n === 1) && extra.filter((n) => n === 1).length <= 1,
    'no sample ran twice: at most the one request in flight at the reload was sent again');
  assert.deepEqual(stats.auth, [`Bearer ${KEY}`], 'the key typed again was sent');

  const text = await exportedText(page);
  const results = JSON.parse(text);
  assert.equal(results.samples.length, samples);
  assert.ok(results.samples.every((s) => s.agent_status && s.agent_status !== 'in_progress'));
  const stores = (await assertNoSecrets(page, [KEY], { 'the export': text })).databases['arbigraph-runs'];
  assert.ok(stores.turns.keys.length > 0 && stores.samples.keys.length >= samples, 'turns and samples are stored');
  await shoot(page, 'evaluate-resumed', { fullPage: true });
  assert.deepEqual(errors, []);
});

test('the endpoint check passes against a good server and names the CORS failure, with its fixes, against one without CORS', async () => {
  const { page, errors } = browser;
  await llm.control({ delay_ms: 0, faults: 'off' });
  await setUp(page, 1);
  await page.click('[data-testid="check-endpoint"]');
  // Four probes, then what the run will adapt in its requests (nothing, for a server of no known provider).
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="check-result"]').length === 5, null, { timeout: 30000 });
  const good = await page.locator('[data-testid="check-result"]').evaluateAll((lines) => lines.map((l) => [l.dataset.ok, l.textContent]));
  assert.deepEqual(good.map(([ok]) => ok), ['true', 'true', 'true', 'false', 'true'], JSON.stringify(good));
  assert.match(good[4][1], /request parameters: requests go as set: nothing needs adapting/);
  assert.match(good[2][1], /called the calculator/);
  // The test server cannot read pictures; it says what arrived, so this proves a real PNG of the probe's size
  // went out, and that a reply without the drawn number reads as "not a vision model".
  assert.match(good[3][1], /image input: .*did not read the number 47.*I received: 160x112 PNG.*vision model/);
  await shoot(page, 'evaluate-check');

  const closed = await startFaultServer(['--faults', 'off', '--no-cors']);
  try {
    await page.fill('[data-testid="base-url"]', closed.url);
    await page.click('[data-testid="check-endpoint"]');
    await page.waitForSelector('[data-testid="check-result"][data-ok="false"]', { timeout: 30000 });
    await page.waitForFunction(() => !document.querySelector('[data-testid="check-endpoint"]').disabled);
    const lines = await page.locator('[data-testid="check-result"]').allTextContents();
    assert.equal(lines.length, 2, 'the later probes are skipped when the browser cannot read replies; the parameters line stays');
    assert.match(lines[0], /CORS and \/models: .*CORS headers/);
    assert.match(lines[1], /^✓ request parameters: /);
    assert.match(lines[0], /OLLAMA_ORIGINS/);
    assert.match(lines[0], /--allowed-origins/);
  } finally {
    await closed.close();
  }
  // The browser itself reports the refused reply on the console; nothing else may.
  assert.deepEqual(errors.filter((e) => !/CORS policy|Failed to load resource|net::ERR_FAILED/.test(e)), []);
  errors.length = 0;
});

test('a strategy is chosen with its parameters; an out-of-range value is refused and the run records the setting', async () => {
  const { page, errors } = browser;
  await llm.control({ delay_ms: 0, faults: 'off' });
  await setUp(page, 1);
  await page.selectOption('[data-testid="strategy"]', 'window');
  const field = page.locator('[data-testid="strategy-param"][data-key="exchanges"]');
  assert.equal(await field.inputValue(), '8', 'the default shows');
  await field.fill('0');
  await field.dispatchEvent('change');
  assert.match(await page.textContent('[data-testid="strategy-param-error"]'), /parameter `exchanges` of `window` must be between 1 and 1000000, got 0/);
  await field.fill('2');
  await field.dispatchEvent('change');
  assert.equal(await page.locator('[data-testid="strategy-param-error"]').count(), 0, 'a good value clears the message');
  await page.screenshot({ path: join(SHOTS, 'evaluate-strategy-light.png') });
  await startRun(page);
  await waitFinished(page, 1);
  const results = JSON.parse(await exportedText(page));
  assert.equal(results.samples[0].strategy, 'window');
  assert.deepEqual(results.samples[0].strategy_params, { exchanges: 2 });
  assert.deepEqual(errors, []);
});

test('a preset fills the endpoint; temperature, turn limit and an extra header reach the run, bad values are refused beside the fields, and the header is stored nowhere', async () => {
  const { page, errors } = browser;
  await llm.control({ delay_ms: 0, faults: 'off' });
  await llm.reset();
  await setUp(page, 1);
  await page.selectOption('[data-testid="endpoint-preset"]', 'ollama');
  assert.equal(await page.inputValue('[data-testid="base-url"]'), 'http://127.0.0.1:11434/v1');
  assert.match(await page.textContent('.eval-preset-note'), /OLLAMA_ORIGINS/);
  await page.fill('[data-testid="base-url"]', llm.url);
  const set = async (testid, value) => {
    await page.fill(`[data-testid="${testid}"]`, value);
    await page.locator(`[data-testid="${testid}"]`).dispatchEvent('change');
  };
  for (const [testid, bad, message] of [
    ['temperature', '3', /temperature must be between 0 and 2, got 3/],
    ['turn-limit', '0', /turn limit must be between 1 and 2000, got 0/],
    ['extra-headers', 'Authorization: Bearer nope', /line 1: put the key in the API key field/],
  ]) {
    await set(testid, bad);
    assert.match(await page.textContent('[data-testid="settings-error"]'), message);
  }
  const HEADER = 'header-secret-77';
  await set('temperature', '0.7');
  await set('turn-limit', '30');
  await set('extra-headers', `x-api-key: ${HEADER}`);
  assert.equal(await page.locator('[data-testid="settings-error"]').count(), 0, 'good values clear the error');
  await startRun(page);
  await waitFinished(page, 1);
  const stats = await llm.stats();
  assert.deepEqual(stats.temperatures, [0.7], 'every request asked for the temperature set');
  assert.deepEqual(stats.x_api_key, [HEADER], 'the extra header went with the requests');
  const stored = await dumpStorage(page);
  // Run records are stored as JSON text.
  const runs = stored.databases['arbigraph-runs'].runs.values.map((r) => (typeof r === 'string' ? JSON.parse(r) : r));
  assert.ok(runs.some((r) => r.settings?.temperature === 0.7 && r.settings?.max_turns === 30), `the run keeps its settings for resuming: ${JSON.stringify(runs.map((r) => r.settings))}`);
  await assertNoSecrets(page, [HEADER], { 'the export': await exportedText(page) });
  await shoot(page, 'evaluate-settings');
  assert.deepEqual(errors, []);
});

test('"remember on this device" keeps the key in local storage across a reload, with a warning, and unticking forgets it', async () => {
  const { page, errors } = browser;
  const REMEMBERED = 'sk-remembered-on-purpose-5151';
  await setUp(page, 1);
  assert.equal(await page.isChecked('[data-testid="remember-key"]'), false, 'off by default');
  await page.fill('[data-testid="api-key"]', REMEMBERED);
  assert.equal(await page.evaluate(() => localStorage.getItem('arbigraph-api-key')), null, 'nothing kept before it is asked for');
  await page.check('[data-testid="remember-key"]');
  assert.match(await page.textContent('[data-testid="remember-warning"]'), /local storage, readable by anyone who uses this browser profile/);
  assert.equal(await page.evaluate(() => localStorage.getItem('arbigraph-api-key')), REMEMBERED);
  await page.reload();
  await page.waitForSelector('[data-testid="api-key"]');
  assert.equal(await page.inputValue('[data-testid="api-key"]'), REMEMBERED, 'the key is back after a reload');
  assert.equal(await page.isChecked('[data-testid="remember-key"]'), true);
  await page.uncheck('[data-testid="remember-key"]');
  assert.equal(await page.evaluate(() => localStorage.getItem('arbigraph-api-key')), null, 'unticking forgets it');
  await page.reload();
  await page.waitForSelector('[data-testid="api-key"]');
  assert.equal(await page.inputValue('[data-testid="api-key"]'), '', 'and a reload has no key');
  assert.deepEqual(errors, []);
});
