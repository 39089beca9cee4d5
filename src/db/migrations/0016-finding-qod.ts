/**
 * Quality of detection on findings (issue 14): `qod`, 0-100 on the OpenVAS scale, how sure the
 * tool is that the finding is true (src/shared/finding.ts `QOD`). Existing rows are backfilled:
 * - Rampart's check findings, nuclei's template matches and open ports: 95 (a test proved them),
 *   the column's default.
 * - Rampart's and nmap vulners' version matches of a CVE: 80 (inferred from a version; whether
 *   a distribution's package revision was in the banner is not kept on the row).
 * - OpenVAS imports: their own QoD, kept in the evidence's "other fields" block (`qod=80 ...`).
 * - ZAP imports: their confidence word, in the same block (`confidence=Medium` or `=2`), mapped as
 *   the importer maps it now (Confirmed 95, High 80, Medium 70, Low 30).
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table findings add column qod smallint not null default 95 check (qod between 0 and 100)`.execute(db);
  await sql`update findings set qod = 80 where rule_id in ('rampart:known-vulnerability', 'nmap:vulners')`.execute(db);
  await sql`
    update findings set qod = least(100, substring(evidence from '(?n)^qod=(\\d{1,3})')::int)
    where engine = 'openvas' and evidence ~ '(?n)^qod=\\d{1,3}'`.execute(db);
  await sql`
    update findings set qod = case substring(evidence from '(?n)^confidence=(\\w+)')
        when 'Confirmed' then 95 when '4' then 95 when 'High' then 80 when '3' then 80
        when 'Medium' then 70 when '2' then 70 when 'Low' then 30 when '1' then 30 else 95 end
    where engine = 'zap' and evidence ~ '(?n)^confidence=(Confirmed|High|Medium|Low|[1-4])$'`.execute(db);
}
