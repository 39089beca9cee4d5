/**
 * Nuclei scans through the API with the built-in nuclei engine: community templates (copied at
 * test time from the shared set into a temporary templates directory, never committed) run on
 * loopback servers that imitate a vulnerable product (HTTP and HTTPS) and its patched twin, found by the Rampart
 * port scan (a host target) or named directly (a URL target).
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { test, type TestContext } from 'node:test';
import { startBackground } from '../src/runs/background.js';
import { buildTestApp, signUp, STORE_KIND, tempDir, type TestApp } from './helpers/app.js';
import { hasOpenssl, TestPki } from './helpers/pki.js';
import { listenOnLoopback, waitFor } from './helpers/servers.js';
import { SHARED_DIR } from './helpers/shared.js';
import { fast, skip as noVulnDbFixtures, startSources } from './helpers/vulndb-sources.js';
import { syncVulnDb } from '../src/vulndb/vulndb.service.js';

const TEMPLATES = path.join(SHARED_DIR, 'third_party', 'nuclei-templates');
const NO_TEMPLATES = existsSync(TEMPLATES) ? false : `the shared nuclei templates are absent (${TEMPLATES}); set RAMPART_SHARED_DIR`;
const silent = { info() {}, warn() {}, error() {} };

/** Community templates the scans run: a CVE with a word/status matcher, and a version-only DSL one. */
const USED = ['http/cves/2021/CVE-2021-28854.yaml'];

/** VICIdial leaking its MySQL error log (CVE-2021-28854), or the patched twin that does not. */
function vicidial(vulnerable: boolean) {
  return (req: http.IncomingMessage, res: http.ServerResponse): void => {
    if (vulnerable && req.url === '/agc/vicidial_mysqli_errors.txt') {
      return void res.writeHead(200, { 'content-type': 'text/plain' }).end('2021-03-01 vdc_db_query|SELECT count(*) from vicidial_users|1045\n');
    }
    res.writeHead(404, { 'content-type': 'text/html' }).end('<html><body>Not Found</body></html>');
  };
}

async function listen(t: TestContext, handler: http.RequestListener, tls?: { key: string; cert: string }): Promise<number> {
  const server = tls ? https.createServer(tls, handler) : http.createServer(handler);
  await listenOnLoopback(t, server);
  return (server.address() as AddressInfo).port;
}

/** A templates directory holding copies of `files` from the shared set. */
async function templatesDir(t: TestContext, files: string[]): Promise<string> {
  const dir = await tempDir(t);
  for (const file of files) {
    await fs.mkdir(path.join(dir, path.dirname(file)), { recursive: true });
    await fs.copyFile(path.join(TEMPLATES, file), path.join(dir, file));
  }
  return dir;
}

const SCAN = { scan_name: 'nuclei', scan_type: 'Nuclei', scan_frequency: 'One-time', scan_time_zone: 'UTC', scan_email: 'ops@example.com' };

async function runScan(ctx: TestApp, auth: Record<string, string>, target: string, type = 'Nuclei') {
  const created = await ctx.app.inject({ method: 'POST', url: '/api/new-scan', headers: auth, payload: { ...SCAN, scan_type: type, scan_target: target } });
  assert.equal(created.statusCode, 200, created.body);
  const uuid = created.json().uuid as string;
  const run = await waitFor(
    `the scan of ${target} to complete`,
    async () => {
      const summary = (await ctx.app.inject({ method: 'GET', url: `/api/scans/${uuid}/runs`, headers: auth })).json();
      return summary.runs[0]?.status === 'completed' ? summary.runs[0] : undefined;
    },
    90_000,
  );
  return { uuid, run };
}

