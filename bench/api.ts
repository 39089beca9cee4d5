/**
 * bench/api: start-up time of `rampart serve` on the embedded store (fresh and existing data
 * directory) and the throughput of GET /api/user under autocannon.
 *
 *   npm run bench:api [-- --duration 10 --connections 50]
 *
 * Set DATABASE_URL to measure on PostgreSQL instead (start-up then includes no PGlite boot).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { BIN, freePort } from '../test/helpers/cli.js';

const { values } = parseArgs({ options: { duration: { type: 'string', default: '10' }, connections: { type: 'string', default: '50' } } });

async function startAndTime(env: NodeJS.ProcessEnv, base: string): Promise<{ child: ChildProcess; ms: number }> {
  const started = performance.now();
  const child = spawn(process.execPath, [BIN, 'serve'], { env, stdio: 'ignore' });
  // A benchmark may poll: it measures when the first request is answered.
  for (;;) {
    try {
      const res = await fetch(`${base}/.well-known/oauth-protected-resource`);
      if (res.ok) return { child, ms: performance.now() - started };
    } catch {
      /* not listening yet */
    }
    if (child.exitCode !== null) throw new Error('rampart serve exited during start-up');
    await new Promise((r) => setTimeout(r, 5));
  }
}

async function stop(child: ChildProcess): Promise<void> {
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
}

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rampart-bench-'));
const port = await freePort();
const base = `http://127.0.0.1:${port}`;
const env = { ...process.env, RAMPART_DATA_DIR: dataDir, RAMPART_PORT: String(port), RAMPART_BASE_URL: base, RAMPART_LOG_LEVEL: 'warn', RAMPART_RATE_LIMITS: 'admin=100000000' };
const store = process.env.DATABASE_URL ? 'PostgreSQL' : 'PGlite';

const fresh = await startAndTime(env, base);
await stop(fresh.child);
const { child, ms: warm } = await startAndTime(env, base);
try {
  const email = `bench-${Date.now()}@example.com`;
  execFileSync(process.execPath, [BIN, 'user', 'create', '--email', email, '--password', 'benchmark-password', '--role', 'admin'], { env });
  const key = execFileSync(process.execPath, [BIN, 'key', 'create', '--email', email], { env }).toString().trim().split('\n').at(-1)!;
  const { token } = (await (await fetch(`${base}/api/token?key=${key}`, { method: 'POST' })).json()) as { token: string };

  const result = await autocannon({
    url: `${base}/api/user`,
    headers: { authorization: `Bearer ${token}` },
    connections: Number(values.connections),
    duration: Number(values.duration),
  });
  const non2xx = result.non2xx + result.errors;
  console.log(`store:                         ${store}`);
  console.log(`start-up to first answer:      ${fresh.ms.toFixed(0)} ms (fresh data dir, migrations included)`);
  console.log(`                               ${warm.toFixed(0)} ms (existing data dir)`);
  console.log(`GET /api/user:                 ${result.requests.average.toFixed(0)} req/s average, ${result.requests.max} max`);
  console.log(`latency:                       p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms`);
  console.log(`load:                          autocannon, ${values.connections} connections, ${values.duration} s, ${result.requests.total} requests, ${non2xx} non-2xx/errors`);
} finally {
  await stop(child);
  fs.rmSync(dataDir, { recursive: true, force: true });
}
