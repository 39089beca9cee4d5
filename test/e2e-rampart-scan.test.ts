/**
 * A Rampart scan through the API against real services on loopback, with a vulnerability database
 * synced from the real NVD/KEV/EPSS fixtures: an HTTP server with the classic weaknesses (and an
 * Apache version NVD knows to be vulnerable), an HTTPS server with an expired self-signed
 * certificate that accepts TLS 1.0, redis-server without a password, vsftpd with anonymous login,
 * and sshd with weak algorithms. Every expected finding is asserted with its threat.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { test, type TestContext } from 'node:test';
import { startBackground } from '../src/runs/background.js';
import { syncVulnDb } from '../src/vulndb/vulndb.service.js';
import { buildTestApp, signUp, STORE_KIND } from './helpers/app.js';
import { startRedis, startSshd, startVsftpd } from './helpers/daemons.js';
import { hasOpenssl, TestPki } from './helpers/pki.js';
import { closedPort, waitFor } from './helpers/servers.js';
import { fast, skip as noFixtures, startSources } from './helpers/vulndb-sources.js';

const silent = { info() {}, warn() {}, error() {} };

/** The weak web application: no security headers, versions disclosed, files exposed, TRACE on. */
function weakApp(req: http.IncomingMessage, res: http.ServerResponse): void {
  const headers = { server: 'Apache/2.4.49 (Unix)', 'x-powered-by': 'PHP/7.4.3', 'content-type': 'text/html' };
  if (req.method === 'TRACE') {
    // Like Apache with TraceEnable on: the request comes back as it was received, headers included.
    const echoed = [`TRACE ${req.url} HTTP/${req.httpVersion}`];
    for (let i = 0; i < req.rawHeaders.length; i += 2) echoed.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`);
    return void res.writeHead(200, { ...headers, 'content-type': 'message/http' }).end(`${echoed.join('\r\n')}\r\n\r\n`);
  }
  switch (req.url) {
    case '/':
      return void res
        .writeHead(200, { ...headers, 'set-cookie': 'PHPSESSID=abc123; path=/' })
        .end('<html><head><title>Index of /</title></head><body><h1>Index of /</h1><a href="backup/">backup/</a></body></html>');
    case '/.git/HEAD':
      return void res.writeHead(200, { ...headers, 'content-type': 'text/plain' }).end('ref: refs/heads/main\n');
    case '/.env':
      return void res.writeHead(200, { ...headers, 'content-type': 'text/plain' }).end('APP_KEY=base64:c2VjcmV0\nDB_PASSWORD=hunter2\n');
    default:
      return void res.writeHead(404, headers).end('<html><body>Not Found</body></html>');
  }
}

async function listen(t: TestContext, server: http.Server | https.Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => {
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return (server.address() as AddressInfo).port;
}

test(`a Rampart scan of real loopback services finds their weaknesses (${STORE_KIND})`, { timeout: 180_000 }, async (t) => {
  if (!hasOpenssl()) return t.skip('needs the openssl CLI (Debian package openssl)');
  if (noFixtures) return t.skip(String(noFixtures));
  const redis = await startRedis(t);
  const ftp = await startVsftpd(t);
  const ssh = await startSshd(t, ['Ciphers=aes128-cbc,aes256-ctr', 'MACs=hmac-sha1,hmac-sha2-256', 'KexAlgorithms=diffie-hellman-group14-sha1,curve25519-sha256']);
  if (!redis || !ftp || !ssh) return t.skip('needs redis-server, vsftpd and openssh-server (Debian packages), run as root');

  const webPort = await listen(t, http.createServer(weakApp));
  const pki = new TestPki();
  t.after(() => pki.cleanup());
  const expired = pki.issue({ cn: 'localhost', selfSigned: true, start: '20200101000000Z', end: '20210101000000Z' });
  const tlsPort = await listen(t, https.createServer({ ...expired, minVersion: 'TLSv1', ciphers: 'DEFAULT@SECLEVEL=0' }, weakApp));
  const closed = await closedPort();

  const ctx = await buildTestApp(t, {
    env: {
      RAMPART_ALLOW_TARGETS: '127.0.0.0/8',
      RAMPART_SCAN_PORTS: [webPort, tlsPort, redis.port, ftp.port, ssh.port, closed].join(','),
      RAMPART_CONNECT_TIMEOUT_MS: '1000',
      RAMPART_READ_TIMEOUT_MS: '2000',
      RAMPART_WORKER_POLL_MS: '50',
      RAMPART_RATE_LIMITS: 'pro=100000',
    },
  });
  const sources = await startSources(t);
  await syncVulnDb(ctx.store.db, fast(sources.sources));
  const user = await signUp(ctx, { role: 'pro' });
  const background = startBackground({ db: ctx.store.db, config: ctx.config, guard: ctx.app.ctx.guard, queue: ctx.app.ctx.queue, log: silent, worker: true, scheduler: false });
  t.after(() => background.stop());

  const created = await ctx.app.inject({
    method: 'POST',
    url: '/api/new-scan',
    headers: user.auth,
    payload: { scan_name: 'loopback services', scan_type: 'Rampart', scan_frequency: 'One-time', scan_time_zone: 'UTC', scan_email: 'ops@example.com', scan_target: '127.0.0.1' },
  });
  assert.equal(created.statusCode, 200, created.body);
  const uuid = created.json().uuid;

  const progress = new Set<string>();
  const run = await waitFor(
    'the scan to complete',
    async () => {
      const summary = (await ctx.app.inject({ method: 'GET', url: `/api/scans/${uuid}/runs`, headers: user.auth })).json();
      progress.add(summary.scan.current_progress);
      return summary.runs[0]?.status === 'completed' ? summary.runs[0] : undefined;
    },
    150_000,
  );
  assert.equal(run.outcome, 'succeeded', run.error);
  assert.equal(run.scan_progress, 'Completed');
  assert.equal(run.engine, 'rampart');
  assert.ok([...progress].some((p) => /^Running \d+%$/.test(p)) || progress.has('Queued'), `progress was reported: ${[...progress]}`);
  const row = await ctx.store.db.selectFrom('runs').select('progress_percent').executeTakeFirstOrThrow();
  assert.equal(row.progress_percent, 100, 'progress reached 100%');
  assert.ok(!run.notes.some((n: string) => /No vulnerability database/.test(n)), 'the synced database was used');

  const findings = await ctx.store.db.selectFrom('findings').selectAll().where('user_id', '=', user.userId).execute();
  const at = (port: number, rule: string) => findings.find((f) => f.port === port && f.rule_id === `rampart:${rule}`);
  const expect = (port: number, rule: string, threat: string) => {
    const finding = at(port, rule);
    assert.ok(finding, `${rule} on port ${port}; found there: ${findings.filter((f) => f.port === port).map((f) => f.rule_id).join(', ')}`);
    assert.equal(finding.threat, threat, rule);
    assert.ok(finding.evidence.length > 0 && finding.solution.length > 0, `${rule} has evidence and a solution`);
    return finding;
  };

  // Every open port is recorded with its service.
  for (const [port, service] of [[webPort, 'http'], [tlsPort, 'http'], [redis.port, 'redis'], [ftp.port, 'ftp'], [ssh.port, 'ssh']] as const) {
    assert.equal(expect(port, 'open-port', 'Informational').service, service, `service on ${port}`);
  }
  assert.equal(at(closed, 'open-port'), undefined, 'the closed port is not reported');

  // HTTP.
  expect(webPort, 'http-version-disclosure', 'Low');
  expect(webPort, 'http-missing-content-type-options', 'Low');
  expect(webPort, 'http-missing-csp', 'Low');
  expect(webPort, 'http-directory-listing', 'Medium');
  expect(webPort, 'http-git-exposed', 'High');
  expect(webPort, 'http-env-exposed', 'High');
  expect(webPort, 'http-trace-enabled', 'Low');
  expect(webPort, 'http-cookie-no-httponly', 'Low');
  expect(webPort, 'http-no-https-redirect', 'Medium');
  // Apache 2.4.49 is what NVD lists for the path traversal CVE-2021-41773, which CISA lists as exploited.
  const traversal = findings.find((f) => f.port === webPort && f.cve.includes('CVE-2021-41773'));
  assert.ok(traversal, 'CVE-2021-41773 matched from the Server header');
  assert.equal(traversal.threat, 'High');
  assert.equal(traversal.cvss_base, 7.5);
  assert.equal(traversal.kev, true);
  assert.ok(traversal.epss !== null && traversal.epss > 0.9);

  // TLS.
  expect(tlsPort, 'tls-tls10-accepted', 'Medium');
  const expiredCert = expect(tlsPort, 'tls-cert-expired', 'High');
  // The basis of a rating the table gives is named in the description.
  assert.match(expiredCert.description, /Severity: rated High by Rampart's severity table \(docs\/SEVERITY\.md, rampart:tls-cert-expired\)\./);
  expect(tlsPort, 'tls-cert-self-signed', 'Low');
  expect(tlsPort, 'http-missing-hsts', 'Low');
  // Services without authentication, and cleartext.
  const redisOpen = expect(redis.port, 'redis-noauth', 'Critical');
  // A rating with a CVSS vector carries it, and the description says so.
  assert.equal(redisOpen.cvss_vector, 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H');
  assert.equal(redisOpen.cvss_base, 9.8);
  assert.match(redisOpen.description, /Severity: rated Critical by its CVSS v3\.1 base score 9\.8 \(CVSS:3\.1\/AV:N/);
  expect(ftp.port, 'ftp-anonymous', 'Medium');
  expect(ftp.port, 'ftp-no-starttls', 'Medium');
  // SSH algorithms from the server's KEXINIT.
  expect(ssh.port, 'ssh-weak-cipher', 'Low');
  expect(ssh.port, 'ssh-weak-kex', 'Low');
  // Authentication methods after a key exchange: OpenSSH's default takes passwords; loopback is not internet-facing.
  expect(ssh.port, 'ssh-password-auth', 'Low');

  // Debian's sshd (OpenSSH_9.2p1 Debian-2+deb12u10): NVD matches six CVEs by upstream version. Four
  // concern client programs only and Terrapin is disproved by the KEXINIT; what remains is a
  // version match on a Debian package, QoD packaged, hidden at the default quality.
  const sshCves = findings.filter((f) => f.port === ssh.port && f.cve.length > 0);
  const banner = expect(ssh.port, 'open-port', 'Informational').evidence;
  if (/Debian-\S*deb12u/.test(banner)) {
    assert.deepEqual(sshCves.map((f) => f.cve[0]), ['CVE-2024-6387'], 'client-only CVEs and Terrapin are not reported');
    for (const f of sshCves) {
      assert.equal(f.qod, 30, `${f.cve[0]} is inferred from a distribution's package`);
      assert.match(f.description, /Debian package revision 2\+deb12u\d+: Debian may have backported the fix/);
      assert.ok(f.references.includes(`https://security-tracker.debian.org/tracker/${f.cve[0]}`));
    }
  } else {
    t.diagnostic(`sshd is not Debian 12's (${banner.split('\n')[1]}): the Debian banner assertions were skipped`);
  }
  const shown = await ctx.app.inject({ method: 'GET', url: '/api/vulnerabilities?min_qod=70&per_page=100', headers: user.auth });
  assert.deepEqual(shown.json().data.filter((v: { port: number; cve: string[] }) => v.port === ssh.port && v.cve.length > 0), [], 'no CVE finding on the Debian sshd at default quality');
  assert.equal(traversal.qod, 80, 'Apache/2.4.49 (Unix) says no distribution: an upstream version');
  const report = await ctx.app.inject({ method: 'GET', url: `/api/scans/txt/${uuid}`, headers: user.auth });
  const hidden = findings.filter((f) => f.qod < 70).length;
  assert.match(report.body, new RegExp(`below 70 are hidden: ${hidden} finding`));
  assert.ok(!report.body.includes('CVE-2024-6387'), 'the hidden match is not in the report');

  const target = await ctx.store.db.selectFrom('targets').selectAll().where('user_id', '=', user.userId).where('target', '=', '127.0.0.1').executeTakeFirstOrThrow();
  assert.equal(target.status, 'Active');
  assert.ok(target.last_scan);
});
