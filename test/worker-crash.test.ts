/**
 * A worker killed with SIGKILL mid-run: the run is completed by another worker after the lease
 * expires, or, when its second worker dies too, failed cleanly. Never stuck, never duplicated.
 * On the embedded store the worker lives in `rampart serve`; on PostgreSQL it is `rampart worker`.
 * With no worker left at all, the lease reaper of an API-only process (`rampart api`) re-queues
 * the run once, then fails it.
 */
import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import { openStore } from '../src/db/database.js';
import { createApiKey } from '../src/accounts/api-keys.service.js';
import { createUser } from '../src/accounts/users.service.js';
import { buildTestApp, openTestStore, STORE_KIND, tempDir } from './helpers/app.js';
import { freePort, runCli, startRampart, type ServeProcess } from './helpers/cli.js';
import { startTcpServer, waitFor } from './helpers/servers.js';

interface Harness {
  /** Starts a process that runs workers (and, on PGlite, the API). */
  startWorker(): Promise<ServeProcess>;
  /** Starts `rampart api`: no worker, only the API and the lease reaper. */
  startApiOnly(): Promise<ServeProcess>;
  api(method: 'GET' | 'POST', path: string, body?: object): Promise<{ status: number; body: any }>;
  /** Findings and the run row, read from the store once no worker holds it. */
  inspect(): Promise<{
    findings: { port: number | null; run_index: number; rule_id: string }[];
    runs: { attempts: number; outcome: string | null; error: string | null }[];
    mails: { run_id: number }[];
  }>;
}

