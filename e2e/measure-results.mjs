// Measures Evaluate and Results in headless Chromium and prints the figures of the README's evaluation
// paragraph: opening results files of 10,000 samples (about 19 MB) and 26,000 (about 50 MB) to their
// dashboard, with the longest main-thread task; and a run of 1,000 samples at concurrency 8 against an instant local endpoint, with every
// main-thread task over 50 ms while its results stream in. Run after a release build:
//   trunk build --release && node e2e/measure-results.mjs [RUNS]
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serveDist, launch, removeQuietly } from './harness.mjs';
import { startFaultServer } from './fault_server.mjs';

const runs = Number(process.argv[2] ?? 3);
const scratch = mkdtempSync(join(tmpdir(), 'arbigraph-measure-results-'));
process.on('exit', () => removeQuietly(scratch));

const LONG_TASKS = `
  window.__longTasks = [];
  new PerformanceObserver((list) => { for (const e of list.getEntries()) window.__longTasks.push(Math.round(e.duration)); })
    .observe({ type: 'longtask' });
`;

/** A results file of `n` two-task chains, each with its transcript, requests and node statuses, a third wrong. */
function resultsFile(n) {
  const samples = [];
  for (let i = 0; i < n; i += 1) {
    const x = ((i * 37) % 201) - 100, k = (i % 9) + 2, c = (i * 7) % 50, truth = x * k + c;
    const right = i % 3 !== 0;
    const answer = String(right ? truth : truth + 1);
    const next = String(Number(answer) + 1);
    const prompt = `Define task_1_input = ${x}.\nTask 1:\nCompute task_1_input * ${k} + ${c} and call the result task_1_out.\nTask 2:\nAdd 1 to task_1_out and call the result task_2_out.\n`;
    samples.push({
      task_id: i % 10, task_name: 'AddTask', sample_idx: Math.floor(i / 10), prompt, ground_truth: truth + 1,
      chain: { distractors: [{ task_number: 1, task_name: 'MulTask', input_name: 'task_1_input', ground_truth: truth }], target: { task_number: 2, task_name: 'AddTask', input_name: 'task_1_out', ground_truth: truth + 1 } },
      agent_status: 'success', correct: right, agent_turns: 3, agent_tool_calls: 1, token_length: 120 + (i % 50),
      turn_outputs: { 0: 'Let me compute.', 1: `\\boxed{task_1_out = ${answer}}`, 2: `\\boxed{task_2_out = ${next}}` },
      task_answers: { task_1_out: { answer, turn: 1 }, task_2_out: { answer: next, turn: 2 } },
      node_status: { task_1_out: right ? 'correct' : 'wrong', task_2_out: right ? 'correct' : 'wrong' }, first_breaks: right ? [] : ['task_1_out'],
      transcript: [
        { role: 'system', content: 'You solve multi-step problems carefully and have a calculator tool.' },
        { role: 'user', content: prompt },
        { role: 'assistant', content: 'Let me compute.', tool_calls: [{ id: `c${i}`, name: 'calculator', arguments: JSON.stringify({ expressions: [`${x} * ${k} + ${c}`] }) }] },
        { role: 'tool', content: `["${truth}"]`, tool_call_id: `c${i}`, name: 'calculator' },
        { role: 'assistant', content: `\\boxed{task_1_out = ${answer}}` },
        { role: 'assistant', content: `\\boxed{task_2_out = ${next}}` },
      ],
      requests: [0, 1, 2].map((t) => ({ turn: t, kind: 'turn', messages: 2 + t, prompt_tokens_estimated: 100 + 30 * t, prompt_tokens_reported: 110 + 30 * t, completion_tokens: 40, latency_ms: 500 })),
      strategy: 'full', strategy_params: {},
    });
  }
  return JSON.stringify({ summary: { generation_params: { model: 'synthetic' } }, samples });
}

