/**
 * Runs recorded from uploaded results (POST /api/scans/{uuid}/results, `rampart import`) have the
 * trigger 'import'.
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table runs drop constraint runs_trigger_check`.execute(db);
  await sql`alter table runs add constraint runs_trigger_check check (trigger in ('create', 'schedule', 'rerun', 'import'))`.execute(db);
}
