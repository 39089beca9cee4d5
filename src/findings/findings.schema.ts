/** The Vulnerability and Target resources (DESIGN.md "Filled-in API details"). */
import { Type, type Static } from 'typebox';
import { Nullable, StringEnum } from '../http/schemas.js';

import { LIFECYCLES, STATUSES, THREATS } from '../shared/finding.js';
import { fieldSchemas } from './finding-fields.js';

export { LIFECYCLES, STATUSES, THREATS };

/** The OpenAPI text of a findings list's `sort` (both lists share it). */
export const VULNERABILITY_SORT_DESCRIPTION =
  'Default `threat`: severity rank (Critical > High > Medium > Low > Informational), then CVSS score (unscored last), then id, ' +
  'all in `direction`. `cvss_base` sorts by score alone, unscored findings last in both directions; other keys, then id.';

/** The `url` filter of the findings lists and the export (both lists and the export share it). */
export const UrlFilterSchema = Type.String({
  maxLength: 255,
  description: "Only web findings whose URL holds this text: a case-insensitive substring of the URL's first 400 characters",
});

/** The Vulnerability resource: its fields, in order, are FINDING_FIELDS (finding-fields.ts). */
export const VulnerabilitySchema = Type.Object(fieldSchemas(), { $id: 'Vulnerability' });
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
