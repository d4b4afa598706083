// The Evaluate page against the hosted APIs as they document themselves (tools/provider_emulator.py on
// 127.0.0.1, each provider under its own path prefix): every preset runs its samples right with the key in the
// provider's own header (and Anthropic's browser opt-in on both of its wires); OpenAI's reasoning models get the
// parameters they take, from the profile or, on a server of no known provider, learnt from the 400s, and the run
// lists what it adapted; the endpoint check names a cap and a refused browser call's fix; cached and reasoning
// tokens are counted as billed; a rate limit is named while it is waited out; the key and extra headers are
// stored nowhere; a run outlives leaving the page and Stop still stops it; malformed base URLs are refused
// before any request.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serveDist, launch, assertNoSecrets, startRun, shoot, exportedText } from './harness.mjs';
import { startEmulator, startFaultServer, until } from './fault_server.mjs';

let server, browser, emu;

before(async () => {
  server = await serveDist();
  browser = await launch();
  // Prompt caching from the first shared token, so two-sample runs report cached tokens; LM Studio with its
  // "Enable CORS" switch on.
  emu = await startEmulator(['--cache-min-tokens', '0', '--cors-for', 'lmstudio']);
  await open(browser.page);
});
after(async () => { await browser?.context.close(); await server?.close(); await emu?.close(); });

const KEY = 'test-key';
const task = (x, expression) => `Define task_1_input = ${x}.\nTask 1:\nCompute ${expression} and call the result task_1_out.\n`;
/** Two one-task samples the emulator's agent answers right when the requests are acceptable. */
const TWO = {
  summary: { mode: 'chain' },
  samples: [
    { prompt: task(3, 'task_1_input + 1'), ground_truth: 4, task_name: 'AddTask', task_id: 0, sample_idx: 0 },
    { prompt: task(7, 'task_1_input * 6'), ground_truth: 42, task_name: 'MulTask', task_id: 0, sample_idx: 1 },
  ],
};

// Where each provider lives on the emulator (its docstring) and what a preset should be run with there: a model
// the emulator knows, the header the key must travel in, and whether its usage reports cached prompt tokens (each
// in its own layout; Anthropic's on the Messages API only).
const PROVIDERS = {
  openai: { prefix: '/openai/v1', model: 'gpt-4o-mini', auth: 'bearer', cached: true },
  azure: { prefix: '/azure/openai/deployments/chat', model: 'gpt-4o-mini', auth: 'api-key', cached: true },
  anthropic: { prefix: '/anthropic/v1', model: 'claude-haiku-4-5-20251001', auth: 'x-api-key', cached: 'messages' },
  gemini: { prefix: '/gemini/v1beta/openai', model: 'gemini-2.5-flash', auth: 'bearer' },
  openrouter: { prefix: '/openrouter/api/v1', model: 'openai/gpt-4o-mini', auth: 'bearer', cached: true },
  together: { prefix: '/together/v1', model: 'meta-llama/Llama-3.3-70B-Instruct-Turbo', auth: 'bearer' },
  groq: { prefix: '/groq/openai/v1', model: 'llama-3.3-70b-versatile', auth: 'bearer', cached: true },
  deepseek: { prefix: '/deepseek/v1', model: 'deepseek-chat', auth: 'bearer', cached: true },
  mistral: { prefix: '/mistral/v1', model: 'mistral-small-latest', auth: 'bearer' },
  xai: { prefix: '/xai/v1', model: 'grok-4', auth: 'bearer', cached: true },
  vllm: { prefix: '/vllm/v1', model: 'Qwen/Qwen2.5-7B-Instruct', auth: 'bearer' },
  sglang: { prefix: '/sglang/v1', model: 'default', auth: 'bearer' },
  ollama: { prefix: '/ollama/v1', model: 'qwen2.5:7b', auth: 'bearer' },
  llamacpp: { prefix: '/llamacpp/v1', model: 'model.gguf', auth: 'bearer' },
  lmstudio: { prefix: '/lmstudio/v1', model: 'qwen2.5-7b-instruct', auth: 'bearer' },
};