/** A dataset of `n` one-task math samples for a run. */
function datasetFile(n) {
  const samples = Array.from({ length: n }, (_, i) => {
    const x = ((i * 37) % 201) - 100, k = (i % 9) + 2, c = (i * 7) % 50;
    return { task_id: i % 10, task_name: `Load${i % 10}`, sample_idx: i, prompt: `Case ${i}. Define task_1_input = ${x}.\nTask 1:\nCompute task_1_input * ${k} + ${c} and call the result task_1_out.\n`, ground_truth: x * k + c };
  });
  return JSON.stringify({ summary: { mode: 'math' }, samples });
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const server = await serveDist();
const llm = await startFaultServer(['--faults', 'off']);
try {
  /** Opens `path` on Results in a fresh browser: times on the page's clock and its tasks over 50 ms. */
  async function openOnce(path) {
    const browser = await launch();
    const { page } = browser;
    await page.goto(`${server.url}#/results`);
    await page.waitForSelector('[data-testid="results-file"]');
    await page.evaluate(LONG_TASKS);
    // When the input reports the file (Playwright's hand-over of the file comes before it), and when the chart
    // and the first row are both in the page.
    await page.evaluate(() => {
      window.__times = {};
      document.querySelector('[data-testid="results-file"]').addEventListener('change', () => { window.__times.change = performance.now(); }, true);
      new MutationObserver(() => {
        if (!window.__times.shown && document.querySelector('svg[data-testid="accuracy-chart"]') && document.querySelector('[data-testid="transcript-row"]')) window.__times.shown = performance.now();
      }).observe(document.body, { subtree: true, childList: true });
    });
    const started = await page.evaluate(() => performance.now());
    await page.setInputFiles('[data-testid="results-file"]', path);
    await page.waitForSelector('svg[data-testid="accuracy-chart"]', { timeout: 120000 });
    await page.waitForSelector('[data-testid="transcript-row"]', { timeout: 120000 });
    await new Promise((ok) => setTimeout(ok, 300));
    const times = await page.evaluate(() => window.__times);
    const tasks = await page.evaluate(() => window.__longTasks);
    await browser.context.close();
    return { ms: Math.round(times.shown - started), fromChange: Math.round(times.shown - times.change), tasks };
  }
  const describe = (label, bytes, opened) => console.log(`results file of ${label} (${(bytes / 1e6).toFixed(1)} MB) to dashboard and list, over ${opened.length} run(s): `
    + `from the page's change event median ${median(opened.map((o) => o.fromChange))} ms (${opened.map((o) => o.fromChange).join(', ')}), `
    + `from Playwright's setInputFiles median ${median(opened.map((o) => o.ms))} ms (${opened.map((o) => o.ms).join(', ')}); `
    + `longest main-thread task per run: ${opened.map((o) => Math.max(0, ...o.tasks)).join(', ')} ms; tasks over 50 ms per run: ${opened.map((o) => o.tasks.length).join(', ')}`);
  for (const [count, times] of [[10000, runs], [26000, 1]]) {
    const path = join(scratch, `results-${count}.json`);
    const text = resultsFile(count);
    writeFileSync(path, text);
    const opened = [];
    for (let r = 0; r < times; r += 1) opened.push(await openOnce(path));
    describe(`${count.toLocaleString('en')} samples`, text.length, opened);
  }

  const dataset = join(scratch, 'dataset-1000.json');
  writeFileSync(dataset, datasetFile(1000));
  const browser = await launch();
  const { page } = browser;
  await page.goto(`${server.url}#/evaluate`);
  await page.waitForSelector('[data-testid="start-run"]:not([disabled])');
  await page.fill('[data-testid="base-url"]', llm.url);
  await page.setInputFiles('#eval-file', dataset);
  for (const [field, value] of [['sample-limit', 1000], ['concurrency', 8]]) {
    await page.fill(`[data-testid="${field}"]`, String(value));
    await page.locator(`[data-testid="${field}"]`).dispatchEvent('change');
  }
  await page.evaluate(LONG_TASKS);
  const started = Date.now();
  await page.click('[data-testid="start-run"]');
  await page.waitForFunction(() => document.querySelector('#eval-done')?.textContent === 'finished', null, { timeout: 600000, polling: 500 });
  const seconds = (Date.now() - started) / 1000;
  const tasks = await page.evaluate(() => window.__longTasks);
  const rows = await page.locator('[data-testid="sample-row"]').count();
  console.log(`run of 1,000 samples at concurrency 8 against an instant endpoint: ${seconds.toFixed(1)} s, ${rows} rows; main-thread tasks over 50 ms: ${tasks.length}, `
    + `over 100 ms: ${tasks.filter((d) => d > 100).length}, longest ${Math.max(0, ...tasks)} ms`);
  await browser.context.close();
} finally {
  await server.close();
  await llm.close();
}
