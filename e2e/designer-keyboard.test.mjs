// The designer with the keyboard alone (WCAG 2.2: 2.1.1 Keyboard, 2.5.7 Dragging Movements, 4.1.3 Status
// Messages): from an empty graph, tasks and a pack adapter are added from the palette with Enter, connected
// into a chain through the connect list (C), a kind mismatch and a cycle are refused and read in the live
// region, a step is undone and redone, and the exported JSON is a valid graph for the engine's CLI. Not one
// mouse event: only page.keyboard. Screenshots of the focus ring and the connect list, light and dark, land
// in target/screenshots/designer-keyboard-*.png.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serveDist, launch, removeQuietly, ROOT, SHOTS } from './harness.mjs';

const CANVAS = 'svg[data-testid="canvas"]';
const CLI = join(ROOT, 'target', 'debug', 'arbigraph');
const TMP = mkdtempSync(join(tmpdir(), 'arbigraph-keyboard-'));

let server, browser;

before(async () => { server = await serveDist(); browser = await launch(); });
after(async () => { await browser?.context.close(); await server?.close(); removeQuietly(TMP); });

/** Presses Tab (or Shift+Tab) until the focused element matches `selector`. */
async function tabTo(page, selector, { back = false, max = 160 } = {}) {
  for (let i = 0; i < max; i++) {
    if (await page.evaluate((sel) => document.activeElement?.matches(sel) ?? false, selector)) return;
    await page.keyboard.press(back ? 'Shift+Tab' : 'Tab');
  }
  assert.fail(`Tab never reached ${selector}`);
}

/** The id of the canvas node with the browser's focus (after the redraw settles). */
async function focusedNode(page) {
  await page.waitForTimeout(60);
  return page.evaluate(() => document.activeElement?.closest?.('[data-node-id]')?.getAttribute('data-node-id') ?? null);
}

async function waitFocusOn(page, id) {
  await page.waitForFunction((id) => document.activeElement?.getAttribute?.('data-node-id') === id, id, { timeout: 5000 });
}

/** The sentences in the live region, newest last. */
async function announced(page) {
  return page.$$eval('[data-testid="announcer"] > *', (els) => els.map((e) => e.textContent.trim()));
}

/** Waits until `expected` is among the live region's latest sentences. */
async function waitAnnounced(page, expected) {
  await page.waitForFunction((want) => [...document.querySelectorAll('[data-testid="announcer"] > *')].some((e) => e.textContent.trim() === want), expected, { timeout: 5000 })
    .catch(async () => assert.fail(`"${expected}" was not announced; the live region holds ${JSON.stringify(await announced(page))}`));
}

/** Adds a palette entry with Enter: Tab back to it from wherever the focus is, then Enter. */
async function addFromPalette(page, selector, expectedId) {
  await tabTo(page, selector, { back: true });
  await page.keyboard.press('Enter');
  await waitFocusOn(page, expectedId);
}

/** Opens the focused node's connect list, filters it, and presses Enter on the first choice. */
async function connectTo(page, filter) {
  await page.keyboard.press('c');
  await page.waitForSelector('[data-testid="connect-menu"]');
  await page.waitForFunction(() => document.activeElement?.id === 'design-connect-filter');
  await page.keyboard.type(filter);
  await page.keyboard.press('Enter');
}

async function shoot(page, what, scheme) {
  await page.emulateMedia({ colorScheme: scheme });
  await page.waitForTimeout(150);
  await page.screenshot({ path: join(SHOTS, `designer-keyboard-${what}-${scheme}.png`) });
}

