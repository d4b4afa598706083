// Canvas text stays legible at the zoom Fit chooses: after Fit on the chain-of-8 and the 50-task random-DAG
// presets, at desktop and phone widths, every text drawn in the designer's canvas measures at least 11 CSS px
// (its computed font size times the scale of its transform), and so does every text of the same graphs'
// instance drawing on Browse, node labels and a multichain's pack slot labels alike.
// Screenshots of the canvas land in target/screenshots/legible-*-{light,dark}.png.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { serveDist, launch, SHOTS } from './harness.mjs';

const CANVAS = 'svg[data-testid="canvas"]';
const MIN_PX = 11;
let server, browser;

before(async () => { server = await serveDist(); browser = await launch(); });
after(async () => { await browser?.context.close(); await server?.close(); });

/** Every text element under `root` that is on screen inside `clip`, with its size on screen in CSS px. */
function measure(page, root, clip) {
  return page.$$eval(`${root} text`, (els, clipSel) => {
    const c = document.querySelector(clipSel).getBoundingClientRect();
    return els.flatMap((el) => {
      const b = el.getBoundingClientRect();
      const inView = b.width > 0 && b.right > c.left && b.left < c.right && b.bottom > c.top && b.top < c.bottom;
      if (!inView || getComputedStyle(el).display === 'none' || getComputedStyle(el).visibility === 'hidden') return [];
      const ctm = el.getScreenCTM();
      const scale = Math.hypot(ctm.a, ctm.b);
      const px = parseFloat(getComputedStyle(el).fontSize) * scale;
      return [{ text: el.textContent, cls: el.getAttribute('class') ?? el.parentElement.getAttribute('class'), px }];
    });
  }, clip);
}

async function preset(page, key, n) {
  await page.goto(`${server.url}#/design`);
  await page.waitForSelector(CANVAS);
  await page.selectOption('select[data-testid="preset"]', key);
  // A preset without a size (the multichain's structure) keeps its default.
  if (n !== null) await page.fill('.design-presets input[name="n"]', String(n));
  await page.click('[data-testid="apply-preset"]');
  await page.waitForFunction(() => /^\d+ nodes/.test(document.querySelector('[data-testid="counts"]').textContent));
  await page.click('[data-testid="fit"]');
  await page.waitForTimeout(200);
}

const CASES = [['chain', 8], ['random', 50]];
const SIZES = [[1280, 900], [390, 844]];

test('after Fit, every canvas text of a chain of 8 and a 50-task random DAG is at least 11 CSS px, desktop and phone', async () => {
  const { page, errors } = browser;
  for (const [width, height] of SIZES) {
    await page.setViewportSize({ width, height });
    for (const [key, n] of CASES) {
      await preset(page, key, n);
      const texts = await measure(page, CANVAS, CANVAS);
      const titles = texts.filter((t) => t.cls === 'dn-title');
      const zoom = await page.textContent('[data-testid="zoom"]');
      const smallest = Math.min(...texts.map((t) => t.px));
      console.log(`${key} ${n} at ${width}px: zoom ${zoom.trim()}, ${texts.length} texts on screen, ${titles.length} titles, smallest ${smallest.toFixed(2)} px`);
      assert.ok(titles.length >= 1, `${key} at ${width}px: node titles are drawn after Fit`);
      for (const t of texts) {
        assert.ok(t.px >= MIN_PX - 0.01, `${key} at ${width}px: "${t.text}" (.${t.cls}) is ${t.px.toFixed(2)} px`);
      }
      if (width === 390 && key === 'random') {
        await page.emulateMedia({ colorScheme: 'light' });
        await page.locator(CANVAS).screenshot({ path: join(SHOTS, 'legible-design-random50-phone-light.png') });
        await page.emulateMedia({ colorScheme: 'dark' });
        await page.locator(CANVAS).screenshot({ path: join(SHOTS, 'legible-design-random50-phone-dark.png') });
        await page.emulateMedia({ colorScheme: 'light' });
      }
    }
  }
  await page.setViewportSize({ width: 1280, height: 900 });
  assert.deepEqual(errors, []);
});

