// The page's module is split at its routes (scripts/wasm-ld): a first visit fetches the shell and the route's own
// page, the other pages' modules follow once the page is up, and a page whose module does not arrive says so and
// loads when asked again, with the work on the other pages kept.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { serveDist, launch, SHOTS } from './harness.mjs';

const PAGES = ['design', 'generate', 'browse', 'evaluate', 'results', 'about'];
let server;
after(async () => { await server?.close(); });

/** The page a split module's file holds (`split_about-0123.wasm` -> `about`), or null for shared code. */
const pageOf = (url) => new URL(url).pathname.match(/\/split_([a-z]+)-[0-9a-f]+\.wasm$/)?.[1] ?? null;

test('a first visit fetches its own page, then the others in the background', async () => {
  server ??= await serveDist();
  const { context, page, errors } = await launch();
  try {
    const fetched = [];
    page.on('requestfinished', (request) => { const p = pageOf(request.url()); if (p) fetched.push(p); });
    await page.goto(`${server.url}#/about`);
    await page.waitForSelector('#page-about', { timeout: 20000 });
    const beforeShown = [...fetched];
    assert.ok(beforeShown.includes('about'), `the about page's module was fetched: ${beforeShown}`);
    assert.ok(!beforeShown.includes('design') && !beforeShown.includes('evaluate'),
      `no other page's module before the about page showed: ${beforeShown}`);
    await assert.doesNotReject(async () => {
      for (let i = 0; i < 300 && PAGES.some((p) => !fetched.includes(p)); i++) await page.waitForTimeout(100);
    });
    assert.deepEqual([...new Set(fetched)].sort(), [...PAGES].sort(), 'every page is fetched once the first is up');
    const count = fetched.length;
    await page.click('#nav-evaluate');
    await page.waitForSelector('#page-evaluate');
    assert.equal(fetched.length, count, 'moving to a fetched page fetches nothing more');
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test('a page whose module does not arrive says so, and Try again loads it, keeping the work elsewhere', async () => {
  server ??= await serveDist();
  const { context, page } = await launch();
  try {
    let blocked = true;
    await page.route(/\/split_results-[0-9a-f]+\.wasm$/, (route) => (blocked ? route.abort('connectionreset') : route.continue()));
    await page.goto(`${server.url}#/design`);
    await page.waitForSelector('#page-design', { timeout: 20000 });
    // Work on the designer: one node deleted from the example graph.
    const nodes = page.locator('svg[data-testid="canvas"] [data-node-id]');
    const before = await nodes.count();
    assert.ok(before > 1, `the example graph has nodes: ${before}`);
    await nodes.first().click();
    await page.keyboard.press('Delete');
    await assert.doesNotReject(() => page.waitForFunction((n) =>
      document.querySelectorAll('svg[data-testid="canvas"] [data-node-id]').length === n - 1, before, { timeout: 5000 }));

    await page.click('#nav-results');
    const failed = page.locator('[data-testid="page-load-failed"]');
    await failed.waitFor({ timeout: 20000 });
    assert.match(await failed.innerText(), /did not arrive/);
    assert.equal(await failed.getAttribute('role'), 'alert');
    for (const scheme of ['light', 'dark']) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.screenshot({ path: join(SHOTS, `page-load-failed-${scheme}.png`) });
    }

    blocked = false;
    await page.click('[data-testid="page-load-failed"] button');
    await page.waitForSelector('#page-results', { timeout: 20000 });
    assert.equal(await failed.count(), 0, 'the message is gone once the page is shown');

    await page.click('#nav-design');
    await page.waitForSelector('#page-design');
    assert.equal(await nodes.count(), before - 1, 'the designer kept its graph, without the deleted node');
  } finally {
    await context.close();
  }
});
