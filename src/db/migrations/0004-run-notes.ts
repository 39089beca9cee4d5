/** Notes a run leaves for its reader: what was not checked and why (e.g. no vulnerability database). */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table runs add column notes text[] not null default '{}'`.execute(db);
}
