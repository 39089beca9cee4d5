import { sql, type Kysely } from 'kysely';

/**
 * Creates trigram GIN indexes (`[index name, table, column]`) when pg_trgm is installed, naming
 * its operator class by the schema the extension lives in (see migration 0005); without the
 * extension, substring search scans rows instead.
 */
export async function createTrigramIndexes(db: Kysely<unknown>, indexes: [string, string, string][]): Promise<void> {
  const found = await sql<{ ops: string }>`
    select quote_ident(n.nspname) || '.gin_trgm_ops' as ops
      from pg_extension e join pg_namespace n on n.oid = e.extnamespace where e.extname = 'pg_trgm'`.execute(db);
  const ops = found.rows[0]?.ops;
  if (!ops) return;
  for (const [name, table, column] of indexes) {
    await sql`create index ${sql.id(name)} on ${sql.id(table)} using gin (${sql.id(column)} ${sql.raw(ops)})`.execute(db);
  }
}
