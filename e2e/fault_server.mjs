// Starts tools/fault_server.py (a scripted OpenAI-compatible endpoint) or tools/provider_emulator.py (the hosted
// APIs as they document themselves) on a free 127.0.0.1 port for a test file, with helpers to steer it (/control)
// and read its counters (/stats).
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { ROOT } from './harness.mjs';

/** Runs tools/<script> with `args` until it prints its port; resolves to { root (http://127.0.0.1:PORT),
 * stats(), control(params), reset(), close() }. */
function startTool(script, args) {
  const child = spawn('python3', [join(ROOT, 'tools', script), ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((ok, fail) => {
    let out = '';
    child.on('error', fail);
    child.once('exit', (code) => fail(new Error(`${script} exited (${code}) before it listened`)));
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const port = out.match(/PORT (\d+)/)?.[1];
      if (!port) return;
      const root = `http://127.0.0.1:${port}`;
      const get = async (path) => (await fetch(`${root}${path}`)).json();
      ok({
        root,
        stats: () => get('/stats'),
        control: (params) => get(`/control?${new URLSearchParams(params)}`),
        reset: () => get('/reset'),
        close: () => new Promise((done) => {
          if (child.exitCode !== null) return done();
          child.once('exit', done);
          child.kill();
        }),
      });
    });
  });
}

/** The fault server; resolves to { url (the base URL, …/v1), stats(), control(params), reset(), close() }. */
export async function startFaultServer(args = []) {
  const tool = await startTool('fault_server.py', args);
  return { ...tool, url: `${tool.root}/v1` };
}

/** The provider emulator (key `test-key` unless `--key`); resolves to { root, stats(), control(params), reset(),
 * close() }. Each provider answers under its own prefix of `root` (`/openai/v1`, `/anthropic/v1`, …; see the
 * emulator's docstring); `/stats` records per request its provider, status, parameters and credential header. */
export function startEmulator(args = []) {
  return startTool('provider_emulator.py', args);
}

/** Polls `check` (async) every 50 ms until it is truthy or `timeout` ms pass. */
export async function until(check, timeout = 30000, what = 'condition') {
  const end = Date.now() + timeout;
  while (Date.now() < end) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}
