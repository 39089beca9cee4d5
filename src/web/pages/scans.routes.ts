/**
 * The scan pages: list, scan page, rerun, delete, report downloads, results uploads and the agent download (this
 * file), and the new and edit forms (scan-form.routes.ts). They call the services the API's scan,
 * report and import routes call; another account's scan is the services' 404. Multipart bodies
 * (the login script, results files) are parsed in this plugin's scope only; their CSRF token
 * comes in the action URL, checked by the web scope before a byte of the body is read.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import multipart from '@fastify/multipart';
import * as scans from '../../scans/scans.service.js';
import * as reports from '../../reports/reports.service.js';
import { importResults } from '../../imports/imports.service.js';
import { boundedFileStream } from '../../imports/upload-spool.js';
import { downloadAgent } from '../../local-agent/agent-download.service.js';
import { AppError, fieldError, type FieldErrors } from '../../shared/errors.js';
import { REPORT_FORMATS, type ReportFormat } from '../../shared/report-formats.js';
import { requireViewer, viewerOf } from '../web.plugin.js';
import { sendPage } from '../render.js';
import { redirectWithFlash, takeFlash } from '../flash.js';
import { ScansListPage } from './scans-list.views.js';
import { ScanPage } from './scan-detail.views.js';
import { DeleteScanPage } from './scan-delete.views.js';
import { scanFormRoutes } from './scan-form.routes.js';

type UuidRoute = { Params: { uuid: string } };
type UuidRequest = FastifyRequest<UuidRoute>;

/** The plugin of every scan page (registered once in web.routes.ts). */
export async function scanPages(app: FastifyInstance): Promise<void> {
  // Each route passes its own limits (a login script's size, an upload's); these are the ceilings.
  await app.register(multipart, { limits: { fileSize: Math.max(app.ctx.config.uploadMaxBytes, app.ctx.config.loginScriptMaxBytes), files: 1, fields: 40 } });
  const deps = () => app.ctx.scans;

  app.get('/scans', { preHandler: requireViewer }, async (request, reply) => {
    const viewer = viewerOf(request);
    const list = await scans.listScanOverviews(app.ctx.db, viewer.user.id);
    return sendPage(reply, ScansListPage({ user: viewer.user, csrfToken: request.web.csrfToken, flash: takeFlash(request, reply), scans: list }));
  });

  app.get<UuidRoute>('/scans/:uuid', { preHandler: requireViewer }, async (request, reply) => renderScanPage(app, request, reply));

  app.post<UuidRoute>('/scans/:uuid/rerun', { preHandler: requireViewer }, async (request, reply) => {
    const viewer = viewerOf(request);
    const back = `/scans/${encodeURIComponent(request.params.uuid)}`;
    try {
      const runIndex = await scans.rerunScan(deps(), viewer.user.id, request.params.uuid);
      return redirectWithFlash(request, reply, back, { kind: 'success', text: `Run ${runIndex} queued.` });
    } catch (error) {
      // A run in progress (409) or a type this deployment cannot run (422): said on the scan page.
      if (error instanceof AppError && (error.code === 'conflict' || error.code === 'validation_failed')) {
        const text = error.errors ? Object.values(error.errors).flat().join(' ') : error.message;
        return redirectWithFlash(request, reply, back, { kind: 'error', text });
      }
      throw error;
    }
  });

  app.get<UuidRoute>('/scans/:uuid/delete', { preHandler: requireViewer }, async (request, reply) => {
    const viewer = viewerOf(request);
    const scan = await scans.showScan(app.ctx.db, viewer.user.id, request.params.uuid);
    const { runs } = await scans.scanRuns(app.ctx.db, viewer.user.id, scan.uuid);
    const current = runs.some((run) => run.status === 'current');
    return sendPage(reply, DeleteScanPage({ user: viewer.user, csrfToken: request.web.csrfToken, scan, runCount: runs.length, current }));
  });

  app.post<UuidRoute>('/scans/:uuid/delete', { preHandler: requireViewer }, async (request, reply) => {
    const viewer = viewerOf(request);
    const scan = await scans.showScan(app.ctx.db, viewer.user.id, request.params.uuid);
    await scans.deleteScan(deps(), viewer.user.id, scan.uuid);
    return redirectWithFlash(request, reply, '/scans', { kind: 'success', text: `Scan “${scan.scan_name}” deleted.` });
  });

  app.get<{ Params: { uuid: string; format: string }; Querystring: { run_index?: string } }>('/scans/:uuid/report.:format', { preHandler: requireViewer }, async (request, reply) => {
    const viewer = viewerOf(request);
    const format = request.params.format as ReportFormat;
    if (!REPORT_FORMATS.includes(format)) throw new AppError('not_found', 'There is no report in that format: choose PDF, CSV, HTML, TXT or XML.');
    const raw = request.query.run_index;
    const runIndex = raw === undefined || raw === '' ? undefined : /^\d{1,9}$/.test(raw) ? Number(raw) : -1;
    if (runIndex === -1) throw new AppError('not_found', 'There is no such run.');
    const report = await reports.downloadReport({ db: app.ctx.db, config: app.ctx.config, clock: app.ctx.clock }, viewer.user, request.params.uuid, format, runIndex);
    // Always a download (the API shows PDF and HTML inline): the pages' CSP would strip the HTML report's inline style.
    return reply
      .type(report.mediaType)
      .header('content-disposition', `attachment; filename="${report.filename}"`)
      .header('x-rampart-min-qod', String(report.quality.minQod))
      .header('x-rampart-hidden-findings', String(report.quality.hidden))
      .send(report.stream);
  });

  app.post<UuidRoute>('/scans/:uuid/results', { preHandler: requireViewer }, async (request, reply) => {
    const viewer = viewerOf(request);
    const maxBytes = app.ctx.config.uploadMaxBytes;
    try {
      if (!request.isMultipart()) throw fieldError('file', 'Choose a results file to upload.');
      const part = await request.file({ limits: { fileSize: maxBytes, files: 1, fields: 0, parts: 1 } });
      if (!part || part.fieldname !== 'file' || part.filename === '') throw fieldError('file', 'Choose a results file to upload.');
      const outcome = await importResults({ db: app.ctx.db, config: app.ctx.config, log: request.log }, viewer.user.id, request.params.uuid, boundedFileStream(part.file, maxBytes));
      const text = `Results imported: ${outcome.findings} finding${outcome.findings === 1 ? '' : 's'} from ${outcome.engine.name} ${outcome.engine.version}, recorded as run ${outcome.runIndex}.`;
      return redirectWithFlash(request, reply, `/scans/${encodeURIComponent(request.params.uuid)}`, { kind: 'success', text });
    } catch (error) {
      if (!(error instanceof AppError) || !['validation_failed', 'payload_too_large', 'unsupported_media_type', 'conflict'].includes(error.code)) throw error;
      const errors: FieldErrors = error.errors ?? { file: [error.message] };
      return renderScanPage(app, request, reply, { file: Object.values(errors).flat() });
    }
  });

  // The API's download as a form post (it revokes the previous agent: never a GET a browser may prefetch).
  app.post<UuidRoute>('/scans/:uuid/agent', { preHandler: requireViewer }, async (request, reply) => {
    const viewer = viewerOf(request);
    try {
      const file = await downloadAgent(app.ctx, viewer.user.id, request.params.uuid);
      return reply.headers(file.headers).send(file.body);
    } catch (error) {
      if (!(error instanceof AppError) || !['validation_failed', 'service_unavailable'].includes(error.code)) throw error;
      const text = error.errors ? Object.values(error.errors).flat().join(' ') : error.message;
      return redirectWithFlash(request, reply, `/scans/${encodeURIComponent(request.params.uuid)}`, { kind: 'error', text });
    }
  });

  await app.register(scanFormRoutes);
}

/** The scan page; with the errors of an upload that came back (422), beside the file field. */
async function renderScanPage(app: FastifyInstance, request: UuidRequest, reply: FastifyReply, uploadErrors?: FieldErrors): Promise<FastifyReply> {
  const viewer = viewerOf(request);
  const scan = await scans.showScan(app.ctx.db, viewer.user.id, request.params.uuid);
  const { runs } = await scans.scanRuns(app.ctx.db, viewer.user.id, scan.uuid);
  const schedule = await scans.previewSchedule(app.ctx.scans, viewer.user.id, scan.uuid);
  const page = ScanPage({ user: viewer.user, csrfToken: request.web.csrfToken, flash: takeFlash(request, reply), scan, runs, schedule, baseUrl: app.ctx.config.baseUrl.replace(/\/$/, ''), agentCredentialDays: app.ctx.config.localAgent.credentialDays, uploadErrors });
  return sendPage(reply, page, uploadErrors ? 422 : 200);
}


