/**
 * The Rampart HTTP check against real HTTP(S) servers on loopback: a careless one with every
 * weakness, hardened ones that must yield nothing, and catch-all sites that answer 200 to every
 * path. HTTPS servers use a throw-away certificate from the `openssl` CLI. Nothing leaves 127.0.0.1.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import type { CheckFinding, Endpoint, ServiceInfo } from '../src/engines/rampart/checks/check.js';
import { httpCheck } from '../src/engines/rampart/checks/http.js';
import { LOOPBACK_EGRESS } from './helpers/egress.js';

// ---------------------------------------------------------------------------------------------
// Helpers

type Handler = (request: http.IncomingMessage, response: http.ServerResponse, body: string) => void;

interface Server {
  port: number;
  /** `METHOD path` of every request received. */
  requests: string[];
  close(): Promise<void>;
}

async function startServer(handler: Handler, tls?: { key: string; cert: string }): Promise<Server> {
  const requests: string[] = [];
  const sockets = new Set<net.Socket>();
  const listener: http.RequestListener = (request, response) => {
    requests.push(`${request.method} ${request.url}`);
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => handler(request, response, Buffer.concat(chunks).toString()));
  };
  const server = tls === undefined ? http.createServer(listener) : https.createServer(tls, listener);
  server.on(tls === undefined ? 'connection' : 'secureConnection', (socket: net.Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    port: (server.address() as net.AddressInfo).port,
    requests,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function endpoint(port: number, signal = new AbortController().signal): Endpoint {
  return {
    hostname: 'localhost',
    address: '127.0.0.1',
    port,
    limits: { connectTimeoutMs: 5000, readTimeoutMs: 5000, maxConcurrency: 4, ratePerSecond: 0 },
    signal,
    egress: LOOPBACK_EGRESS,
  };
}

const service = (tls: boolean): ServiceInfo => ({ name: 'http', product: null, version: null, cpe: null, tls, banner: null, details: {} });

async function scan(handler: Handler, tls?: { key: string; cert: string }): Promise<{ findings: CheckFinding[]; requests: string[] }> {
  const server = await startServer(handler, tls);
  try {
    const findings = await httpCheck.run(endpoint(server.port), service(tls !== undefined));
    return { findings, requests: server.requests };
  } finally {
    await server.close();
  }
}

const find = (findings: CheckFinding[], rule: string): CheckFinding | undefined =>
  findings.find((finding) => finding.ruleId === `rampart:${rule}`);

/** A throw-away self-signed certificate for localhost, or null without the openssl CLI. */
function makeCertificate(): { key: string; cert: string } | null {
  const dir = mkdtempSync(path.join(tmpdir(), 'rampart-http-'));
  try {
    execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-subj', '/CN=localhost',
      '-days', '2', '-keyout', path.join(dir, 'key.pem'), '-out', path.join(dir, 'cert.pem')], { stdio: 'ignore' });
    return { key: readFileSync(path.join(dir, 'key.pem'), 'utf8'), cert: readFileSync(path.join(dir, 'cert.pem'), 'utf8') };
  } catch {
    return null;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
const certificate = makeCertificate();
const noOpenssl = certificate === null ? 'the openssl CLI is missing (Debian package `openssl`)' : false;

const LISTING = '<html><head><title>Index of /</title></head><body><h1>Index of /</h1><a href="notes.txt">notes.txt</a></body></html>';
const APACHE_STATUS = '<html><head><title>Apache Status</title></head><body><h1>Apache Server Status for localhost</h1>' +
  '<dl><dt>Server Version: Apache/2.4.49 (Unix)</dt><dt>Server uptime: 3 days</dt><dt>Total accesses: 1234</dt></dl></body></html>';

/** A careless server: every weakness the check knows, and 404 elsewhere. */
const careless: Handler = (request, response) => {
  response.setHeader('Server', 'Apache/2.4.49 (Unix)');
  response.setHeader('X-Powered-By', 'PHP/7.4.3');
  if (request.method === 'TRACE') {
    const echo = [`TRACE ${request.url} HTTP/${request.httpVersion}`, ...Object.entries(request.headers).map(([name, value]) => `${name}: ${String(value)}`)];
    response.writeHead(200, { 'content-type': 'message/http' }).end(`${echo.join('\r\n')}\r\n\r\n`);
    return;
  }
  const files: Record<string, [string, string]> = {
    '/': ['text/html', LISTING],
    '/.git/HEAD': ['text/plain', 'ref: refs/heads/main\n'],
    '/.env': ['text/plain', 'APP_KEY=base64:c2VjcmV0\nDB_PASSWORD=hunter2\n# comment\n'],
    '/server-status': ['text/html', APACHE_STATUS],
    '/db.sql': ['application/sql', '-- MySQL dump 10.13\nCREATE TABLE users (id int);\n'],
  };
  const file = request.url === undefined ? undefined : files[request.url];
  if (file === undefined) {
    response.writeHead(404, { 'content-type': 'text/html' }).end('<h1>Not Found</h1>');
    return;
  }
  if (request.url === '/') response.setHeader('Set-Cookie', ['session=abc123; Path=/', 'theme=dark; Path=/; HttpOnly']);
  response.writeHead(200, { 'content-type': file[0] }).end(file[1]);
};

const SECURITY_HEADERS = {
  'strict-transport-security': 'max-age=63072000; includeSubDomains',
  'content-security-policy': "default-src 'self'; frame-ancestors 'none'",
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
};

// ---------------------------------------------------------------------------------------------

describe('HTTP check', () => {
  test('applies to http services, with or without TLS', () => {
    assert.equal(httpCheck.appliesTo(service(false)), true);
    assert.equal(httpCheck.appliesTo(service(true)), true);
    assert.equal(httpCheck.appliesTo({ ...service(false), name: 'ssh' }), false);
  });

  test('a careless plain-HTTP server: every weakness reported, with evidence', async () => {
    const { findings, requests } = await scan(careless);

    for (const rule of ['http-missing-csp', 'http-missing-frame-options', 'http-missing-content-type-options']) {
      const missing = find(findings, rule);
      assert.equal(missing?.threat, 'Low', rule);
      assert.match(missing.evidence, /server: Apache\/2\.4\.49 \(Unix\)/);
    }
    assert.equal(find(findings, 'http-missing-hsts'), undefined, 'HSTS is meaningless over plain HTTP');

    const disclosure = find(findings, 'http-version-disclosure');
    assert.equal(disclosure?.threat, 'Low');
    assert.match(disclosure.evidence, /server: Apache\/2\.4\.49 \(Unix\)/);
    assert.match(disclosure.evidence, /x-powered-by: PHP\/7\.4\.3/);

    const listing = find(findings, 'http-directory-listing');
    assert.equal(listing?.threat, 'Medium');
    assert.equal(listing.cwe, 'CWE-548');
    assert.match(listing.evidence, /GET \/ -> 200: index page titled "Index of \/"/);

    const git = find(findings, 'http-git-exposed');
    assert.equal(git?.threat, 'High');
    assert.match(git.evidence, /GET \/\.git\/HEAD -> 200: HEAD is "ref: refs\/heads\/main"/);

    const env = find(findings, 'http-env-exposed');
    assert.equal(env?.threat, 'High');
    assert.match(env.evidence, /2 variables \(values withheld\): APP_KEY, DB_PASSWORD/);
    assert.doesNotMatch(env.evidence, /hunter2|c2VjcmV0/);

    assert.equal(find(findings, 'http-backup-exposed')?.threat, 'High');
    assert.match(find(findings, 'http-backup-exposed')?.evidence ?? '', /GET \/db\.sql -> 200: SQL dump/);

    const status = find(findings, 'http-status-page-exposed');
    assert.equal(status?.threat, 'Medium');
    assert.match(status.evidence, /GET \/server-status -> 200: Apache mod_status page/);
    assert.doesNotMatch(status.evidence, /\/status ->|nginx_status/);

    const trace = find(findings, 'http-trace-enabled');
    assert.equal(trace?.threat, 'Low');
    assert.match(trace.evidence, /TRACE \/ HTTP\/1\.1/);

    const httpOnly = find(findings, 'http-cookie-no-httponly');
    assert.equal(httpOnly?.cwe, 'CWE-1004');
    assert.match(httpOnly.evidence, /^Cookies: session\n/);
    assert.doesNotMatch(httpOnly.evidence, /abc123/);
    assert.match(find(findings, 'http-cookie-no-samesite')?.evidence ?? '', /^Cookies: session, theme\n/);
    assert.equal(find(findings, 'http-cookie-no-secure'), undefined, 'Secure is only asked of HTTPS sites');

    const redirect = find(findings, 'http-no-https-redirect');
    assert.equal(redirect?.threat, 'Medium');
    assert.equal(redirect.evidence, 'GET / -> 200 (no redirect)');

    for (const absent of ['http-ds-store-exposed']) assert.equal(find(findings, absent), undefined);
    for (const finding of findings) {
      assert.match(finding.ruleId, /^rampart:http-[a-z-]+$/);
      assert.ok(finding.references.length > 0 && finding.cwe !== null);
    }
    assert.ok(requests.length <= 23, `bounded: ${requests.length} requests`);
    assert.ok(requests.includes('TRACE /'));
  });

  test('a hardened plain-HTTP server that redirects to HTTPS: nothing', async () => {
    const { findings } = await scan((request, response) => {
      if (request.url === '/') response.writeHead(301, { location: 'https://localhost/' }).end();
      else response.writeHead(request.method === 'GET' ? 404 : 405, { 'x-content-type-options': 'nosniff' }).end();
    });
    assert.deepEqual(findings, []);
  });

  test('a redirect to another http:// URL is no redirect to HTTPS', async () => {
    const { findings } = await scan((request, response) => {
      if (request.url === '/') response.writeHead(302, { location: 'http://localhost/login', ...SECURITY_HEADERS }).end();
      else response.writeHead(404, SECURITY_HEADERS).end();
    });
    assert.equal(find(findings, 'http-no-https-redirect')?.evidence, 'GET / -> 302, Location: http://localhost/login (not https)');
  });

  test('a careless HTTPS server: HSTS missing, cookies without Secure', { skip: noOpenssl }, async () => {
    const { findings } = await scan(careless, certificate ?? undefined);
    assert.equal(find(findings, 'http-missing-hsts')?.threat, 'Low');
    assert.match(find(findings, 'http-cookie-no-secure')?.evidence ?? '', /^Cookies: session, theme\n/);
    assert.equal(find(findings, 'http-no-https-redirect'), undefined);
    assert.equal(find(findings, 'http-git-exposed')?.threat, 'High');
  });

  test('a hardened HTTPS server (redirect to its app page): nothing', { skip: noOpenssl }, async () => {
    const { findings, requests } = await scan((request, response) => {
      response.setHeader('Strict-Transport-Security', SECURITY_HEADERS['strict-transport-security']);
      response.setHeader('X-Content-Type-Options', 'nosniff');
      if (request.url === '/') {
        // No CSP on the redirect itself: only the page it leads to is judged.
        response.writeHead(302, { location: '/app' }).end();
      } else if (request.url === '/app') {
        response.setHeader('Set-Cookie', 'sid=x; Path=/; Secure; HttpOnly; SameSite=Lax');
        response.writeHead(200, { ...SECURITY_HEADERS, 'content-type': 'text/html', server: 'nginx' }).end('<html>app</html>');
      } else {
        response.writeHead(request.method === 'GET' ? 404 : 405, { 'content-type': 'text/html' }).end('<h1>Not Found</h1>');
      }
    }, certificate ?? undefined);
    assert.deepEqual(findings, []);
    assert.ok(requests.includes('GET /app'), 'the same-origin redirect was followed');
  });

  test('catch-all sites answering 200 everywhere: no exposed files, listing or TRACE', async () => {
    const spa = '<html><head><title>App</title></head><body><div id="root"></div></body></html>';
    const same = await scan((_request, response) => {
      response.writeHead(200, { ...SECURITY_HEADERS, 'content-type': 'text/html' }).end(spa);
    });
    assert.deepEqual(same.findings.map((finding) => finding.ruleId), ['rampart:http-no-https-redirect']);

    // A catch-all that varies with the path (echoes it): bodies differ, signatures still decide.
    const echo = await scan((request, response) => {
      response.writeHead(200, { ...SECURITY_HEADERS, 'content-type': 'text/html' }).end(`<html><body>No page at ${request.url}</body></html>`);
    });
    assert.deepEqual(echo.findings.map((finding) => finding.ruleId), ['rampart:http-no-https-redirect']);
  });

  test('a catch-all page that looks like .git/HEAD is not an exposure', async () => {
    const { findings } = await scan((_request, response) => {
      response.writeHead(200, { ...SECURITY_HEADERS, 'content-type': 'text/plain' }).end('ref: refs/heads/main\n');
    });
    // Every path answers like a .git/HEAD: it is the catch-all page, not a repository.
    assert.equal(find(findings, 'http-git-exposed'), undefined);
  });

  test('an aborted job sends nothing; a closed port yields nothing', async () => {
    const server = await startServer(careless);
    try {
      const controller = new AbortController();
      controller.abort();
      assert.deepEqual(await httpCheck.run(endpoint(server.port, controller.signal), service(false)), []);
      assert.deepEqual(server.requests, []);
    } finally {
      await server.close();
    }
    assert.deepEqual(await httpCheck.run(endpoint(server.port), service(false)), []);
  });
});
