import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { buildTestApp, signUp, STORE_KIND, type TestApp } from './helpers/app.js';
import type { Mailer, MailMessage } from '../src/mail/mailer.js';

/** A mailer that keeps what it is given: the codes, without an SMTP server. */
function memoryMailer(): Mailer & { sent: MailMessage[]; lastCode(): string } {
  const sent: MailMessage[] = [];
  return {
    sent,
    async send(message) {
      sent.push(message);
      return { messageId: String(sent.length) };
    },
    close() {},
    lastCode() {
      const match = /one-time code is: (\d{6})/.exec(sent.at(-1)?.text ?? '');
      assert.ok(match, 'a code was mailed');
      return match[1]!;
    },
  };
}

/** A clock the test moves by hand. */
function handClock() {
  let now = Date.now();
  return { clock: () => new Date(now), advance: (seconds: number) => void (now += seconds * 1000) };
}

function start(ctx: TestApp, email: string, remoteAddress = '127.0.0.1') {
  return ctx.app.inject({ method: 'POST', url: '/agent/auth', payload: { email }, remoteAddress });
}

function claim(ctx: TestApp, payload: object, remoteAddress = '127.0.0.1') {
  return ctx.app.inject({ method: 'POST', url: '/agent/auth/claim', payload, remoteAddress });
}

function otherCode(code: string): string {
  return code === '000000' ? '111111' : '000000';
}

function assertRefusedStart(res: LightMyRequestResponse, limit: number, retryAfter: number): void {
  assert.equal(res.statusCode, 429);
  assert.deepEqual(res.json(), { message: 'Too Many Attempts.' });
  assert.equal(res.headers['retry-after'], String(retryAfter));
  assert.equal(res.headers['x-ratelimit-limit'], String(limit));
  assert.equal(res.headers['x-ratelimit-remaining'], '0');
  assert.equal(res.headers['x-ratelimit-reset'], String(retryAfter));
  assert.match(res.headers['x-request-id'] as string, /^[0-9a-f-]{36}$/);
}

const OUT_OF_ATTEMPTS = 'The registration has no attempts left (5 wrong codes); start a new registration.';

test(`200 parallel wrong codes: five are compared, the rest refused, then the right code too (${STORE_KIND})`, async (t) => {
  const mailer = memoryMailer();
  const ctx = await buildTestApp(t, { mailer });
  const victim = await signUp(ctx, { email: 'victim@example.com' });
  const started = (await start(ctx, 'victim@example.com')).json();
  const code = mailer.lastCode();
  const guess = { registration_id: started.registration_id, claim_token: started.claim_token, code: otherCode(code) };

  // From 200 addresses, so no per-address limit hides the attempt counter.
  const answers = await Promise.all(Array.from({ length: 200 }, (_, i) => claim(ctx, guess, `198.18.${i >> 8}.${i & 255}`)));
  assert.deepEqual(new Set(answers.map((r) => r.statusCode)), new Set([422]));
  const errors = answers.map((r) => r.json().errors as Record<string, string[]>);
  const compared = errors.filter((e) => e.code).map((e) => e.code![0]);
  assert.deepEqual(compared.sort(), [0, 1, 2, 3, 4].map((n) => `The code is invalid; ${n} attempt${n === 1 ? '' : 's'} left.`).sort());
  const refused = errors.filter((e) => e.registration_id).map((e) => e.registration_id![0]);
  assert.deepEqual(refused, Array(195).fill(OUT_OF_ATTEMPTS));

  const late = await claim(ctx, { ...guess, code });
  assert.equal(late.statusCode, 422);
  assert.deepEqual(late.json().errors, { registration_id: [OUT_OF_ATTEMPTS] });
  const keys = await ctx.store.db.selectFrom('api_keys').select('id').where('user_id', '=', victim.userId).execute();
  assert.equal(keys.length, 1, 'the existing account got no new key');
});

