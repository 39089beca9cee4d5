/**
 * The local agent's routes under /api/scans/{uuid}/agent/ (src/shared/agent-protocol.ts,
 * docs/AGENT.md), authenticated by the scan-scoped agent credential only: a JWT here is a 401, as
 * the credential is anywhere else. Thin: a schema, one service call, a reply.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import {
  AGENT_BODY_MAX_BYTES,
  AGENT_MAX_CHUNKS,
  AGENT_PATHS,
  AgentSelfSchema,
  CheckInResponseSchema,
  ChunkBodySchema,
  CompleteBodySchema,
  CompleteResponseSchema,
  HeartbeatBodySchema,
  HeartbeatResponseSchema,
  LookupBodySchema,
  MissingChunksSchema,
  TakeResponseSchema,
} from '../shared/agent-protocol.js';
import { PG_INTEGER_MAX } from '../http/schemas.js';
import { authenticateAgent, isRefusedCredential, type AgentPrincipal } from './agent-credentials.service.js';
import * as service from './agent-runs.service.js';
import { completeAttempt } from './agent-complete.service.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The agent credential of a request to the agent routes. */
    agent: AgentPrincipal | null;
  }
}

const BEARER = /^Bearer +(\S+) *$/i;
const tags = ['Local agent'];
const security = [{ agentCredential: [] }];
const errors = { 401: Type.Ref('Error'), 404: Type.Ref('Error'), 409: Type.Ref('Error'), 422: Type.Ref('ValidationError'), 429: Type.Ref('Error') };
const ScanParams = Type.Object({ uuid: Type.String({ description: 'The scan uuid' }) });
const RunParams = Type.Object({ uuid: ScanParams.properties.uuid, run_index: Type.Integer({ minimum: 0, maximum: PG_INTEGER_MAX }) });
const ChunkParams = Type.Object({ ...RunParams.properties, seq: Type.Integer({ minimum: 0, maximum: AGENT_MAX_CHUNKS - 1 }) });
const base = '/scans/:uuid/agent';
const run = `${base}/runs/:run_index`;

export const agentRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const deps = () => ({ db: app.ctx.db, config: app.ctx.config });
  app.decorateRequest('agent', null);
  app.addHook('onRequest', async function (request: FastifyRequest, reply: FastifyReply) {
    try {
      const token = BEARER.exec(request.headers.authorization ?? '')?.[1];
      request.agent = await authenticateAgent(app.ctx.db, token, (request.params as { uuid: string }).uuid, app.ctx.clock());
    } catch (error) {
      // As requireBearer: refused credentials count against the client address's limit.
      if (isRefusedCredential(error)) await app.countFailedAuthentication(request, reply);
      throw error;
    }
  });
  // An agent's calls count per scan at the pro plan's rate (Unmanaged scans are pro and admin).
  const config = { rateLimit: { max: app.ctx.config.rateLimits.pro, keyGenerator: (request: FastifyRequest) => `agent:${request.agent?.scanId ?? request.ip}` } };
  const agent = (request: FastifyRequest) => request.agent!;

  app.post(
    `${base}${AGENT_PATHS.checkIn}`,
    { config, schema: { tags, security, summary: 'Agent: check in', params: ScanParams, body: AgentSelfSchema, response: { 200: CheckInResponseSchema, ...errors } } },
    async (request) => service.checkIn(deps(), agent(request), request.body),
  );

  app.post(
    `${run}/take`,
    { config, schema: { tags, security, summary: 'Agent: take a run (a new attempt)', params: RunParams, body: AgentSelfSchema, response: { 200: TakeResponseSchema, ...errors } } },
    async (request) => service.takeRun(deps(), agent(request), request.params.run_index, request.body),
  );

  app.post(
    `${run}/heartbeat`,
    { config, schema: { tags, security, summary: "Agent: renew the attempt's lease", params: RunParams, body: HeartbeatBodySchema, response: { 200: HeartbeatResponseSchema, ...errors } } },
    async (request) => service.heartbeat(deps(), agent(request), request.params.run_index, request.body),
  );

  app.put(
    `${run}/chunks/:seq`,
    {
      config,
      bodyLimit: AGENT_BODY_MAX_BYTES,
      schema: { tags, security, summary: "Agent: upload one chunk of the attempt's events", params: ChunkParams, body: ChunkBodySchema, response: { 200: Type.Object({ seq: Type.Integer() }), 413: Type.Ref('Error'), ...errors } },
    },
    async (request) => service.putChunk(deps(), agent(request), request.params.run_index, request.params.seq, request.body),
  );

  app.post(
    `${run}/lookup`,
    { config, schema: { tags, security, summary: "Agent: the service's vulnerability database for one CPE", params: RunParams, body: LookupBodySchema, response: errors } },
    async (request) => service.lookup(deps(), agent(request), request.params.run_index, request.body),
  );

  app.post(
    `${run}/complete`,
    {
      config,
      schema: {
        tags,
        security,
        summary: 'Agent: end the attempt (its chunks become the run)',
        params: RunParams,
        body: CompleteBodySchema,
        response: { 200: CompleteResponseSchema, ...errors, 409: Type.Union([MissingChunksSchema, Type.Ref('Error')]) },
      },
    },
    async (request, reply) => {
      const result = await completeAttempt({ ...deps(), log: request.log }, agent(request), request.params.run_index, request.body);
      if (!result.ended) {
        const list = result.missing.length > 20 ? `${result.missing.slice(0, 20).join(', ')}, ...` : result.missing.join(', ');
        return reply.code(409).send({ message: `Chunks missing: ${list}. Send them, then complete again.`, missing: result.missing });
      }
      return { run_index: result.run_index, findings: result.findings };
    },
  );
};