/** A test app with a worker: loopback allowed, `dir` as the templates, `scanPorts` as RAMPART_SCAN_PORTS; and a pro user. */
async function startNucleiApp(t: TestContext, dir: string, scanPorts: string): Promise<{ ctx: TestApp; user: Awaited<ReturnType<typeof signUp>> }> {
  const ctx = await buildTestApp(t, {
    env: {
      RAMPART_ALLOW_TARGETS: '127.0.0.0/8',
      RAMPART_SCAN_PORTS: scanPorts,
      RAMPART_CONNECT_TIMEOUT_MS: '1000',
      RAMPART_READ_TIMEOUT_MS: '2000',
      RAMPART_WORKER_POLL_MS: '50',
      RAMPART_NUCLEI_TEMPLATES: dir,
      RAMPART_RATE_LIMITS: 'pro=100000',
    },
  });
  const user = await signUp(ctx, { role: 'pro' });
  const background = startBackground({ db: ctx.store.db, config: ctx.config, guard: ctx.app.ctx.guard, queue: ctx.app.ctx.queue, log: silent, worker: true, scheduler: false });
  t.after(() => background.stop());
  return { ctx, user };
}

test(`a Nuclei scan runs community templates on the services it finds and on URL targets (${STORE_KIND})`, { skip: NO_TEMPLATES, timeout: 120_000 }, async (t) => {
  const vulnerable = await listen(t, vicidial(true));
  const patched = await listen(t, vicidial(false));
  // The same product behind TLS, when the openssl CLI can make a certificate: detection says HTTPS.
  const pki = hasOpenssl() ? new TestPki() : undefined;
  if (pki) t.after(() => pki.cleanup());
  const secure = pki ? await listen(t, vicidial(true), pki.issue({ cn: 'localhost', selfSigned: true })) : undefined;
  const dir = await templatesDir(t, USED);
  const { ctx, user } = await startNucleiApp(t, dir, [vulnerable, patched, ...(secure ? [secure] : [])].join(','));

  // A host target: the Rampart port scan finds both web servers, the template runs on each.
  const { run } = await runScan(ctx, user.auth, '127.0.0.1');
  assert.equal(run.outcome, 'succeeded', run.error);
  assert.equal(run.engine, 'rampart-nuclei');
  assert.match(JSON.stringify(run), /templates rampart-test-\w+, 1 of 1 templates/, 'the run says which template set ran');
  const findings = await ctx.store.db.selectFrom('findings').selectAll().where('user_id', '=', user.userId).orderBy('port').execute();
  const expected = [`CVE-2021-28854 ${vulnerable} http`, ...(secure ? [`CVE-2021-28854 ${secure} https`] : [])];
  assert.deepEqual(findings.map((f) => `${f.rule_id} ${f.port} ${f.service}`).sort(), expected.sort(), 'the vulnerable servers only, not the patched twin');
  if (secure) assert.equal(findings.find((f) => f.port === secure)!.url, `https://127.0.0.1:${secure}/agc/vicidial_mysqli_errors.txt`);
  else t.diagnostic('no openssl CLI: the HTTPS service was not tested');
  const found = findings.find((f) => f.port === vulnerable)!;
  assert.equal(found.threat, 'High');
  assert.deepEqual(found.cve, ['CVE-2021-28854']);
  assert.equal(found.name, 'VICIdial Sensitive Information Disclosure');
  assert.equal(found.url, `http://127.0.0.1:${vulnerable}/agc/vicidial_mysqli_errors.txt`);
  assert.equal(found.method, null);
  assert.equal(found.qod, 95);
  assert.equal(found.service, 'http');
  assert.match(found.evidence, /Matched at http:\/\/127\.0\.0\.1:\d+\/agc\/vicidial_mysqli_errors\.txt/);
  assert.match(found.evidence, /vdc_db_query/, 'the response excerpt is in the evidence');
  assert.match(found.solution, /latest security patches/);
  assert.deepEqual(found.engines, ['rampart-nuclei']);

  // A URL target: its web service directly, no port scan.
  const url = await runScan(ctx, user.auth, `http://127.0.0.1:${patched}/`);
  assert.equal(url.run.outcome, 'succeeded', url.run.error);
  const after = await ctx.store.db.selectFrom('findings').selectAll().where('user_id', '=', user.userId).execute();
  assert.equal(after.length, findings.length, 'the patched twin gave no finding');
});

