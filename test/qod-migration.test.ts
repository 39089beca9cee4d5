/**
 * Migration 0016 on a store holding 0015's findings: every row gets a quality of detection, from
 * what the row says (rule id, engine, the importer's "other fields" lines).
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { test } from 'node:test';
import { Migrator, sql } from 'kysely';
import { migrateToLatest } from '../src/db/database.js';
import { migrations } from '../src/db/migrations/index.js';
import { openTestStore } from './helpers/app.js';

test('migration 0016 backfills QoD: checks 95, version matches 80, OpenVAS its own, ZAP its confidence', async (t) => {
  const { store } = await openTestStore(t, { migrate: false });
  const migrator = new Migrator({ db: store.db, migrationTableSchema: store.schema, provider: { getMigrations: async () => migrations } });
  assert.equal((await migrator.migrateTo('0015-run-recorder')).error, undefined);

  const user = await sql<{ id: number }>`insert into users (name, email) values ('Old', 'old@example.com') returning id`.execute(store.db);
  const scan = await sql<{ id: number }>`
    insert into scans (uuid, user_id, scan_name, scan_type, scan_target, targets, scan_frequency, scan_time_zone, scan_email)
    values (${randomUUID()}, ${user.rows[0]!.id}, 'old', 'Rampart', 'example.com', '[]', 'Weekly', 'UTC', 'ops@example.com') returning id`.execute(store.db);
  const rows: [string, string, string][] = [
    ['rampart', 'rampart:redis-noauth', 'PONG without AUTH'],
    ['rampart', 'rampart:known-vulnerability', 'OpenSSH 9.2p1 is within the versions affected'],
    ['nmap', 'nmap:vulners', 'vulners: CVE-2023-38408 cvss 9.8'],
    ['openvas', '1.3.6.1.4.1.25623.1.0.1', 'Installed version: 116\n\nother fields:\nthreat=High\nqod=97 registry\nfamily=Windows'],
    ['openvas', '1.3.6.1.4.1.25623.1.0.2', 'no qod line'],
    ['zap', 'zap:10096', 'Evidence: 265151019\n\nother fields:\nconfidence=Low\nwascid=13'],
    ['zap', 'zap:40012', 'other fields:\nconfidence=2'],
    ['nuclei', 'http-missing-security-headers', 'Matched at https://x'],
  ];
  for (const [engine, ruleId, evidence] of rows) {
    await sql`
      insert into findings (user_id, scan_id, run_index, fingerprint, name, description, solution, threat, cve, hostname, host_ip, scan_type, engine, rule_id, evidence, "references")
      values (${user.rows[0]!.id}, ${scan.rows[0]!.id}, 0, ${randomUUID()}, ${ruleId}, '', '', 'Medium', '{}', 'h', '192.0.2.1', 'Rampart', ${engine}, ${ruleId}, ${evidence}, '{}')`.execute(store.db);
  }

  await migrateToLatest(store);
  const after = await store.db.selectFrom('findings').select(['rule_id', 'qod']).orderBy('id').execute();
  assert.deepEqual(after.map((r) => [r.rule_id, r.qod]), [
    ['rampart:redis-noauth', 95],
    ['rampart:known-vulnerability', 80],
    ['nmap:vulners', 80],
    ['1.3.6.1.4.1.25623.1.0.1', 97],
    ['1.3.6.1.4.1.25623.1.0.2', 95],
    ['zap:10096', 30],
    ['zap:40012', 70],
    ['http-missing-security-headers', 95],
  ]);
});
