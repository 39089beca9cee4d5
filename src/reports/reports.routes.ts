/**
 * Report downloads: `GET /api/scans/{pdf,csv,html,txt,xml}/{uuid}?run_index=N`. The body streams
 * as it renders; an error before the first byte is an ordinary error reply, one later cuts the
 * download short (the client sees a truncated file, never a corrupted-but-complete one).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { authErrors } from '../http/context.js';
import { PG_INTEGER_MAX, UuidParamsSchema } from '../http/schemas.js';
import * as service from './reports.service.js';

const security = [{ bearerAuth: [] }];
const tags = ['Scans'];

const DESCRIPTIONS: Record<service.ReportFormat, string> = {
  pdf: 'A PDF for readers: cover, executive summary with a severity chart, hosts and services, findings by threat with evidence, fixed since the previous run, and the attack narrative when the scan asks for one.',
  csv: 'One row per finding of the run (the columns of GET /api/vulnerabilities/export, lifecycle included); fixed findings last.',
  html: 'One self-contained HTML file (inline CSS and SVG, no scripts); every value escaped.',
  txt: 'Plain text for a terminal, at most 100 columns, control characters made visible.',
  xml: 'XML in the namespace urn:rampart:report:1.0 (docs/report-xml.md).',
};

const QuerySchema = Type.Object({
  run_index: Type.Optional(Type.Integer({ minimum: 0, maximum: PG_INTEGER_MAX, description: 'The run (from 0); the latest completed run when omitted' })),
});

export const reportRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const deps = (): service.ReportDeps => ({ db: app.ctx.db, config: app.ctx.config, clock: app.ctx.clock });
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
        const report = await service.downloadReport(deps(), request.principal!.user, request.params.uuid, format, request.query.run_index);
        const disposition = format === 'html' || format === 'pdf' ? 'inline' : 'attachment';
        return reply
          .type(report.mediaType)
          .header('content-disposition', `${disposition}; filename="${report.filename}"`)
          .header('x-content-type-options', 'nosniff')
          .send(report.stream);
      },
    );
  }
};
