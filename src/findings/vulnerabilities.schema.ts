/**
 * The query schemas of the vulnerability list and export, and the triage actions: shared by the
 * API routes (vulnerabilities.routes.ts) and the web application's pages, which validate with them.
 */
import { Type } from 'typebox';
import { PageQuerySchema } from '../http/pagination.js';
import { StringEnum } from '../http/schemas.js';
import { LIFECYCLES, STATUSES, THREATS, UrlFilterSchema, VULNERABILITY_SORT_DESCRIPTION } from './findings.schema.js';
import { DEFAULT_ORDER, SORT_KEYS } from './vulnerabilities.service.js';

const FilterQuery = {
  severity: Type.Optional(StringEnum(THREATS, { description: 'Only findings of this threat level' })),
  status: Type.Optional(StringEnum(STATUSES, { description: 'Only findings with this triage status' })),
  lifecycle: Type.Optional(StringEnum(LIFECYCLES, { description: 'Only findings with this label from the latest run that judged them' })),
  target: Type.Optional(Type.String({ maxLength: 255, description: 'A host name (case-insensitive) or an IP address, matched exactly' })),
  search: Type.Optional(Type.String({ maxLength: 255, description: 'Case-insensitive substring of the name, host name, IP address, URL or scan name' })),
  url: Type.Optional(UrlFilterSchema),
  min_qod: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: 100,
      description:
        'Only findings whose quality of detection (qod) is at least this. The list shows every quality when omitted; the export then applies the deployment threshold (RAMPART_MIN_QOD, 70 by default) and says in the X-Rampart-Min-Qod and X-Rampart-Hidden-Findings headers what it hid',
    }),
  ),
};
/** GET /api/vulnerabilities's query (the web list validates its query with it too). */
export const ListQuerySchema = Type.Object({
  ...FilterQuery,
  sort: Type.Optional(StringEnum(SORT_KEYS, { default: DEFAULT_ORDER.sort, description: VULNERABILITY_SORT_DESCRIPTION })),
  direction: Type.Optional(StringEnum(['asc', 'desc'] as const, { default: 'desc' })),
  ...PageQuerySchema,
});
/** GET /api/vulnerabilities/export's query (the web export validates with it too). */
export const ExportQuerySchema = Type.Object(FilterQuery);
/** The triage actions: path segment, status set, and the reply's message (the web pages say the same). */
export const TRIAGE = [
  { path: 'accept', status: 'Accepted', message: 'Vulnerability marked as accepted.' },
  { path: 'false-positive', status: 'False Positive', message: 'Vulnerability marked as false positive.' },
  { path: 'undo', status: 'Unresolved', message: 'Vulnerability status reset to unresolved.' },
] as const;

