/**
 * Kysely's PostgreSQL introspector reads the catalog of every schema in the database and calls
 * `pg_get_serial_sequence` on each table. When another process drops a schema at that moment (the
 * tests give each test its own schema and drop it afterwards), the query fails with "schema does
 * not exist". The migrator only asks whether its own tables exist, so this introspector looks at
 * the store's own schema and nothing else, and gives table names without column metadata.
 */
import { sql, type DatabaseIntrospector, type DatabaseMetadata, type DatabaseMetadataOptions, type Dialect, type Kysely, type SchemaMetadata, type TableMetadata } from 'kysely';

const KYSELY_TABLE = /^kysely_migration/;

/** Tables and views of one schema, by name only: all the migrator asks (no column metadata). */
class SchemaIntrospector implements DatabaseIntrospector {
  constructor(
    private readonly db: Kysely<unknown>,
    private readonly schema: string,
  ) {}

  async getSchemas(): Promise<SchemaMetadata[]> {
    const { rows } = await sql<{ name: string }>`select nspname as name from pg_catalog.pg_namespace where nspname = ${this.schema}`.execute(this.db);
    return rows;
  }

  async getTables(options: DatabaseMetadataOptions = { withInternalKyselyTables: false }): Promise<TableMetadata[]> {
    const { rows } = await sql<{ name: string; kind: string }>`
      select c.relname as name, c.relkind as kind
        from pg_catalog.pg_class c join pg_catalog.pg_namespace n on n.oid = c.relnamespace
       where n.nspname = ${this.schema} and c.relkind in ('r', 'p', 'v', 'm')`.execute(this.db);
    return rows
      .filter((row) => options.withInternalKyselyTables || !KYSELY_TABLE.test(row.name))
      .map((row) => ({ name: row.name, schema: this.schema, isView: row.kind === 'v' || row.kind === 'm', columns: [] }));
  }

  async getMetadata(options?: DatabaseMetadataOptions): Promise<DatabaseMetadata> {
    return { tables: await this.getTables(options) };
  }
}

/** The same dialect, introspecting only `schema`. */
export function scopedToSchema(dialect: Dialect, schema: string): Dialect {
  return {
    createAdapter: () => dialect.createAdapter(),
    createDriver: () => dialect.createDriver(),
    createQueryCompiler: () => dialect.createQueryCompiler(),
    createIntrospector: (db) => new SchemaIntrospector(db, schema),
  };
}
