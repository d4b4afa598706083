// State that outlives the page: Browse's dataset, filters and open instance live in the address (a reload, back
// and forward, a copied address in a new browser bring them back; a file from an earlier visit is named, with
// what comes back when it is opened again), and Evaluate takes its samples from the graph on Design, run
// against the local fault-injecting endpoint.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serveDist, launch, startRun, shoot } from './harness.mjs';
import { startFaultServer } from './fault_server.mjs';

const CANVAS = 'svg[data-testid="canvas"]';

let server, browser, llm;

before(async () => {
  server = await serveDist();
  browser = await launch();
  llm = await startFaultServer(['--faults', 'off']);
});
after(async () => { await browser?.context.close(); await server?.close(); await llm?.close(); });

const openTitle = (page) => page.textContent('.instance-head h2');

/** Waits until the page shows site dataset math_chain with text filter `target` and sample `index` open. */
async function showsView(page, target, index) {
  await page.waitForSelector(`.instance-head h2:has-text("#${index}")`, { timeout: 30000 });
  await page.waitForFunction((t) => document.querySelector('#filter-text')?.value === t, target);
  assert.equal(await page.inputValue('#browse-dataset'), 'site:math_chain');
  await page.waitForFunction(() => /^\d+ of \d+ shown$/.test(document.querySelector('#browse-count').textContent));
}

