// The Results page with loaded files: a dataset file is refused with its name (never shown as 0%), what was
// shown stays, and an old error goes when the next file loads.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { serveDist, launch, SHOTS } from './harness.mjs';

let server, browser;

before(async () => { server = await serveDist(); browser = await launch(); });
after(async () => { await browser?.context.close(); await server?.close(); });

const sample = (idx, answer, status = 'success') => ({
  prompt: 'Define task_1_input = 3.\nTask 1:\nCompute task_1_input + 4 and call the result task_1_out.\n', ground_truth: 7,
  task_id: 0, task_name: 'AddTask', sample_idx: idx, agent_status: status, task_answers: { task_1_out: { answer, turn: 0 } },
});
const file = (name, json) => ({ name, mimeType: 'application/json', buffer: Buffer.from(typeof json === 'string' ? json : JSON.stringify(json)) });
const results = { summary: { generation_params: {} }, samples: [sample(0, '7'), sample(1, '7'), sample(2, '8')] };
const dataset = { summary: { mode: 'chain' }, samples: [{ prompt: 'Compute 3 + 4.', ground_truth: 7, task_name: 'AddTask' }] };

test('a dataset file is refused with its name and the results shown stay', async () => {
  const { page, errors } = browser;
  await page.goto(`${server.url}#/results`);
  await page.setInputFiles('[data-testid="results-file"]', file('run.json', results));
  await page.waitForSelector('#results-metrics');
  const shown = await page.textContent('#results-metrics');
  assert.match(shown, /3/);
  await page.setInputFiles('[data-testid="results-file"]', file('instances.json', dataset));
  await page.waitForSelector('.error-view');
  assert.match(await page.textContent('.error-view'), /^instances\.json: this is a dataset file, not a results file/);
  assert.equal(await page.textContent('#results-metrics'), shown, 'the results shown before stay');
  assert.match(await page.textContent('#page-results'), /showing run\.json/);
  await page.screenshot({ path: join(SHOTS, 'results-refused-light.png') });
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.screenshot({ path: join(SHOTS, 'results-refused-dark.png') });
  await page.emulateMedia({ colorScheme: 'light' });
  assert.deepEqual(errors, []);
});

test('an error goes when the next file loads, and a file with unfinished samples says so', async () => {
  const { page, errors } = browser;
  await page.goto(`${server.url}#/results`);
  await page.setInputFiles('[data-testid="results-file"]', file('broken.json', '{"samples": ['));
  await page.waitForSelector('.error-view');
  assert.match(await page.textContent('.error-view'), /broken\.json: malformed JSON at line 1/);
  const partial = { ...results, samples: [...results.samples, { ...sample(3, ''), agent_status: 'in_progress' }] };
  await page.setInputFiles('[data-testid="results-file"]', file('partial.json', partial));
  await page.waitForSelector('[data-testid="results-note"]');
  assert.equal(await page.locator('.error-view').count(), 0, 'the old error is gone');
  assert.match(await page.textContent('[data-testid="results-note"]'), /Unfinished run: 1 of 4 samples have no result yet/);
  await page.setInputFiles('[data-testid="results-file"]', file('run.json', results));
  await page.waitForSelector('[data-testid="results-note"]', { state: 'detached' });
  assert.deepEqual(errors, []);
});

test('the accuracy chart draws a bar with its Wilson whisker per topology and family, and exports as SVG', async () => {
  const { page, errors } = browser;
  await page.goto(`${server.url}#/results`);
  const mixed = { summary: { generation_params: {} }, samples: [
    ...results.samples,
    { ...sample(4, '7'), target_family: 'gsm' }, { ...sample(5, '8'), target_family: 'gsm' },
  ] };
  await page.setInputFiles('[data-testid="results-file"]', file('mixed.json', mixed));
  await page.waitForSelector('svg[data-testid="accuracy-chart"]');
  const bars = await page.locator('svg[data-testid="accuracy-chart"] g.chart-bar').evaluateAll((gs) => gs.map((g) => g.querySelector('title').textContent));
  assert.deepEqual(bars.sort(), ['baseline × gsm: 50.0% [9.5, 90.5] 1/2', 'baseline × math: 66.7% [20.8, 93.9] 2/3']);
  assert.equal(await page.locator('svg[data-testid="accuracy-chart"] .whisker').count(), bars.length * 3);
  const download = page.waitForEvent('download');
  await page.click('[data-testid="export-chart"]');
  const text = await (await (await download).createReadStream()).toArray().then((c) => Buffer.concat(c).toString());
  assert.match(text, /^<svg xmlns="http:\/\/www.w3.org\/2000\/svg" data-testid="accuracy-chart"/);
  await page.screenshot({ path: join(SHOTS, 'results-dashboard-light.png') });
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.screenshot({ path: join(SHOTS, 'results-dashboard-dark.png') });
  await page.emulateMedia({ colorScheme: 'light' });
  assert.deepEqual(errors, []);
});

