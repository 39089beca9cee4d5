/**
 * Kysely's PostgreSQL introspector reads the catalog of every schema in the database and calls
 * `pg_get_serial_sequence` on each table. When another process drops a schema at that moment (the
 * tests give each test its own schema and drop it afterwards), the query fails with "schema does
 * not exist". The migrator only asks whether its own tables exist, so this introspector looks at
 * the store's own schema and nothing else.
 */
import { sql, type DatabaseIntrospector, type DatabaseMetadata, type DatabaseMetadataOptions, type Dialect, type Kysely, type SchemaMetadata, type TableMetadata } from 'kysely';

interface ColumnRow {
  table: string;
  kind: string;
  column: string | null;
  data_type: string | null;
  not_null: boolean | null;
  has_default: boolean | null;
  is_identity: boolean | null;
}

const KYSELY_TABLE = /^kysely_migration/;

export class SchemaIntrospector implements DatabaseIntrospector {
  constructor(
    private readonly db: Kysely<unknown>,
    private readonly schema: string,
  ) {}

  async getSchemas(): Promise<SchemaMetadata[]> {
    const { rows } = await sql<{ name: string }>`select nspname as name from pg_catalog.pg_namespace where nspname = ${this.schema}`.execute(this.db);
    return rows;
  }

  async getTables(options: DatabaseMetadataOptions = { withInternalKyselyTables: false }): Promise<TableMetadata[]> {
    const { rows } = await sql<ColumnRow>`
      select c.relname as "table", c.relkind as kind, a.attname as "column",
             format_type(a.atttypid, a.atttypmod) as data_type, a.attnotnull as not_null,
             a.atthasdef as has_default, a.attidentity <> '' as is_identity
        from pg_catalog.pg_class c
        join pg_catalog.pg_namespace n on n.oid = c.relnamespace
        left join pg_catalog.pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
       where n.nspname = ${this.schema} and c.relkind in ('r', 'p', 'v', 'm')
       order by c.relname, a.attnum`.execute(this.db);
    const tables = new Map<string, TableMetadata & { columns: TableMetadata['columns'][number][] }>();
    for (const row of rows) {
      if (!options.withInternalKyselyTables && KYSELY_TABLE.test(row.table)) continue;
      let table = tables.get(row.table);
      if (!table) {
        table = { name: row.table, schema: this.schema, isView: row.kind === 'v' || row.kind === 'm', columns: [] };
        tables.set(row.table, table);
      }
      if (row.column === null) continue;
      table.columns.push({
        name: row.column,
        dataType: row.data_type ?? '',
        isNullable: !row.not_null,
        hasDefaultValue: Boolean(row.has_default),
        isAutoIncrementing: Boolean(row.is_identity),
      });
    }
    return [...tables.values()];
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
