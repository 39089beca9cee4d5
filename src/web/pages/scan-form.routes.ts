/**
 * GET/POST /scans/new and GET/POST /scans/:uuid/edit: the scan form. A POST reads the multipart
 * form, checks its shape as the API's schema does, and calls createScan / updateScan; the
 * service's field errors come back beside their fields (422), every value kept but the file.
 * "Preview schedule" posts the same form and re-renders it with the next runs (the script does it
 * without a reload).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { User } from '../../db/schema.js';
import * as scans from '../../scans/scans.service.js';
import { previewNewSchedule } from '../../scans/schedule-preview.js';
import { AppError, statusOf, type FieldErrors } from '../../shared/errors.js';
import { mayHaveNarrative, mayScanUnmanaged } from '../../shared/roles.js';
import { requireViewer, viewerOf } from '../web.plugin.js';
import { sendPage } from '../render.js';
import { redirectWithFlash, takeFlash } from '../flash.js';
import { formValues, readScanForm, shapeErrors, toCreateBody, toUpdateBody, valuesOfScan, type ScanFormInput, type ScanFormValues } from './scan-form.parse.js';
import { ScanFormPage, typeChoices, type PlanLimits, type ScanFormProps } from './scan-form.views.js';

type UuidRoute = { Params: { uuid: string } };

/** Every IANA zone this runtime knows, UTC first (Intl leaves it out of its list). */
const ZONES = ['UTC', ...Intl.supportedValuesOf('timeZone').filter((zone) => zone !== 'UTC')];

/** The options a plan may not use, each with the sentence saying which plan it needs. */
function planLimits(user: User): PlanLimits {
  return {
    narrative: mayHaveNarrative(user.role) ? undefined : `Attack narratives need the premium, pro or admin plan (your plan: ${user.role}).`,
    unmanaged: mayScanUnmanaged(user.role) ? undefined : `Unmanaged (internal network) scans need the pro or admin plan (your plan: ${user.role}).`,
  };
}

/** The errors of an AppError as the form shows them: by field, or the message at the top (a plan refusal). */
function formErrorsOf(error: AppError): { errors: FieldErrors | undefined; message: string | undefined } {
  return error.errors ? { errors: error.errors, message: undefined } : { errors: undefined, message: error.message };
}

