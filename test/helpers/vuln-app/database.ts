/**
 * The test application's MariaDB: a private server (test/helpers/daemons.ts `startMariadb`) with
 * the tables the SQL pages query. Null (the test skips, naming the package) without MariaDB.
 */
import type { TestContext } from 'node:test';
import mysql, { type Pool } from 'mysql2/promise';
import { startMariadb } from '../daemons.js';
import { seedDatabase } from './app.js';

export async function startVulnDatabase(t: TestContext): Promise<Pool | null> {
  const password = 'vulnapp-root';
  const server = await startMariadb(t, { rootPassword: password, tls: false });
  if (!server) return null;
  const admin = await mysql.createConnection({ host: '127.0.0.1', port: server.port, user: 'root', password });
  await admin.query('CREATE DATABASE shop');
  await admin.end();
  const pool = mysql.createPool({ host: '127.0.0.1', port: server.port, user: 'root', password, database: 'shop', connectionLimit: 8 });
  t.after(() => pool.end());
  await seedDatabase(pool);
  return pool;
}
