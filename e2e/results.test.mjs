// The Results page with loaded files: a dataset file is refused with its name (never shown as 0%), what was
// shown stays, and an old error goes when the next file loads; the samples list with its filters, a sample's
// transcript with its requests and where its chain broke, and 10,000 samples listed without a long task.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import { serveDist, launch, ROOT, SHOTS } from './harness.mjs';
import { startFaultServer } from './fault_server.mjs';

let server, browser;

before(async () => { server = await serveDist(); browser = await launch(); });
after(async () => { await browser?.context.close(); await server?.close(); });

const sample = (idx, answer, status = 'success') => ({
  prompt: 'Define task_1_input = 3.\nTask 1:\nCompute task_1_input + 4 and call the result task_1_out.\n', ground_truth: 7,
  task_id: 0, task_name: 'AddTask', sample_idx: idx, agent_status: status, task_answers: { task_1_out: { answer, turn: 0 } },
});
/** Records every main-thread task over 50 ms (the `longtask` entries) in window.__longTasks. */
const LONG_TASKS = `
  window.__longTasks = [];
  new PerformanceObserver((list) => { for (const e of list.getEntries()) window.__longTasks.push(e.duration); })
    .observe({ type: 'longtask', buffered: true });
`;

/** Screenshots of the page in the light and the dark scheme: `<name>-light.png`, `<name>-dark.png`. */
async function shoot(page, name, options = {}) {
  for (const scheme of ['light', 'dark']) {
    await page.emulateMedia({ colorScheme: scheme });
    await page.screenshot({ path: join(SHOTS, `${name}-${scheme}.png`), ...options });
  }
  await page.emulateMedia({ colorScheme: 'light' });
}

const file = (name, json) => ({ name, mimeType: 'application/json', buffer: Buffer.from(typeof json === 'string' ? json : JSON.stringify(json)) });
const results = { summary: { generation_params: {} }, samples: [sample(0, '7'), sample(1, '7'), sample(2, '8')] };
const dataset = { summary: { mode: 'chain' }, samples: [{ prompt: 'Compute 3 + 4.', ground_truth: 7, task_name: 'AddTask' }] };