export async function scanFormRoutes(app: FastifyInstance): Promise<void> {
  const deps = () => app.ctx.scans;
  const base = (request: FastifyRequest, user: User) => ({
    user,
    csrfToken: request.web.csrfToken,
    types: typeChoices((type) => app.ctx.engines.forScanType(type)),
    zones: ZONES,
    limits: planLimits(user),
  });
  const maxScript = () => app.ctx.config.loginScriptMaxBytes;

  app.get('/scans/new', { preHandler: requireViewer }, async (request, reply) => {
    const { user } = viewerOf(request);
    const firstType = typeChoices((type) => app.ctx.engines.forScanType(type)).find((choice) => choice.available)?.type ?? 'Rampart';
    const props: ScanFormProps = { ...base(request, user), mode: 'new', action: '/scans/new', flash: takeFlash(request, reply), values: formValues({ scan_email: user.email, scan_type: firstType }), freshForm: true };
    return sendPage(reply, ScanFormPage(props));
  });

  app.post('/scans/new', { preHandler: requireViewer }, async (request, reply) => {
    const { user } = viewerOf(request);
    const input = await readScanForm(request, maxScript());
    const page = (status: number, extra: Partial<ScanFormProps>) =>
      sendPage(reply, ScanFormPage({ ...base(request, user), mode: 'new', action: '/scans/new', values: input.values, fileDropped: input.loginScript !== undefined || input.fileError !== undefined, ...extra }), status);

    if (input.intent === 'preview') return preview(input, page);

    const errors = shapeErrors(input.values, 'new');
    if (input.fileError) errors.zap_login_script = [input.fileError];
    const body = toCreateBody(input.values, input.loginScript);
    try {
      // With a shape error nothing is stored, but the service's own errors are shown beside it.
      if (Object.keys(errors).length > 0) {
        await scans.checkNewScan(deps(), user, body);
        return page(422, { errors });
      }
      const scan = await scans.createScan(deps(), user, body);
      return redirectWithFlash(request, reply, `/scans/${scan.uuid}`, { kind: 'success', text: `Scan “${scan.scan_name}” created.` });
    } catch (error) {
      if (!(error instanceof AppError) || !['validation_failed', 'forbidden'].includes(error.code)) throw error;
      const found = formErrorsOf(error);
      const merged = { ...found.errors };
      // A field the form already refused keeps the form's message alone (an empty zone is not also "not a zone").
      for (const [field, messages] of Object.entries(errors)) merged[field] = messages;
      return page(Object.keys(errors).length > 0 ? 422 : statusOf(error.code), { errors: merged, message: found.message });
    }
  });

  /** "Preview schedule": the form again, with the runs its schedule would give (or the errors of its fields). */
  async function preview(input: ScanFormInput, page: (status: number, extra: Partial<ScanFormProps>) => FastifyReply): Promise<FastifyReply> {
    const { values } = input;
    try {
      const frequency = values.scan_frequency as Parameters<typeof previewNewSchedule>[1]['frequency'];
      const result = previewNewSchedule(app.ctx.clock, { frequency, startDate: values.scan_start_date, startTime: values.scan_start_time, timeZone: values.scan_time_zone });
      return page(200, { preview: result });
    } catch (error) {
      if (!(error instanceof AppError) || error.code !== 'validation_failed') throw error;
      return page(422, { errors: error.errors, message: 'The schedule cannot be previewed: correct the fields marked below.' });
    }
  }

  app.get<UuidRoute>('/scans/:uuid/edit', { preHandler: requireViewer }, async (request, reply) => {
    const { user } = viewerOf(request);
    const scan = await scans.showScan(app.ctx.db, user.id, request.params.uuid);
    return sendPage(reply, ScanFormPage(editProps(request, user, scan, valuesOfScan(scan), { flash: takeFlash(request, reply) })));
  });

  app.post<UuidRoute>('/scans/:uuid/edit', { preHandler: requireViewer }, async (request, reply) => {
    const { user } = viewerOf(request);
    const scan = await scans.showScan(app.ctx.db, user.id, request.params.uuid);
    const input = await readScanForm(request, maxScript());
    input.values.scan_type = scan.scan_type;
    const dropped = input.loginScript !== undefined || input.fileError !== undefined;
    const errors = shapeErrors(input.values, 'edit');
    if (input.fileError) errors.zap_login_script = [input.fileError];
    if (Object.keys(errors).length > 0) return sendPage(reply, ScanFormPage(editProps(request, user, scan, input.values, { errors, fileDropped: dropped })), 422);
    try {
      await scans.updateScan(deps(), user, scan.uuid, toUpdateBody(input.values, valuesOfScan(scan), input.loginScript));
      return redirectWithFlash(request, reply, `/scans/${scan.uuid}`, { kind: 'success', text: 'Scan updated.' });
    } catch (error) {
      if (!(error instanceof AppError) || !['validation_failed', 'forbidden'].includes(error.code)) throw error;
      return sendPage(reply, ScanFormPage(editProps(request, user, scan, input.values, { ...formErrorsOf(error), fileDropped: dropped })), statusOf(error.code));
    }
  });

  function editProps(request: FastifyRequest, user: User, scan: Awaited<ReturnType<typeof scans.showScan>>, values: ScanFormValues, extra: Partial<ScanFormProps>): ScanFormProps {
    return { ...base(request, user), mode: 'edit', action: `/scans/${scan.uuid}/edit`, values, storedScript: Boolean(scan.zap_login_script), uuid: scan.uuid, ...extra };
  }
}
