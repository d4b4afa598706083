// Starts tools/fault_server.py (a scripted OpenAI-compatible endpoint) on a free 127.0.0.1 port for a test file,
// with helpers to steer it (/control) and read its counters (/stats).
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { ROOT } from './harness.mjs';

/** Resolves to { url (the base URL, …/v1), stats(), control(params), reset(), close() }. */
export function startFaultServer(args = []) {
  const child = spawn('python3', [join(ROOT, 'tools', 'fault_server.py'), ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((ok, fail) => {
    let out = '';
    child.on('error', fail);
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const port = out.match(/PORT (\d+)/)?.[1];
      if (!port) return;
      const root = `http://127.0.0.1:${port}`;
      const get = async (path) => (await fetch(`${root}${path}`)).json();
      ok({
        url: `${root}/v1`,
        stats: () => get('/stats'),
        control: (params) => get(`/control?${new URLSearchParams(params)}`),
        reset: () => get('/reset'),
        close: () => new Promise((done) => { child.once('exit', done); child.kill(); }),
      });
    });
  });
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
