/**
 * The local agent's wire protocol (docs/AGENT.md): what `node agent.js` and the service say to
 * each other. One definition, read by the service's routes (src/local-agent/) and by the agent
 * program (src/agent/), so neither side can drift.
 *
 * Every call is JSON over HTTPS (HTTP on loopback), authenticated by the scan-scoped credential
 * `Authorization: Bearer ragt_<43 base64url chars>`, under `/api/scans/{uuid}/agent/`. The
 * credential names one scan: on any other scan it is a 404, on any other endpoint a 401 (it is not
 * a JWT). A run is held by a lease: `take` gives a fresh lease token; every later call of that
 * attempt carries it, and a call with a lease the run no longer has is a 409.
 *
 * Glossary: an *attempt* is one take of a run (a retake starts a new one and drops what the old one
 * uploaded); a *chunk* is one numbered batch of engine events of an attempt, stored as sent and
 * replayed through the run recorder, in order, when the attempt completes.
 */
import { Type, type Static } from 'typebox';

/** The credential's prefix: `ragt_` then 32 random bytes in base64url. */
export const AGENT_TOKEN_PREFIX = 'ragt_';
export const AGENT_TOKEN_PATTERN = /^ragt_[A-Za-z0-9_-]{43}$/;

/** How long a downloaded agent's credential lasts unless the deployment says otherwise (RAMPART_AGENT_CREDENTIAL_DAYS). */
export const AGENT_CREDENTIAL_DEFAULT_DAYS = 30;

/** At most this many events in one chunk, and this many bytes in one request body. */
export const AGENT_CHUNK_MAX_EVENTS = 1000;
export const AGENT_BODY_MAX_BYTES = 4 * 1024 * 1024;
/** At most this many chunks per attempt (about 1M events). */
export const AGENT_MAX_CHUNKS = 1000;

/** The paths, relative to `{baseUrl}/api/scans/{uuid}/agent`. */
export const AGENT_PATHS = {
  checkIn: '/check-in',
  take: (runIndex: number) => `/runs/${runIndex}/take`,
  heartbeat: (runIndex: number) => `/runs/${runIndex}/heartbeat`,
  chunk: (runIndex: number, seq: number) => `/runs/${runIndex}/chunks/${seq}`,
  lookup: (runIndex: number) => `/runs/${runIndex}/lookup`,
  complete: (runIndex: number) => `/runs/${runIndex}/complete`,
} as const;

/** What the agent says of itself on every check-in and take. */
export const AgentSelfSchema = Type.Object({
  /** Stable per machine and credential (a restarted agent on the same machine gets the same id, so it may retake its run at once). */
  agent_id: Type.String({ minLength: 1, maxLength: 200 }),
  /** The agent's version (`rampart agent <version>` is the run's engine). */
  version: Type.String({ minLength: 1, maxLength: 50 }),
  hostname: Type.String({ maxLength: 255 }),
  /** Whether the agent was started with a local gvmd (`--gvmd-socket`): it runs OpenVAS there. */
  gvmd: Type.Boolean(),
}, { additionalProperties: false });
export type AgentSelf = Static<typeof AgentSelfSchema>;

/** POST check-in: 200. `run` is the run waiting for an agent (or held by this agent_id), else null. */
export const CheckInResponseSchema = Type.Object({
  scan: Type.Object({
    uuid: Type.String(),
    name: Type.String(),
    /** The targets as the scan holds them (src/engines/engine.ts JobTarget): the only addresses the agent may touch. */
    targets: Type.Array(Type.Object({ kind: Type.String(), value: Type.String() })),
    engine_options: Type.Record(Type.String(), Type.Unknown()),
    /** Null for a one-time scan; the next scheduled run otherwise. */
    next_run_at: Type.Union([Type.String(), Type.Null()]),
  }),
  run: Type.Union([Type.Object({ run_index: Type.Integer(), held_by_you: Type.Boolean() }), Type.Null()]),
  /** How long a daemon waits before checking in again when no run waits. */
  poll_seconds: Type.Integer(),
  /** When the credential stops working (ISO 8601). */
  credential_expires_at: Type.String(),
});
export type CheckInResponse = Static<typeof CheckInResponseSchema>;

