/** GET /api/scans/{uuid}/agent: the owner downloads the scan's local agent (a new credential each time). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { authErrors, UuidParamsSchema } from '../http/schemas.js';
import { downloadAgent } from './agent-download.service.js';

export const agentDownloadRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/scans/:uuid/agent',
    {
      schema: {
        tags: ['Scans'],
        security: [{ bearerAuth: [] }],
        summary: "Download the Unmanaged scan's local agent",
        description:
          'One JavaScript file, run with `node agent.js` on a machine inside the network (Node.js 20 or later, nothing to install; docs/AGENT.md). ' +
          'It holds a credential for this scan only, expiring after RAMPART_AGENT_CREDENTIAL_DAYS; each download revokes the previous agent. ' +
          '422 for a scan that is not Unmanaged; 503 when the deployment has no agent bundle built.',
        params: UuidParamsSchema,
        produces: ['application/javascript'],
        response: {
          200: Type.String({ description: 'The agent script' }),
          404: Type.Ref('Error'),
          422: Type.Ref('ValidationError'),
          503: Type.Ref('Error'),
          ...authErrors,
        },
      },
    },
    async (request, reply) => {
      const file = await downloadAgent(app.ctx, request.principal!.user.id, request.params.uuid);
      return reply.headers(file.headers).send(file.body);
    },
  );
};
