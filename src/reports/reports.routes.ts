/**
 * Report downloads: `GET /api/scans/{pdf,csv,html,txt,xml}/{uuid}?run_index=N` with a bearer
 * token, and `GET /api/reports/{uuid}/{run_index}/{format}?expires=&signature=` with a signed link
 * (report-links.ts) instead, for the report email and webhook events. The body streams
 * as it renders; an error before the first byte is an ordinary error reply, one later cuts the
 * download short (the client sees a truncated file, never a corrupted-but-complete one).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import { Type } from 'typebox';
import { authErrors } from '../http/schemas.js';
import { PG_INTEGER_MAX, StringEnum, UuidParamsSchema } from '../http/schemas.js';
import * as service from './reports.service.js';

const security = [{ bearerAuth: [] }];
const tags = ['Scans'];

const DESCRIPTIONS: Record<service.ReportFormat, string> = {
  pdf: 'A PDF for readers: cover, executive summary with a severity chart, hosts and services, findings by threat with evidence, fixed since the previous run, and the attack narrative when the scan asks for one.',
  csv: 'One row per finding of the run (the columns of GET /api/vulnerabilities/export, lifecycle included); fixed findings last. The quality threshold and the findings it hid are in the X-Rampart-Min-Qod and X-Rampart-Hidden-Findings headers, the engine that ran (and what it ran instead of) in X-Rampart-Engine.',
  html: 'One self-contained HTML file (inline CSS and SVG, no scripts); every value escaped.',
  txt: 'Plain text for a terminal, at most 100 columns, control characters made visible.',
  xml: 'XML in the namespace urn:rampart:report:1.0 (docs/report-xml.md).',
};

const MinQodSchema = Type.Optional(
  Type.Integer({
    minimum: 0,
    maximum: 100,
    description: 'Hide findings whose quality of detection (qod) is below this; the deployment threshold (RAMPART_MIN_QOD, 70 by default) when omitted, 0 shows all. The report states the threshold and how many findings it hid',
  }),
);

const QuerySchema = Type.Object({
  run_index: Type.Optional(Type.Integer({ minimum: 0, maximum: PG_INTEGER_MAX, description: 'The run (from 0); the latest completed run when omitted' })),
  min_qod: MinQodSchema,
});

const deps = (app: { ctx: service.ReportDeps }): service.ReportDeps => ({ db: app.ctx.db, config: app.ctx.config, clock: app.ctx.clock });

export const reportRoutes: FastifyPluginAsyncTypebox = async (app) => {
  for (const format of service.REPORT_FORMATS) {
    const mediaType = service.REPORT_MEDIA_TYPES[format].split(';')[0]!;
    app.get(
      `/scans/${format}/:uuid`,
      {
        schema: {
          tags,
          security,
          summary: `Download a run's report as ${format.toUpperCase()}`,
          description: `${DESCRIPTIONS[format]} 404 when the scan or the run does not exist or the run has not finished.`,
          params: UuidParamsSchema,
          querystring: QuerySchema,
          response: {
            200: { description: `The report (${mediaType})`, content: { [mediaType]: { schema: Type.String({ format: format === 'pdf' ? 'binary' : undefined }) } } },
            404: Type.Ref('Error'),
            422: Type.Ref('ValidationError'),
            ...authErrors,
          },
        },
      },
      async (request, reply) => {
        const report = await service.downloadReport(deps(app), request.principal!.user, request.params.uuid, format, request.query.run_index, request.query.min_qod);
        return sendReport(reply, format, report);
      },
    );
  }
};

function sendReport(reply: FastifyReply, format: service.ReportFormat, report: service.RenderedReport): FastifyReply {
  const disposition = format === 'html' || format === 'pdf' ? 'inline' : 'attachment';
  // A header carries printable ASCII only; the engine line is the tool's own words.
  if (report.engine) reply.header('x-rampart-engine', report.engine.replace(/[^\x20-\x7e]/g, '?').slice(0, 300));
  return reply
    .type(report.mediaType)
    .header('content-disposition', `${disposition}; filename="${report.filename}"`)
    .header('x-content-type-options', 'nosniff')
    .header('x-rampart-min-qod', String(report.quality.minQod))
    .header('x-rampart-hidden-findings', String(report.quality.hidden))
    .send(report.stream);
}

const LinkParamsSchema = Type.Object({
  uuid: Type.String({ description: 'The scan uuid' }),
  run_index: Type.Integer({ minimum: 0, maximum: PG_INTEGER_MAX, description: 'The run (from 0)' }),
  format: StringEnum(service.REPORT_FORMATS, { description: 'pdf, csv, html, txt or xml' }),
});
const LinkQuerySchema = Type.Object({
  expires: Type.Integer({ minimum: 0, description: 'When the link expires, in Unix seconds' }),
  signature: Type.String({ maxLength: 256, description: 'base64url HMAC-SHA256 of the link' }),
  min_qod: MinQodSchema,
});

const linkMediaTypes = Object.fromEntries(
  service.REPORT_FORMATS.map((f) => [service.REPORT_MEDIA_TYPES[f].split(';')[0]!, { schema: Type.String({ format: f === 'pdf' ? 'binary' : undefined }) }]),
);

/** The signed-link download: public (no bearer), registered outside the authenticated scope. */
export const reportLinkRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/reports/:uuid/:run_index/:format',
    {
      schema: {
        tags,
        security: [],
        summary: "Download a run's report through a signed link (from the report email or a webhook event)",
        description:
          'No bearer token: the link itself is the credential, for one scan, run and format, until it expires ' +
          '(RAMPART_REPORT_LINK_TTL, 7 days by default). 403 {"message":"Invalid signature."} for a link that was altered ' +
          'or belongs to another scan, run or format; 403 once it has expired; 404 when the scan or run no longer exists.',
        params: LinkParamsSchema,
        querystring: LinkQuerySchema,
        response: {
          200: { description: 'The report, as GET /api/scans/{format}/{uuid} gives it', content: linkMediaTypes },
          403: Type.Ref('Error'),
          404: Type.Ref('Error'),
          422: Type.Ref('ValidationError'),
          429: Type.Ref('Error'),
        },
      },
    },
    async (request, reply) => {
      const { uuid, run_index: runIndex, format } = request.params;
      const link = { uuid, runIndex, format, expires: request.query.expires };
      const report = await service.downloadLinkedReport(deps(app), link, request.query.signature, request.query.min_qod);
      // The URL is a credential: no Referer leaks it to the sites a report links to, no cache keeps the report.
      reply.header('referrer-policy', 'no-referrer').header('cache-control', 'private, no-store');
      return sendReport(reply, format, report);
    },
  );
};
