/**
 * Changing an account's plan: the admin accounts API (list, change role) and its refusals. The
 * CLI side (`rampart user role`) is in cli-user-role.test.ts.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { buildTestApp, signUp, STORE_KIND } from './helpers/app.js';

test(`admins list accounts and change plans; nobody else can (${STORE_KIND})`, async (t) => {
  const ctx = await buildTestApp(t);
  const admin = await signUp(ctx, { email: 'admin@example.com', role: 'admin' });
  const pro = await signUp(ctx, { email: 'pro@example.com', role: 'pro' });
  const trial = await signUp(ctx, { email: 'trial@example.com' });
  const call = (method: 'GET' | 'PUT', url: string, auth: Record<string, string>, payload?: object) =>
    ctx.app.inject({ method, url, headers: auth, ...(payload ? { payload } : {}) });

  await t.test('the list, paginated like the other lists', async () => {
    const first = await call('GET', '/api/admin/users?per_page=2', admin.auth);
    assert.equal(first.statusCode, 200, first.body);
    const body = first.json();
    assert.deepEqual(body.data, [
      { id: admin.userId, name: 'admin', email: 'admin@example.com', role: { name: 'admin' } },
      { id: pro.userId, name: 'pro', email: 'pro@example.com', role: { name: 'pro' } },
    ]);
    assert.equal(body.meta.total, 3);
    assert.equal(body.meta.last_page, 2);
    assert.equal(body.meta.path, 'http://rampart.test/api/admin/users');
    assert.match(body.links.next, /page=2/);
    const second = (await call('GET', '/api/admin/users?per_page=2&page=2', admin.auth)).json();
    assert.deepEqual(second.data.map((u: { id: number }) => u.id), [trial.userId]);
    assert.equal((await call('GET', '/api/admin/users?per_page=500', admin.auth)).statusCode, 422);
  });

  await t.test('an admin changes a plan; it applies from the next request', async () => {
    const res = await call('PUT', `/api/admin/users/${trial.userId}`, admin.auth, { role: 'pro' });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json(), {
      message: 'The role of trial@example.com is now pro.',
      data: { id: trial.userId, name: 'trial', email: 'trial@example.com', role: { name: 'pro' } },
    });
    assert.deepEqual((await call('GET', '/api/user', trial.auth)).json().role, { name: 'pro' });
  });

  await t.test('non-admins are refused with a message that says why, whatever they send', async () => {
    // `trial` is on the pro plan since the step above.
    for (const who of [pro, trial]) {
      for (const [method, url, body] of [
        ['GET', '/api/admin/users', undefined],
        ['PUT', `/api/admin/users/${who.userId}`, { role: 'admin' }],
        ['PUT', `/api/admin/users/${admin.userId}`, { role: 'emperor' }],
        ['PUT', '/api/admin/users/999999', {}],
      ] as const) {
        const res = await call(method, url, who.auth, body);
        assert.equal(res.statusCode, 403, `${method} ${url}`);
        assert.deepEqual(res.json(), { message: "Managing accounts requires the admin role; this account's role is pro." });
      }
    }
    assert.deepEqual((await call('GET', '/api/user', pro.auth)).json().role, { name: 'pro' }, 'still pro');
    assert.equal((await ctx.app.inject({ method: 'GET', url: '/api/admin/users' })).statusCode, 401);
  });

  await t.test('404 for no such account, 422 naming the valid roles or the field not allowed', async () => {
    for (const id of ['999999', 'abc', '0']) {
      const res = await call('PUT', `/api/admin/users/${id}`, admin.auth, { role: 'basic' });
      assert.equal(res.statusCode, 404, id);
      assert.deepEqual(res.json(), { message: 'User not found.' });
    }
    const bad = await call('PUT', `/api/admin/users/${pro.userId}`, admin.auth, { role: 'emperor' });
    assert.equal(bad.statusCode, 422);
    assert.deepEqual(bad.json().errors, { role: ['The selected role is invalid (one of trial, basic, premium, pro, admin).'] });
    const missing = await call('PUT', `/api/admin/users/${pro.userId}`, admin.auth, {});
    assert.equal(missing.statusCode, 422);
    assert.deepEqual(Object.keys(missing.json().errors), ['role']);
    const extra = await call('PUT', `/api/admin/users/${pro.userId}`, admin.auth, { role: 'basic', email: 'new@example.com' });
    assert.equal(extra.statusCode, 422);
    assert.deepEqual(extra.json().errors, { email: ['The email field is not allowed; only role can be changed here.'] });
    assert.deepEqual((await call('GET', '/api/user', pro.auth)).json().role, { name: 'pro' }, 'unchanged');
  });

  await t.test('the only admin cannot be demoted; with a second one, either may step down', async () => {
    const alone = await call('PUT', `/api/admin/users/${admin.userId}`, admin.auth, { role: 'basic' });
    assert.equal(alone.statusCode, 422);
    assert.deepEqual(alone.json().errors, { role: ['This is the only admin account; make another account admin first.'] });
    assert.equal((await call('PUT', `/api/admin/users/${pro.userId}`, admin.auth, { role: 'admin' })).statusCode, 200);
    assert.equal((await call('PUT', `/api/admin/users/${admin.userId}`, admin.auth, { role: 'basic' })).statusCode, 200);
    const now = await call('GET', '/api/admin/users', admin.auth);
    assert.equal(now.statusCode, 403, 'no longer an admin');
    assert.match(now.json().message, /role is basic/);
  });

  await t.test('the OpenAPI document has the routes; the MCP tools do not, even for an admin', async () => {
    const doc = (await ctx.app.inject({ method: 'GET', url: '/api/openapi.json' })).json();
    assert.ok(doc.paths['/api/admin/users'].get);
    assert.ok(doc.paths['/api/admin/users/{id}'].put);
    const address = await ctx.app.listen({ port: 0, host: '127.0.0.1' });
    // `pro` is an admin since the step above.
    const transport = new StreamableHTTPClientTransport(new URL(`${address}/mcp`), { requestInit: { headers: { authorization: `Bearer ${pro.token}` } } });
    const client = new Client({ name: 'rampart-test', version: '1.0.0' });
    await client.connect(transport);
    t.after(() => client.close());
    const names = (await client.listTools()).tools.map((tool) => tool.name);
    assert.ok(names.includes('user_show'));
    assert.deepEqual(names.filter((name) => /admin|role|users/.test(name)), []);
  });
});
