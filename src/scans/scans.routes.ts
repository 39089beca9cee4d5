/** The scan endpoints of the spec, plus rerun (DESIGN.md), show and the schedule preview. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { authErrors } from '../http/schemas.js';
import { MessageSchema, UuidParamsSchema } from '../http/schemas.js';
import {
  CreateScanBodySchema,
  RunsSummarySchema,
  SchedulePreviewSchema,
  UpdateScanBodySchema,
} from './scans.schema.js';
import * as service from './scans.service.js';

const security = [{ bearerAuth: [] }];
const tags = ['Scans'];
const notFound = { 404: Type.Ref('Error') };

export const scanRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const deps = () => app.ctx.scans;

  app.get(
    '/scans',
    { schema: { tags, security, summary: "List the account's scans", response: { 200: Type.Object({ data: Type.Array(Type.Ref('Scan')) }), ...authErrors } } },
    async (request) => ({ data: await service.listScans(app.ctx.db, request.principal!.user.id) }),
  );

  app.post(
    '/new-scan',
    {
      schema: {
        tags,
        security,
        summary: 'Create a scan',
        description: 'Runs now, at the start date and time, or on its schedule. Unmanaged scans wait for the local agent.',
        body: CreateScanBodySchema,
        response: { 200: Type.Object({ message: Type.String(), uuid: Type.String({ format: 'uuid' }) }), 403: Type.Ref('Error'), 422: Type.Ref('ValidationError'), ...authErrors },
      },
    },
    async (request) => {
      const scan = await service.createScan(deps(), request.principal!.user, request.body);
      return { message: `Scan created successfully. UUID: ${scan.uuid}`, uuid: scan.uuid };
    },
  );

  app.get(
    '/scans/:uuid',
    { schema: { tags, security, summary: 'Show a scan', params: UuidParamsSchema, response: { 200: Type.Object({ data: Type.Ref('Scan') }), ...notFound, ...authErrors } } },
    async (request) => ({ data: await service.showScan(app.ctx.db, request.principal!.user.id, request.params.uuid) }),
  );

  app.put(
    '/scans/:uuid',
    {
      schema: {
        tags,
        security,
        summary: 'Update a scan',
        params: UuidParamsSchema,
        body: UpdateScanBodySchema,
        response: { 200: MessageSchema, 403: Type.Ref('Error'), ...notFound, 422: Type.Ref('ValidationError'), ...authErrors },
      },
    },
    async (request) => {
      await service.updateScan(deps(), request.principal!.user, request.params.uuid, request.body);
      return { message: 'Scan updated successfully.' };
    },
  );

  app.delete(
    '/scans/:uuid',
    { schema: { tags, security, summary: 'Delete a scan with its runs, findings and reports', params: UuidParamsSchema, response: { 200: MessageSchema, ...notFound, ...authErrors } } },
    async (request) => {
      await service.deleteScan(deps(), request.principal!.user.id, request.params.uuid);
      return { message: 'Scan deleted successfully.' };
    },
  );

  app.post(
    '/scans/:uuid/rerun',
    {
      schema: {
        tags,
        security,
        summary: 'Run the scan again now',
        params: UuidParamsSchema,
        response: { 202: Type.Object({ message: Type.String(), run_index: Type.Integer() }), ...notFound, 409: Type.Ref('Error'), 422: Type.Ref('ValidationError'), ...authErrors },
      },
    },
    async (request, reply) => {
      const runIndex = await service.rerunScan(deps(), request.principal!.user.id, request.params.uuid);
      return reply.code(202).send({ message: `Run ${runIndex} queued.`, run_index: runIndex });
    },
  );

  app.get(
    '/scans/:uuid/runs',
    { schema: { tags, security, summary: "The scan's runs", params: UuidParamsSchema, response: { 200: RunsSummarySchema, ...notFound, ...authErrors } } },
    async (request) => service.scanRuns(app.ctx.db, request.principal!.user.id, request.params.uuid),
  );

  app.get(
    '/scans/:uuid/schedule',
    { schema: { tags, security, summary: 'The next run and the following ones', params: UuidParamsSchema, response: { 200: SchedulePreviewSchema, ...notFound, ...authErrors } } },
    async (request) => service.previewSchedule(deps(), request.principal!.user.id, request.params.uuid),
  );
};