/** Sets a field the page reads on change. */
async function set(page, testid, value) {
  await page.fill(`[data-testid="${testid}"]`, String(value));
  await page.locator(`[data-testid="${testid}"]`).dispatchEvent('change');
}

/** Opens Evaluate with a dataset file loaded (`TWO` unless given) and the run settings this file relies on. */
async function open(page, dataset = TWO, name = 'two.json') {
  await page.goto(`${server.url}#/evaluate`);
  await page.waitForSelector('[data-testid="start-run"]:not([disabled])');
  await page.setInputFiles('#eval-file', { name, mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(dataset)) });
  await page.waitForSelector(`[data-testid="loaded-dataset"]:text("using ${name}")`);
  for (const [field, value] of [['sample-limit', dataset.samples.length], ['concurrency', 2], ['epochs', 1], ['repair-max-tokens', ''], ['request-timeout', '']]) {
    await set(page, field, value);
  }
}

/** Chooses `preset`, then moves its base URL onto the emulator: the preset's host gives way to the emulator and
 * the provider's prefix, its path stays (Azure's deployment placeholder becomes `chat`); or `url` when given.
 * Types the model and the key. */
async function choose(page, preset, { model = PROVIDERS[preset]?.model, key = KEY, url } = {}) {
  await page.selectOption('[data-testid="endpoint-preset"]', preset);
  if (!url) {
    const given = new URL(await page.inputValue('[data-testid="base-url"]'));
    url = `${emu.root}/${preset}${given.pathname.replace(/\/$/, '').replace('DEPLOYMENT', 'chat')}`;
    assert.equal(url, `${emu.root}${PROVIDERS[preset].prefix}`, `the ${preset} preset keeps the provider's path`);
  }
  await page.fill('[data-testid="base-url"]', url);
  await page.fill('[data-testid="model"]', model);
  await page.fill('[data-testid="api-key"]', key);
  return url;
}

/** Waits until the run's `n` rows have all ended and the page says finished. */
async function waitFinished(page, n, timeout = 30000) {
  await page.waitForFunction((n) => {
    const rows = [...document.querySelectorAll('[data-testid="sample-row"]')];
    return rows.length === n && rows.every((r) => !['queued', 'running', 'not run', 'stopped'].includes(r.dataset.status))
      && document.querySelector('#eval-done')?.textContent === 'finished';
  }, n, { timeout });
}

/** Waits until the text of `selector` matches `pattern` (the page redraws after a click, not during it). */
async function waitText(page, selector, pattern, timeout = 10000) {
  await page.waitForFunction(([selector, source, flags]) => new RegExp(source, flags).test(document.querySelector(selector)?.textContent ?? ''),
    [selector, pattern.source, pattern.flags], { timeout });
}

/** Each row's [status, correct] as the table shows them. */
const rows = (page) => page.locator('[data-testid="sample-row"]').evaluateAll((trs) => trs.map((r) => [r.dataset.status, r.cells[4].textContent]));

async function runAndCheckRows(page, n = TWO.samples.length) {
  await startRun(page);
  await waitFinished(page, n);
  assert.deepEqual(await rows(page), Array.from({ length: n }, () => ['success', 'yes']), 'every sample right');
}

/** The emulator's records of chat calls (chat completions or Messages). */
const chats = async () => (await emu.stats()).requests.filter((r) => r.method === 'POST' && /\/(chat\/completions|messages)$/.test(r.path));

/** The adaptations list's lines. */
const adaptations = (page) => page.locator('[data-testid="run-adaptations"] li').allTextContents();

/** Console errors other than those a browser logs for a reply it refused (CORS) or a failed load. */
const unexpected = (errors) => errors.filter((e) => !/CORS policy|Failed to load resource|net::ERR_FAILED/.test(e));