test('three runs compare side by side against the first, and a bad pick leaves the table', async () => {
  const { page, errors } = browser;
  await page.goto(`${server.url}#/results`);
  // Each run's samples take three turns whose prompts grow by `growth` tokens a turn.
  const run = (strategy, answers, growth = 0) => ({ summary: { generation_params: {} },
    samples: answers.map((a, i) => ({ ...sample(i, a), strategy, strategy_params: {},
      requests: [0, 1, 2].map((turn) => ({ turn, kind: 'turn', prompt_tokens_reported: 300 + growth * turn, completion_tokens: 20 })) })) });
  await page.setInputFiles('[data-testid="compare-files"]', [
    file('full.json', run('full', ['7', '7', '7', '7'], 400)),
    file('window.json', run('window', ['7', '8', '8', '8'], 0)),
    file('graph.json', run('graph', ['7', '7', '7', '8'], 100)),
  ]);
  await page.waitForSelector('[data-testid="compare-table"]');
  const rows = await page.locator('[data-testid="compare-row"]').evaluateAll((trs) => trs.map((tr) => [...tr.cells].map((td) => td.textContent)));
  assert.deepEqual(rows.map((r) => [r[0], r[1]]), [['full.json', 'full'], ['window.json', 'window:exchanges=8'], ['graph.json', 'graph']]);
  assert.match(rows[0][2], /^100\.0% .* 4\/4$/);
  assert.equal(rows[0][4], 'baseline');
  assert.match(rows[1][4], /^-75\.0 pts \(p 0\.2500\)$/, 'paired McNemar against the first run');
  assert.match(rows[2][4], /^-25\.0 pts \(p 1\.0000\)$/);
  assert.deepEqual(rows.map((r) => r[6]), ['1100', '300', '500'], 'peak prompt tokens per run');
  // One curve per run; the growing run climbs, the windowed one stays flat.
  const curves = await page.locator('[data-testid="context-curves"] .chart-curve').evaluateAll((gs) => gs.map((g) => [g.dataset.run, g.querySelectorAll('circle').length,
    g.querySelector('polyline').getAttribute('points').split(' ').map((p) => Number(p.split(',')[1]))]));
  assert.deepEqual(curves.map(([name, dots]) => [name, dots]), [['full.json', 3], ['window.json', 3], ['graph.json', 3]]);
  const [, , fullY] = curves[0];
  const [, , windowY] = curves[1];
  assert.ok(fullY[0] > fullY[1] && fullY[1] > fullY[2], `the full run climbs (screen y falls): ${fullY}`);
  assert.ok(windowY.every((y) => y === windowY[0]), `the window run stays flat: ${windowY}`);
  await page.locator('[data-testid="context-curves"]').scrollIntoViewIfNeeded();
  await page.screenshot({ path: join(SHOTS, 'results-compare-light.png') });
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.screenshot({ path: join(SHOTS, 'results-compare-dark.png') });
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setInputFiles('[data-testid="compare-files"]', [file('full.json', run('full', ['7'])), file('instances.json', dataset)]);
  await page.waitForSelector('.results-compare .error-view');
  assert.match(await page.textContent('.results-compare .error-view'), /^instances\.json: /);
  assert.equal(await page.locator('[data-testid="compare-row"]').count(), 3, 'the table shown before stays');
  assert.deepEqual(errors, []);
});