test(`Nuclei scans are refused while no templates directory is configured, and accept URLs once one is (${STORE_KIND})`, async (t) => {
  const none = await buildTestApp(t, { env: { RAMPART_ALLOW_TARGETS: '127.0.0.0/8' } });
  const user = await signUp(none);
  const refused = await none.app.inject({ method: 'POST', url: '/api/new-scan', headers: user.auth, payload: { ...SCAN, scan_target: '127.0.0.1' } });
  assert.equal(refused.statusCode, 422, refused.body);
  assert.match(refused.json().errors.scan_type[0], /nuclei-templates does not exist: run `rampart templates sync` or set RAMPART_NUCLEI_TEMPLATES/);
  // Workers still claim Nuclei runs, so that templates synced later need no restart (until then a run fails with the reason).
  assert.ok(none.app.ctx.engines.availableTypes().includes('Nuclei'));

  const empty = await tempDir(t);
  const set = await buildTestApp(t, { env: { RAMPART_ALLOW_TARGETS: '127.0.0.0/8', RAMPART_NUCLEI_TEMPLATES: empty } });
  const other = await signUp(set);
  const post = (target: string) => set.app.inject({ method: 'POST', url: '/api/new-scan', headers: other.auth, payload: { ...SCAN, scan_target: target } });
  const stillRefused = await post('127.0.0.1');
  assert.equal(stillRefused.statusCode, 422);
  assert.match(stillRefused.json().errors.scan_type[0], /holds no \.yaml template: point RAMPART_NUCLEI_TEMPLATES at a directory of nuclei templates/);
  // A template appears (as `rampart templates sync` would write it): no restart needed.
  await fs.writeFile(path.join(empty, 'probe.yaml'), 'id: probe\ninfo:\n  name: probe\n  severity: info\nhttp:\n  - path: ["{{BaseURL}}"]\n    matchers:\n      - type: status\n        status: [200]\n');
  assert.equal((await post('http://127.0.0.1:8080/app/')).statusCode, 200);
  assert.equal((await post('127.0.0.1:8080')).statusCode, 200, 'host:port is a Nuclei target');
  const guarded = await post('10.1.2.3:80');
  assert.equal(guarded.statusCode, 422, 'the address guard judges the host of a host:port');
  assert.match(guarded.json().errors.scan_target[0], /^The target 10\.1\.2\.3:80 is a private address; managed scans cannot reach it/);
  // A union of literals says its values, not the option's description.
  const options = (engine_options: unknown) => set.app.inject({ method: 'POST', url: '/api/new-scan', headers: other.auth, payload: { ...SCAN, scan_target: '127.0.0.1', engine_options } });
  const badSeverity = await options({ severities: ['high', 'urgent'] });
  assert.equal(badSeverity.statusCode, 422, badSeverity.body);
  assert.deepEqual(badSeverity.json().errors['engine_options.severities'], ["The engine_options.severities field's items must be one of: info, low, medium, high, critical, unknown."]);
  assert.deepEqual((await options({ severities: [] })).json().errors['engine_options.severities'], ['The engine_options.severities field must have at least 1 item.']);
  const badPort = await post('127.0.0.1:65536');
  assert.equal(badPort.statusCode, 422);
  assert.match(badPort.json().errors.scan_target[0], /"127\.0\.0\.1:65536" has an invalid port; ports are 1 to 65535\./);
});

