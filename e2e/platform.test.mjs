// The built app as a platform: it runs under its content security policy (no inline script, no eval) with no
// violation reported, the policy refuses an eval and an inserted inline script, its Web Worker starts under that
// policy, and the wasm build computes exactly what the native build pins (seeded randomness, generated files,
// rasterised pictures). The pinned values are read from the Rust tests that pin them natively, so the two cannot
// drift apart.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { serveDist, launch, DIST, ROOT } from './harness.mjs';

let server, browser;
before(async () => { server = await serveDist(); browser = await launch(); });
after(async () => { await browser?.context.close(); await server?.close(); });

/** The first match of `pattern` (one capture group) in a repository file. */
function pinned(file, pattern) {
  const match = readFileSync(join(ROOT, file), 'utf8').match(pattern);
  assert.ok(match, `${file} pins a value matching ${pattern}`);
  return match[1];
}

async function open(page, hash) {
  await page.addInitScript(() => {
    window.__cspViolations = [];
    document.addEventListener('securitypolicyviolation', (e) => window.__cspViolations.push(`${e.violatedDirective} ${e.blockedURI}`));
  });
  await page.goto(`${server.url}${hash}`);
  await page.waitForFunction(() => window.wasmBindings !== undefined, null, { timeout: 30000 });
}

test('the app declares a strict content security policy and runs under it', async () => {
  const { page, errors } = browser;
  const html = readFileSync(join(DIST, 'index.html'), 'utf8');
  const policy = html.match(/http-equiv="Content-Security-Policy" content="([^"]+)"/)?.[1] ?? '';
  const directives = Object.fromEntries(policy.split(';').map((d) => d.trim().split(/\s+/)).map(([name, ...values]) => [name, values]));
  assert.deepEqual(directives['script-src'], ["'self'", "'wasm-unsafe-eval'"], 'scripts only from the site: no inline script, no eval');
  assert.deepEqual(directives['object-src'], ["'none'"]);
  assert.doesNotMatch(html, /<script(?![^>]*\bsrc=)[^>]*>/, 'the built page has no inline script');
  await open(page, '#/generate');
  await page.waitForSelector('#page-generate');
  // Generation runs in the Web Worker, which must start under the policy too.
  await page.click('[data-testid="generate"]');
  await page.waitForFunction(() => /samples generated/.test(document.querySelector('#gen-status')?.textContent ?? ''), null, { timeout: 60000 });
  assert.deepEqual(await page.evaluate(() => window.__cspViolations), []);
  assert.deepEqual(errors, []);
  // The policy is in force, not only written: the page can neither eval nor run a script it inserts.
  const ran = await page.evaluate(async () => {
    // From a timer, not from this evaluation itself: the DevTools protocol lets its own evaluations eval.
    const evaluated = await new Promise((resolve) => setTimeout(() => {
      try { resolve(new Function('return 1')() === 1); } catch { resolve(false); }
    }));
    window.__inlineRan = false;
    const script = document.createElement('script');
    script.textContent = 'window.__inlineRan = true';
    document.body.append(script);
    await new Promise((resolve) => setTimeout(resolve, 100));
    return { evaluated, inline: window.__inlineRan };
  });
  assert.deepEqual(ran, { evaluated: false, inline: false });
  const refused = await page.evaluate(() => window.__cspViolations);
  assert.equal(refused.length, 2, `both attempts are reported as violations: ${refused}`);
  assert.ok(refused.every((v) => v.startsWith('script-src')), refused.join('; '));
  errors.length = 0; // the browser logs both refusals as console errors, by design here
});

test('the wasm build computes what the native build pins', async () => {
  const { page, errors } = browser;
  await open(page, '#/about');
  // Computed by the app's Web Worker, whose module holds the generators and the renderer (the page's does not).
  const probes = JSON.parse(await page.evaluate(() => window.wasmBindings.probes()));
  assert.equal(`[${probes.rng.split(',').join(', ')}]`, pinned('src/engine/rng.rs', /expect!\["(\[[0-9, ]+\])"\]/), 'seeded randomness');
  assert.equal(probes.dataset, pinned('tests/it/generation.rs', /PROBE_FINGERPRINT: &str = "([0-9a-f]{16})"/), 'generated files, byte for byte');
  assert.equal(probes.png, pinned('tests/it/image.rs', /PNG_PROBE_FINGERPRINT: &str = "([0-9a-f]{16})"/), 'PNG pictures, byte for byte');
  assert.deepEqual(errors, []);
});