/** POST take: 200 with a fresh lease; 409 while another agent holds an unexpired lease, or when the run is not waiting. */
export const TakeResponseSchema = Type.Object({
  run_index: Type.Integer(),
  lease: Type.String(),
  lease_seconds: Type.Integer(),
  lease_expires_at: Type.String(),
  /** The job: the scan's targets and options, and the deployment's scan limits and port set. */
  job: Type.Object({
    targets: Type.Array(Type.Object({ kind: Type.String(), value: Type.String() })),
    options: Type.Record(Type.String(), Type.Unknown()),
    ports: Type.Union([Type.Literal('default'), Type.Literal('all'), Type.Array(Type.Integer())]),
    limits: Type.Object({
      connectTimeoutMs: Type.Integer(),
      readTimeoutMs: Type.Integer(),
      maxConcurrency: Type.Integer(),
      ratePerSecond: Type.Number(),
    }),
  }),
  /** When the service's vulnerability database was synced; null: none, so `lookup` answers nothing. */
  vulndb_synced_at: Type.Union([Type.String(), Type.Null()]),
});
export type TakeResponse = Static<typeof TakeResponseSchema>;

/** POST heartbeat: renews the lease and records progress. 200 `{ lease_expires_at, cancel }`; `cancel`: stop now (the scan was deleted or the run cancelled). */
export const HeartbeatBodySchema = Type.Object({
  lease: Type.String(),
  percent: Type.Integer({ minimum: 0, maximum: 100 }),
  detail: Type.Optional(Type.String({ maxLength: 500 })),
}, { additionalProperties: false });
export const HeartbeatResponseSchema = Type.Object({ lease_expires_at: Type.String(), cancel: Type.Boolean() });

/** One engine event on the wire (src/engines/engine.ts EngineEvent, minus `engine` and `progress`, which the heartbeat and complete carry). */
export const WireFindingSchema = Type.Object({
  hostname: Type.String({ minLength: 1, maxLength: 255 }),
  hostIp: Type.String({ maxLength: 64 }),
  port: Type.Union([Type.Integer({ minimum: 0, maximum: 65535 }), Type.Null()]),
  protocol: Type.Union([Type.Literal('tcp'), Type.Literal('udp'), Type.Null()]),
  service: Type.Union([Type.String({ maxLength: 100 }), Type.Null()]),
  url: Type.Optional(Type.Union([Type.String({ maxLength: 4096 }), Type.Null()])),
  method: Type.Optional(Type.Union([Type.String({ maxLength: 20 }), Type.Null()])),
  parameter: Type.Optional(Type.Union([Type.String({ maxLength: 500 }), Type.Null()])),
  ruleId: Type.String({ minLength: 1, maxLength: 300 }),
  name: Type.String({ minLength: 1, maxLength: 1000 }),
  description: Type.String({ maxLength: 100_000 }),
  solution: Type.String({ maxLength: 100_000 }),
  threat: Type.Union([Type.Literal('Critical'), Type.Literal('High'), Type.Literal('Medium'), Type.Literal('Low'), Type.Literal('Informational')]),
  cvssBase: Type.Union([Type.Number({ minimum: 0, maximum: 10 }), Type.Null()]),
  cvssVector: Type.Union([Type.String({ maxLength: 200 }), Type.Null()]),
  cve: Type.Array(Type.String({ maxLength: 30 }), { maxItems: 500 }),
  cwe: Type.Union([Type.String({ maxLength: 30 }), Type.Null()]),
  evidence: Type.String({ maxLength: 200_000 }),
  references: Type.Array(Type.String({ maxLength: 4096 }), { maxItems: 500 }),
  qod: Type.Optional(Type.Integer({ minimum: 0, maximum: 100 })),
  kev: Type.Optional(Type.Boolean()),
  epss: Type.Optional(Type.Union([Type.Number({ minimum: 0, maximum: 1 }), Type.Null()])),
}, { additionalProperties: false });

export const WireEventSchema = Type.Union([
  Type.Object({ type: Type.Literal('host'), hostname: Type.String({ minLength: 1, maxLength: 255 }), address: Type.String({ maxLength: 64 }), state: Type.Union([Type.Literal('up'), Type.Literal('down')]) }),
  Type.Object({ type: Type.Literal('finding'), finding: WireFindingSchema }),
  Type.Object({ type: Type.Literal('log'), level: Type.Union([Type.Literal('info'), Type.Literal('warn')]), message: Type.String({ maxLength: 2000 }) }),
  Type.Object({ type: Type.Literal('incomplete'), message: Type.String({ maxLength: 2000 }) }),
]);
export type WireEvent = Static<typeof WireEventSchema>;