test(`a claim needs the claim token of the start, and the code of that registration (${STORE_KIND})`, async (t) => {
  const mailer = memoryMailer();
  const time = handClock();
  const ctx = await buildTestApp(t, { mailer, clock: time.clock });
  const first = (await start(ctx, 'someone@example.com')).json();
  const firstCode = mailer.lastCode();
  const second = (await start(ctx, 'someone@example.com')).json();
  const secondCode = mailer.lastCode();

  await t.test('without a claim token: 422 on claim_token', async () => {
    const res = await claim(ctx, { registration_id: first.registration_id, code: firstCode });
    assert.equal(res.statusCode, 422);
    assert.deepEqual(Object.keys(res.json().errors), ['claim_token']);
  });

  await t.test("with another registration's token: 422 on claim_token, and no attempt is spent", async () => {
    for (let i = 0; i < 6; i++) {
      const res = await claim(ctx, { registration_id: first.registration_id, claim_token: second.claim_token, code: firstCode });
      assert.equal(res.statusCode, 422);
      assert.deepEqual(res.json().errors, { claim_token: ['The claim token is not the one this registration was started with.'] });
    }
  });

  await t.test('the code mailed for one registration does not claim another', async (st) => {
    if (firstCode === secondCode) return st.skip('the two random codes happen to be equal');
    const res = await claim(ctx, { registration_id: second.registration_id, claim_token: second.claim_token, code: firstCode });
    assert.equal(res.statusCode, 422);
    assert.deepEqual(res.json().errors, { code: ['The code is invalid; 4 attempts left.'] });
  });

  await t.test('its own token and code claim it', async () => {
    const res = await claim(ctx, { registration_id: first.registration_id, claim_token: first.claim_token, code: firstCode });
    assert.equal(res.statusCode, 200);
    assert.equal(res.json().account_created, true);
  });

  await t.test('an unknown id, and an expired code, are refused', async () => {
    const unknown = await claim(ctx, { registration_id: '6f1c7a1e-1111-4222-8333-944455556666', claim_token: second.claim_token, code: secondCode });
    assert.deepEqual(unknown.json().errors, { registration_id: ['No registration has this id.'] });
    time.advance(ctx.config.agentCodeTtlSeconds);
    const expired = await claim(ctx, { registration_id: second.registration_id, claim_token: second.claim_token, code: secondCode });
    assert.equal(expired.statusCode, 422);
    assert.deepEqual(expired.json().errors, { registration_id: ['The code has expired; start a new registration.'] });
  });
});

test(`codes are capped per client address an hour, Retry-After from the stored starts (${STORE_KIND})`, async (t) => {
  const time = handClock();
  const ctx = await buildTestApp(t, { mailer: memoryMailer(), clock: time.clock, env: { RAMPART_AGENT_AUTH_PER_CLIENT: '3' } });
  const client = '203.0.113.20';
  for (let i = 0; i < 3; i++) {
    assert.equal((await start(ctx, `person-${i}@example.com`, client)).statusCode, 202);
    time.advance(600);
  }
  // Starts at 0, 10 and 20 minutes; now 30 minutes: the first leaves the window at 60.
  assertRefusedStart(await start(ctx, 'person-3@example.com', client), 3, 1800);
  assert.equal((await start(ctx, 'person-3@example.com', '198.51.100.20')).statusCode, 202, 'another client has its own cap');
  time.advance(1800);
  assert.equal((await start(ctx, 'person-4@example.com', client)).statusCode, 202);
  assertRefusedStart(await start(ctx, 'person-5@example.com', client), 3, 600);
});

test(`codes are capped per email address an hour, whoever asks; the answer does not tell whether an account exists (${STORE_KIND})`, async (t) => {
  const ctx = await buildTestApp(t, { mailer: memoryMailer(), clock: handClock().clock, env: { RAMPART_AGENT_AUTH_PER_EMAIL: '2' } });
  await signUp(ctx, { email: 'member@example.com' });
  const answers = [await start(ctx, 'member@example.com', '203.0.113.30'), await start(ctx, 'stranger@example.com', '203.0.113.30')];
  const shape = (res: LightMyRequestResponse) => {
    const body = res.json();
    return { status: res.statusCode, keys: Object.keys(body), message: body.message.replace(/ \S+@example\.com\./, ' <email>.') };
  };
  assert.deepEqual(shape(answers[0]!), shape(answers[1]!));

  assert.equal((await start(ctx, 'Member@Example.com', '203.0.113.31')).statusCode, 202);
  assertRefusedStart(await start(ctx, 'member@example.com', '203.0.113.32'), 2, 3600);
  assert.equal((await start(ctx, 'stranger@example.com', '203.0.113.33')).statusCode, 202);
  assertRefusedStart(await start(ctx, 'stranger@example.com', '203.0.113.34'), 2, 3600);
  assert.equal((await start(ctx, 'someone-else@example.com', '203.0.113.32')).statusCode, 202);
});

test(`parallel starts cannot outrun the caps (${STORE_KIND})`, async (t) => {
  const mailer = memoryMailer();
  const ctx = await buildTestApp(t, { mailer, env: { RAMPART_AGENT_AUTH_PER_EMAIL: '5', RAMPART_AGENT_AUTH_PER_CLIENT: '7' } });
  const sameEmail = await Promise.all(Array.from({ length: 30 }, (_, i) => start(ctx, 'target@example.com', `198.18.1.${i}`)));
  assert.equal(sameEmail.filter((r) => r.statusCode === 202).length, 5);
  assert.equal(sameEmail.filter((r) => r.statusCode === 429).length, 25);
  const sameClient = await Promise.all(Array.from({ length: 30 }, (_, i) => start(ctx, `many-${i}@example.com`, '198.18.2.1')));
  assert.equal(sameClient.filter((r) => r.statusCode === 202).length, 7);
  assert.equal(mailer.sent.length, 12, 'one mail per accepted start, none for refused ones');
});
