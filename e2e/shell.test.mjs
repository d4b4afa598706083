// Opens every route of the built app in headless Chromium, under a sub-path and by deep link, and fails on
// any console error; saves one screenshot per route under target/screenshots/. The routes are `Route::ALL`'s,
// read from src/ui/route.rs, and must be the ones the rendered navigation links to.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { serveDist, launch, SHOTS, ROOT } from './harness.mjs';

/** `Route::ALL`, in its order, from the paths `Route::path` gives each variant. */
function routesOfTheApp() {
  const source = readFileSync(join(ROOT, 'src/ui/route.rs'), 'utf8');
  const all = source.match(/pub const ALL: \[Route; \d+\] = \[([^\]]*)\]/);
  assert.ok(all, 'Route::ALL is in src/ui/route.rs');
  const paths = Object.fromEntries([...source.matchAll(/Route::(\w+) => "\/([\w-]+)"/g)].map((m) => [m[1], m[2]]));
  return all[1].split(',').map((v) => v.trim().replace('Route::', '')).filter(Boolean).map((variant) => {
    assert.ok(paths[variant], `Route::${variant} has a path`);
    return paths[variant];
  });
}

const ROUTES = routesOfTheApp();
let server, browser;

before(async () => { server = await serveDist(); browser = await launch(); });
after(async () => { await browser?.context.close(); await server?.close(); });

test('every route renders by deep link without console errors', async () => {
  const { page, errors } = browser;
  assert.ok(ROUTES.length >= 6 && ROUTES.includes('browse'), `routes read: ${ROUTES}`);
  await page.goto(`${server.url}#/${ROUTES[0]}`);
  await page.waitForSelector(`#page-${ROUTES[0]}`, { timeout: 20000 });
  const linked = await page.locator('[id^="nav-"]').evaluateAll((links) => links.map((a) => a.id.replace('nav-', '')));
  assert.deepEqual(linked, ROUTES, 'the navigation links to every route, in order');
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

test('every route reflows at 320 and 390 CSS px: nothing scrolls sideways (WCAG 1.4.10)', async () => {
  const { page, errors } = browser;
  try {
    for (const width of [320, 390]) {
      await page.setViewportSize({ width, height: 800 });
      for (const route of ROUTES) {
        await page.goto(`${server.url}#/${route}`);
        await page.waitForSelector(`#page-${route}`, { timeout: 20000 });
        await page.waitForTimeout(300);
        const { scroll, client, wide } = await page.evaluate(() => {
          const client = document.documentElement.clientWidth;
          // What sticks out, for the message: elements whose right edge passes the viewport outside a scroller.
          const inScroller = (e) => { for (let p = e.parentElement; p; p = p.parentElement) { if (/(auto|scroll)/.test(getComputedStyle(p).overflowX)) return true; } return false; };
          const wide = [...document.querySelectorAll('body *')].filter((e) => e.getBoundingClientRect().right > client + 1 && !inScroller(e))
            .slice(0, 4).map((e) => `${e.tagName.toLowerCase()}${e.id ? `#${e.id}` : ''}${e.className && typeof e.className === 'string' ? `.${e.className.split(' ')[0]}` : ''}`);
          return { scroll: document.documentElement.scrollWidth, client, wide };
        });
        assert.ok(scroll <= client, `#/${route} at ${width} px scrolls sideways (${scroll} > ${client}): ${wide.join(', ')}`);
      }
      await page.screenshot({ path: join(SHOTS, `reflow-${width}-${ROUTES[ROUTES.length - 1]}.png`) });
    }
  } finally {
    await page.setViewportSize({ width: 1280, height: 900 });
  }
  assert.deepEqual(errors, []);
});
