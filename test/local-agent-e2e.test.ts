/**
 * The "Done means" for the local agent: a network namespace on a private range holds a
 * weak service (redis-server without a password); `rampart serve` runs on the host side; an
 * Unmanaged scan of the namespace's range is created and its agent downloaded through the API,
 * then run as a separate process inside the namespace. The run completes with the agent's engine
 * and the weak service's finding, and nothing outside the scan's targets (a second redis on an
 * address of the namespace outside the range) is touched; an agent killed mid-run and started
 * again retakes the run without duplicate findings; a download revokes the earlier file; another
 * scan's uuid is refused; an expired credential stops the agent with the service's message. TLS
 * trust and --ca are in local-agent-cli.test.ts (serve has no TLS).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { test } from 'node:test';
import { buildTestApp, openTestStore, signUp, STORE_KIND } from './helpers/app.js';
import { startAgent, writeAgentFile } from './helpers/agent-process.js';
import { freePort, runCli, startServe } from './helpers/cli.js';
import { requireProgram, spawnDaemon, tempDir } from './helpers/daemons.js';
import { createNetns, netnsUnavailable } from './helpers/netns.js';
import { VERSION } from '../src/shared/version.js';

const REDIS = '/usr/bin/redis-server';
/** A few ports, probed slowly, so that a run lasts well past its first chunk (the agent is killed then). */
const SCAN_PORTS = '21,22,23,25,80,110,143,443,3306,5432,8080';
const REDIS_PORT = 21;

interface RunView {
  run_index: number;
  status: string;
  outcome: string | null;
  engine: string | null;
  engine_version: string | null;
  engine_detail: string | null;
  findings_count: number;
  hosts_up: number;
}
interface FindingView {
  scan_uuid: string;
  rule_id: string;
  host_ip: string;
  port: number | null;
}

/** serve listens on plain HTTP on the namespace's host address, not loopback: the agent needs the lab flag. */
const LAB_HTTP = ['--insecure-http'];