// Every preset against its provider's emulation, Anthropic on both of its wires.
const RUNS = [...Object.keys(PROVIDERS).map((preset) => [preset, null]), ['anthropic', 'chat']];
for (const [preset, wire] of RUNS) {
  const label = `${preset}${preset === 'anthropic' ? ` (${wire === 'chat' ? 'chat completions' : 'Messages API'})` : ''}`;
  test(`preset ${label}: both samples right, the key in the provider's header${preset === 'anthropic' ? ' with the browser opt-in' : ''}, cached tokens counted where reported`, async () => {
    const { page, errors } = browser;
  errors.length = 0;
    errors.length = 0;
    await emu.reset();
    await choose(page, preset);
    if (preset === 'anthropic') {
      assert.match(await page.textContent('.eval-preset-note'), /^Anthropic: needs an API key; refuses browser pages unless they send anthropic-dangerous-direct-browser-access: true \(this page does\)$/);
      assert.deepEqual(await page.locator('[data-testid="wire"] option').evaluateAll((o) => o.map((x) => x.value)), ['messages', 'chat']);
      assert.equal(await page.inputValue('[data-testid="wire"]'), 'messages', 'the Messages API unless told otherwise');
      if (wire) await page.selectOption('[data-testid="wire"]', wire);
    } else {
      assert.equal(await page.locator('[data-testid="wire"]').count(), 0, 'no wire to choose');
    }
    await runAndCheckRows(page);
    const sent = await chats();
    const path = preset === 'anthropic' && !wire ? '/messages' : '/chat/completions';
    assert.ok(sent.length >= 4, `two turns per sample reached the ${preset} emulation: ${sent.length}`);
    const cached = PROVIDERS[preset].cached === true || (PROVIDERS[preset].cached === 'messages' && !wire);
    const line = await page.textContent('[data-testid="run-stats"]');
    assert.equal(/tokens in \([\d,]+ cached\)/.test(line), cached, `cached prompt tokens ${cached ? '' : 'not '}on the progress line: ${line}`);
    for (const r of sent) {
      assert.equal(r.provider, preset);
      assert.ok(r.path.endsWith(path), r.path);
      assert.equal(r.status, 200, `${r.path}: ${r.status}`);
      assert.equal(r.auth, PROVIDERS[preset].auth, 'the key went in the provider\'s header');
      assert.equal(r.key_ok, true);
      if (preset === 'anthropic') assert.equal(r.browser_header, true, 'the browser opt-in went with the request');
      if (preset === 'azure') assert.equal(r.query['api-version'], '2024-10-21', 'the API version the preset adds');
    }
    assert.deepEqual(errors, []);
  });
}

test('gpt-5-mini on the OpenAI preset: no 400, max_completion_tokens and no temperature or top_p, the profile\'s adaptations listed; cached and reasoning tokens counted and exported', async () => {
  const { page, errors } = browser;
  errors.length = 0;
  await emu.reset();
  await choose(page, 'openai', { model: 'gpt-5-mini' });
  await runAndCheckRows(page);
  const sent = await chats();
  assert.deepEqual([...new Set(sent.map((r) => r.status))], [200], 'no request was refused');
  for (const r of sent) {
    assert.ok(Number.isInteger(r.max_completion_tokens) && r.max_completion_tokens > 0, `max_completion_tokens sent: ${JSON.stringify(r.params)}`);
    for (const name of ['max_tokens', 'temperature', 'top_p']) assert.ok(!r.params.includes(name), `no ${name}: ${JSON.stringify(r.params)}`);
  }
  const listed = await adaptations(page);
  for (const line of [/^requests sent with max_completion_tokens: OpenAI takes the completion limit under this name$/,
    /^temperature omitted: gpt-5-mini takes only the default temperature \(1\)$/, /^top_p omitted: gpt-5-mini takes no top_p$/,
    /^completion limit clamped to 128000: /]) {
    assert.ok(listed.some((l) => line.test(l)), `${line} in ${JSON.stringify(listed)}`);
  }
  // The emulator caches from the first shared token and bills 64 reasoning tokens a reply.
  await until(async () => /tokens in \([\d,]+ cached\), [\d,]+ out \([\d,]+ reasoning\)/.test(await page.textContent('[data-testid="run-stats"]')), 5000, 'the progress line to give cached and reasoning tokens');
  const results = JSON.parse(await exportedText(page));
  const requests = results.samples.flatMap((s) => s.requests);
  assert.ok(requests.length >= 4 && requests.every((r) => r.reasoning_tokens === 64), `reasoning tokens per request: ${JSON.stringify(requests.map((r) => r.reasoning_tokens))}`);
  assert.ok(requests.every((r) => Number.isInteger(r.cached_prompt_tokens)) && requests.some((r) => r.cached_prompt_tokens > 0), `cached tokens per request: ${JSON.stringify(requests.map((r) => r.cached_prompt_tokens))}`);
  assert.ok(results.summary.adaptations.every((a) => a.source === 'profile'), 'nothing learnt from a refusal');
  assert.deepEqual(errors, []);
});

