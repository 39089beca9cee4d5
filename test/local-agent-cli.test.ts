/**
 * The agent program (`node agent.js`, the bundle) against a scripted service on loopback: TLS
 * trust and --ca, what a 401/404 prints and exits with, retries of a 5xx and never of a 4xx, and
 * the run protocol as the agent speaks it (take, heartbeat, chunks, complete naming missing chunks),
 * plain HTTP refused off loopback, and OpenVAS through a local gvmd (the fake of fake-gvmd.ts).
 * The real service and a network namespace are in local-agent-e2e.test.ts.
 */
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { hostname } from 'node:os';
import path from 'node:path';
import { test, type TestContext } from 'node:test';
import { VERSION } from '../src/shared/version.js';
import { AGENT_BUNDLE, agentFileText, startAgent, writeAgentFile } from './helpers/agent-process.js';
import { tempDir } from './helpers/daemons.js';
import { GVMD_PASSWORD, GVMD_USER, startFakeGvmd } from './helpers/fake-gvmd.js';
import { hasOpenssl, TestPki } from './helpers/pki.js';
import { listenOnLoopback } from './helpers/servers.js';

const UUID = '6f1c1a52-93a4-4c7e-9d0b-3f7c2b9a1e55';
const CREDENTIAL = 'ragt_' + 'A'.repeat(43);
const PREFIX = `/api/scans/${UUID}/agent`;

interface Seen {
  method: string;
  path: string;
  authorization: string | undefined;
  body: Record<string, unknown>;
}
type Reply = { status: number; body: unknown };