test(`a Nuclei scan of host:port detects that service's protocol and runs the templates there only (${STORE_KIND})`, { skip: NO_TEMPLATES, timeout: 120_000 }, async (t) => {
  const vulnerable = await listen(t, vicidial(true));
  const other = await listen(t, vicidial(true));
  const dir = await templatesDir(t, USED);
  // The deployment's port list names neither server: the target's own port is what is scanned.
  const { ctx, user } = await startNucleiApp(t, dir, String(other === 1 ? 2 : 1));

  const { run } = await runScan(ctx, user.auth, `127.0.0.1:${vulnerable}`);
  assert.equal(run.outcome, 'succeeded', run.error);
  const findings = await ctx.store.db.selectFrom('findings').selectAll().where('user_id', '=', user.userId).execute();
  assert.deepEqual(findings.map((f) => `${f.rule_id} ${f.port} ${f.service} ${f.url}`), [`CVE-2021-28854 ${vulnerable} http http://127.0.0.1:${vulnerable}/agc/vicidial_mysqli_errors.txt`], 'the named service only, found to speak HTTP');
  const targets = (await ctx.app.inject({ method: 'GET', url: '/api/targets', headers: user.auth })).json();
  assert.match(JSON.stringify(targets), /"127\.0\.0\.1"/, 'the Target resource is the host');
});

/** Apache 2.4.49 with the path traversal of CVE-2021-41773 open: /etc/passwd through /icons/. */
function apache2449(req: http.IncomingMessage, res: http.ServerResponse): void {
  const headers = { server: 'Apache/2.4.49 (Unix)', 'content-type': 'text/plain' };
  if (/^\/(icons|cgi-bin)\/\.%2e\/.*etc\/passwd$/.test(req.url ?? '')) return void res.writeHead(200, headers).end('root:x:0:0:root:/root:/bin/bash\ndaemon:x:1:1::/usr/sbin:/usr/sbin/nologin\n');
  res.writeHead(404, { ...headers, 'content-type': 'text/html' }).end('<html><body>Not Found</body></html>');
}

test(`the same CVE found by Rampart's version match and by a template is one finding listing both engines (${STORE_KIND})`, { skip: NO_TEMPLATES || noVulnDbFixtures, timeout: 180_000 }, async (t) => {
  const port = await listen(t, apache2449);
  const dir = await templatesDir(t, ['http/cves/2021/CVE-2021-41773.yaml']);
  const { ctx, user } = await startNucleiApp(t, dir, String(port));
  const sources = await startSources(t);
  await syncVulnDb(ctx.store.db, fast(sources.sources));

  const rampart = await runScan(ctx, user.auth, '127.0.0.1', 'Rampart');
  assert.equal(rampart.run.outcome, 'succeeded', rampart.run.error);
  const nuclei = await runScan(ctx, user.auth, '127.0.0.1');
  assert.equal(nuclei.run.outcome, 'succeeded', nuclei.run.error);

  const rows = await ctx.store.db.selectFrom('findings').selectAll().where('user_id', '=', user.userId).execute();
  const traversal = rows.filter((f) => f.cve.includes('CVE-2021-41773'));
  assert.equal(traversal.length, 1, `one finding: ${traversal.map((f) => `${f.rule_id} ${f.url}`).join(', ')}`);
  const [merged] = traversal;
  assert.deepEqual(merged!.engines, ['rampart', 'rampart-nuclei']);
  assert.equal(merged!.rule_id, 'rampart:known-vulnerability', 'the rule id stays the first reporter\'s');
  assert.equal(merged!.url, `http://127.0.0.1:${port}/icons/.%2e/%2e%2e/%2e%2e/%2e%2e/%2e%2e/%2e%2e/etc/passwd`);
  assert.equal(merged!.port, port);
  // Each engine's evidence is kept under its name.
  const api = (await ctx.app.inject({ method: 'GET', url: `/api/vulnerabilities?per_page=100`, headers: user.auth })).json().data.find((v: { cve: string[] }) => v.cve.includes('CVE-2021-41773'));
  assert.match(api.evidence, /rampart[\s\S]*Apache[\s\S]*rampart-nuclei[\s\S]*root:x:0:0/i);
});
