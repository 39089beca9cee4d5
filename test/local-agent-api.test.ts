/**
 * The local agent's download and credential through the public surface: the file and its headers,
 * 503 without a built bundle, 422 for a managed scan, 404 for another's scan; the credential only
 * on its own scan's agent routes (404 on another scan, 401 on every other endpoint, a JWT 401 on
 * the agent routes), refused while its owner is disabled, expired (the app's clock) and revoked (a new download) with their messages,
 * and gone with its scan.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildTestApp, signUp, STORE_KIND } from './helpers/app.js';
import { agentApp, agentCall, downloadAgent, SELF, STUB_BUNDLE, unmanagedScan } from './helpers/local-agent.js';

const CHALLENGE = 'Bearer resource_metadata="http://rampart.test/.well-known/oauth-protected-resource"';

test(`agent download (${STORE_KIND})`, async (t) => {
  const ctx = await agentApp(t);
  const owner = await signUp(ctx, { role: 'pro' });
  const other = await signUp(ctx, { role: 'pro' });
  const uuid = await unmanagedScan(ctx, owner);

  const res = await ctx.app.inject({ method: 'GET', url: `/api/scans/${uuid}/agent`, headers: owner.auth });
  assert.equal(res.statusCode, 200, res.body);
  assert.equal(res.headers['content-type'], 'application/javascript; charset=utf-8');
  assert.equal(res.headers['content-disposition'], `attachment; filename="rampart-agent-${uuid.slice(0, 8)}.js"`);
  assert.equal(res.headers['cache-control'], 'no-store');
  const lines = res.body.split('\n');
  // The bundle's shebang stays the first line; the config line precedes the rest of the bundle.
  assert.equal(lines[0], '#!/usr/bin/env node');
  assert.match(res.body, /node agent\.js --daemon/);
  assert.match(res.body, /--gvmd-socket PATH/);
  const config = await downloadAgent(ctx, owner, uuid);
  assert.equal(config.baseUrl, 'http://rampart.test');
  assert.equal(config.scanUuid, uuid);
  assert.equal(config.scanName, 'Office LAN');
  assert.match(config.credential, /^ragt_[A-Za-z0-9_-]{43}$/);
  const expires = new Date(config.credentialExpiresAt).getTime();
  assert.ok(Math.abs(expires - (Date.now() + 30 * 86_400_000)) < 60_000, config.credentialExpiresAt);
  assert.ok(res.body.endsWith(STUB_BUNDLE.slice(STUB_BUNDLE.indexOf('\n') + 1)), 'the bundle follows whole');
  // Only the hash is stored.
  const stored = await ctx.store.db.selectFrom('agent_credentials').select('token_hash').execute();
  assert.ok(stored.every((row) => !row.token_hash.includes(config.credential.slice(5))));

  const foreign = await ctx.app.inject({ method: 'GET', url: `/api/scans/${uuid}/agent`, headers: other.auth });
  assert.equal(foreign.statusCode, 404);
  assert.deepEqual(foreign.json(), { message: 'Scan not found.' });

  const managed = await ctx.app.inject({
    method: 'POST',
    url: '/api/new-scan',
    headers: owner.auth,
    payload: { scan_name: 'web', scan_type: 'Rampart', scan_frequency: 'Daily', scan_time_zone: 'UTC', scan_email: 'ops@example.com', scan_target: '93.184.216.34' },
  });
  const refused = await ctx.app.inject({ method: 'GET', url: `/api/scans/${managed.json().uuid}/agent`, headers: owner.auth });
  assert.equal(refused.statusCode, 422);
  assert.match(refused.json().errors.scan_frequency[0], /runs Unmanaged scans/);

  const anonymous = await ctx.app.inject({ method: 'GET', url: `/api/scans/${uuid}/agent` });
  assert.equal(anonymous.statusCode, 401);
});

test(`agent download without a built bundle is a 503 and revokes nothing (${STORE_KIND})`, async (t) => {
  const built = await agentApp(t);
  const owner = await signUp(built, { role: 'pro' });
  const uuid = await unmanagedScan(built, owner);
  const { credential } = await downloadAgent(built, owner, uuid);
  // The same store, seen by a deployment that has no bundle.
  const same = await buildTestApp(t, { store: built.store, config: { localAgent: { ...built.config.localAgent, bundlePath: `${built.dataDir}/no-such-agent.cjs` } } });
  const res = await same.app.inject({ method: 'GET', url: `/api/scans/${uuid}/agent`, headers: owner.auth });
  assert.equal(res.statusCode, 503);
  assert.deepEqual(res.json(), { message: 'The agent bundle is not built: run npm run build.' });
  const still = await agentCall(built, credential, uuid, 'POST', '/check-in', SELF);
  assert.equal(still.statusCode, 200, still.body);
});

test(`the agent credential opens its own scan's agent routes and nothing else (${STORE_KIND})`, async (t) => {
  let now = new Date();
  const ctx = await agentApp(t, { clock: () => now });
  const owner = await signUp(ctx, { role: 'pro' });
  const uuid = await unmanagedScan(ctx, owner);
  const otherScan = await unmanagedScan(ctx, owner, { scan_name: 'Other' });
  const { credential, credentialExpiresAt } = await downloadAgent(ctx, owner, uuid);

  const ok = await agentCall(ctx, credential, uuid, 'POST', '/check-in', SELF);
  assert.equal(ok.statusCode, 200, ok.body);
  assert.equal(ok.json().run.run_index, 0);
  assert.equal(ok.json().credential_expires_at, credentialExpiresAt);
  const used = await ctx.store.db.selectFrom('agent_credentials').select('last_used_at').executeTakeFirstOrThrow();
  assert.ok(used.last_used_at);

  const elsewhere = await agentCall(ctx, credential, otherScan, 'POST', '/check-in', SELF);
  assert.equal(elsewhere.statusCode, 404);
  assert.deepEqual(elsewhere.json(), { message: 'Scan not found.' });

  for (const [method, url] of [['GET', '/api/scans'], ['GET', `/api/scans/${uuid}`], ['GET', `/api/scans/${uuid}/agent`], ['POST', '/mcp']] as const) {
    const res = await ctx.app.inject({ method, url, headers: { authorization: `Bearer ${credential}`, accept: 'application/json, text/event-stream' }, payload: method === 'POST' ? {} : undefined });
    assert.equal(res.statusCode, 401, `${method} ${url}: ${res.body}`);
    assert.deepEqual(res.json(), { message: 'Unauthenticated.' });
  }

  const jwt = await ctx.app.inject({ method: 'POST', url: `/api/scans/${uuid}/agent/check-in`, headers: owner.auth, payload: SELF });
  assert.equal(jwt.statusCode, 401);
  assert.equal(jwt.headers['www-authenticate'], CHALLENGE);
  assert.deepEqual(jwt.json(), { message: 'Unauthenticated.' });
  const unknown = await agentCall(ctx, `ragt_${'A'.repeat(43)}`, uuid, 'POST', '/check-in', SELF);
  assert.equal(unknown.statusCode, 401);
  assert.deepEqual(unknown.json(), { message: 'Unauthenticated.' });

  // Expired: the app's clock past the expiry.
  now = new Date(new Date(credentialExpiresAt).getTime() + 1000);
  const expired = await agentCall(ctx, credential, uuid, 'POST', '/check-in', SELF);
  assert.equal(expired.statusCode, 401);
  assert.equal(expired.headers['www-authenticate'], CHALLENGE);
  assert.equal(expired.json().message, `This agent's credential expired on ${credentialExpiresAt}: download the agent again from the scan's page.`);
  now = new Date();

  // The owner's account disabled: the agent stops with it, and works again once re-enabled.
  await ctx.store.db.updateTable('users').set({ disabled_at: new Date() }).where('id', '=', owner.userId).execute();
  const disabled = await agentCall(ctx, credential, uuid, 'POST', '/check-in', SELF);
  assert.equal(disabled.statusCode, 401);
  assert.deepEqual(disabled.json(), { message: "This agent's account is disabled." });
  await ctx.store.db.updateTable('users').set({ disabled_at: null }).where('id', '=', owner.userId).execute();
  assert.equal((await agentCall(ctx, credential, uuid, 'POST', '/check-in', SELF)).statusCode, 200);

  // Two downloads at once: one live credential, the other revoked (and the store refuses a second live one).
  const [a, b] = await Promise.all([downloadAgent(ctx, owner, uuid), downloadAgent(ctx, owner, uuid)]);
  assert.notEqual(a.credential, b.credential);
  const live = await ctx.store.db.selectFrom('agent_credentials').select('scan_id').where('revoked_at', 'is', null).execute();
  assert.equal(live.length, 1);
  await assert.rejects(ctx.store.db.insertInto('agent_credentials').values({ scan_id: live[0]!.scan_id, token_hash: 'x', expires_at: new Date() }).execute());

  // Revoked by a new download; the new one works.
  const second = await downloadAgent(ctx, owner, uuid);
  const revoked = await agentCall(ctx, credential, uuid, 'POST', '/check-in', SELF);
  assert.equal(revoked.statusCode, 401);
  assert.match(revoked.json().message, /revoked because the agent was downloaded again/);
  assert.equal((await agentCall(ctx, second.credential, uuid, 'POST', '/check-in', SELF)).statusCode, 200);

  // The scan deleted: its credentials go with it, and the agent is simply unauthenticated.
  assert.equal((await ctx.app.inject({ method: 'DELETE', url: `/api/scans/${uuid}`, headers: owner.auth })).statusCode, 200);
  const gone = await agentCall(ctx, second.credential, uuid, 'POST', '/check-in', SELF);
  assert.equal(gone.statusCode, 401);
  assert.deepEqual(gone.json(), { message: 'Unauthenticated.' });
  assert.equal((await ctx.store.db.selectFrom('agent_credentials').select('id').execute()).length, 0);
});
