/**
 * One finding per real-world weakness, whichever engines report it, and its lifecycle per run.
 *
 * - `findings.engines` and `findings.engine_evidence` keep every engine that reported the
 *   finding and what each saw (a JSON object keyed by engine name), so a second engine adds its
 *   evidence instead of overwriting the first one's.
 * - `run_findings` records, for each run, the findings it saw and the ones it no longer saw, each
 *   with its label: new, still_open, fixed (seen by the previous run of the scan, not this one) or
 *   regressed (fixed before, back now). `findings.lifecycle` is the label of the latest run that
 *   judged the finding; the runs table keeps the counts.
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table findings add column engines text[] not null default '{}'`.execute(db);
  await sql`alter table findings add column engine_evidence jsonb not null default '{}'`.execute(db);
  await sql`
    alter table findings add column lifecycle text
      check (lifecycle in ('new', 'still_open', 'fixed', 'regressed'))`.execute(db);
  await sql`update findings set engines = array[engine], engine_evidence = jsonb_build_object(engine, evidence)`.execute(db);
  await sql`
    create table run_findings (
      run_id bigint not null references runs (id) on delete cascade,
      finding_id bigint not null references findings (id) on delete cascade,
      lifecycle text not null check (lifecycle in ('new', 'still_open', 'fixed', 'regressed')),
      primary key (run_id, finding_id)
    )`.execute(db);
  await sql`create index run_findings_finding_idx on run_findings (finding_id, lifecycle)`.execute(db);
  await sql`
    alter table runs
      add column new_findings integer not null default 0,
      add column still_open_findings integer not null default 0,
      add column fixed_findings integer not null default 0,
      add column regressed_findings integer not null default 0`.execute(db);
}