test('the instance drawing on Browse of the same graphs and of a multichain draws every text, slot labels included, at 11 CSS px or more', async () => {
  const { page, errors } = browser;
  for (const [width, height] of SIZES) {
    await page.setViewportSize({ width, height });
    // The default multichain (m,m,[m,m],[m,m],m,m) joins its parallel tasks with packs: edges with slot labels.
    for (const [key, n] of [...CASES, ['multichain', null]]) {
      await preset(page, key, n);
      await page.waitForFunction(() => !/error/i.test(document.querySelector('.design-issues-summary').textContent));
      await page.fill('.design-run input[name="spt"]', '1');
      await page.locator('.design-run input[name="spt"]').dispatchEvent('change');
      await page.click('[data-testid="generate"]');
      await page.waitForFunction(() => location.hash.startsWith('#/browse'));
      await page.waitForSelector('[data-testid="instance-row"]');
      await page.locator('[data-testid="instance-row"]').first().click();
      await page.waitForSelector('.instance-graph svg text, .lod-canvas svg');
      const root = (await page.locator('.instance-graph svg').count()) ? '.instance-graph svg' : '.lod-canvas svg';
      const texts = await measure(page, root, root.startsWith('.instance') ? '.instance-graph' : '.lod-canvas');
      const smallest = Math.min(...texts.map((t) => t.px));
      console.log(`Browse ${key} ${n ?? "(default)"} at ${width}px: ${texts.length} texts in view, smallest ${smallest.toFixed(2)} px (${texts.find((t) => t.px === smallest)?.text})`);
      assert.ok(texts.length >= 1, 'the drawing has text in view');
      assert.ok(texts.some((t) => t.cls !== 'slot'), 'node labels are in view');
      if (key === 'multichain') {
        // Slot labels anywhere in the drawing (scrolled out of view or not), each measured as drawn.
        const slots = await page.$$eval(`${root} text.slot`, (els) => els.map((el) => parseFloat(getComputedStyle(el).fontSize) * Math.hypot(el.getScreenCTM().a, el.getScreenCTM().b)));
        console.log(`Browse multichain at ${width}px: ${slots.length} slot labels, smallest ${Math.min(...slots).toFixed(2)} px`);
        assert.ok(slots.length >= 2, `the multichain's pack labels its slots (${slots.length})`);
        for (const px of slots) assert.ok(px >= MIN_PX - 0.01, `a slot label is ${px.toFixed(2)} px`);
        if (width === 390) {
          for (const scheme of ['light', 'dark']) {
            await page.emulateMedia({ colorScheme: scheme });
            await page.locator('.instance-graph').screenshot({ path: join(SHOTS, `legible-browse-multichain-phone-${scheme}.png`) });
          }
          await page.emulateMedia({ colorScheme: 'light' });
        }
      }
      for (const t of texts) {
        assert.ok(t.px >= MIN_PX - 0.01, `Browse ${key} at ${width}px: "${t.text}" (.${t.cls}) is ${t.px.toFixed(2)} px`);
      }
    }
  }
  await page.setViewportSize({ width: 1280, height: 900 });
  assert.deepEqual(errors, []);
});

test('on a phone the minimap starts hidden behind a labelled toggle and covers little of the canvas when shown; on a desktop it starts shown', async () => {
  const { page, errors } = browser;
  const area = (sel) => page.locator(sel).evaluate((el) => { const r = el.getBoundingClientRect(); return r.width * r.height; });
  await page.setViewportSize({ width: 390, height: 844 });
  await preset(page, 'random', 50);
  const toggle = page.locator('[data-testid="minimap-toggle"]');
  assert.equal(await toggle.getAttribute('aria-expanded'), 'false', 'hidden at first on a phone');
  assert.equal(await page.locator('[data-testid="minimap"]').count(), 0);
  const box = await toggle.boundingBox();
  assert.ok(box.width >= 24 && box.height >= 24, `the toggle is a 24 px target (${box.width} x ${box.height})`);
  assert.match(await toggle.textContent(), /Show minimap/);
  for (const scheme of ['light', 'dark']) {
    await page.emulateMedia({ colorScheme: scheme });
    await page.locator('.design-stage-view').screenshot({ path: join(SHOTS, `designer-phone-minimap-hidden-${scheme}.png`) });
  }
  // The keyboard opens it (Enter on the focused button).
  await toggle.focus();
  await page.keyboard.press('Enter');
  await page.waitForSelector('[data-testid="minimap"]');
  assert.equal(await toggle.getAttribute('aria-expanded'), 'true');
  const share = (await area('[data-testid="minimap"]')) / (await area(CANVAS));
  console.log(`phone: the minimap shown covers ${(100 * share).toFixed(1)} % of the canvas`);
  assert.ok(share < 0.12, `the minimap covers ${(100 * share).toFixed(1)} % of the canvas`);
  for (const scheme of ['light', 'dark']) {
    await page.emulateMedia({ colorScheme: scheme });
    await page.locator('.design-stage-view').screenshot({ path: join(SHOTS, `designer-phone-minimap-shown-${scheme}.png`) });
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await toggle.click();
  await page.waitForSelector('[data-testid="minimap"]', { state: 'detached' });
  // The first choice follows the screen the page opens on.
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.reload();
  await preset(page, 'random', 50);
  assert.ok(await page.locator('[data-testid="minimap"]').isVisible(), 'shown at first on a desktop');
  assert.equal(await page.locator('[data-testid="minimap-toggle"]').getAttribute('aria-expanded'), 'true');
  assert.deepEqual(errors, []);
});