test('gpt-5-mini on a server of no known provider: the run adapts to the 400s, lists and exports what it adapted, every sample right', async () => {
  const { page, errors } = browser;
  errors.length = 0;
  await emu.reset();
  await choose(page, 'compatible', { model: 'gpt-5-mini', url: `${emu.root}/openai/v1` });
  await runAndCheckRows(page);
  const sent = await chats();
  const refused = sent.filter((r) => r.status === 400);
  // One refusal per parameter (max_tokens, then temperature, then top_p), more only from a lane whose request was
  // built before the other lane's adaptation.
  assert.ok(refused.length >= 3 && refused.length <= 6, `refusals: ${refused.length}`);
  const accepted = sent.filter((r) => r.status === 200);
  assert.ok(accepted.length >= 4 && accepted.every((r) => r.max_completion_tokens > 0 && !r.params.includes('temperature') && !r.params.includes('top_p')), 'then sent as the model takes them');
  const listed = await adaptations(page);
  assert.equal(listed.length, 3, JSON.stringify(listed));
  assert.match(listed[0], /^requests sent with max_completion_tokens: the endpoint said: Unsupported parameter: 'max_tokens'/);
  assert.match(listed[1], /^temperature omitted: the endpoint said: Unsupported value: 'temperature'/);
  assert.match(listed[2], /^top_p omitted: the endpoint said: Unsupported parameter: 'top_p'/);
  const results = JSON.parse(await exportedText(page));
  assert.deepEqual(results.summary.adaptations.map((a) => [a.kind, a.value, a.source]),
    [['limit_renamed', 'max_completion_tokens', 'endpoint'], ['temperature_omitted', null, 'endpoint'], ['top_p_omitted', null, 'endpoint']]);
  assert.deepEqual(results.summary.adaptations.map((a) => a.sentence), listed, 'the export says what the page said');
  await shoot(page, 'providers-adapted', { target: page.locator('[data-testid="run-view"]'), narrow: true });
  // The browser logs each refused request; nothing else may be logged.
  assert.deepEqual(unexpected(errors), []);
});