test('the designer is usable with the keyboard alone: add, connect, refusals read aloud, undo, export', async () => {
  const { page, errors } = browser;
  await page.goto(`${server.url}#/design`);
  await page.waitForSelector(`${CANVAS} [data-node-id]`);

  // The canvas has a name, the live region is present but hidden, and the help lists the new keys.
  assert.equal(await page.getAttribute(CANVAS, 'aria-label'), 'Task graph canvas');
  const live = await page.$eval('[data-testid="announcer"]', (el) => ({ live: el.getAttribute('aria-live'), w: Math.round(el.getBoundingClientRect().width) }));
  assert.deepEqual(live, { live: 'polite', w: 1 });

  // One Tab stop on the canvas: exactly one node has tabindex 0.
  const stops = await page.$$eval(`${CANVAS} [data-node-id]`, (els) => els.map((e) => e.getAttribute('tabindex')));
  assert.equal(stops.filter((t) => t === '0').length, 1, `roving tabindex: ${stops}`);
  assert.ok(stops.every((t) => t === '0' || t === '-1'));

  // Start from an empty graph: Tab to the canvas, select everything, delete.
  await tabTo(page, `${CANVAS} [data-node-id]`);
  await page.keyboard.press('Control+a');
  await page.keyboard.press('Delete');
  await page.waitForFunction((c) => document.querySelectorAll(`${c} [data-node-id]`).length === 0, CANVAS);

  await page.keyboard.press('?');
  await page.waitForSelector('[data-testid="help"]');
  const help = await page.textContent('[data-testid="help"]');
  for (const key of ['Alt+arrows', 'connect the focused node', 'E', 'Click a port, then another port']) assert.ok(help.includes(key), `help lists ${key}`);
  await page.keyboard.press('Escape');

  // Add a chain of three tasks, a pack adapter and the task it feeds, each beside the last.
  const math = '[data-testid="palette-task"][data-family="math"]';
  await addFromPalette(page, math, 'task_1');
  await waitAnnounced(page, 'Added task_1, math task, scalar to scalar, target');
  await addFromPalette(page, math, 'task_2');
  await addFromPalette(page, math, 'task_3');
  await addFromPalette(page, '[data-testid="palette-pack"]', 'pack_4');
  await addFromPalette(page, math, 'task_5');
  assert.equal(await page.locator(`${CANVAS} [data-node-id]`).count(), 5);
  const ring = await page.$eval(`${CANVAS} [data-node-id="task_5"] .dn-focus`, (el) => getComputedStyle(el).stroke);
  assert.notEqual(ring, 'none', 'the focused node shows its focus ring');
  await shoot(page, 'focus', 'light');
  await shoot(page, 'focus', 'dark');
  await page.emulateMedia({ colorScheme: 'light' });

  // Put the new task_5 down (Escape clears the selection) and walk left to task_1 with the arrows.
  await page.keyboard.press('Escape');
  for (let i = 0; i < 4; i++) await page.keyboard.press('ArrowLeft');
  assert.equal(await focusedNode(page), 'task_1');

  // Connect task_1 → task_2 → task_3 → pack_4 through the connect list, walking right between them.
  await connectTo(page, 'task_2');
  await waitAnnounced(page, 'Connected task_1 output to task_2 input');
  await waitFocusOn(page, 'task_1');
  await page.keyboard.press('ArrowRight');
  await waitFocusOn(page, 'task_2');
  await connectTo(page, 'task_3');
  await waitAnnounced(page, 'Connected task_2 output to task_3 input');
  await waitFocusOn(page, 'task_2');
  await page.keyboard.press('ArrowRight');
  await waitFocusOn(page, 'task_3');
  await connectTo(page, 'pack');
  await waitAnnounced(page, 'Connected task_3 output to pack_4 input');

  // A cycle: task_3's output back into task_1, refused with its path, read in the live region.
  await waitFocusOn(page, 'task_3');
  await page.keyboard.press('c');
  await page.waitForFunction(() => document.activeElement?.id === 'design-connect-filter');
  const options = await page.$$eval('[data-testid="connect-menu"] [role="option"]', (els) => els.map((e) => e.textContent));
  assert.equal(options[0], 'task_3 output → task_1 input (math, scalar)', options.join(' | '));
  const described = await page.getAttribute('#design-connect-filter', 'aria-activedescendant');
  assert.equal(await page.getAttribute(`#${described}`, 'aria-selected'), 'true');
  await page.keyboard.type('task_1');
  await shoot(page, 'connect-menu', 'light');
  await shoot(page, 'connect-menu', 'dark');
  await page.emulateMedia({ colorScheme: 'light' });
  await page.keyboard.press('Enter');
  await waitAnnounced(page, 'Refused: connecting task_3 to task_1 would create a cycle (task_1 -> task_2 -> task_3 -> task_1)');
  assert.equal(await page.textContent('[data-testid="notice"]'), 'refused: connecting task_3 to task_1 would create a cycle (task_1 -> task_2 -> task_3 -> task_1)', 'the notice a drag shows');
  await page.keyboard.press('Escape');
  await page.waitForSelector('[data-testid="connect-menu"]', { state: 'detached' });
  await waitFocusOn(page, 'task_3');

  // A kind mismatch: the pack's list into task_5's scalar input.
  await page.keyboard.press('ArrowRight');
  await waitFocusOn(page, 'pack_4');
  await connectTo(page, 'task_5');
  await waitAnnounced(page, 'Refused: pack_4 outputs a list, but task_5 takes a scalar');
  await page.keyboard.press('Escape');
  await waitFocusOn(page, 'pack_4');

  // Make task_5 take a list (the inspector's select, by keyboard), connect it, and make it the target.
  await page.keyboard.press('ArrowRight');
  await waitFocusOn(page, 'task_5');
  await page.keyboard.press('Enter');
  await waitAnnounced(page, 'Selected task_5');
  await tabTo(page, '[data-testid="inspector-input"]');
  for (let i = 0; i < 4 && (await page.$eval('[data-testid="inspector-input"]', (s) => s.value)) !== 'list'; i++) {
    await page.keyboard.press('ArrowDown');
  }
  assert.equal(await page.$eval('[data-testid="inspector-input"]', (s) => s.value), 'list');
  await tabTo(page, `${CANVAS} [data-node-id]`, { back: true });
  assert.equal(await focusedNode(page), 'task_5', 'the canvas Tab stop is the focused node');
  await page.keyboard.press('Escape');
  await page.keyboard.press('ArrowLeft');
  await waitFocusOn(page, 'pack_4');
  await connectTo(page, 'task_5');
  await waitAnnounced(page, 'Connected pack_4 output to task_5 input');
  await waitFocusOn(page, 'pack_4');
  await page.keyboard.press('Alt+ArrowRight');
  await waitFocusOn(page, 'task_5');
  await page.keyboard.press('Enter');
  await page.keyboard.press('t');
  await waitAnnounced(page, 'Made task_5 the target');

  // E walks task_5's edges; undo and redo are announced.
  await page.keyboard.press('Escape');
  await page.keyboard.press('e');
  await waitAnnounced(page, 'Edge pack_4 to task_5, 1 of 1; Delete removes it');
  await page.keyboard.press('Control+z');
  await waitAnnounced(page, 'Undid: make task_5 the target');
  await page.keyboard.press('Control+Shift+z');
  await waitAnnounced(page, 'Redid: make task_5 the target');

  // Export with the keyboard: Tab to the toolbar's Export JSON and press Enter.
  await tabTo(page, '[data-testid="export-json"]', { back: true });
  const download = page.waitForEvent('download');
  await page.keyboard.press('Enter');
  const path = join(TMP, 'keyboard.json');
  await (await download).saveAs(path);
  assert.ok(existsSync(CLI), `the CLI is built (${CLI}); run cargo build first`);
  const report = execFileSync(CLI, ['inspect', path], { encoding: 'utf8' });
  assert.match(report, /problems:\s+none: the graph is valid/, report);
  assert.match(report, /nodes:\s+5 \(4 tasks, 1 adapters\), 4 edges/, report);

  assert.deepEqual(errors, []);
});

