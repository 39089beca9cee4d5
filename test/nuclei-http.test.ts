/**
 * The nuclei http executor on real community templates (read from ../shared, never copied) against
 * loopback servers that imitate the product each template looks for, and near misses where it must
 * not fire: matchers and extractors of each kind, raw requests, redirects, payloads, variables and
 * DSL functions, multi-step state (internal extractors, indexed variables, cookies) and flow.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { runHttpTemplate } from '../src/engines/nuclei/execute/http-executor.js';
import { hasOpenssl, TestPki } from './helpers/pki.js';
import { CORPUS, executionContext, loadTemplate, loopbackService, serve } from './helpers/nuclei-http.js';

const skip = existsSync(CORPUS) ? false : `shared nuclei templates not found at ${CORPUS} (set RAMPART_SHARED_DIR)`;
const md5 = (text: string): string => createHash('md5').update(text).digest('hex');

describe('nuclei http executor: community templates', { skip }, () => {
  it('word + status (and): fires on the product page only', async (t) => {
    const template = await loadTemplate('http/technologies/jspxcms-detect.yaml');
    const hit = await serve(t, () => ({ body: '<html>Powered by Jspxcms</html>' }));
    const outcome = await runHttpTemplate(template, loopbackService(hit.port), executionContext());
    assert.equal(outcome.matches.length, 1);
    assert.equal(outcome.matches[0]!.matchedAt, `http://127.0.0.1:${hit.port}`);
    assert.equal(outcome.matches[0]!.method, 'GET');
    assert.match(outcome.matches[0]!.response ?? '', /^HTTP\/1\.1 200 OK\r\n/);
    assert.equal(outcome.requestsSent, 1);
    assert.equal(hit.seen[0]!.url, '/');

    const notFound = await serve(t, () => ({ status: 404, body: 'Jspxcms' }));
    assert.equal((await runHttpTemplate(template, loopbackService(notFound.port), executionContext())).matches.length, 0);
    const other = await serve(t, () => ({ body: 'another CMS' }));
    assert.equal((await runHttpTemplate(template, loopbackService(other.port), executionContext())).matches.length, 0);
  });

  it('https with a self-signed certificate', { skip: hasOpenssl() ? false : 'openssl not found' }, async (t) => {
    const pki = new TestPki();
    t.after(() => pki.cleanup());
    const template = await loadTemplate('http/technologies/jspxcms-detect.yaml');
    const server = await serve(t, () => ({ body: 'Jspxcms' }), pki.issue({ cn: 'localhost', selfSigned: true, days: 2 }));
    const outcome = await runHttpTemplate(template, loopbackService(server.port, 'https'), executionContext());
    assert.equal(outcome.matches[0]?.matchedAt, `https://127.0.0.1:${server.port}`);
  });

  it('header part and a regex extractor (openresty)', async (t) => {
    const template = await loadTemplate('http/technologies/openresty-detect.yaml');
    const server = await serve(t, () => ({ headers: { Server: 'openresty/1.21.4.1' }, body: 'hello' }));
    const outcome = await runHttpTemplate(template, loopbackService(server.port), executionContext());
    assert.deepEqual(outcome.matches.map((m) => m.extracted), [['openresty/1.21.4.1']]);
    const nginx = await serve(t, () => ({ headers: { Server: 'nginx' } }));
    assert.equal((await runHttpTemplate(template, loopbackService(nginx.port), executionContext())).matches.length, 0);
  });

  it('kval extractor on a header (gunicorn)', async (t) => {
    const template = await loadTemplate('http/technologies/gunicorn-detect.yaml');
    const server = await serve(t, () => ({ headers: { Server: 'gunicorn/20.1.0' } }));
    const outcome = await runHttpTemplate(template, loopbackService(server.port), executionContext());
    assert.deepEqual(outcome.matches[0]?.extracted, ['gunicorn/20.1.0']);
  });

  it('json extractor (kube-api-version)', async (t) => {
    const template = await loadTemplate('http/technologies/kubernetes/kube-api/kube-api-version.yaml');
    const server = await serve(t, (r) =>
      r.url === '/version' ? { headers: { 'Content-Type': 'application/json' }, body: '{"major":"1","minor":"29","gitVersion":"v1.29.2","goVersion":"go1.21"}' } : { status: 404 },
    );
    const outcome = await runHttpTemplate(template, loopbackService(server.port), executionContext());
    assert.deepEqual(outcome.matches.map((m) => m.extracted), [['v1.29.2']]);
    assert.equal(outcome.matches[0]!.matchedAt, `http://127.0.0.1:${server.port}/version`);
  });

  it('binary matcher (Thumbs.db) and xpath matcher (meduza-stealer)', async (t) => {
    const thumbs = await loadTemplate('http/exposures/files/thumbs-db-disclosure.yaml');
    const ole = Buffer.concat([Buffer.from('D0CF11E0A1B11AE1', 'hex'), Buffer.alloc(64, 1)]);
    const server = await serve(t, (r) => (r.url === '/Thumbs.db' ? { body: ole } : { status: 404 }));
    assert.equal((await runHttpTemplate(thumbs, loopbackService(server.port), executionContext())).matches.length, 1);
    const text = await serve(t, () => ({ body: 'D0CF11E0A1B11AE1' }));
    assert.equal((await runHttpTemplate(thumbs, loopbackService(text.port), executionContext())).matches.length, 0);

    const meduza = await loadTemplate('http/exposed-panels/c2/meduza-stealer.yaml');
    const panel = await serve(t, () => ({ body: '<html><head><title>Meduza Stealer | Login</title></head><body></body></html>' }));
    assert.equal((await runHttpTemplate(meduza, loopbackService(panel.port), executionContext())).matches.length, 1);
    const elsewhere = await serve(t, () => ({ body: '<html><body><p>Meduza Stealer</p></body></html>' }));
    assert.equal((await runHttpTemplate(meduza, loopbackService(elsewhere.port), executionContext())).matches.length, 0);
  });

  it('raw POST: the request line, headers and body as written, Content-Length recomputed (jolokia)', async (t) => {
    const template = await loadTemplate('http/vulnerabilities/jolokia/jolokia-heap-info-disclosure.yaml');
    const server = await serve(t, (r) =>
      r.method === 'POST' && r.url === '/jolokia/' && r.body.includes('"dumpHeap"')
        ? { body: '{"stacktrace":"java.io.IOException: No such file or directory"}' }
        : { status: 404 },
    );
    const outcome = await runHttpTemplate(template, loopbackService(server.port), executionContext());
    assert.equal(outcome.matches.length, 1);
    const seen = server.seen[0]!;
    assert.equal(seen.headers['content-type'], 'application/x-www-form-urlencoded');
    assert.equal(seen.headers.host, `127.0.0.1:${server.port}`);
    assert.equal(Number(seen.headers['content-length']), Buffer.byteLength(seen.body, 'latin1'));
    assert.match(seen.body, /^\r\n\{\r\n {3}"type":"EXEC"/);
    assert.equal(outcome.matches[0]!.method, 'POST');
    assert.match(outcome.matches[0]!.request ?? '', /^POST \/jolokia\/ HTTP\/1\.1\r\n/);
  });

  it('a path sent as written: /../ segments are not normalised (webp-server-lfi, DSL regex/contains)', async (t) => {
    const template = await loadTemplate('http/vulnerabilities/other/webp-server-lfi.yaml');
    const server = await serve(t, (r) =>
      r.url === '/../../../../../../../../../../../etc/passwd' ? { headers: { Server: 'Webp-Server-Go' }, body: 'root:x:0:0:root:/root:/bin/bash' } : { status: 404 },
    );
    const outcome = await runHttpTemplate(template, loopbackService(server.port), executionContext());
    assert.equal(server.seen[0]!.url, '/../../../../../../../../../../../etc/passwd');
    assert.equal(outcome.matches.length, 1);
  });

  it('redirects: followed up to max-redirects, the final URL reported (aem-cms)', async (t) => {
    const template = await loadTemplate('http/technologies/aem-cms.yaml');
    const server = await serve(t, (r) =>
      r.url === '/' ? { status: 302, headers: { Location: '/libs/granite/core/content/login.html' } } : { body: 'Welcome to Adobe Experience Manager' },
    );
    const outcome = await runHttpTemplate(template, loopbackService(server.port), executionContext());
    assert.equal(outcome.matches[0]?.matchedAt, `http://127.0.0.1:${server.port}/libs/granite/core/content/login.html`);
    assert.equal(outcome.requestsSent, 2);

    // Three hops exceed max-redirects: 2; the last 302 is what the matchers see.
    const far = await serve(t, (r) =>
      r.url === '/d' ? { body: 'Welcome to Adobe Experience Manager' } : { status: 302, headers: { Location: r.url === '/' ? '/a' : r.url === '/a' ? '/b' : '/c' } },
    );
    assert.equal((await runHttpTemplate(template, loopbackService(far.port), executionContext())).matches.length, 0);
  });

  it('host-redirects: a redirect to another host is not followed (shiro-detect, randstr cookie)', async (t) => {
    const template = await loadTemplate('http/technologies/shiro-detect.yaml');
    const shiro = (r: { url: string }) => (r.url === '/login' ? { headers: { 'Set-Cookie': 'rememberMe=deleteMe; Path=/' } } : undefined);
    const same = await serve(t, (r) => shiro(r) ?? { status: 302, headers: { Location: '/login' } });
    const outcome = await runHttpTemplate(template, loopbackService(same.port), executionContext());
    assert.equal(outcome.matches.length, 1);
    assert.match(String(same.seen[0]!.headers.cookie), /^JSESSIONID=[0-9A-Za-z]{27};rememberMe=123;$/);

    const elsewhere = await serve(t, (r) => shiro(r) ?? { status: 302, headers: { Location: `http://localhost:${same.port}/login` } });
    const before = same.seen.length;
    assert.equal((await runHttpTemplate(template, loopbackService(elsewhere.port), executionContext())).matches.length, 0);
    assert.equal(same.seen.length, before);
  });

  it('batteringram over a helpers/ wordlist with stop-at-first-match (gitlab-user-enum)', async (t) => {
    const template = await loadTemplate('http/misconfiguration/gitlab/gitlab-user-enum.yaml');
    const users = readFileSync(path.join(CORPUS, 'helpers/wordlists/user-list.txt'), 'utf8').split('\n').filter((u) => u.trim() !== '');
    const known = users[4]!;
    const server = await serve(t, (r) => ({
      headers: { 'Content-Type': 'application/json' },
      body: r.url === `/users/${known}/exists` ? '{"exists":true}' : '{"exists":false}',
    }));
    const outcome = await runHttpTemplate(template, loopbackService(server.port), executionContext());
    assert.equal(outcome.matches.length, 1);
    assert.deepEqual(outcome.matches[0]!.payload, { user: known });
    assert.deepEqual(server.seen.map((r) => r.url), users.slice(0, 5).map((u) => `/users/${u}/exists`));
  });

  it('batteringram over inline values (default-spx-key)', async (t) => {
    const template = await loadTemplate('http/misconfiguration/default-spx-key.yaml');
    const server = await serve(t, (r) =>
      r.url === '/?SPX_KEY=prod&SPX_UI_URI=/'
        ? { headers: { 'Content-Type': 'text/html' }, body: '<title>SPX Control Panel</title> SPX_ENABLED Configuration' }
        : { status: 403 },
    );
    const outcome = await runHttpTemplate(template, loopbackService(server.port), executionContext());
    assert.deepEqual(outcome.matches.map((m) => m.payload), [{ api_key: 'prod' }]);
    assert.equal(server.seen.length, 7);
  });

  it('pitchfork and a DSL base64 in a header (frp-default-login)', async (t) => {
    const template = await loadTemplate('http/default-logins/frps/frp-default-login.yaml');
    const server = await serve(t, (r) =>
      r.headers.authorization === `Basic ${Buffer.from('admin:admin').toString('base64')}` ? { body: '{"proxies":[]}' } : { status: 401 },
    );
    const outcome = await runHttpTemplate(template, loopbackService(server.port), executionContext());
    assert.deepEqual(outcome.matches.map((m) => m.payload), [{ username: 'admin', password: 'admin' }]);
  });

  it('clusterbomb: every combination in order, the path payload in the request line (zabbix-default-login)', async (t) => {
    const template = await loadTemplate('http/default-logins/zabbix/zabbix-default-login.yaml');
    const server = await serve(t, (r) =>
      r.url === '/zabbix/index.php' && r.body === 'name=Admin&password=zabbix&autologin=1&enter=Sign+in'
        ? { status: 302, headers: { Location: 'zabbix.php?action=dashboard.view' } }
        : { status: 200, body: 'login' },
    );
    const outcome = await runHttpTemplate(template, loopbackService(server.port), executionContext());
    assert.deepEqual(server.seen.map((r) => `${r.method} ${r.url}`), ['POST /index.php', 'POST /zabbix/index.php']);
    assert.equal(outcome.matches.length, 1);
    assert.equal(outcome.matches[0]!.payload?.path, '/zabbix/index.php');
  });

  it('template variables, randstr, rand_int and md5 in a matcher word (honeypot-detect)', async (t) => {
    const template = await loadTemplate('http/technologies/honeypot-detect.yaml');
    // The server computes md5 of the number it finds in the query, as an SQL error would print it.
    const server = await serve(t, (r) => {
      const number = /md5\((\d+)\)/.exec(decodeURIComponent(r.url))?.[1];
      return { body: number ? `XPATH syntax error: '~${md5(number)}'` : 'nothing' };
    });
    const outcome = await runHttpTemplate(template, loopbackService(server.port), executionContext());
    assert.equal(outcome.matches.length, 1);
    assert.match(server.seen[0]!.url, /^\/\?[0-9A-Za-z]{27}=\.\.\/\.\.\/.*&[0-9A-Za-z]{27}=1%20and%20updatexml\(1,concat\(0x7e,\(select%20md5\(\d{5}\)\)\),1\)$/);

    const wrong = await serve(t, () => ({ body: `XPATH syntax error: '~${md5('12345')}'` }));
    assert.equal((await runHttpTemplate(template, loopbackService(wrong.port), executionContext())).matches.length, 0);
  });

  it('spaces and quotes in a path are escaped, not refused (74cms-sqli)', async (t) => {
    const template = await loadTemplate('http/vulnerabilities/other/74cms-sqli.yaml');
    const server = await serve(t, () => ({ body: `error ${md5('999999999')}` }));
    const outcome = await runHttpTemplate(template, loopbackService(server.port), executionContext());
    assert.equal(outcome.matches.length, 1);
    assert.match(server.seen[0]!.url, /company_id\[1\]\[0\]=test"\)%20and%20extractvalue\(1,concat\(0x7e,md5\(999999999\)\)\)%20--%20a$/);
  });

  it('multi-step: a kval internal extractor feeds the next request, cookies carry the session, header_2 indexed (filegator)', async (t) => {
    const template = await loadTemplate('http/default-logins/filegator/filegator-default-login.yaml');
    const server = await serve(t, (r) => {
      if (r.method === 'GET') return { headers: { 'X-CSRF-Token': 'tok123', 'Set-Cookie': 'filegator=sess1; Path=/' }, body: '<html></html>' };
      const ok = r.headers['x-csrf-token'] === 'tok123' && r.headers.cookie === 'filegator=sess1' && r.body === '{"username":"admin","password":"admin123"}';
      return ok ? { headers: { 'Content-Type': 'application/json' }, body: '{"data":{"role":"admin","permissions":["read"]}}' } : { status: 403 };
    });
    const outcome = await runHttpTemplate(template, loopbackService(server.port), executionContext());
    assert.deepEqual(server.seen.map((r) => `${r.method} ${r.url}`), ['GET /#/', 'POST /?r=/login']);
    assert.equal(outcome.matches.length, 1);
    assert.equal(outcome.matches[0]!.matchedAt, `http://127.0.0.1:${server.port}/?r=/login`);
    assert.deepEqual(outcome.matches[0]!.extracted, []);
  });

  it('indexed variables across the steps of a block (xff-403-bypass: status_code_1, status_code_2)', async (t) => {
    const template = await loadTemplate('http/fuzzing/xff-403-bypass.yaml');
    const bypassable = await serve(t, (r) => ({ status: r.headers['x-forwarded-for'] ? 200 : 403 }));
    const outcome = await runHttpTemplate(template, loopbackService(bypassable.port), executionContext());
    assert.equal(outcome.matches.length, 1);
    assert.deepEqual(bypassable.seen.map((r) => r.headers['x-forwarded-for'] ?? null), [null, '127.0.0.1, 0.0.0.0, 192.168.0.1, 10.0.0.1, 172.16.0.1']);
    const strict = await serve(t, () => ({ status: 403 }));
    assert.equal((await runHttpTemplate(template, loopbackService(strict.port), executionContext())).matches.length, 0);
  });

  it('simple flow: the second block runs only when the first matched (cockroachdb-unauth-exposure)', async (t) => {
    const template = await loadTemplate('http/misconfiguration/cockroachdb-unauth-exposure.yaml');
    const console = await serve(t, (r) =>
      r.url === '/' ? { body: '<title>Cockroach Console</title>' } : { body: '{"nodes":[{"buildInfo":{},"ServerVersion":"23.1"}]}' },
    );
    const outcome = await runHttpTemplate(template, loopbackService(console.port), executionContext());
    assert.deepEqual(console.seen.map((r) => r.url), ['/', '/_status/nodes']);
    assert.equal(outcome.matches.length, 1);
    assert.equal(outcome.matches[0]!.matchedAt, `http://127.0.0.1:${console.port}/_status/nodes`);

    const other = await serve(t, () => ({ body: '<title>Other</title>' }));
    assert.equal((await runHttpTemplate(template, loopbackService(other.port), executionContext())).matches.length, 0);
    assert.deepEqual(other.seen.map((r) => r.url), ['/']);
  });

  it('flow with a json internal extractor feeding the second raw request (theia-lfi-to-rce)', async (t) => {
    const template = await loadTemplate('http/vulnerabilities/other/theia-lfi-to-rce.yaml');
    const server = await serve(t, (r) => {
      if (r.url === '/files/?uri=file:///etc/passwd') return { body: '{"id":"f-42"}' };
      if (r.url === '/files/download/?id=f-42') return { body: 'root:x:0:0:root:/root:/bin/sh' };
      return { status: 404 };
    });
    const outcome = await runHttpTemplate(template, loopbackService(server.port), executionContext());
    assert.deepEqual(server.seen.map((r) => r.url), ['/files/?uri=file:///etc/passwd', '/files/download/?id=f-42']);
    assert.equal(outcome.matches.length, 1);
  });

  it('a base path is kept: {{BaseURL}}/x below it, raw paths merged into it', async (t) => {
    const template = await loadTemplate('http/technologies/kubernetes/kube-api/kube-api-version.yaml');
    const server = await serve(t, () => ({ status: 404 }));
    await runHttpTemplate(template, loopbackService(server.port, 'http', '/app/'), executionContext());
    const raw = await loadTemplate('http/vulnerabilities/jolokia/jolokia-heap-info-disclosure.yaml');
    await runHttpTemplate(raw, loopbackService(server.port, 'http', '/app'), executionContext());
    assert.deepEqual(server.seen.map((r) => r.url), ['/app/version', '/app/jolokia/']);
  });
});
