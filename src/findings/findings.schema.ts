/** The Vulnerability and Target resources (DESIGN.md "Filled-in API details"). */
import { Type, type Static } from 'typebox';
import { Nullable, StringEnum } from '../http/schemas.js';

import { LIFECYCLES, STATUSES, THREATS } from '../shared/finding.js';

export { LIFECYCLES, STATUSES, THREATS };

/** The OpenAPI text of a findings list's `sort` (both lists share it). */
export const VULNERABILITY_SORT_DESCRIPTION =
  'Default `threat`: severity rank (Critical > High > Medium > Low > Informational), then CVSS score (unscored last), then id, ' +
  'all in `direction`. `cvss_base` sorts by score alone, unscored findings last in both directions; other keys, then id.';

export const VulnerabilitySchema = Type.Object(
  {
    id: Type.Integer(),
    scan_uuid: Type.String({ format: 'uuid' }),
    scan_name: Type.String(),
    run_index: Type.Integer({ description: 'The run that last saw it' }),
    target_id: Nullable(Type.Integer()),
    name: Type.String(),
    description: Type.String(),
    solution: Type.String(),
    threat: StringEnum(THREATS),
    cvss_base: Nullable(Type.Number()),
    cvss_vector: Nullable(Type.String()),
    cve: Type.Array(Type.String()),
    cwe: Nullable(Type.String()),
    hostname: Type.String(),
    host_ip: Type.String(),
    port: Nullable(Type.Integer()),
    protocol: Nullable(Type.String()),
    service: Nullable(Type.String()),
    scan_type: Type.String(),
    engine: Type.String({ description: 'The engine that reported it last' }),
    engines: Type.Array(Type.String(), { description: 'Every engine that reported it: one finding per weakness, whichever engines saw it' }),
    rule_id: Type.String(),
    evidence: Type.String({ description: "What was seen; with several engines, each engine's evidence under its name" }),
    evidence_by_engine: Type.Record(Type.String(), Type.String(), { description: 'What each engine saw, by engine name' }),
    references: Type.Array(Type.String()),
    kev: Type.Boolean({ description: 'In the CISA Known Exploited Vulnerabilities catalog' }),
    epss: Nullable(Type.Number({ description: 'FIRST EPSS probability, 0-1' })),
    status: StringEnum(STATUSES),
    lifecycle: Nullable(
      StringEnum(LIFECYCLES, {
        description:
          'Its label in the latest run that judged it: new, still_open (the previous run saw it too), fixed (the previous run saw it, the latest did not) or regressed (fixed before, back now)',
      }),
    ),
    first_seen_at: Type.String({ format: 'date-time' }),
    last_seen_at: Type.String({ format: 'date-time' }),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
  },
  { $id: 'Vulnerability' },
);
export type VulnerabilityResource = Static<typeof VulnerabilitySchema>;

export const TargetSchema = Type.Object(
  {
    id: Type.Integer(),
    target: Type.String(),
    type: StringEnum(['Domain', 'Ip'] as const),
    description: Nullable(Type.String()),
    status: StringEnum(['Active', 'Inactive', 'Unknown'] as const),
    last_scan: Nullable(Type.String({ format: 'date-time' })),
    vulnerabilities_count: Type.Integer(),
    critical: Type.Integer(),
    high: Type.Integer(),
    medium: Type.Integer(),
    low: Type.Integer(),
    informational: Type.Integer(),
    created_at: Type.String({ format: 'date-time' }),
  },
  { $id: 'Target' },
);
export type TargetResource = Static<typeof TargetSchema>;
