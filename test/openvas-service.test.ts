/**
 * OpenVas scans on the service: the gvmd settings checked at start-up, a scan run by the worker
 * through gvmd (fake-gvmd.ts) to stored findings, and without gvmd the deployment's choice: Rampart's
 * scanner saying in the run and in each of the five reports that OpenVAS did not run
 * (RAMPART_OPENVAS_FALLBACK=rampart), or the scan refused at creation (refuse).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { loadConfig } from '../src/config.js';
import { OPENVAS_FALLBACK_DETAIL, OPENVAS_FALLBACK_NOTE, OPENVAS_REFUSED_REASON } from '../src/engines/registry.js';
import { buildTestApp, signUp, startTestBackground, tempDir, type TestApp } from './helpers/app.js';
import { GMP_SKIP, GVMD_PASSWORD, GVMD_USER, startFakeGvmd } from './helpers/fake-gvmd.js';
import { closedPort, waitFor } from './helpers/servers.js';

const HAS_PDFTOTEXT = !spawnSync('pdftotext', ['-v']).error;
const SCAN = { scan_name: 'Network', scan_type: 'OpenVas', scan_frequency: 'One-time', scan_time_zone: 'UTC', scan_email: 'ops@example.com', scan_target: '127.0.0.1' };

async function completedRun(ctx: TestApp, auth: { authorization: string }, uuid: string) {
  return waitFor('the OpenVas run to complete', async () => {
    const runs = (await ctx.app.inject({ method: 'GET', url: `/api/scans/${uuid}/runs`, headers: auth })).json().runs;
    return runs[0]?.status === 'completed' ? runs[0] : undefined;
  });
}

async function createScan(ctx: TestApp, auth: { authorization: string }, extra: Record<string, unknown> = {}) {
  return ctx.app.inject({ method: 'POST', url: '/api/new-scan', headers: auth, payload: { ...SCAN, ...extra } });
}

test('start-up refuses half a gvmd configuration with a message naming what to set', async (t) => {
  const base = { RAMPART_JWT_SECRET: 'x'.repeat(40) };
  assert.throws(() => loadConfig({ ...base, RAMPART_GVMD_SOCKET: '/run/gvmd/gvmd.sock', RAMPART_GVMD_HOST: 'gvmd.example', RAMPART_GVMD_USERNAME: 'u', RAMPART_GVMD_PASSWORD: 'p' }), /RAMPART_GVMD_SOCKET and RAMPART_GVMD_HOST are both set/);
  assert.throws(() => loadConfig({ ...base, RAMPART_GVMD_SOCKET: '/run/gvmd/gvmd.sock', RAMPART_GVMD_USERNAME: 'u' }), /without RAMPART_GVMD_PASSWORD/);
  assert.throws(() => loadConfig({ ...base, RAMPART_GVMD_SOCKET: '/run/gvmd/gvmd.sock' }), /without RAMPART_GVMD_USERNAME and RAMPART_GVMD_PASSWORD/);
  assert.throws(() => loadConfig({ ...base, RAMPART_GVMD_HOST: 'gvmd.example', RAMPART_GVMD_USERNAME: 'u', RAMPART_GVMD_PASSWORD: 'p' }), /needs RAMPART_GVMD_CA_FILE/);
  assert.throws(() => loadConfig({ ...base, RAMPART_GVMD_USERNAME: 'u', RAMPART_GVMD_PASSWORD: 'p' }), /set RAMPART_GVMD_SOCKET or RAMPART_GVMD_HOST/);
  assert.throws(() => loadConfig({ ...base, RAMPART_OPENVAS_FALLBACK: 'maybe' }), /RAMPART_OPENVAS_FALLBACK/);
  const tls = loadConfig({ ...base, RAMPART_GVMD_HOST: 'gvmd.example', RAMPART_GVMD_CA_FILE: '/etc/gvm/ca.pem', RAMPART_GVMD_USERNAME: 'u', RAMPART_GVMD_PASSWORD: 'p' });
  assert.deepEqual(tls.gvmd, { host: 'gvmd.example', port: 9390, caFile: '/etc/gvm/ca.pem', verifyHostname: true, username: 'u', password: 'p', scanConfig: 'Full and fast', portList: 'All IANA assigned TCP' });
  assert.equal(loadConfig(base).gvmd, undefined);
  // Without the name check, the CA file must be gvmd's one CA: a bundle would let any host it signed pass for gvmd.
  const dir = await tempDir(t);
  const pem = (n: number) => '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n'.repeat(n);
  await writeFile(path.join(dir, 'one.pem'), pem(1));
  await writeFile(path.join(dir, 'bundle.pem'), pem(3));
  const unnamed = (caFile: string) => loadConfig({ ...base, RAMPART_GVMD_HOST: 'gvmd.example', RAMPART_GVMD_CA_FILE: caFile, RAMPART_GVMD_VERIFY_HOSTNAME: 'false', RAMPART_GVMD_USERNAME: 'u', RAMPART_GVMD_PASSWORD: 'p' });
  assert.throws(() => unnamed(path.join(dir, 'bundle.pem')), /RAMPART_GVMD_CA_FILE .*bundle\.pem holds 3 certificates, and RAMPART_GVMD_VERIFY_HOSTNAME=false: without the name check, any host/);
  assert.throws(() => unnamed(path.join(dir, 'absent.pem')), /absent\.pem cannot be read \(ENOENT\)/);
  assert.equal(unnamed(path.join(dir, 'one.pem')).gvmd?.verifyHostname, false);
  // With the name check a bundle is acceptable: the name still has to match.
  assert.equal(loadConfig({ ...base, RAMPART_GVMD_HOST: 'gvmd.example', RAMPART_GVMD_CA_FILE: path.join(dir, 'bundle.pem'), RAMPART_GVMD_USERNAME: 'u', RAMPART_GVMD_PASSWORD: 'p' }).gvmd?.verifyHostname, true);
  assert.equal(loadConfig(base).openvasFallback, 'rampart');
});

test('with gvmd configured, the worker runs an OpenVas scan through it: engine line, findings with NVT rule ids and QoD, nothing left in gvmd', { skip: GMP_SKIP }, async (t) => {
  const gvmd = await startFakeGvmd(t);
  const ctx = await buildTestApp(t, {
    env: { RAMPART_ALLOW_TARGETS: '127.0.0.0/8', RAMPART_WORKER_POLL_MS: '20', RAMPART_GVMD_SOCKET: gvmd.socket!, RAMPART_GVMD_USERNAME: GVMD_USER, RAMPART_GVMD_PASSWORD: GVMD_PASSWORD },
  });
  const background = startTestBackground(ctx);
  t.after(() => background.stop());
  const user = await signUp(ctx, { role: 'pro' });
  const created = await createScan(ctx, user.auth);
  assert.equal(created.statusCode, 200, created.body);
  const run = await completedRun(ctx, user.auth, created.json().uuid);
  assert.equal(run.outcome, 'succeeded', run.error);
  assert.deepEqual([run.engine, run.engine_version, run.engine_detail], ['openvas', '22.7', `via gvmd ${gvmd.socket}`]);
  assert.equal(run.notes.includes(OPENVAS_FALLBACK_NOTE), false);
  const findings = await ctx.store.db.selectFrom('findings').select(['rule_id', 'qod', 'engine', 'host_ip']).where('user_id', '=', user.userId).execute();
  assert.deepEqual(findings, [{ rule_id: 'openvas:1.3.6.1.4.1.25623.1.0.836484', qod: 80, engine: 'openvas', host_ip: '10.99.99.99' }]);
  assert.deepEqual(gvmd.created.targets.map((target) => target.hosts), ['127.0.0.1']);
  assert.deepEqual(gvmd.deleted.tasks.length, 1);
  assert.deepEqual(gvmd.violations, []);
});

test("without gvmd (fallback rampart) the run's engine line, its notes and all five reports say Rampart's scanner ran instead of OpenVAS", async (t) => {
  const ctx = await buildTestApp(t, { env: { RAMPART_ALLOW_TARGETS: '127.0.0.0/8', RAMPART_WORKER_POLL_MS: '20', RAMPART_SCAN_PORTS: String(await closedPort()) } });
  const background = startTestBackground(ctx);
  t.after(() => background.stop());
  const user = await signUp(ctx, { role: 'pro' });
  const created = await createScan(ctx, user.auth);
  assert.equal(created.statusCode, 200, created.body);
  const uuid = created.json().uuid;
  const run = await completedRun(ctx, user.auth, uuid);
  assert.equal(run.engine, 'rampart');
  assert.equal(run.engine_detail, OPENVAS_FALLBACK_DETAIL);
  assert.ok(run.notes.includes(OPENVAS_FALLBACK_NOTE), JSON.stringify(run.notes));
  const line = `rampart ${run.engine_version} ${OPENVAS_FALLBACK_DETAIL}`;
  const flat = (text: string) => text.replace(/\s+/g, ' ');
  for (const format of ['html', 'txt', 'xml', 'pdf', 'csv'] as const) {
    const res = await ctx.app.inject({ method: 'GET', url: `/api/scans/${format}/${uuid}`, headers: user.auth });
    assert.equal(res.statusCode, 200, `${format}: ${res.body}`);
    assert.equal(res.headers['x-rampart-engine'], line, format);
    if (format === 'csv') continue;
    if (format === 'pdf' && !HAS_PDFTOTEXT) continue;
    const text = format === 'pdf' ? spawnSync('pdftotext', ['-layout', '-', '-'], { input: res.rawPayload }).stdout.toString('utf8') : res.body;
    assert.ok(flat(text).includes(line), `${format} names the engine and what it stood in for`);
    // The note's start (its apostrophe is escaped differently by each format).
    assert.ok(flat(text).includes(OPENVAS_FALLBACK_NOTE.split(':')[0]!), `${format} carries the note`);
  }
});

test('with RAMPART_OPENVAS_FALLBACK=refuse and no gvmd, an OpenVas scan is refused at creation (422) saying what to set; an Unmanaged one is still created', async (t) => {
  const ctx = await buildTestApp(t, { env: { RAMPART_ALLOW_TARGETS: '127.0.0.0/8', RAMPART_OPENVAS_FALLBACK: 'refuse' } });
  const user = await signUp(ctx, { role: 'pro' });
  const refused = await createScan(ctx, user.auth);
  assert.equal(refused.statusCode, 422, refused.body);
  assert.deepEqual(refused.json().errors.scan_type, [OPENVAS_REFUSED_REASON]);
  assert.match(refused.json().message, /OpenVas scans need a Greenbone gvmd: set RAMPART_GVMD_SOCKET/);
  const rampart = await createScan(ctx, user.auth, { scan_type: 'Rampart' });
  assert.equal(rampart.statusCode, 200, 'other types are not affected');
  const unmanaged = await createScan(ctx, user.auth, { scan_frequency: 'Unmanaged', scan_target: '192.168.0.0/24' });
  assert.equal(unmanaged.statusCode, 200, unmanaged.body);
  const runs = (await ctx.app.inject({ method: 'GET', url: `/api/scans/${unmanaged.json().uuid}/runs`, headers: user.auth })).json();
  assert.equal(runs.scan.current_progress, 'Awaiting agent');
});
