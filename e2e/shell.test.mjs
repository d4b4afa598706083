// Opens every route of the built app in headless Chromium, under a sub-path and by deep link, and fails on
// any console error; saves one screenshot per route under target/screenshots/.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { serveDist, launch, SHOTS } from './harness.mjs';

const ROUTES = ['design', 'generate', 'evaluate', 'results', 'about'];
let server, browser;

before(async () => { server = await serveDist(); browser = await launch(); });
after(async () => { await browser?.context.close(); await server?.close(); });

test('every route renders by deep link without console errors', async () => {
  const { page, errors } = browser;
  for (const route of ROUTES) {
    await page.goto(`${server.url}#/${route}`);
    await page.waitForSelector(`#page-${route}`, { timeout: 20000 });
    const active = await page.getAttribute(`#nav-${route}`, 'class');
    assert.match(active, /app-nav-link--active/, `nav link for ${route} is highlighted`);
    await page.screenshot({ path: join(SHOTS, `${route}.png`), fullPage: true });
  }
  assert.deepEqual(errors, []);
});

test('navigation links switch pages without reloading', async () => {
  const { page, errors } = browser;
  await page.goto(`${server.url}#/about`);
  await page.waitForSelector('#page-about');
  await page.evaluate(() => { window.__marker = 42; });
  await page.click('#nav-results');
  await page.waitForSelector('#page-results');
  assert.equal(await page.evaluate(() => window.__marker), 42, 'same document: hash routing, no reload');
  assert.match(page.url(), /#\/results$/);
  await page.goBack();
  await page.waitForSelector('#page-about');
  assert.deepEqual(errors, []);
});

test('an unknown deep link falls back to the designer', async () => {
  const { page, errors } = browser;
  await page.goto(`${server.url}#/no-such-page`);
  await page.waitForSelector('#page-design');
  assert.deepEqual(errors, []);
});
