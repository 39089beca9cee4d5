/**
 * Engine contract v2 (issue 13): a scan's own engine options, the detail line of what really ran
 * (`via daemon`, a template set) beside runs.engine / engine_version, and the kind of a failed
 * run's error (the engine's EngineErrorKind), read by the failure event.
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table scans add column engine_options jsonb not null default '{}'::jsonb`.execute(db);
  await sql`alter table runs add column engine_detail text`.execute(db);
  await sql`alter table runs add column error_kind text
    check (error_kind in ('network-temporary', 'network-permanent', 'deadline', 'config', 'internal'))`.execute(db);
}
