// axe-core (from npm, through @axe-core/playwright) over every route of the built app, in the light and the dark
// theme, plus the designer holding a 30-node graph, Browse showing an instance with its picture and its graph
// outline, Results with a file loaded (its metrics tables) and a sample's "where the chain broke" outline open,
// and at 390 px wide Results with those, the designer (minimap hidden, then shown) and every route: no violation of
// impact serious or critical (WCAG 2.0-2.2 A and AA rules and axe's best practices), except those listed in
// ACCEPTED with their reasons (also in docs/ACCESSIBILITY.md). Each violation is printed with its nodes, so a
// failure says what to fix.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import { serveDist, launch, ROOT } from './harness.mjs';

/** Rule ids accepted on purpose, each with why. */
const ACCEPTED = {};

/** The routes of `Route::ALL`, read as the shell test reads them. */
function routes() {
  const source = readFileSync(join(ROOT, 'src/ui/route.rs'), 'utf8');
  return [...source.matchAll(/Route::\w+ => "\/([\w-]+)"/g)].map((m) => m[1]).filter((r, i, all) => all.indexOf(r) === i);
}

let server, browser;
before(async () => { server = await serveDist(); browser = await launch(); });
after(async () => { await browser?.context.close(); await server?.close(); });

/** The serious and critical violations on the page as it is, minus the accepted rules. */
async function violations(page, where) {
  const result = await new AxeBuilder({ page })
    .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'])
    .analyze();
  const found = result.violations.filter((v) => (v.impact === 'serious' || v.impact === 'critical') && !ACCEPTED[v.id]);
  return found.map((v) => `${where}: ${v.id} (${v.impact}): ${v.help}\n${v.nodes.slice(0, 6).map((n) => `    ${n.target.join(' ')}: ${n.failureSummary.replace(/\n/g, ' ')}`).join('\n')}`);
}

for (const scheme of ['light', 'dark']) {
  test(`every route in the ${scheme} theme: no serious or critical axe violation`, async () => {
    const { page } = browser;
    await page.emulateMedia({ colorScheme: scheme, reducedMotion: 'reduce' });
    const found = [];
    const all = routes();
    assert.ok(all.length >= 6, `routes: ${all}`);
    for (const route of all) {
      await page.goto(`${server.url}#/${route}`);
      await page.waitForSelector(`#page-${route}`, { timeout: 20000 });
      await page.waitForTimeout(300);
      found.push(...await violations(page, `#/${route} (${scheme})`));
    }

    // The designer with a 30-node graph (the random-DAG preset) and its outline open.
    await page.goto(`${server.url}#/design`);
    await page.waitForSelector('svg[data-testid="canvas"]');
    await page.selectOption('[data-testid="preset"]', 'random');
    await page.fill('.design-presets input[name="n"]', '30');
    await page.click('[data-testid="apply-preset"]');
    // The outline draws its entries once opened.
    await page.click('[data-testid="graph-outline"] > summary');
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="graph-outline"] li[data-node-id]').length >= 30);
    found.push(...await violations(page, `#/design with a random DAG (${scheme})`));

    // Browse with an instance and its picture open: an image-family sample regenerated from a link.
    await page.goto(`${server.url}#/browse?topology=baseline&family=image&spt=1&seed=1&target=0&sample=0`);
    await page.waitForSelector('[data-testid="prompt"]', { timeout: 30000 });
    await page.waitForTimeout(300);
    found.push(...await violations(page, `#/browse with an image instance (${scheme})`));
    // Its graph outline, opened: each node with its task and ground truth.
    await page.click('#instance-view [data-testid="graph-outline"] > summary');
    await page.waitForSelector('#instance-view [data-testid="graph-outline"] li[data-node-id] .graph-outline-notes');
    found.push(...await violations(page, `#/browse with the instance outline open (${scheme})`));

    // Results with a file loaded, a sample's transcript open at where its chain broke, and that graph's outline.
    await page.goto(`${server.url}#/results`);
    await page.setInputFiles('[data-testid="results-file"]', join(ROOT, 'tests/fixtures/reference/results_math_multichain.sample.json'));
    await page.waitForSelector('[data-testid="transcript-row"]', { timeout: 30000 });
    // Its metrics are tables: a caption each, and every row headed.
    await page.waitForSelector('table[data-testid="metrics-nodes"] caption');
    const metrics = await page.locator('#results-metrics table').evaluateAll((ts) => ts.map((t) => [t.caption?.textContent, t.querySelectorAll('tbody th[scope="row"]').length, t.tBodies[0].rows.length]));
    assert.ok(metrics.length >= 5 && metrics.every(([caption, headed, rows]) => caption && headed === rows), `metrics tables: ${JSON.stringify(metrics)}`);
    await page.waitForTimeout(300);
    found.push(...await violations(page, `#/results with a file loaded (${scheme})`));
    await page.locator('[data-testid="transcript-row"]').first().click();
    const outline = '[data-testid="transcript"] [data-testid="graph-outline"]';
    await page.click(`${outline} > summary`);
    await page.waitForSelector(`${outline} li[data-node-id]`);
    const statuses = await page.locator(`${outline} .graph-outline-notes`).allTextContents();
    assert.ok(statuses.some((t) => /: (correct|wrong|missing)/.test(t)), `the breaks outline gives each graded node its status: ${statuses}`);
    found.push(...await violations(page, `#/results with the breaks outline open (${scheme})`));

    // The comparison's tables (captions, column and row headers): the same run twice.
    const run = readFileSync(join(ROOT, 'tests/fixtures/reference/results_math_multichain.sample.json'));
    await page.setInputFiles('[data-testid="compare-files"]', ['base.json', 'again.json'].map((name) => ({ name, mimeType: 'application/json', buffer: run })));
    await page.waitForSelector('[data-testid="compare-table"] caption');
    assert.ok(await page.locator('[data-testid="compare-row"] th[scope="row"]').count() >= 2, 'each run heads its row');
    found.push(...await violations(page, `#/results comparing two runs (${scheme})`));

    // On a phone: Results' tables and charts scrolling inside their containers, and the designer with its
    // minimap toggle (the minimap hidden at first, then shown).
    await page.setViewportSize({ width: 390, height: 844 });
    await page.waitForTimeout(300);
    found.push(...await violations(page, `#/results at 390 px (${scheme})`));
    await page.goto(`${server.url}#/design`);
    await page.reload();
    await page.waitForSelector('svg[data-testid="canvas"]');
    await page.selectOption('[data-testid="preset"]', 'random');
    await page.fill('.design-presets input[name="n"]', '30');
    await page.click('[data-testid="apply-preset"]');
    await page.waitForSelector('[data-testid="minimap-toggle"][aria-expanded="false"]');
    found.push(...await violations(page, `#/design at 390 px, minimap hidden (${scheme})`));
    await page.click('[data-testid="minimap-toggle"]');
    await page.waitForSelector('[data-testid="minimap"]');
    found.push(...await violations(page, `#/design at 390 px, minimap shown (${scheme})`));
    for (const route of all.filter((r) => r !== 'design')) {
      await page.goto(`${server.url}#/${route}`);
      await page.waitForSelector(`#page-${route}`, { timeout: 20000 });
      await page.waitForTimeout(300);
      found.push(...await violations(page, `#/${route} at 390 px (${scheme})`));
    }
    await page.setViewportSize({ width: 1280, height: 900 });

    assert.deepEqual(found, [], `axe found:\n${found.join('\n')}`);
  });
}
