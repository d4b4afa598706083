// The Evaluate page against a real small language model (tools/local-llm/serve.sh: Qwen2.5-Coder-0.5B behind an
// OpenAI-compatible endpoint with CORS, on 127.0.0.1): three samples with every context strategy of the picker
// run to the end in the browser, each sample graded; the transcripts show the tool calls with their results;
// the exported results file, opened again on Results, gives the same dashboard. Asserts the protocol, not the
// model's accuracy. The weights are shared with the real-model stage (target/tmp/arbigraph-llm).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serveDist, launch, removeQuietly, startRun, ROOT, SHOTS } from './harness.mjs';

const LLM_DIR = join(ROOT, 'target', 'tmp', 'arbigraph-llm');
const scratch = mkdtempSync(join(tmpdir(), 'arbigraph-real-llm-'));
let server, browser, llmUrl;

const freePort = () => new Promise((ok) => { const s = createServer(); s.listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => ok(port)); }); });

before(async () => {
  const port = await freePort();
  // The script installs the runtime and fetches the weights when missing, starts the server and exits once it answers.
  await new Promise((ok, fail) => {
    const child = spawn('timeout', ['1200', 'bash', join(ROOT, 'tools', 'local-llm', 'serve.sh')], { env: { ...process.env, LLM_PORT: String(port), LLM_DIR }, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (c) => { out += c; });
    child.on('exit', (code) => (code === 0 && out.includes('LLM ready') ? ok() : fail(new Error(`the model server did not start (${code}): ${out}`))));
  });
  llmUrl = `http://127.0.0.1:${port}/v1`;
  server = await serveDist();
  browser = await launch();
});
after(async () => {
  try { process.kill(Number(readFileSync(join(LLM_DIR, 'server.pid'), 'utf8').trim())); } catch { /* already gone */ }
  await browser?.context.close();
  await server?.close();
  removeQuietly(scratch);
});

const dataset = join(scratch, 'baseline.json');
writeFileSync(dataset, JSON.stringify({
  summary: { mode: 'math', num_tasks: 3, num_samples_per_task: 1 },
  samples: [[12, 'task_1_input * 7 + 5', 89], [-4, 'task_1_input * task_1_input - 3', 13], [30, 'task_1_input // 4 + 100', 107]].map(([x, e, truth], i) => ({
    task_id: i, task_name: 'Synthetic', sample_idx: 0, prompt: `Define task_1_input = ${x}.\nTask 1:\nCompute ${e} and call the result task_1_out.\n`, ground_truth: truth,
  })),
}));

async function set(page, testid, value) {
  await page.fill(`[data-testid="${testid}"]`, String(value));
  await page.locator(`[data-testid="${testid}"]`).dispatchEvent('change');
}

/** The dashboard as drawn: the accuracy chart, the metrics table and the sample list. */
const dashboard = (page) => page.evaluate(() => ({
  chart: document.querySelector('svg[data-testid="accuracy-chart"]')?.outerHTML,
  metrics: document.querySelector('#results-metrics')?.textContent,
  rows: [...document.querySelectorAll('[data-testid="transcript-row"]')].map((r) => r.textContent),
}));

test('three samples with every context strategy run against a real model; transcripts show the tool calls; an export opened again gives the same dashboard', { timeout: 1_800_000 }, async () => {
  const { page, errors } = browser;
  await page.goto(`${server.url}#/evaluate`);
  await page.waitForSelector('[data-testid="start-run"]:not([disabled])');
  const strategies = await page.locator('select[data-testid="strategy"] option').evaluateAll((os) => os.map((o) => o.value));
  assert.ok(strategies.includes('full') && strategies.includes('acg'), strategies.join(', '));
  let toolCalls = 0;
  for (const strategy of strategies) {
    await page.goto(`${server.url}#/about`);
    await page.goto(`${server.url}#/evaluate`);
    await page.waitForSelector('[data-testid="start-run"]:not([disabled])');
    await page.fill('[data-testid="base-url"]', llmUrl);
    await page.fill('[data-testid="model"]', 'local');
    await page.setInputFiles('#eval-file', dataset);
    await page.selectOption('select[data-testid="strategy"]', strategy);
    await set(page, 'sample-limit', 3);
    await set(page, 'max-tokens', 128);
    await set(page, 'repair-max-tokens', 192);
    await set(page, 'turn-limit', strategy.includes('summary') ? 4 : 3);
    await set(page, 'request-timeout', 180);
    // The last strategy's finished rows stay in view until this run lays out its own.
    await startRun(page);
    await page.waitForFunction(() => document.querySelector('#eval-done')?.textContent === 'finished', null, { timeout: 600_000 });
    const statuses = await page.locator('[data-testid="sample-row"]').evaluateAll((rows) => rows.map((r) => r.dataset.status));
    assert.equal(statuses.length, 3);
    assert.ok(statuses.every((s) => !['api_error', 'queued', 'running', 'not run', 'stopped'].includes(s)), `${strategy}: ${statuses.join(', ')}`);

    const download = page.waitForEvent('download');
    await page.click('[data-testid="export-results"]');
    const file = join(scratch, `results-${strategy.replace(/\W/g, '-')}.json`);
    await (await download).saveAs(file);
    const results = JSON.parse(readFileSync(file, 'utf8'));
    assert.equal(results.samples.length, 3);
    for (const s of results.samples) {
      assert.equal(s.strategy, strategy);
      assert.equal(typeof s.correct, 'boolean', 'every sample graded');
    }
    const calls = results.samples.reduce((n, s) => n + (s.transcript ?? []).filter((m) => m.tool_calls?.length).length, 0);
    toolCalls += calls;

    // The transcripts on Results show each tool call with its result.
    await page.goto(`${server.url}#/results`);
    await page.waitForSelector('[data-testid="transcript-row"]');
    let shown = 0;
    for (let i = 0; i < 3; i += 1) {
      await page.click(`[data-testid="transcript-row"][data-index="${i}"]`);
      await page.waitForSelector(`[data-testid="transcript"][data-index="${i}"]`);
      const here = await page.locator('[data-testid="transcript"] [data-testid="tool-call"]').count();
      if (here > 0) assert.ok(await page.locator('[data-testid="transcript"] [data-testid="tool-result"]').count() > 0, `${strategy}: a tool call with its result`);
      shown += here;
    }
    assert.ok(shown >= calls, `${strategy}: the ${calls} tool-calling turns are shown (${shown} calls drawn)`);
    if (strategy === 'full' || strategy === 'acg') {
      await page.screenshot({ path: join(SHOTS, `real-llm-transcript-${strategy}-light.png`), fullPage: true });
      // Opened again from the file, the dashboard is the same.
      const live = await dashboard(page);
      await page.goto(`${server.url}#/about`);
      await page.goto(`${server.url}#/results`);
      await page.setInputFiles('[data-testid="results-file"]', file);
      await page.waitForSelector('svg[data-testid="accuracy-chart"]');
      await page.waitForFunction((n) => document.querySelectorAll('[data-testid="transcript-row"]').length === n, 3);
      assert.deepEqual(await dashboard(page), live, `${strategy}: the same dashboard from the exported file`);
    }
  }
  assert.ok(toolCalls > 0, 'the model called the calculator at least once');
  assert.deepEqual(errors.filter((e) => !/Failed to load resource/.test(e)), []);
});