/**
 * An event with the protocol's fields only, its texts clipped to the protocol's bounds. The event
 * union stays open (the request validator removes unknown keys branch by branch, which would strip
 * a finding while trying it as a host), so both sides keep to these fields: the agent sends only
 * them, and the service stores only them.
 */
export function wireEvent(event: WireEvent): WireEvent {
  switch (event.type) {
    case 'host':
      return { type: 'host', hostname: event.hostname, address: event.address, state: event.state };
    case 'finding':
      return { type: 'finding', finding: event.finding };
    case 'log':
      return { type: 'log', level: event.level, message: event.message.slice(0, 2000) };
    case 'incomplete':
      return { type: 'incomplete', message: event.message.slice(0, 2000) };
  }
}

/** PUT chunks/{seq} (seq from 0): 200 `{ seq }`. Idempotent: the same seq with the same events again is 200; with other events, 409. */
export const ChunkBodySchema = Type.Object({
  lease: Type.String(),
  events: Type.Array(WireEventSchema, { maxItems: AGENT_CHUNK_MAX_EVENTS }),
}, { additionalProperties: false });

/** POST lookup: the service's vulnerability database for one CPE name (the engine's VulnerabilityLookup.forCpe). */
export const LookupBodySchema = Type.Object({
  lease: Type.String(),
  cpe: Type.String({ minLength: 5, maxLength: 500 }),
  context: Type.Optional(Type.Object({ platforms: Type.Optional(Type.Array(Type.String({ maxLength: 500 }), { maxItems: 20 })), server: Type.Optional(Type.Boolean()) }, { additionalProperties: false })),
}, { additionalProperties: false });

/**
 * What may have run an attempt: the agent's own engine, or OpenVAS through a local gvmd (its
 * version is gvmd's). The name is the run's engine as users see it, so the agent cannot invent one.
 */
export const AGENT_ENGINE_NAMES = ['rampart agent', 'openvas'] as const;

/**
 * POST complete: the attempt's end. `chunks` is how many chunks it sent (0..chunks-1): a 409 lists
 * the missing ones (`missing`), the agent sends them and completes again. On success the chunks are
 * replayed through the run recorder in one transaction and the run ends; 200 `{ run_index, findings }`.
 * Completing a run already completed by this lease answers the same 200 again.
 */
export const CompleteBodySchema = Type.Object({
  lease: Type.String(),
  chunks: Type.Integer({ minimum: 0, maximum: AGENT_MAX_CHUNKS }),
  outcome: Type.Union([Type.Literal('succeeded'), Type.Literal('failed')]),
  /** The failure's sentence and kind (src/engines/engine.ts ENGINE_ERROR_KINDS) for a failed attempt. */
  error: Type.Optional(Type.String({ maxLength: 2000 })),
  error_kind: Type.Optional(Type.Union([Type.Literal('network-temporary'), Type.Literal('network-permanent'), Type.Literal('deadline'), Type.Literal('config'), Type.Literal('internal')])),
  /** False when the engine said it may have missed something. */
  complete: Type.Boolean(),
  /** What really ran, e.g. `{ name: 'rampart agent', version: '0.1.0', detail: 'on host lab-7' }` or the local gvmd's identity. */
  engine: Type.Object(
    { name: Type.Union(AGENT_ENGINE_NAMES.map((n) => Type.Literal(n))), version: Type.String({ maxLength: 100 }), detail: Type.Optional(Type.String({ maxLength: 300 })) },
    { additionalProperties: false },
  ),
}, { additionalProperties: false });
export const CompleteResponseSchema = Type.Object({ run_index: Type.Integer(), findings: Type.Integer() });

/** The 409 of `complete` when chunks are missing. */
export const MissingChunksSchema = Type.Object({ message: Type.String(), missing: Type.Array(Type.Integer()) });

/**
 * What the downloaded file carries: `GET /api/scans/{uuid}/agent` answers the agent bundle
 * (dist/agent/agent.cjs, built by `npm run build`) preceded by one line
 * `globalThis.RAMPART_AGENT = {...};` holding this object, so `node agent.js` needs no arguments.
 */
export const AGENT_CONFIG_GLOBAL = 'RAMPART_AGENT';
export interface AgentConfig {
  /** The service's base URL (RAMPART_BASE_URL), e.g. `https://rampart.example.com`. */
  baseUrl: string;
  scanUuid: string;
  scanName: string;
  credential: string;
  /** ISO 8601. */
  credentialExpiresAt: string;
}
