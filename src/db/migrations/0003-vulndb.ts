/**
 * The vulnerability database synced from NVD (CVEs and their CPE match criteria), CISA KEV and
 * FIRST EPSS, the record of each source's last sync, and the KEV/EPSS columns of findings.
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table vulndb_cves (
      cve text primary key,
      description text not null default '',
      cvss_base double precision,
      cvss_vector text,
      cvss_version text,
      cwe text[] not null default '{}',
      "references" text[] not null default '{}',
      vuln_status text,
      published timestamptz,
      last_modified timestamptz,
      updated_at timestamptz not null default now()
    )`.execute(db);
  // One row per cpeMatch of the CVE's configurations; replaced whole when the CVE is synced again.
  await sql`
    create table vulndb_cpe_matches (
      id bigint generated always as identity primary key,
      cve text not null references vulndb_cves (cve) on delete cascade,
      match_criteria_id text,
      criteria text not null,
      part text not null,
      vendor text not null,
      product text not null,
      version_start_including text,
      version_start_excluding text,
      version_end_including text,
      version_end_excluding text,
      vulnerable boolean not null
    )`.execute(db);
  await sql`create index vulndb_cpe_matches_product_idx on vulndb_cpe_matches (vendor, product) where vulnerable`.execute(db);
  await sql`create index vulndb_cpe_matches_cve_idx on vulndb_cpe_matches (cve)`.execute(db);
  await sql`
    create table vulndb_kev (
      cve text primary key,
      vendor_project text,
      product text,
      vulnerability_name text,
      date_added date,
      due_date date,
      known_ransomware_campaign_use text
    )`.execute(db);
  await sql`
    create table vulndb_epss (
      cve text primary key,
      epss double precision not null,
      percentile double precision,
      score_date timestamptz
    )`.execute(db);
  await sql`
    create table vulndb_sync (
      source text primary key check (source in ('nvd', 'kev', 'epss')),
      synced_at timestamptz not null,
      detail jsonb not null default '{}'
    )`.execute(db);
  await sql`alter table findings add column kev boolean not null default false, add column epss double precision`.execute(db);
}
