/** Request schemas of the target endpoints (spec "Targets", "Limits"). */
import { Type, type Static } from 'typebox';
import { StringEnum } from '../http/schemas.js';
import { PageQuerySchema } from '../http/pagination.js';
import { UrlFilterSchema, VULNERABILITY_SORT_DESCRIPTION } from '../findings/findings.schema.js';

export const TARGET_TYPES = ['Domain', 'Ip'] as const;
export const TARGET_STATUSES = ['Active', 'Inactive', 'Unknown'] as const;
export const TARGET_SORTS = ['target', 'type', 'status', 'last_scan', 'created_at', 'vulnerabilities'] as const;
export const TARGET_VULNERABILITY_SORTS = ['name', 'threat', 'cvss_base', 'scan_type', 'created_at'] as const;
export const DIRECTIONS = ['asc', 'desc'] as const;

export type TargetSort = (typeof TARGET_SORTS)[number];
export type TargetVulnerabilitySort = (typeof TARGET_VULNERABILITY_SORTS)[number];
export type Direction = (typeof DIRECTIONS)[number];

/** GET /api/targets */
export const TargetListQuerySchema = Type.Object({
  search: Type.Optional(Type.String({ maxLength: 255, description: 'Case-insensitive substring of target, description or type' })),
  type: Type.Optional(StringEnum(TARGET_TYPES)),
  status: Type.Optional(StringEnum(TARGET_STATUSES)),
  sort: Type.Optional(StringEnum(TARGET_SORTS, { default: 'last_scan', description: '`vulnerabilities` sorts by the number of findings' })),
  direction: Type.Optional(StringEnum(DIRECTIONS, { default: 'desc' })),
  ...PageQuerySchema,
});
export type TargetListQuery = Static<typeof TargetListQuerySchema>;

/** GET /api/targets/{id}/vulnerabilities */
export const TargetVulnerabilitiesQuerySchema = Type.Object({
  url: Type.Optional(UrlFilterSchema),
  min_qod: Type.Optional(Type.Integer({ minimum: 0, maximum: 100, description: 'Only findings whose quality of detection (qod) is at least this; all when omitted' })),
  sort: Type.Optional(StringEnum(TARGET_VULNERABILITY_SORTS, { default: 'threat', description: VULNERABILITY_SORT_DESCRIPTION })),
  direction: Type.Optional(StringEnum(DIRECTIONS, { default: 'desc' })),
  ...PageQuerySchema,
});
export type TargetVulnerabilitiesQuery = Static<typeof TargetVulnerabilitiesQuerySchema>;

/**
 * The id stays a string here on purpose: a non-integer id is a target that does not exist (404),
 * not a validation error; the service parses it.
 */
export const TargetIdParamsSchema = Type.Object({ id: Type.String({ description: 'The target id (integer)' }) });
