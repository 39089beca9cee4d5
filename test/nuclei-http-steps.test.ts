/**
 * The nuclei http executor's step rules on small inline templates (features the corpus uses in a
 * few templates only): `@once`, `iterate-all`, a `{{BaseURL}}:port` override, template-level
 * `stop-at-first-match` across blocks, `<id>_` values of an earlier block, compressed bodies, a
 * redirect loop bounded by the default max-redirects; and the helper variables of a service.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { describe, it } from 'node:test';
import { MAX_DYNAMIC_VALUES } from '../src/engines/nuclei/execute/http-block.js';
import { runHttpTemplate } from '../src/engines/nuclei/execute/http-executor.js';
import { helperVariables, inputUrl } from '../src/engines/nuclei/execute/http-variables.js';
import { isTemplateFailure, parseTemplate } from '../src/engines/nuclei/templates/parse-template.js';
import type { Template } from '../src/engines/nuclei/templates/template.types.js';
import { executionContext, loopbackService, serve } from './helpers/nuclei-http.js';

const md5 = (text: string): string => createHash('md5').update(text).digest('hex');

function inline(body: string): Template {
  const result = parseTemplate(`id: inline\ninfo: { name: inline, severity: info }\n${body}`, 'inline.yaml');
  if (isTemplateFailure(result)) throw new Error(result.reason);
  return result;
}

describe('nuclei http executor: steps', () => {
  it('@once sends an entry for the first payload combination only', async (t) => {
    const template = inline(`http:
  - raw:
      - |
        @once
        GET /login HTTP/1.1
        Host: {{Hostname}}
      - |
        GET /try?u={{u}} HTTP/1.1
        Host: {{Hostname}}
    payloads:
      u: [a, b, c]
    matchers:
      - type: word
        words: [never]
`);
    const server = await serve(t, () => ({ body: 'ok' }));
    await runHttpTemplate(template, loopbackService(server.port), executionContext());
    assert.deepEqual(server.seen.map((r) => r.url), ['/login', '/try?u=a', '/try?u=b', '/try?u=c']);
  });

  it('iterate-all runs a later request once per extracted value', async (t) => {
    const template = inline(`http:
  - method: GET
    path: ["{{BaseURL}}/list", "{{BaseURL}}/item/{{id}}"]
    iterate-all: true
    extractors:
      - type: regex
        name: id
        internal: true
        group: 1
        regex: ['id=(\\d+)']
    matchers:
      - type: word
        words: [secret]
`);
    const server = await serve(t, (r) => ({ body: r.url === '/list' ? 'id=1 id=2 id=3' : r.url === '/item/2' ? 'secret' : 'nothing' }));
    const outcome = await runHttpTemplate(template, loopbackService(server.port), executionContext());
    assert.deepEqual(server.seen.map((r) => r.url), ['/list', '/item/1', '/item/2', '/item/3']);
    assert.deepEqual(outcome.matches.map((m) => m.matchedAt), [`http://127.0.0.1:${server.port}/item/2`]);
  });

  it('iterate-all: a value extracted again is tried once, in its newest place', async (t) => {
    const template = inline(`http:
  - method: GET
    path: ["{{BaseURL}}/list", "{{BaseURL}}/item/{{id}}", "{{BaseURL}}/detail/{{id}}"]
    iterate-all: true
    extractors:
      - type: regex
        name: id
        internal: true
        group: 1
        regex: ['id=(\\d+)']
    matchers:
      - type: word
        words: [never]
`);
    // Each item page names its own id again: without dedupe /detail would be asked for 6 ids.
    const server = await serve(t, (r) => ({ body: r.url === '/list' ? 'id=1 id=2 id=3' : `id=${r.url.split('/').pop()}` }));
    await runHttpTemplate(template, loopbackService(server.port), executionContext());
    assert.deepEqual(server.seen.map((r) => r.url), ['/list', '/item/1', '/item/2', '/item/3', '/detail/3', '/detail/2', '/detail/1']);
  });

  it('iterate-all sends at most MAX_DYNAMIC_VALUES requests per entry, with a note', async (t) => {
    const template = inline(`http:
  - method: GET
    path: ["{{BaseURL}}/list", "{{BaseURL}}/item/{{id}}"]
    iterate-all: true
    extractors:
      - type: regex
        name: id
        internal: true
        group: 1
        regex: ['id=(\\d+)']
    matchers:
      - type: word
        words: [never]
`);
    const ids = Array.from({ length: MAX_DYNAMIC_VALUES + 500 }, (_, i) => `id=${i}`).join(' ');
    const server = await serve(t, (r) => ({ body: r.url === '/list' ? ids : 'nothing' }));
    const outcome = await runHttpTemplate(template, loopbackService(server.port), executionContext());
    assert.equal(server.seen.length, 1 + MAX_DYNAMIC_VALUES);
    assert.equal(server.seen[1]?.url, '/item/0');
    assert.deepEqual(outcome.notes, [`inline: only the newest ${MAX_DYNAMIC_VALUES} extracted values of id are kept (iterate-all sends one request per value).`]);
  });

  it('a variable naming an extracted value is evaluated again per request; the others keep their value', async (t) => {
    const template = inline(`variables:
  nonce: "{{rand_int(100000, 999999)}}"
  signed: "{{md5(token)}}"
http:
  - raw:
      - |
        GET /token?n={{nonce}} HTTP/1.1
        Host: {{Hostname}}
      - |
        GET /use?n={{nonce}}&sig={{signed}} HTTP/1.1
        Host: {{Hostname}}
    extractors:
      - type: regex
        name: token
        internal: true
        group: 1
        regex: ['token=(\\w+)']
    matchers:
      - type: word
        words: [accepted]
`);
    const server = await serve(t, (r) => ({ body: r.url.startsWith('/token') ? 'token=abc' : r.url.endsWith(`&sig=${md5('abc')}`) ? 'accepted' : 'no' }));
    const outcome = await runHttpTemplate(template, loopbackService(server.port), executionContext());
    const nonces = server.seen.map((r) => /n=(\d+)/.exec(r.url)?.[1]);
    assert.equal(nonces.length, 2);
    assert.equal(nonces[0], nonces[1]);
    assert.equal(outcome.matches.length, 1);
  });

  it('{{BaseURL}}:port sends to that port of the same host', async (t) => {
    const other = await serve(t, () => ({ body: 'admin console' }));
    const template = inline(`http:
  - method: GET
    path: ["{{BaseURL}}:${other.port}/console"]
    matchers:
      - type: word
        words: [admin console]
`);
    const main = await serve(t, () => ({ status: 404 }));
    const outcome = await runHttpTemplate(template, loopbackService(main.port), executionContext());
    assert.deepEqual([main.seen.length, other.seen.map((r) => r.url)], [0, ['/console']]);
    assert.equal(outcome.matches[0]?.matchedAt, `http://127.0.0.1:${other.port}/console`);
  });

  it('template stop-at-first-match skips later blocks; a block id leaves <id>_ values for them', async (t) => {
    const blocks = `  - id: first
    method: GET
    path: ["{{BaseURL}}/a"]
    matchers:
      - type: word
        words: [alpha]
  - method: GET
    path: ["{{BaseURL}}/b"]
    matchers:
      - type: dsl
        dsl: ['first_status_code == 200 && contains(first_body, "alpha") && status_code == 404']
`;
    const server = await serve(t, (r) => (r.url === '/a' ? { body: 'alpha' } : { status: 404 }));
    const stopping = await runHttpTemplate(inline(`stop-at-first-match: true\nhttp:\n${blocks}`), loopbackService(server.port), executionContext());
    assert.deepEqual([stopping.matches.length, server.seen.map((r) => r.url)], [1, ['/a']]);
    const both = await runHttpTemplate(inline(`http:\n${blocks}`), loopbackService(server.port), executionContext());
    assert.deepEqual(both.matches.map((m) => m.matchedAt.replace(/^.*\d\//, '/')), ['/a', '/b']);
  });

  it('a gzip body is decoded before matching', async (t) => {
    const template = inline(`http:
  - method: GET
    path: ["{{BaseURL}}"]
    headers:
      Accept-Encoding: gzip
    matchers:
      - type: word
        words: [compressed secret]
`);
    const server = await serve(t, () => ({ headers: { 'Content-Encoding': 'gzip' }, body: gzipSync('the compressed secret') }));
    const outcome = await runHttpTemplate(template, loopbackService(server.port), executionContext());
    assert.equal(outcome.matches.length, 1);
  });

  it('a redirect loop stops after 10 redirects (nuclei default); the last response is matched', async (t) => {
    const template = inline(`http:
  - method: GET
    path: ["{{BaseURL}}/loop/0"]
    redirects: true
    matchers:
      - type: status
        status: [302]
`);
    const server = await serve(t, (r) => ({ status: 302, headers: { Location: `/loop/${Number(r.url.split('/')[2]) + 1}` } }));
    const outcome = await runHttpTemplate(template, loopbackService(server.port), executionContext());
    assert.equal(server.seen.length, 11);
    assert.equal(outcome.requestsSent, 11);
    assert.equal(outcome.matches[0]?.matchedAt, `http://127.0.0.1:${server.port}/loop/10`);
  });

  it('helper variables of a service as nuclei derives them from its input URL', () => {
    const service = { host: 'app.example.com', address: '192.0.2.7', port: 8443, scheme: 'https' as const, tls: true, basePath: '/shop/cart/' };
    assert.deepEqual(helperVariables(inputUrl(service), service.address, true), {
      BaseURL: 'https://app.example.com:8443/shop/cart',
      RootURL: 'https://app.example.com:8443',
      Hostname: 'app.example.com:8443',
      Host: 'app.example.com',
      Port: '8443',
      Path: '/shop',
      File: 'cart',
      Query: '',
      Scheme: 'https',
      Input: 'https://app.example.com:8443/shop/cart',
      ip: '192.0.2.7',
      FQDN: 'app.example.com',
      RDN: 'example.com',
      DN: 'example',
      TLD: 'com',
      SD: 'app',
    });
    const plain = helperVariables(inputUrl({ ...service, host: '192.0.2.7', port: 80, scheme: 'http', tls: false, basePath: '/' }), '192.0.2.7', false);
    assert.deepEqual([plain.BaseURL, plain.Hostname, plain.Port, plain.Path, plain.File, plain.FQDN, plain.RDN], ['http://192.0.2.7', '192.0.2.7', '80', '', '', '192.0.2.7', undefined]);
  });

  it('a redirect to another host:port sends its own Host, no credentials; cookies follow the host name (RFC 6265: ports share them)', async (t) => {
    const second = await serve(t, () => ({ body: 'landed' }));
    const first = await serve(t, () => ({ status: 302, headers: { Location: `http://127.0.0.1:${second.port}/next`, 'Set-Cookie': 'sid=1' } }));
    const template = inline(`http:
  - raw:
      - |
        GET /start HTTP/1.1
        Host: {{Hostname}}
        Authorization: Basic Zm9vOmJhcg==
    redirects: true
    matchers:
      - type: word
        words: [landed]
`);
    const outcome = await runHttpTemplate(template, loopbackService(first.port), executionContext());
    assert.equal(outcome.matches.length, 1);
    assert.deepEqual(
      [second.seen[0]?.headers.host, second.seen[0]?.headers.authorization, second.seen[0]?.headers.cookie],
      [`127.0.0.1:${second.port}`, undefined, 'sid=1'],
    );
  });
});
