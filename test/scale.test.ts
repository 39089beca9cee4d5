/**
 * Scale-out on PostgreSQL: two scheduler processes and three worker processes, 200 scans due at
 * once. Every scan gets exactly one run and every run finishes.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import { buildTestApp, openTestStore, signUp, STORE_KIND, tempDir } from './helpers/app.js';
import { startRampart } from './helpers/cli.js';
import { startTcpServer, waitFor } from './helpers/servers.js';

const SCANS = 200;

test('200 scans due at once, 2 schedulers and 3 workers: exactly one run each, all finished', { skip: STORE_KIND !== 'postgres' && 'needs PostgreSQL (set DATABASE_URL): separate worker and scheduler processes share a PostgreSQL store' }, async (t) => {
  const service = await startTcpServer(t, { banner: () => 'SSH-2.0-OpenSSH_9.6\r\n' });
  const { store, env: storeEnv } = await openTestStore(t);
  const env = {
    ...storeEnv,
    RAMPART_DATA_DIR: await tempDir(t),
    RAMPART_ALLOW_TARGETS: '127.0.0.0/8',
    RAMPART_SCAN_PORTS: String(service.port),
    RAMPART_READ_TIMEOUT_MS: '500',
    RAMPART_WORKER_POLL_MS: '100',
    RAMPART_WORKER_CONCURRENCY: '4',
    RAMPART_SCHEDULER_INTERVAL_MS: '200',
    RAMPART_LOG_LEVEL: 'warn',
  };
  const ctx = await buildTestApp(t, { store, env, clock: () => new Date('2026-01-01T00:00:00Z') });
  const user = await signUp(ctx, { role: 'admin' });
  for (let i = 0; i < SCANS; i++) {
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/api/new-scan',
      headers: user.auth,
      payload: { scan_name: `scan ${i}`, scan_type: 'Rampart', scan_frequency: 'Daily', scan_start_date: '2026-01-02', scan_start_time: '3:00 AM', scan_time_zone: 'UTC', scan_email: 'ops@example.com', scan_target: '127.0.0.1' },
    });
    assert.equal(res.statusCode, 200, res.body);
  }
  // All 200 fall due at the same instant.
  await sql`update scans set next_run_at = now() - interval '1 minute'`.execute(store.db);

  const processes = [
    ...[1, 2].map(() => startRampart(t, ['scheduler'], env)),
    ...[1, 2, 3].map(() => startRampart(t, ['worker'], env)),
  ];
  await waitFor(
    'every run to finish',
    async () => {
      const row = await store.db.selectFrom('runs').select((eb) => eb.fn.countAll<number>().as('n')).where('status', '=', 'completed').executeTakeFirstOrThrow();
      return Number(row.n) >= SCANS ? true : undefined;
    },
    120_000,
  );
  for (const p of processes) p.child.kill('SIGTERM');
  assert.deepEqual(await Promise.all(processes.map((p) => p.exited)), [0, 0, 0, 0, 0], 'every process stopped cleanly');

  const perScan = await store.db.selectFrom('scans').leftJoin('runs', 'runs.scan_id', 'scans.id').select(['scans.id', (eb) => eb.fn.count<number>('runs.id').as('runs')]).groupBy('scans.id').execute();
  assert.equal(perScan.length, SCANS);
  assert.ok(perScan.every((s) => Number(s.runs) === 1), 'exactly one run per scan');
  const outcomes = await store.db.selectFrom('runs').select(['outcome', (eb) => eb.fn.countAll<number>().as('n')]).groupBy('outcome').execute();
  assert.deepEqual(outcomes.map((o) => [o.outcome, Number(o.n)]), [['succeeded', SCANS]]);
  const advanced = await store.db.selectFrom('scans').select('id').where('next_run_at', '<=', new Date()).execute();
  assert.equal(advanced.length, 0, 'every schedule moved to its next period');
  const findings = await store.db.selectFrom('findings').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  assert.equal(Number(findings.n), 1, 'the same open port on the same host is one finding for the account');
});