test('the endpoint check names the cap it will clamp to, and a picture probe\'s failure with its fix, in one report', async () => {
  const { page, errors } = browser;
  errors.length = 0;
  await emu.reset();
  await choose(page, 'openai', { model: 'gpt-4o-mini' });
  await set(page, 'repair-max-tokens', 20000);
  await page.click('[data-testid="check-endpoint"]');
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="check-result"]').length === 5, null, { timeout: 15000 });
  const lines = await page.locator('[data-testid="check-result"]').evaluateAll((ls) => ls.map((l) => [l.dataset.ok, l.textContent]));
  assert.deepEqual(lines.map(([ok]) => ok), ['true', 'true', 'true', 'false', 'true'], JSON.stringify(lines));
  assert.match(lines[0][1], /CORS and \/models: the preflight passed and \/models lists 8 model\(s\)/);
  assert.match(lines[3][1], /image input: .*pick a vision model/, 'the emulation cannot read pictures: said, with the fix');
  assert.match(lines[4][1], /^✓ request parameters: the run will adapt its requests:/);
  assert.deepEqual(await page.locator('[data-testid="check-result"]').nth(4).locator('li').allTextContents(), [
    'requests sent with max_completion_tokens: OpenAI takes the completion limit under this name',
    'completion limit clamped to 16384: gpt-4o-mini writes at most 16384 tokens a reply',
    'repair turns ask for 16384 tokens instead of 20000',
  ], 'one line per adaptation, the cap among them');
  const sent = await chats();
  assert.ok(sent.length === 3 && sent.every((r) => r.status === 200 && r.max_completion_tokens <= 16384), `the probes asked within the cap: ${JSON.stringify(sent.map((r) => [r.status, r.max_completion_tokens]))}`);
  await shoot(page, 'providers-check', { target: page.locator('.eval-check'), narrow: true });
  await set(page, 'repair-max-tokens', '');
  assert.deepEqual(errors, []);
});

test('Anthropic without the browser opt-in: the check says the browser refused the reply and how to fix it; the Anthropic preset passes', async () => {
  const { page, errors } = browser;
  errors.length = 0;
  await emu.reset();
  // The generic preset sends no opt-in header, as a page that does not know it talks to Anthropic would.
  await choose(page, 'compatible', { model: 'claude-haiku-4-5-20251001', url: `${emu.root}/anthropic/v1` });
  await page.click('[data-testid="check-endpoint"]');
  await page.waitForSelector('[data-testid="check-result"][data-ok="false"]', { timeout: 15000 });
  await page.waitForFunction(() => !document.querySelector('[data-testid="check-endpoint"]').disabled);
  const lines = await page.locator('[data-testid="check-result"]').evaluateAll((ls) => ls.map((l) => [l.dataset.ok, l.textContent]));
  assert.equal(lines.length, 2, `the models probe, then the parameters: ${JSON.stringify(lines)}`);
  assert.equal(lines[0][0], 'false');
  assert.match(lines[0][1], /CORS and \/models: the server answered, but its reply lacks the CORS headers/);
  assert.match(lines[0][1], /Anthropic: choose its preset, which sends the anthropic-dangerous-direct-browser-access: true header/);
  assert.equal(await page.locator('[data-testid="check-result"] code', { hasText: 'anthropic-dangerous-direct-browser-access: true' }).count(), 1, 'the header shows as code');
  assert.equal(lines[1][0], 'true');
  await shoot(page, 'providers-check-cors', { target: page.locator('.eval-check') });
  // The page's request (with its Origin) was refused without CORS headers; the check's no-CORS retry, which
  // carries no Origin, only shows that the server is there.
  const refused = (await emu.stats()).requests.filter((r) => r.method === 'GET' && r.path.endsWith('/models') && r.origin);
  assert.ok(refused.length === 1 && refused[0].status === 401 && refused[0].browser_header === false, `the emulation refused the browser call without the opt-in: ${JSON.stringify(refused)}`);

  await choose(page, 'anthropic');
  await page.click('[data-testid="check-endpoint"]');
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="check-result"]').length === 5, null, { timeout: 15000 });
  const fixed = await page.locator('[data-testid="check-result"]').evaluateAll((ls) => ls.map((l) => [l.dataset.ok, l.textContent]));
  assert.match(fixed[0][1], /✓ CORS and \/models: the preflight passed and \/models lists 5 model\(s\)/, JSON.stringify(fixed));
  assert.deepEqual(fixed.slice(1, 3).map(([ok]) => ok), ['true', 'true'], 'chat and tool calls pass on the Messages API');
  assert.match(fixed[4][1], /top_p omitted: Anthropic takes temperature or top_p, not both/);
  await shoot(page, 'providers-anthropic', { target: page.locator('.page-evaluate .panel').first(), narrow: true });
  assert.deepEqual(unexpected(errors), []);
});

