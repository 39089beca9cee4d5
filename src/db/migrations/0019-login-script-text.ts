/**
 * ZAP login scripts in the store (issue 16): the script's text beside its file, so that a worker on
 * another machine (scale-out on PostgreSQL) replays it without the API node's data directory.
 * Scans stored before keep only their file; the run executor reads the file when the text is null.
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table scans add column login_script text`.execute(db);
}
