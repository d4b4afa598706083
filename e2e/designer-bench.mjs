// Designer benchmark (prints figures, asserts nothing): in headless Chromium, the time to draw a random
// graph of about 300 nodes from the preset picker, the time to tidy it up after every node was nudged, and the
// frame times while panning and zooming it. Run after a build: `node designer-bench.mjs` (uses dist/).
import { serveDist, launch } from './harness.mjs';

const CANVAS = 'svg[data-testid="canvas"]';
const RUNS = 5;

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const pct = (xs, q) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor(q * s.length))]; };

const server = await serveDist();
const { page, context, errors } = await launch();
try {
  await page.goto(`${server.url}#/design`);
  await page.waitForSelector(CANVAS);
  await page.evaluate(() => {
    window.__clicked = 0;
    window.addEventListener('click', () => { window.__clicked = performance.now(); }, true);
    window.__long = [];
    new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__long.push(e.duration); }).observe({ type: 'longtask' });
  });
  /** Milliseconds from the last click to the first frame after `ready()` holds. */
  const untilFrame = (ready) => page.evaluate((src) => new Promise((ok) => {
    const test = new Function(`return (${src})()`);
    const tick = () => (test() ? requestAnimationFrame(() => ok(performance.now() - window.__clicked)) : requestAnimationFrame(tick));
    tick();
  }), ready.toString());

  await page.selectOption('select[data-testid="preset"]', 'random');
  await page.fill('.design-presets input[name="n"]', '250');
  const draws = [];
  let nodes = '';
  for (let i = 0; i < RUNS; i++) {
    await page.fill('.design-presets input[name="seed"]', String(100 + i));
    await page.evaluate(() => { window.__before = document.querySelector('[data-testid="counts"]').textContent; });
    await page.click('[data-testid="apply-preset"]');
    draws.push(await untilFrame(() => document.querySelector('[data-testid="counts"]').textContent !== window.__before
      && document.querySelectorAll('svg[data-testid="canvas"] .dg-scene [data-node-id]').length > 0));
    nodes = (await page.textContent('[data-testid="counts"]')).split('·')[0].trim();
  }
  console.log(`draw a random graph (${nodes}) from the preset: median ${median(draws).toFixed(0)} ms (runs: ${draws.map((d) => d.toFixed(0)).join(', ')})`);

  const tidies = [];
  for (let i = 0; i < RUNS; i++) {
    await page.click(CANVAS, { position: { x: 5, y: 5 } });
    await page.keyboard.press('Control+a');
    for (let k = 0; k < 3; k++) await page.keyboard.press('ArrowDown');
    await page.evaluate(() => { window.__pos = [...document.querySelectorAll('svg[data-testid="canvas"] .dg-scene [data-node-id]')].slice(0, 5).map((e) => e.getAttribute('transform')).join(); });
    await page.click('[data-testid="tidy"]');
    tidies.push(await untilFrame(() => [...document.querySelectorAll('svg[data-testid="canvas"] .dg-scene [data-node-id]')].slice(0, 5).map((e) => e.getAttribute('transform')).join() !== window.__pos));
  }
  console.log(`tidy up ${nodes}: median ${median(tidies).toFixed(0)} ms (runs: ${tidies.map((d) => d.toFixed(0)).join(', ')})`);

  const frames = async (what, act) => {
    await page.evaluate(() => {
      window.__frames = []; window.__long = [];
      let last = performance.now();
      const tick = (t) => { window.__frames.push(t - last); last = t; window.__raf = requestAnimationFrame(tick); };
      window.__raf = requestAnimationFrame(tick);
    });
    await act();
    const [f, long] = await page.evaluate(() => { cancelAnimationFrame(window.__raf); return [window.__frames.slice(1), window.__long]; });
    console.log(`${what} (${nodes}): ${f.length} frames, median ${median(f).toFixed(1)} ms, p95 ${pct(f, 0.95).toFixed(1)} ms, max ${Math.max(...f).toFixed(1)} ms; long tasks: ${long.length}`);
  };
  const box = await page.locator(CANVAS).boundingBox();
  const at = (fx, fy) => ({ x: box.x + box.width * fx, y: box.y + box.height * fy });
  const pan = async () => {
    await page.keyboard.down(' ');
    const a = at(0.6, 0.6), b = at(0.3, 0.3);
    await page.mouse.move(a.x, a.y); await page.mouse.down();
    await page.mouse.move(b.x, b.y, { steps: 40 });
    await page.mouse.up(); await page.keyboard.up(' ');
  };
  await page.keyboard.press('f');
  await frames('pan at fit', pan);
  await page.click('[data-testid="fit"]');
  await frames('wheel zoom in', async () => {
    const c = at(0.5, 0.5);
    await page.mouse.move(c.x, c.y);
    for (let i = 0; i < 20; i++) { await page.mouse.wheel(0, -100); }
    await page.waitForTimeout(200);
  });
  await frames('pan at that zoom', pan);
  if (errors.length) console.log('page errors:', errors);
} finally {
  await context.close();
  await server.close();
}
