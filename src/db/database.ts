/**
 * Opens the store: real PostgreSQL when a database URL is given, else embedded PGlite in the data
 * directory. Both speak the same SQL through the same Kysely handle, and both apply the same
 * migrations.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { PGlite, types as pgliteTypes } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { Kysely, Migrator, PostgresDialect, sql, type Dialect } from 'kysely';
import pg from 'pg';
import { migrations } from './migrations/index.js';
import { PGliteDialect } from './pglite-dialect.js';
import { PrivateNodeFS } from './private-nodefs.js';
import { scopedToSchema } from './schema-introspector.js';
import type { Database } from './schema.js';

export type Db = Kysely<Database>;

export interface StoreOptions {
  databaseUrl?: string | undefined;
  /** Where PGlite keeps its files; `memory://` keeps them in memory (tests). */
  dataDir: string;
  /** PostgreSQL only: the schema holding the tables (default `public`); created when missing. */
  schema?: string;
  /** PostgreSQL pool size. */
  poolSize?: number;
  /**
   * In-memory PGlite only: start from this snapshot of another store (`Store.snapshot()`) instead
   * of an empty cluster. Tests open hundreds of stores; loading a migrated snapshot takes about a
   * quarter of the time of creating a cluster and migrating it.
   */
  snapshot?: Blob;
}

export interface Store {
  db: Db;
  kind: 'postgres' | 'pglite';
  /** The schema the tables live in. */
  schema: string;
  close(): Promise<void>;
  /** In-memory PGlite only: the whole cluster as an uncompressed tar, for `StoreOptions.snapshot`. */
  snapshot?: () => Promise<Blob>;
}

/**
 * PGlite's buffer cache lives in this process's WebAssembly memory and never shrinks. At
 * PostgreSQL's default (128MB) an embedded store holds about 320 MB before any work (measured
 * with a 10,000-finding run); at 16MB about 200 MB, and a report of that run renders as fast.
 * Data files on disk stay in the operating system's page cache either way.
 */
const EMBEDDED_SHARED_BUFFERS = '16MB';

/** bigint ids and counts fit in a JS number far past any realistic table size. */
const INT8_OID = 20;

export async function openStore(options: StoreOptions): Promise<Store> {
  let dialect: Dialect;
  let kind: Store['kind'];
  let snapshot: Store['snapshot'];
  const schema = options.databaseUrl ? (options.schema ?? 'public') : 'public';
  if (options.databaseUrl) {
    const pool = new pg.Pool({
      connectionString: options.databaseUrl,
      max: options.poolSize ?? 10,
      connectionTimeoutMillis: 10_000,
      options: `-c search_path=${schema}`,
      // Seen in pg_stat_activity: which schema's Rampart holds a connection (63 bytes at most).
      application_name: `rampart:${schema}`.slice(0, 63),
      types: {
        getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
          oid === INT8_OID ? Number : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
      },
    });
    // An idle connection the server ended (a restart, an administrator) leaves the pool on its own
    // and the next query opens another; unheard, its 'error' event would end the process.
    pool.on('error', () => undefined);
    dialect = new PostgresDialect({ pool });
    kind = 'postgres';
  } else {
    const memory = options.dataDir.startsWith('memory://');
    const dir = memory ? options.dataDir : path.join(options.dataDir, 'pglite');
    if (!memory) await fs.mkdir(dir, { recursive: true, mode: 0o700 });
    // pg_trgm backs substring search of findings and targets (migration 0005).
    const pglite = await PGlite.create({
      ...(memory ? { dataDir: dir } : { fs: new PrivateNodeFS(dir) }),
      ...(memory && options.snapshot ? { loadDataDir: options.snapshot } : {}),
      parsers: { [pgliteTypes.INT8]: Number },
      extensions: { pg_trgm },
      startParams: [...PGlite.defaultStartParams, '-c', `shared_buffers=${EMBEDDED_SHARED_BUFFERS}`],
    });
    dialect = new PGliteDialect(pglite);
    kind = 'pglite';
    if (memory) snapshot = () => pglite.dumpDataDir('none');
  }
  const db = new Kysely<Database>({ dialect: scopedToSchema(dialect, schema) });
  return { db, kind, schema, close: () => db.destroy(), ...(snapshot ? { snapshot } : {}) };
}

/** Applies every pending migration; returns the names applied. Safe to run concurrently on Postgres. */
export async function migrateToLatest(store: Store): Promise<string[]> {
  await sql`create schema if not exists ${sql.id(store.schema)}`.execute(store.db);
  const migrator = new Migrator({
    db: store.db,
    // Named explicitly: without it Kysely looks for its tables in every schema of the database.
    migrationTableSchema: store.schema,
    provider: { getMigrations: async () => migrations },
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