test('a rate limit is named on the progress line while it is waited out, and the run still finishes', async () => {
  const { page, errors } = browser;
  errors.length = 0;
  await emu.reset();
  await choose(page, 'openai', { model: 'gpt-4o-mini' });
  await emu.control({ ratelimit: 2, provider: 'openai', style: 'reset-requests', wait: '2.5' });
  await startRun(page);
  await until(async () => /the endpoint is rate-limiting \(429\): waiting out its requests limit before retrying/.test(await page.textContent('[data-testid="run-stats"]')), 5000, 'the progress line to name the requests limit');
  await waitFinished(page, 2);
  assert.deepEqual(await rows(page), [['success', 'yes'], ['success', 'yes']]);
  const stats = await emu.stats();
  assert.equal(stats.counts.by_status['429'], 2, 'both limited requests were answered 429');
  assert.match(await page.textContent('[data-testid="run-stats"]'), / · 2 retries · /);
  assert.doesNotMatch(await page.textContent('[data-testid="run-stats"]'), /rate-limiting/, 'the line stops saying so once the wait is over');
  assert.deepEqual(unexpected(errors), []);
});

test('a proxy\'s page in place of the API: a passing 502 is retried, a standing 403 is shown on its row by the page\'s title', async () => {
  const { page, errors } = browser;
  errors.length = 0;
  await emu.reset();
  await choose(page, 'openai', { model: 'gpt-4o-mini' });
  await emu.control({ gateway: 1, provider: 'openai', status: 502 });
  await startRun(page);
  await waitFinished(page, 2);
  assert.deepEqual(await rows(page), [['success', 'yes'], ['success', 'yes']]);
  assert.equal((await emu.stats()).counts.by_status['502'], 1, 'the page was served and retried past');

  await emu.reset();
  await emu.control({ gateway: 1000, provider: 'openai', status: 403 });
  await startRun(page);
  await waitFinished(page, 2);
  assert.deepEqual(await rows(page), [['api_error', 'no'], ['api_error', 'no']]);
  const said = await page.locator('[data-testid="sample-error"]').allTextContents();
  assert.equal(said.length, 2);
  for (const text of said) assert.match(text, /^HTTP 403: 403 Forbidden \(an HTML page, not the API's error/);
  await shoot(page, 'providers-gateway-403', { target: page.locator('#eval-rows') });
  await emu.control({ clear: 1 });
  assert.deepEqual(unexpected(errors), []);
});

test('the key and an extra header\'s value are in no storage, export, URL or markup', async () => {
  const { page, errors } = browser;
  errors.length = 0;
  const HEADER = 'gateway-secret-6161';
  await choose(page, 'openai', { model: 'gpt-4o-mini' });
  assert.equal(await page.isChecked('[data-testid="remember-key"]'), false);
  await set(page, 'extra-headers', `x-gateway-token: ${HEADER}`);
  await runAndCheckRows(page);
  await assertNoSecrets(page, [KEY, HEADER], { 'the export': await exportedText(page), 'the markup': await page.content() });
  await set(page, 'extra-headers', '');
  assert.deepEqual(errors, []);
});

test('a run outlives leaving the page: back on Evaluate its rows and progress go on, Stop stops it, and the loaded file runs next', async () => {
  const { page, errors } = browser;
  errors.length = 0;
  const slow = await startFaultServer(['--faults', 'off']);
  try {
    const cases = Array.from({ length: 6 }, (_, i) => ({ prompt: `Case ${i}. ${task(i + 2, 'task_1_input + 5')}`, ground_truth: i + 7, task_name: 'AddTask', task_id: 0, sample_idx: i }));
    await open(page, { summary: { mode: 'chain' }, samples: cases }, 'six.json');
    await set(page, 'concurrency', 1);
    await page.selectOption('[data-testid="endpoint-preset"]', '');
    await page.fill('[data-testid="base-url"]', slow.url);
    await page.fill('[data-testid="model"]', 'local');
    await slow.control({ delay_ms: 400 });
    await startRun(page);
    const done = () => page.locator('.eval-row--done').count();
    await until(async () => (await done()) >= 1, 15000, 'a first sample to finish');

    await page.goto(`${server.url}#/design`);
    await page.waitForSelector('input[data-testid="import"]', { state: 'attached' });
    await new Promise((r) => setTimeout(r, 500));
    await page.goto(`${server.url}#/evaluate`);
    await page.waitForSelector('[data-testid="sample-row"]');
    assert.equal(await page.locator('[data-testid="sample-row"]').count(), 6, 'the run\'s rows are back');
    assert.ok(await page.isEnabled('[data-testid="stop-run"]') && !(await page.isEnabled('[data-testid="start-run"]')), 'the run goes on');
    assert.match(await page.textContent('[data-testid="loaded-dataset"]'), /using six\.json/);
    assert.equal(await page.inputValue('[data-testid="base-url"]'), slow.url, 'the endpoint as set');
    const back = await done();
    const line = await page.textContent('[data-testid="run-stats"]');
    assert.match(line, /^\d of 6 done/);
    await until(async () => (await done()) > back && (await page.textContent('[data-testid="run-stats"]')) !== line, 10000, 'the rows and the progress line to go on');

    await page.click('[data-testid="stop-run"]');
    await page.waitForSelector('#eval-done:text("stopped")', { timeout: 5000 });
    const stopped = (await slow.stats()).requests;
    await new Promise((r) => setTimeout(r, 1500));
    assert.equal((await slow.stats()).requests, stopped, 'no request after the stop');
    const statuses = await rows(page);
    assert.ok(statuses.some(([s]) => s === 'stopped' || s === 'not run'), JSON.stringify(statuses));

    // The file loaded before leaving is the next run's.
    await slow.control({ delay_ms: 0 });
    await slow.reset();
    await startRun(page);
    await waitFinished(page, 6);
    assert.deepEqual(Object.keys((await slow.stats()).per_sample).sort(), ['0', '1', '2', '3', '4', '5'], 'the six samples of six.json were asked');
  } finally {
    await slow.close();
  }
  assert.deepEqual(errors, []);
});

test('a base URL ending in /chat/completions and an Azure URL without its deployment are refused before any request; nothing typed is lost', async () => {
  const { page, errors } = browser;
  errors.length = 0;
  await emu.reset();
  const runsBefore = await page.locator('[data-testid="run-item"]').count();
  for (const [preset, path, message] of [
    ['openai', '/openai/v1/chat/completions', /the base URL already ends in `?\/chat\/completions`?: give the part before it \(http:\/\/127\.0\.0\.1:\d+\/openai\/v1\)/],
    ['azure', '/azure/openai', /an Azure OpenAI base URL names its deployment: https:\/\/RESOURCE\.openai\.azure\.com\/openai\/deployments\/DEPLOYMENT/],
  ]) {
    await choose(page, preset);
    const url = `${emu.root}${path}`;
    await page.fill('[data-testid="base-url"]', url);
    await set(page, 'extra-headers', 'x-gateway-token: kept-as-typed');
    await page.click('[data-testid="start-run"]');
    await waitText(page, '.error-view', message);
    await page.click('[data-testid="check-endpoint"]');
    await waitText(page, '[data-testid="check-result"][data-ok="false"]', message);
    for (const [testid, value] of [['base-url', url], ['model', PROVIDERS[preset].model], ['api-key', KEY], ['extra-headers', 'x-gateway-token: kept-as-typed'], ['endpoint-preset', preset]]) {
      assert.equal(await page.inputValue(`[data-testid="${testid}"]`), value, `${testid} kept`);
    }
  }
  assert.equal((await emu.stats()).counts.total, 0, 'no request reached the emulator');
  assert.equal(await page.locator('[data-testid="run-item"]').count(), runsBefore, 'no run was stored');
  await set(page, 'extra-headers', '');
  assert.deepEqual(errors, []);
});