test('a dataset file is refused with its name and the results shown stay', async () => {
  const { page, errors } = browser;
  await page.goto(`${server.url}#/results`);
  await page.setInputFiles('[data-testid="results-file"]', file('run.json', results));
  await page.waitForSelector('#results-metrics');
  const shown = await page.textContent('#results-metrics');
  const overall = await page.locator('table[data-testid="metrics-accuracy"] tbody tr').first().evaluate((r) => [...r.cells].map((c) => c.textContent));
  assert.deepEqual([overall[0], overall[3], overall[4]], ['Overall', '2', '3'], 'two of the three samples are right');
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

test('the accuracy chart draws a bar with its Wilson whisker per topology and family, and exports as SVG and CSV', async () => {
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
  // The same figures as CSV, one row per scope, the counts and rates as the table shows them.
  const csvDownload = page.waitForEvent('download');
  await page.click('[data-testid="export-csv"]');
  const csvFile = await csvDownload;
  assert.equal(csvFile.suggestedFilename(), 'accuracy.csv');
  const csv = (await (await csvFile.createReadStream()).toArray().then((c) => Buffer.concat(c).toString())).trim().split('\n');
  assert.equal(csv[0], 'scope,topology,family,task,correct,total,accuracy,ci_low,ci_high');
  assert.match(csv[1], /^overall,,,,3,5,0\.6000,/);
  assert.ok(csv.some((line) => line.startsWith('topology x family,baseline,gsm,,1,2,0.5000,0.0945,0.9055')), csv.join('\n'));
  assert.ok(csv.some((line) => line.startsWith('target task,baseline,math,AddTask,2,3,0.6667,')), csv.join('\n'));
  await page.screenshot({ path: join(SHOTS, 'results-dashboard-light.png') });
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.screenshot({ path: join(SHOTS, 'results-dashboard-dark.png') });
  await page.emulateMedia({ colorScheme: 'light' });
  assert.deepEqual(errors, []);
});

/** Wilson's 95% interval of k correct out of n, in percent with one decimal, as the tables print it. */
function wilson(k, n) {
  const z = 1.959963984540054, p = k / n, d = 1 + z * z / n;
  const centre = (p + z * z / (2 * n)) / d, half = z * Math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d;
  return `${(100 * Math.max(0, centre - half)).toFixed(1)}–${(100 * Math.min(1, centre + half)).toFixed(1)}%`;
}

/** Every table of the metrics: its testid, caption, column headers with their scope, and its rows (each cell's
 * tag, scope and text). */
const metricsTables = (page) => page.locator('#results-metrics table').evaluateAll((tables) => tables.map((t) => ({
  testid: t.dataset.testid,
  caption: t.caption?.textContent ?? '',
  header: [...t.tHead.rows[0].cells].map((c) => [c.tagName, c.getAttribute('scope'), c.textContent]),
  rows: [...t.tBodies[0].rows].map((r) => [...r.cells].map((c) => [c.tagName, c.getAttribute('scope'), c.textContent])),
})));

test("the run's metrics are tables with captions and column and row headers, each scrolling inside itself on a phone", async () => {
  const { page, errors } = browser;
  await page.goto(`${server.url}#/results`);
  const mixed = { summary: { generation_params: {} }, samples: [
    ...results.samples,
    { ...sample(4, '7'), target_family: 'gsm' }, { ...sample(5, '8', 'timeout'), target_family: 'gsm' },
  ] };
  await page.setInputFiles('[data-testid="results-file"]', file('mixed.json', mixed));
  await page.waitForSelector('#results-metrics table');
  const tables = await metricsTables(page);
  assert.equal(await page.locator('#results-metrics pre').count(), 0, 'no preformatted block is left');
  for (const t of tables) {
    assert.ok(t.caption.length > 10, `${t.testid} has a caption`);
    assert.ok(t.header.every(([tag, scope]) => tag === 'TH' && scope === 'col'), `${t.testid}: column headers`);
    for (const row of t.rows) {
      assert.equal(row.length, t.header.length, `${t.testid}: a cell per column`);
      assert.deepEqual(row[0].slice(0, 2), ['TH', 'row'], `${t.testid}: each row has its header`);
      assert.ok(row.slice(1).every(([tag]) => tag === 'TD'), `${t.testid}: data cells`);
    }
  }
  const byId = Object.fromEntries(tables.map((t) => [t.testid, t]));
  const text = (t) => t.rows.map((r) => r.map((c) => c[2]));
  // 3 of 5 right over all; baseline × gsm 1 of 2 and baseline × math 2 of 3, with Wilson intervals worked out here.
  assert.deepEqual(text(byId['metrics-accuracy']), [
    ['Overall', '60.0%', wilson(3, 5), '3', '5'],
    ['baseline × gsm', '50.0%', wilson(1, 2), '1', '2'],
    ['baseline × math', '66.7%', wilson(2, 3), '2', '3'],
  ]);
  assert.deepEqual(text(byId['metrics-statuses']), [['success', '4', '80.0%'], ['timeout', '1', '20.0%']]);
  assert.deepEqual(byId['metrics-means'].header.map((h) => h[2]), ['Measure', 'Value']);
  await page.screenshot({ path: join(SHOTS, 'results-tables-desktop-light.png'), fullPage: true });
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.screenshot({ path: join(SHOTS, 'results-tables-desktop-dark.png'), fullPage: true });
  await page.emulateMedia({ colorScheme: 'light' });
  // The reference's multichain grades its nodes here: one row per graded output, in graph order.
  const reference = JSON.parse(readFileSync(join(ROOT, 'tests', 'fixtures', 'reference', 'results_math_multichain.sample.json'), 'utf8'));
  await page.setInputFiles('[data-testid="results-file"]', file('reference.json', reference));
  await page.waitForSelector('#results-metrics table[data-testid="metrics-nodes"]');
  const nodes = text((await metricsTables(page)).find((t) => t.testid === 'metrics-nodes'));
  const numbers = nodes.map((r) => Number(r[0].match(/^task_(\d+)_out$/)?.[1]));
  assert.ok(numbers.length >= 8 && numbers.every((n, i) => Number.isInteger(n) && (i === 0 || n > numbers[i - 1])), `node outputs in graph order: ${nodes.map((r) => r[0])}`);
  for (const [, rate, interval, correct, graded, breaks] of nodes) {
    assert.equal(rate, `${(100 * Number(correct) / Number(graded)).toFixed(1)}%`);
    assert.equal(interval, wilson(Number(correct), Number(graded)));
    assert.ok(Number(breaks) <= Number(graded) - Number(correct), 'a first break is a wrong or missing output');
  }
  // On a phone the page never scrolls sideways; a table wider than the screen scrolls in its own container.
  await page.setViewportSize({ width: 390, height: 844 });
  const widths = await page.evaluate(() => ({
    page: document.documentElement.scrollWidth, screen: document.documentElement.clientWidth,
    boxes: [...document.querySelectorAll('#results-metrics .results-table-scroll')].map((b) => b.getBoundingClientRect().right),
  }));
  assert.ok(widths.page <= widths.screen, `the page is ${widths.page} px wide on a ${widths.screen} px screen`);
  assert.ok(widths.boxes.every((right) => right <= widths.screen), `every table's container fits: ${widths.boxes}`);
  // The charts and the heat map keep their text at 11 CSS px or more (font size times the drawing's scale),
  // scrolling inside their figure rather than shrinking.
  const chartTexts = await page.$$eval('#page-results figure svg text', (els) => els.map((el) => ({
    text: el.textContent, px: parseFloat(getComputedStyle(el).fontSize) * Math.hypot(el.getScreenCTM().a, el.getScreenCTM().b),
  })));
  console.log(`Results at 390 px: ${chartTexts.length} chart texts, smallest ${Math.min(...chartTexts.map((t) => t.px)).toFixed(2)} px`);
  assert.ok(chartTexts.length >= 10, `the charts are drawn (${chartTexts.length} texts)`);
  for (const t of chartTexts) assert.ok(t.px >= 10.99, `chart text "${t.text}" is ${t.px.toFixed(2)} px`);
  await page.locator('#results-metrics').scrollIntoViewIfNeeded();
  for (const scheme of ['light', 'dark']) {
    await page.emulateMedia({ colorScheme: scheme });
    await page.locator('#results-metrics').screenshot({ path: join(SHOTS, `results-tables-phone-${scheme}.png`) });
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize({ width: 1280, height: 900 });
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
  // Strategies are named by the parameters off their defaults: window's 8 exchanges are its default.
  assert.deepEqual(rows.map((r) => [r[0], r[1]]), [['full.json', 'full'], ['window.json', 'window'], ['graph.json', 'graph']]);
  assert.match(rows[0][2], /^100\.0% .* 4\/4$/);
  assert.equal(rows[0][4], 'baseline');
  assert.match(rows[1][4], /^-75\.0 pts \(p 0\.2500\)$/, 'paired McNemar against the first run');
  assert.match(rows[2][4], /^-25\.0 pts \(p 1\.0000\)$/);
  assert.deepEqual(rows.map((r) => r[6]), ['1100', '300', '500'], 'peak prompt tokens per run');
  // The eleven columns fit the 1280-pixel window: their headers wrap rather than the table scrolling sideways.
  const overflow = await page.locator('[data-testid="compare-table"]').evaluate((t) => t.parentElement.scrollWidth - t.parentElement.clientWidth);
  assert.ok(overflow <= 0, `the comparison table is ${overflow} px wider than its panel`);
  // Tokens and cost: per sample full sends 300 + 700 + 1,100 prompt tokens, window 3 × 300, graph 300 + 400 + 500,
  // each 3 × 20 completion tokens. Costs show once prices are typed, and the prices are Evaluate's too.
  const costRows = () => page.locator('[data-testid="compare-cost-row"]').evaluateAll((trs) => trs.map((tr) => [...tr.cells].map((td) => td.textContent)));
  assert.deepEqual((await costRows()).map((r) => r.slice(0, 6)), [
    ['full.json', '4', '8,400', '240', '2,160', 'baseline'],
    ['window.json', '4', '3,600', '240', '960', '-1,200 (-55.6%)'],
    ['graph.json', '4', '4,800', '240', '1,260', '-900 (-41.7%)'],
  ]);
  assert.deepEqual((await costRows()).map((r) => r.slice(6)), [['–', '–', '–'], ['–', '–', '–'], ['–', '–', '–']], 'no prices, no costs');
  await page.fill('[data-testid="compare-price-in"]', '3');
  await page.fill('[data-testid="compare-price-out"]', '15');
  await page.locator('[data-testid="compare-price-out"]').press('Tab');
  await page.waitForFunction(() => document.querySelector('[data-testid="compare-cost-row"]').cells[7].textContent !== '–');
  assert.deepEqual((await costRows()).map((r) => r.slice(6)), [
    ['$0.03', '$0.0072', 'baseline'],
    ['$0.01', '$0.0036', '-$0.0036 (-50.0%)'],
    ['$0.02', '$0.0045', '-$0.0027 (-37.5%)'],
  ]);
  await page.fill('[data-testid="compare-price-in"]', '-1');
  await page.locator('[data-testid="compare-price-in"]').press('Tab');
  await page.waitForSelector('.results-compare [role="alert"]');
  assert.equal((await costRows())[1][7], '$0.0036', 'a refused price leaves the costs shown');
  await page.fill('[data-testid="compare-price-in"]', '3');
  await page.locator('[data-testid="compare-price-in"]').press('Tab');
  await page.waitForSelector('.results-compare [role="alert"]', { state: 'detached' });
  // On a phone the tables scroll inside their own containers; the page does not scroll sideways.
  const panel = page.locator('[data-testid="compare-panel"]');
  for (const scheme of ['light', 'dark']) {
    await page.emulateMedia({ colorScheme: scheme });
    await panel.screenshot({ path: join(SHOTS, `compare-tables-desktop-${scheme}.png`) });
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize({ width: 390, height: 844 });
  const narrow = await page.evaluate(() => ({ page: document.documentElement.scrollWidth, screen: document.documentElement.clientWidth,
    boxes: [...document.querySelectorAll('.results-compare-scroll')].map((b) => [b.getBoundingClientRect().right, b.scrollWidth > b.clientWidth]) }));
  assert.ok(narrow.page <= narrow.screen, `the page is ${narrow.page} px wide on a ${narrow.screen} px screen`);
  assert.ok(narrow.boxes.every(([right]) => right <= narrow.screen), `every table's container fits: ${JSON.stringify(narrow.boxes)}`);
  assert.ok(narrow.boxes.some(([, scrolls]) => scrolls), 'the widest table scrolls inside its container');
  await panel.scrollIntoViewIfNeeded();
  for (const scheme of ['light', 'dark']) {
    await page.emulateMedia({ colorScheme: scheme });
    await panel.screenshot({ path: join(SHOTS, `compare-tables-phone-${scheme}.png`) });
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize({ width: 1280, height: 900 });
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
  // The flips: window broke samples 1-3, graph broke sample 3; each opens both transcripts side by side.
  assert.match(await page.textContent('[data-testid="flip-summary"]'), /^4 samples flipped against the baseline: 0 fixed, 4 broken\./);
  const flips = await page.locator('[data-testid="flip"]').allTextContents();
  assert.deepEqual(flips, ['AddTask #1 · broken in window.json', 'AddTask #2 · broken in window.json', 'AddTask #3 · broken in window.json', 'AddTask #3 · broken in graph.json']);
  await page.locator('[data-testid="flip"]').nth(3).click();
  const pair = page.locator('[data-testid="flip-pair"] [data-testid="transcript"]');
  await pair.first().waitFor();
  assert.deepEqual(await pair.evaluateAll((ts) => ts.map((t) => [t.dataset.index, t.querySelector('[data-testid="transcript-verdict"]').textContent])), [['3', 'correct'], ['3', 'wrong']]);
  // Each transcript draws its sample's context curve: the full run's grows, the graph run's less.
  const dots = await page.locator('[data-testid="flip-pair"] [data-testid="sample-context-curve"] svg').evaluateAll((svgs) => svgs.map((svg) => svg.querySelectorAll('circle').length));
  assert.deepEqual(dots, [3, 3]);
  await page.locator('[data-testid="flip-pair"]').scrollIntoViewIfNeeded();
  for (const scheme of ['light', 'dark']) {
    await page.emulateMedia({ colorScheme: scheme });
    await page.locator('.results-compare').screenshot({ path: join(SHOTS, `results-flips-${scheme}.png`) });
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await page.locator('[data-testid="flip-pair"] .tx-close').first().click();
  await page.waitForSelector('[data-testid="flip-pair"]', { state: 'detached' });
  assert.equal(await page.locator('[data-testid="compare-topologies"]').count(), 0, 'one topology: no per-topology table');
  // Runs over two topologies: a row each, with the difference from the baseline.
  const chained = (r) => ({ ...r, samples: r.samples.map((x, i) => (i >= 2 ? { ...x, chain: { distractors: [], target: { task_number: 1, task_name: 'AddTask', ground_truth: 7 } } } : x)) });
  await page.setInputFiles('[data-testid="compare-files"]', [file('full.json', chained(run('full', ['7', '7', '7', '8']))), file('window.json', chained(run('window', ['7', '8', '8', '8'])))]);
  await page.waitForSelector('[data-testid="compare-topologies"]');
  const topologies = await page.locator('[data-testid="compare-topology-row"]').evaluateAll((trs) => trs.map((tr) => [...tr.cells].map((td) => td.textContent)));
  assert.deepEqual(topologies, [['baseline', '100.0% (2/2)', '50.0% (1/2) -50.0 pts'], ['chain', '50.0% (1/2)', '0.0% (0/2) -50.0 pts']]);
  await page.setInputFiles('[data-testid="compare-files"]', [file('full.json', run('full', ['7'])), file('instances.json', dataset)]);
  await page.waitForSelector('.results-compare .error-view');
  assert.match(await page.textContent('.results-compare .error-view'), /^instances\.json: /);
  assert.equal(await page.locator('[data-testid="compare-row"]').count(), 2, 'the table shown before stays');
  assert.deepEqual(errors, []);
});

/** A `width` × `height` PNG (diagonal stripes) as a data URL, made here so the test needs no file. */
function pngDataUrl(width, height) {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (bytes) => { let c = 0xffffffff; for (const b of bytes) c = crcTable[(c ^ b) & 0xff] ^ (c >>> 8); return (c ^ 0xffffffff) >>> 0; };
  const chunk = (type, data) => {
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const out = Buffer.alloc(8 + data.length + 4);
    out.writeUInt32BE(data.length, 0);
    body.copy(out, 4);
    out.writeUInt32BE(crc(body), 8 + data.length);
    return out;
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bit depth
  header[9] = 0; // greyscale
  const rows = [];
  for (let y = 0; y < height; y++) rows.push(Buffer.from([0, ...Array.from({ length: width }, (_, x) => ((x + y) % 8 < 3 ? 40 : 235))]));
  const png = Buffer.concat([Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]), chunk('IHDR', header), chunk('IDAT', deflateSync(Buffer.concat(rows))), chunk('IEND', Buffer.alloc(0))]);
  return `data:image/png;base64,${png.toString('base64')}`;
}

/** A two-task chain the agent got wrong at its first task: reasoning, a tool call and its result, a cut-off
 * repair, two requests (the second leaving messages out), node statuses, and markup in the model's text. */
const chainRecord = {
  task_id: 0, task_name: 'AddTask', sample_idx: 0, target_family: 'math',
  prompt: 'Define task_1_input = 3.\nTask 1:\nCompute task_1_input + 4 and call the result task_1_out.\nTask 2:\nCompute task_1_out + 1 and call the result task_2_out.\n',
  ground_truth: 8,
  chain: { distractors: [{ task_number: 1, task_name: 'AddTask', input_name: 'task_1_input', ground_truth: 7 }],
    target: { task_number: 2, task_name: 'AddTask', input_name: 'task_1_out', ground_truth: 8 } },
  correct: false, token_length: 61, agent_turns: 2, agent_tool_calls: 1, agent_status: 'success',
  turn_outputs: { 0: 'Task 1 is 3 + 4.\n</think>\n\nI will check with the calculator.', 1: '\\boxed{task_1_out = 6} \\boxed{task_2_out = 7}' },
  expected_task_outputs: ['task_1_out', 'task_2_out'],
  task_answers: { task_1_out: { answer: '6', turn: 1 }, task_2_out: { answer: '7', turn: 1 } },
  transcript: [
    { role: 'system', content: 'You are a helpful reasoning assistant with a calculator.' },
    { role: 'user', content: 'Define task_1_input = 3. <script>window.__pwned = 1</script> and <b>not bold</b>' },
    { role: 'assistant', content: 'I will check with the calculator.', reasoning: 'Task 1 is 3 + 4.',
      tool_calls: [{ id: 'call_0_0', name: 'calculator', arguments: '{"expressions":["3 + 4"]}' }] },
    { role: 'tool', content: '["7"]', tool_call_id: 'call_0_0', name: 'calculator' },
    { role: 'user', content: 'Your reply was cut off before every answer was boxed.', purpose: 'repair:cutoff' },
    { role: 'assistant', content: '\\boxed{task_1_out = 6} \\boxed{task_2_out = 7} <img src=x onerror="window.__pwned = 2">' },
  ],
  node_status: { task_1_out: 'wrong', task_2_out: 'wrong' },
  first_breaks: ['task_1_out'],
  strategy: 'window', strategy_params: { exchanges: 1 },
  requests: [
    { turn: 0, kind: 'turn', messages: 2, prompt_tokens_estimated: 40, prompt_tokens_reported: 42, completion_tokens: 21, latency_ms: 800 },
    { turn: 1, kind: 'turn', messages: 3, prompt_tokens_estimated: 1100, prompt_tokens_reported: 1234, completion_tokens: 40, latency_ms: 1500 },
  ],
  repairs: { initial_tool: 0, final_answer: 0, cutoff: 1 },
  usage: { prompt_tokens: 1276, completion_tokens: 61, reported_turns: 2, estimated_turns: 0, auxiliary_calls: 0, auxiliary_prompt_tokens: 0, auxiliary_completion_tokens: 0 },
};

/** An image task answered correctly: the picture was sent with the prompt. */
const imageRecord = {
  task_id: 0, task_name: 'image.braid', sample_idx: 0, target_family: 'image',
  prompt: 'Task 1:\nFollow the path in Image 1 and call the list of its numbers task_1_out.\n', ground_truth: [4, 9],
  images: [{ image_index: 1, task_number: 1, mime_type: 'image/png', data_url: pngDataUrl(96, 64), ground_truth: [4, 9], metadata: { width: 96, height: 64 } }],
  correct: true, agent_status: 'success', agent_turns: 1, agent_tool_calls: 0, token_length: 12,
  turn_outputs: { 0: '\\boxed{task_1_out = [4, 9]}' },
  task_answers: { task_1_out: { answer: '[4, 9]', turn: 0 } },
  transcript: [
    { role: 'system', content: 'You are a helpful reasoning assistant with a calculator.' },
    { role: 'user', content: 'Task 1:\nFollow the path in Image 1 and call the list of its numbers task_1_out.\n', pictures: 1 },
    { role: 'assistant', content: 'The path passes 4 then 9 (a zebra crossing). \\boxed{task_1_out = [4, 9]}' },
  ],
  node_status: { task_1_out: 'correct' }, first_breaks: [], strategy: 'full', strategy_params: {},
  requests: [{ turn: 0, kind: 'turn', messages: 2, prompt_tokens_estimated: 900, prompt_tokens_reported: 950, completion_tokens: 12, latency_ms: 300 }],
};

const endpointFailure = { ...sample(2, ''), agent_status: 'api_error', agent_error: 'HTTP 503: the endpoint is overloaded', correct: false, transcript: [] };
const transcriptFile = { summary: { generation_params: {} }, samples: [chainRecord, imageRecord, endpointFailure, { ...sample(3, '7'), correct: true }] };

const visibleRows = (page) => page.locator('[data-testid="transcript-row"]').evaluateAll((rows) => rows.map((r) => [Number(r.dataset.index), r.dataset.status]));

test('a sample opens its transcript, with the requests it sent and where its chain broke', async () => {
  const { page, errors } = browser;
  await page.goto(`${server.url}#/results`);
  await page.setInputFiles('[data-testid="results-file"]', file('transcripts.json', transcriptFile));
  await page.waitForSelector('[data-testid="transcript-row"]');
  assert.deepEqual(await visibleRows(page), [[0, 'wrong'], [1, 'correct'], [2, 'error'], [3, 'correct']]);
  assert.equal(await page.textContent('[data-testid="transcript-count"]'), '4 samples');

  // Filters change the rows shown.
  await page.check('#tx-failures');
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="transcript-row"]').length === 2);
  assert.deepEqual(await visibleRows(page), [[0, 'wrong'], [2, 'error']]);
  assert.equal(await page.textContent('[data-testid="transcript-count"]'), '2 of 4 samples');
  await page.uncheck('#tx-failures');
  await page.fill('#tx-search', 'ZEBRA crossing');
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="transcript-row"]').length === 1);
  assert.deepEqual(await visibleRows(page), [[1, 'correct']], 'the search reads the transcripts, in any case');
  await page.fill('#tx-search', '');
  await page.selectOption('#tx-filter-status', 'error');
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="transcript-row"]').length === 1);
  assert.deepEqual(await visibleRows(page), [[2, 'error']]);
  await page.selectOption('#tx-filter-status', '');
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="transcript-row"]').length === 4);

  // The wrong chain: verdict, messages in order, folded reasoning, the tool call with its result, the repair.
  await page.click('[data-testid="transcript-row"][data-index="0"]');
  const transcript = page.locator('[data-testid="transcript"]');
  await transcript.waitFor();
  assert.equal(await transcript.getAttribute('data-index'), '0');
  assert.equal(await transcript.locator('[data-testid="transcript-verdict"]').textContent(), 'wrong');
  assert.equal(await transcript.locator('[data-testid="transcript-answer"]').textContent(), 'task_2_out = 7 given; the ground truth is 8');
  assert.equal(await transcript.locator('[data-testid="transcript-strategy"]').textContent(), 'window:exchanges=1');
  assert.match(await transcript.locator('[data-testid="transcript-tokens"]').textContent(), /^2 calls · 1,276 prompt \+ 61 completion tokens/);
  const roles = await transcript.locator('[data-testid="transcript-message"]').evaluateAll((ms) => ms.map((m) => m.dataset.role));
  assert.deepEqual(roles, ['system', 'user', 'assistant', 'user', 'assistant'], 'the tool result sits under its call');
  const reasoning = transcript.locator('[data-testid="reasoning"]');
  assert.equal(await reasoning.count(), 1);
  assert.equal(await reasoning.evaluate((d) => d.open), false, 'reasoning starts folded');
  assert.match(await reasoning.locator('summary').textContent(), /^reasoning \(16 characters\)$/);
  await reasoning.locator('summary').click();
  assert.equal(await reasoning.locator('pre').textContent(), 'Task 1 is 3 + 4.');
  const call = transcript.locator('[data-testid="tool-call"]');
  assert.match(await call.textContent(), /calls calculator call_0_0/);
  assert.equal(await call.locator('.tx-args').textContent(), '{\n  "expressions": [\n    "3 + 4"\n  ]\n}', 'arguments pretty-printed');
  assert.equal(await call.locator('[data-testid="tool-result"] pre').textContent(), '["7"]');
  const repair = transcript.locator('[data-testid="transcript-message"][data-purpose="repair:cutoff"]');
  assert.equal(await repair.locator('[data-testid="harness-marker"]').textContent(), 'harness · repair:cutoff');
  assert.match(await transcript.locator('[data-testid="turn-answers"]').textContent(), /task_1_out = 6, task_2_out = 7/);
  const requests = await transcript.locator('[data-testid="transcript-request"]').allTextContents();
  assert.deepEqual(requests.map((r) => r.replace(/^→ /, '')), [
    'request 1 (turn 1) sent 2 of 2 messages · 42 prompt tokens · 21 completion tokens · 800 ms',
    'request 2 (turn 2) sent 3 of 5 messages · 1,234 prompt tokens · 40 completion tokens · 1,500 ms',
  ]);
  // Markup in model text is text.
  const user = transcript.locator('[data-testid="transcript-message"][data-role="user"]').first();
  assert.equal(await user.locator('pre').textContent(), 'Define task_1_input = 3. <script>window.__pwned = 1</script> and <b>not bold</b>');
  assert.equal(await transcript.locator('.tx-conversation script, .tx-conversation b, .tx-conversation img').count(), 0);
  assert.equal(await page.evaluate(() => window.__pwned), undefined);
  // Where the chain broke: both nodes wrong, the first one the first break, with a legend.
  const graph = transcript.locator('[data-testid="break-graph"] svg');
  assert.deepEqual(await graph.locator('.node.wrong').evaluateAll((gs) => gs.map((g) => g.dataset.nodeId)), ['task_1', 'task_2']);
  assert.deepEqual(await graph.locator('.node.first-break').evaluateAll((gs) => gs.map((g) => g.dataset.nodeId)), ['task_1']);
  assert.equal(await page.textContent('[data-testid="break-summary"]'), '2 of 2 graded outputs are wrong or missing; the chain first broke at task_1_out.');
  assert.match(await transcript.locator('.tx-legend').textContent(), /correct.*wrong.*missing.*first break/);
  // The dashboard's first-break histogram counts the same break, with the count in its tooltip.
  const histogram = page.locator('svg[data-testid="first-break-chart"] [data-output="task_1_out"]');
  assert.match(await histogram.locator('title').textContent(), /^task_1_out: the first break in \d+ sample\(s\)$/);
  await shoot(page, 'results-transcript', { fullPage: true });

  // The image sample, opened from the keyboard (the next row after the open one): the picture sits in the
  // prompt's message.
  await page.focus('[data-testid="transcript-list"]');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('Enter');
  await page.waitForSelector('[data-testid="transcript"][data-index="1"]');
  const picture = page.locator('[data-testid="transcript-message"][data-role="user"] [data-testid="transcript-picture"]');
  assert.equal(await picture.count(), 1, 'the picture is shown with the message that sent it');
  await page.waitForFunction(() => { const img = document.querySelector('[data-testid="transcript-picture"]'); return img?.complete && img.naturalWidth === 96; });
  assert.equal(await page.locator('[data-testid="transcript-verdict"]').textContent(), 'correct');
  assert.equal(await page.locator('[data-testid="break-graph"] svg .node.correct').count(), 1);
  await page.evaluate(() => document.querySelector('[data-testid="transcript"]').scrollIntoView());
  await shoot(page, 'results-transcript-picture');

  // The endpoint failure says why, and what its file lacks.
  await page.click('[data-testid="transcript-row"][data-index="2"]');
  await page.waitForSelector('[data-testid="transcript"][data-index="2"]');
  assert.equal(await page.locator('[data-testid="transcript-verdict"]').textContent(), 'error');
  assert.match(await page.textContent('[data-testid="transcript"] .tx-error'), /HTTP 503: the endpoint is overloaded/);
  assert.match(await page.textContent('[data-testid="transcript-notes"]'), /no request log/);
  assert.deepEqual(errors, []);
});

test('a reference results file opens its turn outputs and grades its nodes here', async () => {
  const { page, errors } = browser;
  await page.goto(`${server.url}#/results`);
  const reference = JSON.parse(readFileSync(join(ROOT, 'tests', 'fixtures', 'reference', 'results_math_multichain.sample.json'), 'utf8'));
  await page.setInputFiles('[data-testid="results-file"]', file('reference.json', reference));
  await page.waitForSelector('[data-testid="transcript-row"]');
  await page.locator('[data-testid="transcript-row"]').first().click();
  await page.waitForSelector('[data-testid="transcript"]');
  const notes = await page.textContent('[data-testid="transcript-notes"]');
  assert.match(notes, /no transcript/);
  assert.match(notes, /graded here from the stored answers/);
  const turns = await page.locator('[data-testid="transcript-message"][data-role="assistant"]').count();
  assert.equal(turns, Object.keys(reference.samples[0].turn_outputs).length, 'one entry per stored turn output');
  assert.ok(await page.locator('[data-testid="break-graph"] svg .node').count() >= 8, 'the multichain is drawn');
  assert.ok(await page.locator('[data-testid="break-graph"] svg .node.correct, [data-testid="break-graph"] svg .node.wrong, [data-testid="break-graph"] svg .node.missing').count() >= 8);
  const firstBreakInView = await page.locator('[data-testid="break-graph"]').evaluate((el) => {
    const node = el.querySelector('.node.first-break').getBoundingClientRect();
    const frame = el.getBoundingClientRect();
    return el.scrollLeft > 0 && node.left >= frame.left && node.right <= frame.right;
  });
  assert.ok(firstBreakInView, 'the wide graph is scrolled to its first break');
  assert.deepEqual(errors, []);
});

test('10,000 samples list with only the rows in view in the page, and a text search reads them in slices', async () => {
  const { page, errors } = browser;
  await page.addInitScript(LONG_TASKS);
  await page.goto(`${server.url}#/results`);
  // The same document only changed its hash: load it again so the long-task observer is installed.
  await page.reload();
  const many = { summary: { generation_params: {} }, samples: Array.from({ length: 10000 }, (_, i) => ({
    ...chainRecord, sample_idx: i, correct: i % 3 === 0, transcript: i === 9876 ? [...chainRecord.transcript, { role: 'assistant', content: 'a unique marmalade' }] : chainRecord.transcript,
  })) };
  await page.evaluate(() => { window.__longTasks = []; });
  const started = Date.now();
  const manyFile = file('many.json', many);
  await page.setInputFiles('[data-testid="results-file"]', manyFile);
  await page.waitForSelector('[data-testid="transcript-row"]');
  const shownAfter = Date.now() - started;
  const tasks = await page.evaluate(() => window.__longTasks.slice());
  assert.equal(await page.textContent('[data-testid="transcript-count"]'), '10,000 samples');
  const inDom = await page.locator('[data-testid="transcript-row"]').count();
  assert.ok(inDom > 5 && inDom <= 30, `only the rows in view are drawn (${inDom})`);
  // The list scrolls to its end.
  await page.locator('[data-testid="transcript-list"]').evaluate((el) => { el.scrollTop = el.scrollHeight; });
  await page.waitForSelector('[data-testid="transcript-row"][data-index="9999"]');
  await page.evaluate(() => { window.__longTasks = []; });
  const searched = Date.now();
  await page.fill('#tx-search', 'marmalade');
  await page.waitForSelector('[data-testid="transcript-count"]:has-text("searching")').catch(() => {});
  await page.waitForFunction(() => document.querySelector('[data-testid="transcript-count"]').textContent === '1 of 10,000 samples');
  const searchMs = Date.now() - searched;
  const searchTasks = await page.evaluate(() => window.__longTasks.slice());
  assert.deepEqual(await visibleRows(page), [[9876, 'correct']]);
  assert.ok(searchTasks.every((ms) => ms < 100), `no task of the search over 100 ms: ${searchTasks}`);
  console.log(`10,000 samples (${(manyFile.buffer.length / 1e6).toFixed(1)} MB): first rows ${shownAfter} ms after the file was picked (reading and the metrics included); long tasks ${JSON.stringify(tasks.map(Math.round))}; a search over every transcript ${searchMs} ms, long tasks ${JSON.stringify(searchTasks.map(Math.round))}`);
  assert.deepEqual(errors, []);
});

test('a 1,000-task chain lists where it broke instead of drawing every node', async () => {
  const { page, errors } = browser;
  await page.goto(`${server.url}#/about`);
  await page.goto(`${server.url}#/results`);
  const n = 1000;
  const stages = Array.from({ length: n - 1 }, (_, k) => ({ task_number: k + 1, task_name: 'AddTask', input_name: k ? `task_${k}_out` : 'task_1_input', ground_truth: k }));
  const statuses = Object.fromEntries(Array.from({ length: n }, (_, k) => [`task_${k + 1}_out`, k < 600 ? 'correct' : k < 610 ? 'wrong' : 'missing']));
  const long = { ...chainRecord, transcript: chainRecord.transcript, chain: { distractors: stages, target: { task_number: n, task_name: 'AddTask', input_name: `task_${n - 1}_out`, ground_truth: 0 } },
    node_status: statuses, first_breaks: ['task_601_out'] };
  await page.setInputFiles('[data-testid="results-file"]', file('long.json', { summary: { generation_params: {} }, samples: [long] }));
  await page.waitForSelector('[data-testid="transcript-row"]');
  const started = Date.now();
  await page.click('[data-testid="transcript-row"][data-index="0"]');
  await page.waitForSelector('[data-testid="break-graph-too-large"]');
  console.log(`a 1,000-task sample's transcript opened in ${Date.now() - started} ms`);
  assert.match(await page.textContent('[data-testid="break-summary"]'), /^400 of 1000 graded outputs are wrong or missing; the chain first broke at task_601_out\./);
  const listed = await page.locator('[data-testid="broken-nodes"] li').allTextContents();
  assert.match(listed[0], /^task_601_out \(node task_601\) wrong · first break$/, 'the first break leads the list');
  assert.equal(listed.at(-1), 'and 200 more');
  assert.deepEqual(errors, []);
});

test('a link opens a sample, and a finished row of Evaluate opens its transcript here', async () => {
  const { page, errors } = browser;
  // Leave the page first, so it is built anew without the filters set before.
  await page.goto(`${server.url}#/about`);
  await page.goto(`${server.url}#/results`);
  await page.setInputFiles('[data-testid="results-file"]', file('transcripts.json', transcriptFile));
  await page.waitForSelector('[data-testid="transcript-row"]');
  await page.evaluate(() => { window.location.hash = '#/results?sample=2'; });
  await page.waitForSelector('[data-testid="transcript"][data-index="2"]');

  // A real run in this tab, against the scripted endpoint: what the engine records is what the view reads.
  const llm = await startFaultServer(['--faults', 'off']);
  try {
    await page.goto(`${server.url}#/about`);
    await page.goto(`${server.url}#/evaluate`);
    await page.waitForSelector('[data-testid="start-run"]:not([disabled])');
    await page.fill('[data-testid="base-url"]', llm.url);
    await page.fill('[data-testid="sample-limit"]', '2');
    await page.locator('[data-testid="sample-limit"]').dispatchEvent('change');
    await page.click('[data-testid="start-run"]');
    await page.waitForSelector('#eval-done:has-text("finished")', { timeout: 60000 });
    const correct = await page.locator('[data-testid="sample-row"]').nth(1).locator('td').nth(4).textContent();
    await page.locator('[data-testid="sample-row"]').nth(1).click();
    await page.waitForSelector('[data-testid="transcript"][data-index="1"]');
    assert.match(page.url(), /#\/results\?sample=1$/);
    const transcript = page.locator('[data-testid="transcript"]');
    assert.equal(await transcript.locator('[data-testid="transcript-verdict"]').textContent(), correct === 'yes' ? 'correct' : 'wrong');
    const roles = await transcript.locator('[data-testid="transcript-message"]').evaluateAll((ms) => ms.map((m) => m.dataset.role));
    assert.deepEqual(roles.slice(0, 3), ['system', 'user', 'assistant']);
    assert.ok(await transcript.locator('[data-testid="tool-call"] [data-testid="tool-result"]').count() >= 1, 'the calculator call and its result');
    const first = await transcript.locator('[data-testid="transcript-request"]').first().textContent();
    assert.match(first, /request 1 \(turn 1\) sent 2 of 2 messages · ~?[\d,]+ prompt tokens/);
    assert.equal(await transcript.locator('[data-testid="transcript-notes"]').count(), 0, 'our own records lack nothing');
    assert.ok(await transcript.locator('[data-testid="break-graph"] svg .node').count() >= 1);
  } finally {
    await llm.close();
  }
  assert.deepEqual(errors, []);
});
