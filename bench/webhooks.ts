/**
 * bench/webhooks: deliveries per second from the outbox to a local HTTPS receiver, 100 webhooks
 * with 20 messages each, measured twice in the same run: every receiver healthy, then one of the
 * 100 hanging (accepts, never answers). Prints both rates for the 99 healthy webhooks and their
 * ratio: the goal is that the hanging one costs the others nothing (ratio ~1).
 *
 *   npm run bench:webhooks                          (embedded PGlite)
 *   DATABASE_URL=postgres://... npm run bench:webhooks
 */
import { randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pino from 'pino';
import { sql } from 'kysely';
import { loadConfig } from '../src/config.js';
import { migrateToLatest, openStore } from '../src/db/database.js';
import { createUser } from '../src/accounts/users.service.js';
import { createAddressGuard } from '../src/shared/address-guard.js';
import { WebhookWorker } from '../src/webhooks/webhook.worker.js';
import { generateSecret } from '../src/webhooks/signing.js';
import { TestPki } from '../test/helpers/pki.js';

const { values } = parseArgs({ options: { webhooks: { type: 'string', default: '100' }, messages: { type: 'string', default: '20' } } });
const WEBHOOKS = Number(values.webhooks);
const MESSAGES = Number(values.messages);
const url = process.env.DATABASE_URL;
const schema = `bench_${randomBytes(4).toString('hex')}`;
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rampart-bench-webhooks-'));
const pki = new TestPki();
const caFile = path.join(pki.dir, 'ca.pem');
fs.writeFileSync(caFile, pki.ca.cert);
const leaf = pki.issue({ cn: 'localhost', san: 'IP:127.0.0.1' });

let delivered = 0;
const server = https.createServer({ key: leaf.key, cert: leaf.cert }, (req, res) => {
  if (req.url === '/hang') return; // accepts, reads nothing back: the worker's timeout ends it
  req.resume();
  req.on('end', () => {
    delivered++;
    res.writeHead(200).end('ok');
  });
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const base = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;

const store = await openStore({ databaseUrl: url, dataDir: url ? '' : dataDir, schema, poolSize: 10 });
const config = loadConfig({
  RAMPART_DATA_DIR: dataDir,
  RAMPART_WEBHOOK_CA_FILE: caFile,
  RAMPART_WEBHOOK_TIMEOUT_MS: '10000',
  RAMPART_WORKER_POLL_MS: '50',
  RAMPART_LOG_LEVEL: 'silent',
});
const log = pino({ level: 'silent' });

/** One scenario: fresh webhooks and messages, one worker, until the healthy ones are all delivered. */
async function scenario(hanging: boolean): Promise<{ seconds: number; rate: number }> {
  await sql`delete from webhooks`.execute(store.db);
  const user = await createUser(store.db, { email: `bench-${randomUUID()}@example.com`, password: 'benchmark-password', role: 'admin' });
  const hooks = await store.db
    .insertInto('webhooks')
    .values(Array.from({ length: WEBHOOKS }, (_, i) => ({
      user_id: user.id,
      url: hanging && i === 0 ? `${base}/hang` : `${base}/hook/${i}`,
      events: ['scan.completed'],
      secret: generateSecret(),
      service: 'generic' as const,
    })))
    .returning('id')
    .execute();
  const body = JSON.stringify({ type: 'scan.completed', data: { note: 'x'.repeat(500) } });
  for (let m = 0; m < MESSAGES; m++) {
    await store.db
      .insertInto('webhook_outbox')
      .values(hooks.map((h) => ({ webhook_id: h.id, message_id: `msg_${randomUUID()}`, event: 'scan.completed' as const, body, max_attempts: 6 })))
      .execute();
  }
  const healthy = (hanging ? WEBHOOKS - 1 : WEBHOOKS) * MESSAGES;
  delivered = 0;
  const worker = new WebhookWorker({ db: store.db, config, guard: createAddressGuard(['127.0.0.0/8']), log });
  const started = performance.now();
  worker.start();
  while (delivered < healthy) await new Promise((resolve) => setTimeout(resolve, 5));
  const seconds = (performance.now() - started) / 1000;
  // The hanging webhook's attempt is still waiting for its timeout; stop without waiting for it.
  void worker.stop();
  await new Promise((resolve) => setTimeout(resolve, 200));
  // Each healthy delivery is also recorded before it counts as done for the outbox.
  return { seconds, rate: healthy / seconds };
}

try {
  await migrateToLatest(store);
  console.log(`store: ${url ? 'PostgreSQL' : 'PGlite'}; ${WEBHOOKS} webhooks x ${MESSAGES} messages; worker concurrency ${config.webhooks.concurrency}, attempt timeout ${config.webhooks.timeoutMs} ms`);
  const healthy = await scenario(false);
  console.log(`all ${WEBHOOKS} receivers healthy:          ${String(WEBHOOKS * MESSAGES).padStart(5)} deliveries in ${healthy.seconds.toFixed(2)} s = ${healthy.rate.toFixed(0)}/s`);
  const withHang = await scenario(true);
  console.log(`one receiver hangs (99 healthy measured): ${String((WEBHOOKS - 1) * MESSAGES).padStart(5)} deliveries in ${withHang.seconds.toFixed(2)} s = ${withHang.rate.toFixed(0)}/s`);
  console.log(`ratio (with a hanging receiver / without): ${(withHang.rate / healthy.rate).toFixed(2)}`);
} finally {
  server.closeAllConnections();
  server.close();
  if (url) await sql`drop schema ${sql.id(schema)} cascade`.execute(store.db);
  await store.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
  pki.cleanup();
}