test(`the local agent, downloaded through the API, scans a namespace's private range and uploads to the service (${STORE_KIND})`, { timeout: 600_000 }, async (t) => {
  const missing = await netnsUnavailable();
  if (missing) return t.skip(missing);
  if (!requireProgram(t, REDIS, 'redis-server')) return;
  // .10 lies in the scan's range (.8/30), .2 outside it: both serve redis without a password.
  const ns = await createNetns(t, [2, 10]);
  const inRange = `${ns.prefix}.10`;
  const outside = `${ns.prefix}.2`;
  for (const address of [inRange, outside]) {
    await spawnDaemon(t, ns.exec[0]!, [...ns.exec.slice(1), REDIS, '--port', String(REDIS_PORT), '--bind', address, '--save', '', '--appendonly', 'no', '--protected-mode', 'no'], REDIS_PORT, undefined, address);
  }

  const dataDir = await tempDir(t, 'agent-e2e');
  const storeEnv = STORE_KIND === 'postgres' ? (await openTestStore(t, { migrate: false })).env : {};
  const port = await freePort();
  const base = `http://${ns.hostAddress}:${port}`;
  const env = {
    RAMPART_DATA_DIR: dataDir, RAMPART_LOG_LEVEL: 'info', RAMPART_HOST: ns.hostAddress, RAMPART_PORT: String(port), RAMPART_BASE_URL: base,
    RAMPART_AGENT_LEASE_SECONDS: '10', RAMPART_SCAN_PORTS: SCAN_PORTS, RAMPART_SCAN_RATE: '2', ...storeEnv,
  };
  const server = startServe(t, env);
  await server.waitForLog((l) => typeof l.msg === 'string' && l.msg.startsWith('Rampart ') && l.msg.includes('listening'));
  assert.equal((await runCli(['user', 'create', '--email', 'lab@example.com', '--password', 'long enough pass', '--role', 'pro'], env)).code, 0);
  const key = (await runCli(['key', 'create', '--email', 'lab@example.com'], env)).stdout.trim().split('\n').at(-1)!;
  const { token } = (await (await fetch(`${base}/api/token?key=${key}`, { method: 'POST' })).json()) as { token: string };
  const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const api = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const res = await fetch(`${base}/api${path}`, { method, headers: auth, ...(body ? { body: JSON.stringify(body) } : {}) });
    assert.equal(res.status, 200, `${method} ${path}: ${await res.clone().text()}`);
    return (await res.json()) as T;
  };
  const newScan = (name: string, target: string) =>
    api<{ uuid: string }>('POST', '/new-scan', { scan_name: name, scan_type: 'OpenVas', scan_frequency: 'Unmanaged', scan_time_zone: 'UTC', scan_email: 'lab@example.com', scan_target: target });
  const download = async (uuid: string): Promise<string> => {
    const res = await fetch(`${base}/api/scans/${uuid}/agent`, { headers: { authorization: auth.authorization } });
    assert.equal(res.status, 200, await res.clone().text());
    // Each download in its own empty directory: the file must run without anything beside it.
    return writeAgentFile(await tempDir(t, 'agent-file'), Buffer.from(await res.arrayBuffer()));
  };
  const runs = async (uuid: string) => (await api<{ runs: RunView[] }>('GET', `/scans/${uuid}/runs`)).runs;

  const { uuid } = await newScan('Lab range', `${ns.prefix}.8/30`);
  const agentFile = await download(uuid);

  // serve has no TLS here: plain HTTP off loopback is refused unless the lab flag says otherwise.
  const clear = startAgent(t, agentFile, [], ns.exec);
  assert.equal(await clear.exited, 2, clear.output());
  assert.match(clear.output(), /the service must be reached over HTTPS; plain HTTP only on loopback/);

  // The first agent is killed once it has uploaded its first chunk: the run is half-uploaded.
  const first = startAgent(t, agentFile, LAB_HTTP, ns.exec);
  await first.waitForLine(/warning: --insecure-http: the credential travels in clear/);
  const took = await first.waitForLine(/took run #(\d+)/);
  const runIndex = Number(/took run #(\d+)/.exec(took)![1]);
  await first.waitForLine(/ chunk 0 uploaded/);
  first.child.kill('SIGKILL');
  assert.equal(await first.exited, null);
  assert.equal((await runs(uuid)).find((r) => r.run_index === runIndex)?.status, 'current', 'the killed attempt did not complete the run');

  // Started again on the same machine, it is the same agent: it retakes its run at once and finishes it.
  const second = startAgent(t, agentFile, LAB_HTTP, ns.exec);
  assert.equal(await second.exited, 0, second.output());
  assert.match(second.output(), new RegExp(`took run #${runIndex}\\b`));
  assert.match(second.output(), new RegExp(`run #${runIndex} completed: \\d+ findings recorded`));

  const [run, ...others] = await runs(uuid);
  assert.equal(others.length, 0, 'one run, retaken, not a second one');
  assert.equal(run!.status, 'completed');
  assert.equal(run!.outcome, 'succeeded');
  assert.equal(`${run!.engine} ${run!.engine_version}`, `rampart agent ${VERSION}`);
  assert.equal(run!.engine_detail, `on ${hostname()}`);

  const findings = (await api<{ data: FindingView[] }>('GET', '/vulnerabilities?per_page=100')).data.filter((f) => f.scan_uuid === uuid);
  assert.ok(findings.some((f) => f.rule_id === 'rampart:redis-noauth' && f.host_ip === inRange && f.port === REDIS_PORT), JSON.stringify(findings));
  const keys = findings.map((f) => `${f.rule_id} ${f.host_ip}:${f.port}`);
  assert.equal(new Set(keys).size, keys.length, `no duplicate finding: ${keys.join(', ')}`);
  const inScope = (ip: string) => ip.startsWith(`${ns.prefix}.`) && Number(ip.split('.')[3]) >= 8 && Number(ip.split('.')[3]) <= 11;
  assert.deepEqual(findings.filter((f) => !inScope(f.host_ip)), [], `nothing outside ${ns.prefix}.8/30 (the redis on ${outside} is not the scan's)`);
  assert.equal(run!.findings_count, findings.length);
  // The killed attempt's chunk (the host found up) was dropped, not added to the retake's.
  assert.equal(run!.hosts_up, 1);

  // Nothing waits now: the agent says so and exits 0.
  const idle = startAgent(t, agentFile, LAB_HTTP, ns.exec);
  assert.equal(await idle.exited, 0, idle.output());
  assert.match(idle.output(), /no run is waiting for an agent \(next scheduled: none/);

  // A new download revokes the earlier file's credential.
  const renewed = await download(uuid);
  const revoked = startAgent(t, agentFile, LAB_HTTP, ns.exec);
  assert.equal(await revoked.exited, 2, revoked.output());
  assert.match(revoked.output(), /the service refused this agent's credential: .*download/i);
  const current = startAgent(t, renewed, LAB_HTTP, ns.exec);
  assert.equal(await current.exited, 0, current.output());

  // The credential names one scan: another scan's uuid with it is refused, as is any other endpoint.
  const other = await newScan('Other lab', outside);
  const config = /globalThis\.RAMPART_AGENT = (\{.*?\});\n/.exec(readFileSync(renewed, 'utf8'))![1]!;
  const { credential } = JSON.parse(config) as { credential: string };
  const asAgent = { authorization: `Bearer ${credential}`, 'content-type': 'application/json' };
  const self = { agent_id: 'x', version: VERSION, hostname: 'h', gvmd: false };
  const foreign = await fetch(`${base}/api/scans/${other.uuid}/agent/check-in`, { method: 'POST', headers: asAgent, body: JSON.stringify(self) });
  assert.equal(foreign.status, 404);
  const foreignChunk = await fetch(`${base}/api/scans/${other.uuid}/agent/runs/1/chunks/0`, { method: 'PUT', headers: asAgent, body: JSON.stringify({ lease: 'x', events: [] }) });
  assert.equal(foreignChunk.status, 404);
  assert.equal((await fetch(`${base}/api/scans`, { headers: asAgent })).status, 401);
  const misdirected = await writeAgentFile(await tempDir(t, 'agent-file'), readFileSync(renewed, 'utf8').replace(`"scanUuid":"${uuid}"`, `"scanUuid":"${other.uuid}"`));
  const refused = startAgent(t, misdirected, LAB_HTTP, ns.exec);
  assert.equal(await refused.exited, 2, refused.output());
  assert.match(refused.output(), /the scan no longer exists/);
  assert.equal((await runs(other.uuid)).every((r) => r.status !== 'completed'), true);
});

test(`an expired credential: the agent prints the service's message and exits 2 (${STORE_KIND})`, async (t) => {
  let now = new Date();
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  // In process for the clock; the agent is still the downloaded file, run as a process.
  const ctx = await buildTestApp(t, { env: { RAMPART_BASE_URL: base }, clock: () => now });
  await ctx.app.listen({ port, host: '127.0.0.1' });
  const owner = await signUp(ctx, { role: 'pro' });
  const created = await ctx.app.inject({
    method: 'POST', url: '/api/new-scan', headers: owner.auth,
    payload: { scan_name: 'Lab', scan_type: 'OpenVas', scan_frequency: 'Unmanaged', scan_time_zone: 'UTC', scan_email: 'lab@example.com', scan_target: '10.213.0.0/30' },
  });
  assert.equal(created.statusCode, 200, created.body);
  const download = await ctx.app.inject({ method: 'GET', url: `/api/scans/${created.json().uuid}/agent`, headers: owner.auth });
  assert.equal(download.statusCode, 200, download.body);
  const file = await writeAgentFile(await tempDir(t, 'agent-file'), download.rawPayload);
  const expiresAt = /"credentialExpiresAt":"([^"]+)"/.exec(download.body)![1]!;

  now = new Date(new Date(expiresAt).getTime() + 1000);
  for (const args of [[], ['--daemon']]) {
    const agent = startAgent(t, file, args);
    assert.equal(await agent.exited, 2, agent.output());
    assert.ok(agent.output().includes(`This agent's credential expired on ${expiresAt}: download the agent again from the scan's page.`), agent.output());
  }
});
