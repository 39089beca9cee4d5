import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildTestApp, STORE_KIND } from './helpers/app.js';

const BASE = 'http://rampart.test';
const SCOPES = [
  'scans.read', 'scans.write', 'vulnerabilities.read', 'vulnerabilities.write',
  'targets.read', 'targets.write', 'webhooks.read', 'webhooks.write',
];

test(`discovery documents (${STORE_KIND})`, async (t) => {
  const { app } = await buildTestApp(t);
  const get = async (url: string) => {
    const res = await app.inject({ method: 'GET', url });
    assert.equal(res.statusCode, 200, url);
    return res;
  };

  await t.test('oauth-protected-resource (RFC 9728)', async () => {
    const doc = (await get('/.well-known/oauth-protected-resource')).json();
    assert.equal(doc.resource, BASE);
    assert.deepEqual(doc.authorization_servers, [BASE]);
    assert.deepEqual(doc.scopes_supported, SCOPES);
    assert.deepEqual(doc.bearer_methods_supported, ['header']);
    assert.equal(doc.resource_name, 'Rampart');
    assert.equal(doc.resource_documentation, `${BASE}/docs`);
  });

  await t.test('oauth-authorization-server (RFC 8414) with agent_auth', async () => {
    const doc = (await get('/.well-known/oauth-authorization-server')).json();
    assert.equal(doc.issuer, BASE);
    assert.equal(doc.token_endpoint, `${BASE}/api/token`);
    assert.deepEqual(doc.scopes_supported, SCOPES);
    assert.deepEqual(doc.agent_auth, {
      skill: `${BASE}/auth.md`,
      register_uri: `${BASE}/agent/auth`,
      claim_uri: `${BASE}/agent/auth/claim`,
      identity_types_supported: ['identity_assertion'],
      identity_assertion: { assertion_types_supported: ['verified_email'] },
      credential_types_supported: ['api_key'],
    });
    assert.ok(!JSON.stringify(doc).includes('anonymous'));
    assert.ok(!JSON.stringify(doc).toLowerCase().includes('id-jag'));
  });

  await t.test('MCP server card', async () => {
    const card = (await get('/.well-known/mcp/server-card.json')).json();
    assert.match(card.$schema, /^https:\/\//);
    assert.match(card.name, /^[a-z0-9.-]+\/[a-z0-9-]+$/);
    assert.match(card.version, /^\d+\.\d+\.\d+/);
    assert.ok(card.description.length <= 100);
    assert.deepEqual(card.remotes[0].type, 'streamable-http');
    assert.equal(card.remotes[0].url, `${BASE}/mcp`);
    assert.deepEqual(card.remotes[0].supportedProtocolVersions, ['2025-11-25', '2025-06-18']);
    assert.equal(card.serverInfo.name, 'rampart');
    assert.equal(card.transport.url, `${BASE}/mcp`);
    assert.equal(card.authentication.required, true);
  });

  await t.test('auth.md is Markdown naming the real endpoints', async () => {
    const res = await get('/auth.md');
    assert.match(res.headers['content-type'] as string, /^text\/markdown/);
    for (const piece of [`${BASE}/agent/auth`, `${BASE}/agent/auth/claim`, `${BASE}/api/token`, 'verified_email', '"claim_token": "<from step 2>"', 'At most 5 codes', '20 from one client address']) {
      assert.ok(res.body.includes(piece), piece);
    }
  });

  await t.test('OpenAPI 3.1 document from the route schemas', async () => {
    const doc = (await get('/api/openapi.json')).json();
    assert.equal(doc.openapi, '3.1.0');
    assert.equal(doc.info.version, '1.2.0');
    assert.ok(doc.paths['/api/token'].post);
    assert.ok(doc.paths['/api/refresh'].post);
    assert.ok(doc.paths['/api/user'].get.responses['200']);
    assert.ok(doc.paths['/agent/auth'].post.requestBody);
    assert.deepEqual(doc.components.securitySchemes.bearerAuth, { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' });
  });

  await t.test('the API reference page', async () => {
    const res = await app.inject({ method: 'GET', url: '/docs/' });
    assert.equal(res.statusCode, 200);
    assert.match(res.headers['content-type'] as string, /text\/html/);
    assert.match(res.body, /swagger/i);
  });
});