/** A scripted service: `answer` decides each reply; every request is kept. */
async function startService(t: TestContext, answer: (seen: Seen, all: Seen[]) => Reply, tlsPair?: { key: string; cert: string }) {
  const seen: Seen[] = [];
  const handler = (request: http.IncomingMessage, response: http.ServerResponse) => {
    const parts: Buffer[] = [];
    request.on('data', (part: Buffer) => parts.push(part));
    request.on('end', () => {
      const text = Buffer.concat(parts).toString();
      const entry = { method: request.method ?? '', path: request.url ?? '', authorization: request.headers.authorization, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
      seen.push(entry);
      const reply = answer(entry, seen);
      response.writeHead(reply.status, { 'content-type': 'application/json' }).end(JSON.stringify(reply.body));
    });
  };
  const server = tlsPair ? https.createServer(tlsPair, handler) : http.createServer(handler);
  await listenOnLoopback(t, server);
  const { port } = server.address() as net.AddressInfo;
  return { seen, baseUrl: `${tlsPair ? 'https' : 'http'}://127.0.0.1:${port}` };
}

async function agentFile(t: TestContext, baseUrl: string): Promise<string> {
  const dir = await tempDir(t, 'agent');
  const config = { baseUrl, scanUuid: UUID, scanName: 'lab', credential: CREDENTIAL, credentialExpiresAt: '2099-01-01T00:00:00.000Z' };
  return writeAgentFile(dir, agentFileText(config, await readFile(AGENT_BUNDLE, 'utf8')));
}

/** The service's answer to a take: a 3-second lease, a job of one port on 127.0.0.1 with these timeouts. */
function takeAnswer(runIndex: number, lease: string, port: number, timeoutMs: number): Reply {
  return {
    status: 200,
    body: {
      run_index: runIndex, lease, lease_seconds: 3, lease_expires_at: '2099-01-01T00:00:00.000Z', vulndb_synced_at: null,
      job: { targets: [{ kind: 'ip', value: '127.0.0.1' }], options: {}, ports: [port], limits: { connectTimeoutMs: timeoutMs, readTimeoutMs: timeoutMs, maxConcurrency: 8, ratePerSecond: 0 } },
    },
  };
}

const idleCheckIn = {
  scan: { uuid: UUID, name: 'lab', targets: [{ kind: 'ip', value: '10.0.0.1' }], engine_options: {}, next_run_at: null },
  run: null,
  poll_seconds: 60,
  credential_expires_at: '2099-01-01T00:00:00.000Z',
};

test('an untrusted TLS certificate stops the agent before it sends anything; --ca naming the CA is trusted', async (t) => {
  if (!hasOpenssl()) return t.skip('openssl not found: install the Debian package openssl');
  const pki = new TestPki();
  t.after(() => pki.cleanup());
  const leaf = pki.issue({ cn: 'localhost', san: 'DNS:localhost,IP:127.0.0.1' });
  const service = await startService(t, () => ({ status: 200, body: idleCheckIn }), leaf);
  const file = await agentFile(t, service.baseUrl);

  const refused = startAgent(t, file);
  assert.equal(await refused.exited, 2, refused.output());
  assert.match(refused.output(), /the service's TLS certificate is not trusted: .*; pass --ca FILE naming the CA that signed it/);
  assert.equal(service.seen.length, 0);

  const caFile = path.join(path.dirname(file), 'ca.pem');
  await writeFile(caFile, pki.ca.cert);
  const trusted = startAgent(t, file, ['--ca', 'ca.pem']);
  assert.equal(await trusted.exited, 0, trusted.output());
  assert.match(trusted.output(), /no run is waiting for an agent \(next scheduled: none/);
  assert.equal(service.seen.length, 1);
  assert.equal(service.seen[0]?.path, `${PREFIX}/check-in`);
  assert.equal(service.seen[0]?.authorization, `Bearer ${CREDENTIAL}`);
  assert.equal(service.seen[0]?.body.version, VERSION);
});

test("a 401 prints the service's message and exits 2, a 404 says the scan is gone; neither is retried", async (t) => {
  const expired = "This agent's credential expired on 2026-01-01: download the agent again from the scan's page.";
  let status = 401;
  const service = await startService(t, () => (status === 401 ? { status: 401, body: { message: expired } } : { status: 404, body: { message: 'Not found.' } }));
  const file = await agentFile(t, service.baseUrl);
  const first = startAgent(t, file);
  assert.equal(await first.exited, 2, first.output());
  assert.ok(first.output().includes(expired), first.output());
  assert.equal(service.seen.length, 1);

  status = 404;
  const second = startAgent(t, file, ['--daemon']);
  assert.equal(await second.exited, 2, second.output());
  assert.match(second.output(), /the scan no longer exists/);
  assert.equal(service.seen.length, 2);
});

test('the agent retries a 5xx, takes the waiting run, scans only its target, and re-sends the chunks complete names missing', async (t) => {
  // The target: one listening port on loopback, the job's only target.
  const target = net.createServer((socket) => {
    // Probes may reset their connections.
    socket.on('error', () => undefined);
    socket.end('hello\r\n');
  });
  await listenOnLoopback(t, target);
  const targetPort = (target.address() as net.AddressInfo).port;

  let completes = 0;
  const service = await startService(t, (seen, all) => {
    if (seen.path === `${PREFIX}/check-in`) {
      // The first check-in fails as a restarting service would; the agent must try again.
      if (all.length === 1) return { status: 503, body: { message: 'Service unavailable.' } };
      return { status: 200, body: { ...idleCheckIn, run: { run_index: 3, held_by_you: false } } };
    }
    if (seen.path === `${PREFIX}/runs/3/take`) return takeAnswer(3, 'lease-1', targetPort, 2000);
    if (seen.path.startsWith(`${PREFIX}/runs/3/chunks/`)) return { status: 200, body: { seq: Number(seen.path.split('/').pop()) } };
    if (seen.path === `${PREFIX}/runs/3/heartbeat`) return { status: 200, body: { lease_expires_at: '2099-01-01T00:00:00.000Z', cancel: false } };
    if (seen.path === `${PREFIX}/runs/3/complete`) {
      completes++;
      if (completes === 1) return { status: 409, body: { message: 'Chunks are missing.', missing: [0] } };
      return { status: 200, body: { run_index: 3, findings: 0 } };
    }
    return { status: 404, body: { message: 'Not found.' } };
  });
  const file = await agentFile(t, service.baseUrl);
  const agent = startAgent(t, file);
  assert.equal(await agent.exited, 0, agent.output());
  assert.match(agent.output(), /run #3 completed: 0 findings recorded/);

  const paths = service.seen.map((s) => s.path.slice(PREFIX.length));
  assert.deepEqual(paths.slice(0, 3), ['/check-in', '/check-in', '/runs/3/take']);
  const take = service.seen[2]!;
  assert.equal(take.body.agent_id, service.seen[0]!.body.agent_id);
  assert.equal(take.body.hostname, hostname());
  const chunkZero = service.seen.filter((s) => s.path.endsWith('/chunks/0'));
  assert.equal(chunkZero.length, 2, 'chunk 0 is sent again after complete named it missing');
  assert.deepEqual(chunkZero[0]!.body, chunkZero[1]!.body);
  assert.equal(chunkZero[0]!.body.lease, 'lease-1');
  const events = chunkZero[0]!.body.events as { type: string; address?: string }[];
  assert.ok(events.some((e) => e.type === 'host' && e.address === '127.0.0.1'), JSON.stringify(events));
  const complete = service.seen.filter((s) => s.path.endsWith('/complete'));
  assert.equal(complete.length, 2);
  assert.deepEqual(complete[1]!.body.engine, { name: 'rampart agent', version: VERSION, detail: `on ${hostname()}` });
  assert.equal(complete[1]!.body.outcome, 'succeeded');
  assert.equal(complete[1]!.body.chunks, service.seen.filter((s) => s.path.includes('/chunks/')).length - 1);
});

test('a heartbeat answered cancel stops the scan at once: nothing is completed, and a one-shot agent exits 1', async (t) => {
  // A target that accepts and never answers: the scan would wait on it far longer than a beat.
  const target = net.createServer((socket) => socket.on('error', () => undefined));
  await listenOnLoopback(t, target);
  const targetPort = (target.address() as net.AddressInfo).port;
  const service = await startService(t, (seen) => {
    if (seen.path === `${PREFIX}/check-in`) return { status: 200, body: { ...idleCheckIn, run: { run_index: 4, held_by_you: false } } };
    if (seen.path === `${PREFIX}/runs/4/take`) return takeAnswer(4, 'lease-4', targetPort, 60_000);
    if (seen.path.startsWith(`${PREFIX}/runs/4/chunks/`)) return { status: 200, body: { seq: Number(seen.path.split('/').pop()) } };
    // The service stopped the run (held past the next scheduled one).
    if (seen.path === `${PREFIX}/runs/4/heartbeat`) return { status: 200, body: { lease_expires_at: '2026-01-01T00:00:00.000Z', cancel: true } };
    return { status: 404, body: { message: 'Not found.' } };
  });
  const agent = startAgent(t, await agentFile(t, service.baseUrl));
  assert.equal(await agent.exited, 1, agent.output());
  assert.match(agent.output(), /run #4 was stopped by the service/);
  assert.doesNotMatch(agent.output(), /lease renewed/);
  const paths = service.seen.map((s) => s.path.slice(PREFIX.length));
  assert.ok(paths.includes('/runs/4/heartbeat'), paths.join(' '));
  assert.ok(!paths.includes('/runs/4/complete'), 'a stopped run is not completed');
});

test('flags: --gvmd-socket without an account, an unknown flag, plain HTTP off loopback are refused with exit 2 before anything is sent', async (t) => {
  const service = await startService(t, () => ({ status: 200, body: idleCheckIn }));
  const file = await agentFile(t, service.baseUrl);
  const gvmd = startAgent(t, file, ['--gvmd-socket', '/run/gvmd/gvmd.sock']);
  assert.equal(await gvmd.exited, 2);
  assert.match(gvmd.output(), /--gvmd-socket needs gvmd's account: --gvmd-username and --gvmd-password, or RAMPART_GVMD_USERNAME/);
  const unknown = startAgent(t, file, ['--fast']);
  assert.equal(await unknown.exited, 2);
  assert.match(unknown.output(), /Unknown option '--fast'[\s\S]*Usage: node agent\.js/);
  assert.equal(service.seen.length, 0);

  // 192.0.2.1 (TEST-NET-1) is never contacted: the refusal comes first.
  const clear = await agentFile(t, 'http://192.0.2.1:8080');
  const refused = startAgent(t, clear);
  assert.equal(await refused.exited, 2);
  assert.match(refused.output(), /the service must be reached over HTTPS; plain HTTP only on loopback \(http:\/\/192\.0\.2\.1:8080\)/);
});

test('--gvmd-socket: the agent runs the run through the local gvmd on exactly its targets and uploads its report', async (t) => {
  const gvmd = await startFakeGvmd(t, { version: '22.7', reportAddress: '127.0.0.1', states: [{ status: 'Running', progress: 50 }, { status: 'Done', progress: -1 }] });
  const service = await startService(t, (seen) => {
    if (seen.path === `${PREFIX}/check-in`) return { status: 200, body: { ...idleCheckIn, run: { run_index: 1, held_by_you: false } } };
    if (seen.path === `${PREFIX}/runs/1/take`) {
      return {
        status: 200,
        body: {
          run_index: 1, lease: 'lease-g', lease_seconds: 30, lease_expires_at: '2099-01-01T00:00:00.000Z', vulndb_synced_at: null,
          job: { targets: [{ kind: 'ip', value: '127.0.0.1' }], options: {}, ports: [], limits: { connectTimeoutMs: 2000, readTimeoutMs: 2000, maxConcurrency: 8, ratePerSecond: 0 } },
        },
      };
    }
    if (seen.path.startsWith(`${PREFIX}/runs/1/chunks/`)) return { status: 200, body: { seq: Number(seen.path.split('/').pop()) } };
    if (seen.path === `${PREFIX}/runs/1/heartbeat`) return { status: 200, body: { lease_expires_at: '2099-01-01T00:00:00.000Z', cancel: false } };
    if (seen.path === `${PREFIX}/runs/1/complete`) return { status: 200, body: { run_index: 1, findings: 4 } };
    return { status: 404, body: { message: 'Not found.' } };
  });
  const file = await agentFile(t, service.baseUrl);
  const agent = startAgent(t, file, ['--gvmd-socket', gvmd.socket!, '--gvmd-username', GVMD_USER, '--gvmd-password', GVMD_PASSWORD]);
  assert.equal(await agent.exited, 0, agent.output());
  assert.match(agent.output(), /engine: openvas 22\.7 via gvmd /);

  assert.equal(service.seen[0]!.body.gvmd, true);
  assert.deepEqual(gvmd.violations, []);
  assert.deepEqual(gvmd.created.targets.map((target) => target.hosts), ['127.0.0.1']);
  const names = gvmd.commands.map((command) => command.name);
  for (const name of ['authenticate', 'create_target', 'create_task', 'start_task', 'get_reports', 'delete_task', 'delete_target']) assert.ok(names.includes(name), `${name} in ${names.join(',')}`);
  assert.deepEqual(gvmd.deleted.targets, gvmd.created.targets.map((target) => target.id));

  const events = service.seen.filter((s) => s.path.includes('/chunks/')).flatMap((s) => s.body.events as { type: string; finding?: { ruleId: string; hostIp: string } }[]);
  const findings = events.filter((e) => e.type === 'finding').map((e) => e.finding!);
  assert.ok(findings.length > 0, JSON.stringify(events));
  assert.ok(findings.every((f) => f.ruleId.startsWith('openvas:') && f.hostIp === '127.0.0.1'), JSON.stringify(findings));
  const complete = service.seen.find((s) => s.path.endsWith('/complete'))!;
  assert.equal(complete.body.outcome, 'succeeded');
  assert.deepEqual(complete.body.engine, { name: 'openvas', version: '22.7', detail: `via local gvmd ${gvmd.socket} by rampart agent ${VERSION} on ${hostname()}` });
});