test('Browse keeps its dataset, filter and open instance in the address: reload, back and forward, a copied address', async () => {
  const { page, errors } = browser;
  await page.goto(`${server.url}#/browse`);
  await page.click('[data-testid="dataset-list"] [data-dataset="math_chain"]');
  await page.waitForSelector('[data-testid="instance-row"]');
  // A text filter (most prompts contain an e) and the list reversed, then two instances opened one after the other.
  // A text filter (typed, so the address is replaced, not pushed) and the list reversed.
  const target = 'e';
  await page.fill('#filter-text', target);
  await page.waitForSelector('#browse-count:has-text(" of ")');
  await page.click('#filter-direction');
  await page.waitForFunction(() => /desc=1$/.test(location.hash));
  assert.match(page.url(), /#\/browse\?dataset=math_chain&f\.text=e&desc=1$/, 'the filter is in the address');
  const rows = page.locator('[data-testid="instance-row"]');
  const first = Number(await rows.nth(0).getAttribute('data-index'));
  const second = Number(await rows.nth(1).getAttribute('data-index'));
  await rows.nth(0).click();
  await page.keyboard.press('Enter');
  await page.waitForSelector(`.instance-head h2:has-text("#${first}")`);
  await rows.nth(1).click();
  await page.waitForSelector(`.instance-head h2:has-text("#${second}")`);
  const address = page.url();
  assert.match(address, new RegExp(`dataset=math_chain&index=${second}&f\\.text=e&desc=1$`));

  await page.reload();
  await showsView(page, target, second);
  await shoot(page, 'browse-address');

  await page.goBack();
  await showsView(page, target, first);
  await page.goBack();
  await page.waitForSelector('[data-testid="prompt"]', { state: 'detached' });
  assert.equal(await page.inputValue('#filter-text'), target, 'closing the instance keeps the filter');
  await page.goForward();
  await showsView(page, target, first);
  await page.goForward();
  await showsView(page, target, second);
  assert.match(await openTitle(page), new RegExp(`#${second}`));

  const fresh = await launch();
  try {
    await fresh.page.goto(address);
    await showsView(fresh.page, target, second);
    assert.deepEqual(fresh.errors, []);
  } finally {
    await fresh.context.close();
  }
  assert.deepEqual(errors, []);
});

test('an address naming a file of an earlier visit says so, and the file opened again brings its filter and instance back', async () => {
  const { page, errors } = browser;
  const lines = Array.from({ length: 6 }, (_, i) => JSON.stringify({ task_name: i % 2 ? 'Odd' : 'Even', prompt: `prompt ${i}`, ground_truth: i })).join('\n');
  await page.goto(`${server.url}#/browse?dataset=file%3Asix.jsonl&index=3&f.target=Odd`);
  await page.reload();
  await page.waitForSelector('#browse-notice:has-text("this address names `file:six.jsonl`, which was opened in an earlier visit: open it again")');
  assert.match(await page.textContent('#browse-notice'), /its filters and sample #3 come back/);
  assert.match(page.url(), /dataset=file%3Asix\.jsonl&index=3&f\.target=Odd$/, 'the address is kept');
  await shoot(page, 'browse-address-file');
  await page.setInputFiles('#open-dataset', { name: 'six.jsonl', mimeType: 'application/jsonl', buffer: Buffer.from(lines + '\n') });
  await page.waitForSelector('.instance-head h2:has-text("#3")');
  assert.equal(await page.inputValue('#filter-target'), 'Odd');
  await page.waitForSelector('#browse-count:has-text("3 of 6 shown")');
  assert.deepEqual(errors, []);
});

test('Evaluate runs the graph drawn on Design: its rows are the graph\'s targets', async () => {
  const { page, errors } = browser;
  await llm.control({ delay_ms: 0, faults: 'off' });
  await page.goto(`${server.url}#/design`);
  await page.waitForSelector('select[data-testid="preset"]');
  await page.selectOption('select[data-testid="preset"]', 'chain');
  await page.click('[data-testid="apply-preset"]');
  await page.waitForFunction(() => /No problems/.test(document.querySelector('.design-issues-summary').textContent));
  // The designed graph's samples as Generate makes them (one per target, seed 0), listed on Browse.
  await page.fill('.design-run input[name="spt"]', '1');
  await page.locator('.design-run input[name="spt"]').dispatchEvent('change');
  await page.click('[data-testid="generate"]');
  await page.waitForFunction(() => location.hash.startsWith('#/browse'));
  await page.waitForSelector('[data-testid="instance-row"]');
  await page.waitForFunction(() => !/ of /.test(document.querySelector('#browse-dataset')?.selectedOptions[0]?.textContent ?? ' of '));
  const total = Number((await page.textContent('#browse-count')).match(/^(\d+) shown$/)[1]);
  assert.ok(total > 0);

  await page.goto(`${server.url}#/evaluate`);
  await page.waitForSelector('[data-testid="start-run"]:not([disabled])');
  await page.fill('[data-testid="base-url"]', llm.url);
  await page.fill('[data-testid="sample-limit"]', String(total));
  await page.locator('[data-testid="sample-limit"]').dispatchEvent('change');
  await page.selectOption('[data-testid="eval-source"]', 'design');
  assert.match(await page.textContent('[data-testid="eval-source-note"]'), /the graph on Design \(\d+ nodes\)/);
  // The estimate covers the samples the run will take, from this source as from a file.
  await page.click('[data-testid="estimate"]');
  await page.waitForSelector('[data-testid="estimate-line"]');
  assert.match(await page.textContent('[data-testid="estimate-line"]'), new RegExp(`^about [\\d,]+ input and [\\d,]+ output tokens over ${total} samples`));
  await startRun(page);
  await page.waitForSelector('#eval-done:has-text("finished")', { timeout: 60000 });
  const designed = (await page.locator('[data-testid="sample-row"] td:nth-child(2)').allTextContents()).sort();
  assert.equal(designed.length, total, 'every sample of the designed graph');
  assert.equal(new Set(designed).size, total, 'one sample per target (one per target asked)');
  await shoot(page, 'evaluate-design-source');

  // The Browse source: the dataset shown there (the designed graph's samples), all of them.
  await page.selectOption('[data-testid="eval-source"]', 'browse');
  assert.match(await page.textContent('[data-testid="eval-source-note"]'), /no filter is set, so all \d+ samples/);
  await page.click('[data-testid="estimate"]');
  await page.waitForFunction((n) => new RegExp(`over ${n} samples`).test(document.querySelector('[data-testid="estimate-line"]')?.textContent ?? ''), total);
  await startRun(page);
  await page.waitForSelector('#eval-done:has-text("finished")', { timeout: 60000 });
  const browsed = (await page.locator('[data-testid="sample-row"] td:nth-child(2)').allTextContents()).sort();
  assert.deepEqual(browsed, designed, 'the same targets as the samples Generate made of the graph');

  // An empty design is refused with a message beside the run; nothing typed is lost, the choice outlives the page.
  await page.goto(`${server.url}#/design`);
  await page.waitForSelector(CANVAS);
  await page.click(CANVAS, { position: { x: 5, y: 5 } });
  await page.keyboard.press('Control+a');
  await page.keyboard.press('Delete');
  await page.waitForFunction((sel) => document.querySelectorAll(sel).length === 0, `${CANVAS} [data-node-id]`);
  await page.evaluate(() => { location.hash = '#/evaluate'; });
  await page.waitForSelector('[data-testid="eval-source"]');
  assert.equal(await page.inputValue('[data-testid="eval-source"]'), 'browse');
  await page.selectOption('[data-testid="eval-source"]', 'design');
  await page.click('[data-testid="start-run"]');
  await page.waitForSelector('#page-evaluate .error-view:has-text("the graph on Design has no nodes")');
  assert.equal(await page.inputValue('[data-testid="base-url"]'), llm.url);
  assert.equal(await page.inputValue('[data-testid="sample-limit"]'), String(total));
  await shoot(page, 'evaluate-design-empty');
  assert.deepEqual(errors, []);
});
