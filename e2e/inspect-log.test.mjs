// Inspect AI logs of the ArbiGraph task dropped on Results (tests/fixtures/inspect/): the page reads them with
// the engine's reader, the one `arbigraph import-inspect` uses. A `.eval` archive of a chain run opens with its
// samples and verdicts; a JSON log whose second sample's last answer was changed shows that sample wrong and where
// its chain broke; a log of another task is refused with its name and what is wrong.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { serveDist, launch, ROOT, SHOTS } from './harness.mjs';

let server, browser;

before(async () => { server = await serveDist(); browser = await launch(); });
after(async () => { await browser?.context.close(); await server?.close(); });

const fixture = (name) => readFileSync(join(ROOT, 'tests', 'fixtures', 'inspect', name));

/** Drops a file of `bytes` named `name` on the Results page, as a drag from the desktop does. */
async function drop(page, name, bytes) {
  const dataTransfer = await page.evaluateHandle(({ name, base64 }) => {
    const transfer = new DataTransfer();
    const data = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
    transfer.items.add(new File([data], name));
    return transfer;
  }, { name, base64: Buffer.from(bytes).toString('base64') });
  await page.dispatchEvent('#page-results', 'dragover', { dataTransfer });
  await page.dispatchEvent('#page-results', 'drop', { dataTransfer });
}

const rows = (page) => page.locator('[data-testid="transcript-row"]').evaluateAll((list) => list.map((r) => [Number(r.dataset.index), r.dataset.status]));

test('an Inspect .eval log dropped on Results shows its samples and verdicts', async () => {
  const { page, errors } = browser;
  await page.goto(`${server.url}#/results`);
  await drop(page, 'chain.log.eval', fixture('chain.log.eval'));
  await page.waitForSelector('[data-testid="transcript-row"]');
  assert.deepEqual(await rows(page), [[0, 'correct'], [1, 'correct']], 'the probe answered both chains right, as the log scored them');
  assert.match(await page.textContent('#page-results'), /showing chain\.log\.eval/);
  await page.click('[data-testid="transcript-row"][data-index="0"]');
  const transcript = page.locator('[data-testid="transcript"]');
  await transcript.waitFor();
  assert.equal(await transcript.locator('[data-testid="transcript-verdict"]').textContent(), 'correct');
  assert.ok(await transcript.locator('[data-testid="tool-call"]').count() > 0, 'the calculator calls of the log are in the transcript');
  for (const scheme of ['light', 'dark']) {
    await page.emulateMedia({ colorScheme: scheme });
    await page.screenshot({ path: join(SHOTS, `inspect-log-eval-${scheme}.png`), fullPage: true });
  }
  await page.emulateMedia({ colorScheme: 'light' });
  assert.deepEqual(errors, []);
});

test('a JSON log with a wrong answer shows the verdict and where the chain broke', async () => {
  const { page, errors } = browser;
  await page.goto(`${server.url}#/results`);
  const log = JSON.parse(fixture('baseline.log.json').toString());
  const turns = log.samples[1].store['arbigraph:result'].turn_outputs;
  const last = Object.keys(turns).sort((a, b) => Number(a) - Number(b)).at(-1);
  turns[last] = '\\boxed{task_1_out = [1, 2, 3]}';
  await drop(page, 'baseline.log.json', Buffer.from(JSON.stringify(log)));
  // The rows of the file dropped before stay until the worker has read this one.
  await page.waitForFunction(() => /showing baseline\.log\.json/.test(document.querySelector('#page-results').textContent));
  await page.waitForSelector('[data-testid="transcript-row"]');
  assert.deepEqual(await rows(page), [[0, 'correct'], [1, 'wrong']], 'graded again by our grader from the turn outputs');
  await page.click('[data-testid="transcript-row"][data-index="1"]');
  const transcript = page.locator('[data-testid="transcript"]');
  await transcript.waitFor();
  assert.equal(await transcript.locator('[data-testid="transcript-verdict"]').textContent(), 'wrong');
  assert.match(await transcript.locator('[data-testid="break-summary"]').textContent(), /task_1_out/);
  assert.match(await transcript.locator('[data-testid="broken-nodes"]').textContent(), /task_1_out.*wrong.*first break/);
  for (const scheme of ['light', 'dark']) {
    await page.emulateMedia({ colorScheme: scheme });
    await page.screenshot({ path: join(SHOTS, `inspect-log-break-${scheme}.png`), fullPage: true });
  }
  await page.emulateMedia({ colorScheme: 'light' });
  assert.deepEqual(errors, []);
});

test('a log of another task is refused with its name and what is wrong', async () => {
  const { page, errors } = browser;
  await page.goto(`${server.url}#/results`);
  const log = JSON.parse(fixture('baseline.log.json').toString());
  log.eval.task = 'gsm8k';
  log.eval.task_registry_name = 'inspect_evals/gsm8k';
  await page.setInputFiles('[data-testid="results-file"]', { name: 'gsm8k.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(log)) });
  await page.waitForSelector('.error-view');
  assert.match(await page.textContent('.error-view'), /gsm8k\.json: eval\.task: a log of the task `inspect_evals\/gsm8k`, not of the ArbiGraph task/);
  assert.deepEqual(errors, []);
});