async function harness(t: TestContext, scanPorts: string): Promise<Harness> {
  const dataDir = await tempDir(t);
  const common = {
    RAMPART_DATA_DIR: dataDir,
    RAMPART_ALLOW_TARGETS: '127.0.0.0/8',
    RAMPART_SCAN_PORTS: scanPorts,
    RAMPART_READ_TIMEOUT_MS: '3000',
    RAMPART_RUN_LEASE_SECONDS: '2',
    RAMPART_WORKER_POLL_MS: '100',
    RAMPART_LOG_LEVEL: 'info',
    // The test polls the API while it waits: keep the trial plan's limit out of its way.
    RAMPART_RATE_LIMITS: 'trial=100000',
  };
  if (STORE_KIND === 'postgres') {
    const { store, env } = await openTestStore(t);
    const app = await buildTestApp(t, { store, env: { ...common } });
    const user = await createUser(store.db, { email: 'crash@example.com', password: 'long enough pass' });
    const { key } = await createApiKey(store.db, user.id);
    const token = (await app.app.inject({ method: 'POST', url: `/api/token?key=${key}` })).json().token;
    return {
      async startWorker() {
        const worker = startRampart(t, ['worker'], { ...common, ...env });
        await worker.waitForLog((l) => l.msg === 'run worker started');
        return worker;
      },
      async startApiOnly() {
        const api = startRampart(t, ['api'], { ...common, ...env, RAMPART_PORT: String(await freePort()) });
        await api.waitForLog((l) => typeof l.msg === 'string' && l.msg.includes('listening on'));
        return api;
      },
      async api(method, path, body) {
        const res = await app.app.inject({ method, url: path, headers: { authorization: `Bearer ${token}` }, ...(body ? { payload: body } : {}) });
        return { status: res.statusCode, body: res.json() };
      },
      async inspect() {
        return {
          findings: await store.db.selectFrom('findings').select(['port', 'run_index', 'rule_id']).orderBy('port').execute(),
          runs: await store.db.selectFrom('runs').select(['attempts', 'outcome', 'error']).orderBy('id').execute(),
          mails: await store.db.selectFrom('mail_outbox').select('run_id').execute(),
        };
      },
    };
  }

  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const env = { ...common, RAMPART_PORT: String(port), RAMPART_BASE_URL: base };
  let token = '';
  let current: ServeProcess | undefined;
  const start = async (role: 'serve' | 'api') => {
    current = startRampart(t, [role], env);
    await current.waitForLog((l) => typeof l.msg === 'string' && l.msg.includes('listening on'));
    return current;
  };
  const startWorker = () => start('serve');
  // Set up the account through the first server, then hand it back.
  const first = await startWorker();
  assert.equal((await runCli(['user', 'create', '--email', 'crash@example.com', '--password', 'long enough pass'], env)).code, 0);
  const key = (await runCli(['key', 'create', '--email', 'crash@example.com'], env)).stdout.trim().split('\n').at(-1)!;
  token = ((await (await fetch(`${base}/api/token?key=${key}`, { method: 'POST' })).json()) as { token: string }).token;
  first.child.kill('SIGTERM');
  await first.exited;
  return {
    startWorker,
    startApiOnly: () => start('api'),
    async api(method, path, body) {
      const res = await fetch(`${base}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
      return { status: res.status, body: await res.json() };
    },
    async inspect() {
      if (current && current.child.exitCode === null) {
        current.child.kill('SIGTERM');
        await current.exited;
      }
      const store = await openStore({ dataDir });
      try {
        return {
          findings: await store.db.selectFrom('findings').select(['port', 'run_index', 'rule_id']).orderBy('port').execute(),
          runs: await store.db.selectFrom('runs').select(['attempts', 'outcome', 'error']).orderBy('id').execute(),
          mails: await store.db.selectFrom('mail_outbox').select('run_id').execute(),
        };
      } finally {
        await store.close();
      }
    },
  };
}

async function kill(worker: ServeProcess): Promise<void> {
  worker.child.kill('SIGKILL');
  await worker.exited;
}

const SCAN = { scan_name: 'crash', scan_type: 'Rampart', scan_frequency: 'One-time', scan_time_zone: 'UTC', scan_email: 'ops@example.com', scan_target: '127.0.0.1' };

/** Creates the scan, lets a worker claim its run, and kills that worker; returns the scan's uuid. */
async function killWorkerMidRun(h: Harness): Promise<string> {
  const first = await h.startWorker();
  const created = await h.api('POST', '/api/new-scan', SCAN);
  assert.equal(created.status, 200);
  await first.waitForLog((l) => l.msg === 'run claimed');
  await kill(first);
  return created.body.uuid;
}

/** The scan's first run once it has ended. */
function completedRun(h: Harness, uuid: string, what: string) {
  return waitFor(what, async () => {
    const { body } = await h.api('GET', `/api/scans/${uuid}/runs`);
    return body.runs[0]?.status === 'completed' ? body.runs[0] : undefined;
  });
}

test(`a run whose worker is killed is completed by the next worker, without duplicates (${STORE_KIND})`, async (t) => {
  let answering = false;
  const stalling = await startTcpServer(t, { banner: () => (answering ? 'SSH-2.0-OpenSSH_9.6\r\n' : undefined) });
  const ftp = await startTcpServer(t, { banner: () => '220 ProFTPD Server ready.\r\n' });
  const h = await harness(t, `${stalling.port},${ftp.port}`);

  const first = await h.startWorker();
  const created = await h.api('POST', '/api/new-scan', SCAN);
  assert.equal(created.status, 200);
  const uuid = created.body.uuid;
  // The worker has claimed the run and its engine has reached the stalling service: mid-run.
  await first.waitForLog((l) => l.msg === 'run claimed');
  await stalling.connected(0);
  await kill(first);

  answering = true;
  await h.startWorker();
  const run = await waitFor('the run to complete on the second worker', async () => {
    const { body } = await h.api('GET', `/api/scans/${uuid}/runs`);
    return body.runs[0]?.status === 'completed' ? body.runs[0] : undefined;
  });
  assert.equal(run.outcome, 'succeeded', run.error);
  assert.equal(run.scan_progress, 'Completed');

  const { findings, runs } = await h.inspect();
  const openPorts = findings.filter((f) => f.rule_id === 'rampart:open-port').map((f) => f.port);
  assert.deepEqual(openPorts.sort(), [stalling.port, ftp.port].sort(), 'each open port once');
  const keys = findings.map((f) => `${f.port} ${f.rule_id}`);
  assert.equal(new Set(keys).size, keys.length, 'no finding twice');
  assert.equal(run.findings_count, findings.length, 'the completing run saw every stored finding');
  assert.equal(runs.length, 1);
  assert.equal(runs[0]!.attempts, 2, 'claimed again after the first worker died');
});

test(`a run whose worker dies twice fails cleanly after its lease (${STORE_KIND})`, async (t) => {
  const stalling = await startTcpServer(t);
  const h = await harness(t, String(stalling.port));
  const uuid = await killWorkerMidRun(h);

  // The second worker takes the run over once the first one's lease expires; kill it too.
  const second = await h.startWorker();
  await second.waitForLog((l) => l.msg === 'run claimed');
  await kill(second);

  await h.startWorker();
  const run = await completedRun(h, uuid, 'the run to be failed');
  assert.equal(run.outcome, 'failed');
  assert.equal(run.scan_progress, 'Failed');
  assert.match(run.error, /stopped responding twice/);
  const { runs } = await h.inspect();
  assert.equal(runs[0]!.attempts, 2);
});

test(`with no worker left, a dead worker's run is re-queued once, then failed after another lease (${STORE_KIND})`, async (t) => {
  const stalling = await startTcpServer(t);
  const h = await harness(t, String(stalling.port));
  const uuid = await killWorkerMidRun(h);

  // Only the API runs now: its lease reaper must notice the dead worker on its own.
  const api = await h.startApiOnly();
  await waitFor('the run to go back to the queue', async () => {
    const { body } = await h.api('GET', `/api/scans/${uuid}/runs`);
    return body.runs[0]?.scan_progress === 'Queued' ? true : undefined;
  });
  await api.waitForLog((l) => l.msg === 'run re-queued: its worker stopped responding');
  const run = await completedRun(h, uuid, 'the run to be failed');
  assert.equal(run.outcome, 'failed');
  assert.equal(run.scan_progress, 'Failed');
  assert.equal(run.error, 'The worker running this scan stopped and no worker took it over within 2 s; the run was stopped. Run the scan again.');

  const { runs, mails } = await h.inspect();
  assert.equal(runs[0]!.attempts, 1, 'no second attempt: no worker claimed it');
  assert.equal(mails.length, 1, 'the report email of the failed run is queued, as for any run that ends');
});