test('the graph outline lists every node sources first, with its inputs, and selects a node from the keyboard', async () => {
  const { page, errors } = browser;
  errors.length = 0;
  await page.goto(`${server.url}#/design`);
  await page.waitForSelector(CANVAS);
  await page.selectOption('[data-testid="preset"]', 'chain');
  await page.click('[data-testid="apply-preset"]');
  await page.waitForFunction(() => document.querySelectorAll('svg[data-testid="canvas"] [data-node-id]').length >= 4);
  const onCanvas = await page.$$eval(`${CANVAS} [data-node-id]`, (els) => [...new Set(els.map((e) => e.getAttribute('data-node-id')))]);

  // Reached and opened with the keyboard.
  await tabTo(page, '[data-testid="graph-outline"] > summary');
  await page.keyboard.press('Enter');
  await page.waitForSelector('[data-testid="graph-outline"][open] li[data-node-id]');
  const entries = await page.$$eval('[data-testid="graph-outline"] li[data-node-id]', (lis) => lis.map((li) => ({
    id: li.getAttribute('data-node-id'),
    label: li.querySelector('button').getAttribute('aria-label'),
    target: li.classList.contains('graph-outline-target'),
  })));
  assert.deepEqual(entries.map((e) => e.id).sort(), [...onCanvas].sort(), 'every node on the canvas is in the outline');
  // Sources first: every input an entry names comes earlier in the list.
  entries.forEach((entry, i) => {
    const inputs = entry.label.match(/inputs from ([^;]+);/)?.[1].split(/, | and /).map((s) => s.replace(/ \(slot \d+\)$/, '')) ?? [];
    for (const input of inputs) {
      assert.ok(entries.slice(0, i).some((e) => e.id === input), `${entry.id}'s input ${input} is listed before it: ${entry.label}`);
    }
  });
  assert.match(entries[0].label, /no inputs/);
  assert.equal(entries.filter((e) => e.target).length, 1, 'one target');
  assert.match(entries.find((e) => e.target).label, /the target: inputs from /);

  // An entry's button selects its node on the canvas.
  const last = entries[entries.length - 1].id;
  await tabTo(page, `[data-testid="graph-outline"] li[data-node-id="${last}"] button`);
  await page.keyboard.press('Enter');
  await page.waitForFunction((id) => document.querySelector('[data-testid="inspector"] .design-node-id')?.textContent === id, last, { timeout: 5000 })
    .catch(() => assert.fail(`${last} was not selected`));
  for (const scheme of ['light', 'dark']) {
    await page.emulateMedia({ colorScheme: scheme });
    await page.waitForTimeout(150);
    await page.locator('[data-testid="graph-outline"]').screenshot({ path: join(SHOTS, `designer-outline-${scheme}.png`) });
  }
  await page.emulateMedia({ colorScheme: 'light' });
  assert.deepEqual(errors, []);
});
