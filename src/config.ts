/**
 * The one place the environment is read. Every setting is declared in `EnvSchema`, converted,
 * defaulted and validated at boot; a bad value stops start-up with a message naming the variable.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Type, type Static } from 'typebox';
import { Value } from 'typebox/value';
import { ROLES, type Role } from './shared/roles.js';
import { DEFAULT_MIN_QOD } from './shared/finding.js';
import { parseAllowList } from './shared/address-guard.js';
import { DEFAULT_DATA_DIR } from './db/store-location.js';
import { AGENT_CREDENTIAL_DEFAULT_DAYS } from './shared/agent-protocol.js';

/** GitHub's "latest release" of the community nuclei templates: `rampart templates sync` reads it. */
const NUCLEI_TEMPLATES_RELEASE_URL = 'https://api.github.com/repos/projectdiscovery/nuclei-templates/releases/latest';

const EnvSchema = Type.Object({
  RAMPART_PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 8080 }),
  RAMPART_HOST: Type.String({ minLength: 1, default: '127.0.0.1' }),
  RAMPART_BASE_URL: Type.Optional(Type.String({ pattern: '^https?://[^\\s/]+(/[^\\s]*)?$' })),
  RAMPART_DATA_DIR: Type.String({ minLength: 1, default: DEFAULT_DATA_DIR }),
  RAMPART_ALLOW_INSECURE_DATA_DIR: Type.Boolean({ default: false }),
  DATABASE_URL: Type.Optional(Type.String({ pattern: '^postgres(ql)?://' })),
  RAMPART_DB_SCHEMA: Type.String({ pattern: '^[a-z_][a-z0-9_]{0,62}$', default: 'public' }),
  RAMPART_JWT_SECRET: Type.Optional(Type.String({ minLength: 32 })),
  RAMPART_JWT_PREVIOUS_SECRET: Type.Optional(Type.String({ minLength: 32 })),
  RAMPART_TOKEN_TTL: Type.Integer({ minimum: 60, maximum: 86400 * 30, default: 3600 }),
  RAMPART_SMTP_URL: Type.Optional(Type.String({ pattern: '^smtps?://' })),
  RAMPART_MAIL_FROM: Type.String({ minLength: 3, default: 'Rampart <rampart@localhost>' }),
  RAMPART_RATE_LIMITS: Type.String({ default: '' }),
  RAMPART_REDIS_URL: Type.Optional(Type.String({ pattern: '^rediss?://' })),
  RAMPART_REDIS_PREFIX: Type.String({ minLength: 1, default: 'rampart:' }),
  RAMPART_BODY_LIMIT: Type.Integer({ minimum: 1024, default: 1_048_576 }),
  RAMPART_UPLOAD_MAX_BYTES: Type.Integer({ minimum: 1024, default: 26_214_400 }),
  RAMPART_LOG_LEVEL: Type.Union(
    ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((l) => Type.Literal(l)),
    { default: 'info' },
  ),
  RAMPART_TRUST_PROXY: Type.Boolean({ default: false }),
  RAMPART_AGENT_CODE_TTL: Type.Integer({ minimum: 60, maximum: 86400, default: 900 }),
  RAMPART_AGENT_AUTH_PER_EMAIL: Type.Integer({ minimum: 1, maximum: 1000, default: 5 }),
  RAMPART_AGENT_AUTH_PER_CLIENT: Type.Integer({ minimum: 1, maximum: 100_000, default: 20 }),
  RAMPART_AGENT_CREDENTIAL_DAYS: Type.Integer({ minimum: 1, maximum: 365, default: AGENT_CREDENTIAL_DEFAULT_DAYS }),
  RAMPART_AGENT_LEASE_SECONDS: Type.Integer({ minimum: 10, maximum: 3600, default: 120 }),
  RAMPART_ALLOW_TARGETS: Type.String({ default: '' }),
  RAMPART_MAX_TARGET_ADDRESSES: Type.Integer({ minimum: 1, default: 65_536 }),
  RAMPART_LOGIN_SCRIPT_MAX_BYTES: Type.Integer({ minimum: 1024, default: 262_144 }),
  RAMPART_LOGIN_SCRIPT_TIMEOUT_SECONDS: Type.Integer({ minimum: 5, maximum: 600, default: 60 }),
  RAMPART_PYTHON: Type.String({ minLength: 1, default: '/usr/bin/python3' }),
  RAMPART_WORKER_CONCURRENCY: Type.Integer({ minimum: 1, maximum: 64, default: 2 }),
  RAMPART_RUN_LEASE_SECONDS: Type.Integer({ minimum: 2, maximum: 3600, default: 60 }),
  RAMPART_WORKER_POLL_MS: Type.Integer({ minimum: 10, maximum: 60_000, default: 1000 }),
  RAMPART_SCHEDULER_INTERVAL_MS: Type.Integer({ minimum: 10, maximum: 300_000, default: 5000 }),
  RAMPART_SCAN_PORTS: Type.String({ pattern: '^(default|all|[0-9]{1,5}([,-][0-9]{1,5})*)$', default: 'default' }),
  RAMPART_SCAN_RATE: Type.Integer({ minimum: 0, default: 0 }),
  RAMPART_SCAN_CONCURRENCY: Type.Integer({ minimum: 1, maximum: 4096, default: 256 }),
  RAMPART_CONNECT_TIMEOUT_MS: Type.Integer({ minimum: 50, maximum: 60_000, default: 1500 }),
  RAMPART_READ_TIMEOUT_MS: Type.Integer({ minimum: 50, maximum: 120_000, default: 3000 }),
  RAMPART_EMPTY_PASSWORD_LOGINS: Type.Boolean({ default: true }),
  RAMPART_NUCLEI_TEMPLATES: Type.Optional(Type.String({ minLength: 1 })),
  RAMPART_NUCLEI_UNSAFE: Type.Boolean({ default: false }),
  RAMPART_NUCLEI_TIMEOUT_MS: Type.Integer({ minimum: 100, maximum: 120_000, default: 10_000 }),
  RAMPART_NUCLEI_TEMPLATES_URL: Type.String({ pattern: '^https?://', default: NUCLEI_TEMPLATES_RELEASE_URL }),
  RAMPART_NUCLEI_MODE: Type.Union([Type.Literal('builtin'), Type.Literal('binary')], { default: 'builtin' }),
  RAMPART_NUCLEI_BIN: Type.Optional(Type.String({ minLength: 1 })),
  RAMPART_ZAP_MODE: Type.Union([Type.Literal('builtin'), Type.Literal('daemon')], { default: 'builtin' }),
  RAMPART_ZAP_URL: Type.Optional(Type.String({ pattern: '^https?://[^\\s/]+(/[^\\s]*)?$' })),
  RAMPART_ZAP_API_KEY: Type.Optional(Type.String({ minLength: 1 })),
  RAMPART_NVD_API_KEY: Type.Optional(Type.String({ minLength: 1 })),
  RAMPART_NVD_URL: Type.Optional(Type.String({ pattern: '^https?://' })),
  RAMPART_KEV_URL: Type.Optional(Type.String({ pattern: '^https?://' })),
  RAMPART_EPSS_URL: Type.Optional(Type.String({ pattern: '^https?://' })),
  RAMPART_LLM_URL: Type.Optional(Type.String({ pattern: '^https?://' })),
  RAMPART_LLM_MODEL: Type.String({ minLength: 1, default: 'gpt-4o-mini' }),
  RAMPART_LLM_KEY: Type.Optional(Type.String({ minLength: 1 })),
  RAMPART_LLM_TIMEOUT_MS: Type.Integer({ minimum: 100, maximum: 600_000, default: 60_000 }),
  RAMPART_WEBHOOK_RETRY_DELAYS: Type.String({ pattern: '^[0-9]+(,[0-9]+)*$', default: '10,60,600,3600,21600' }),
  RAMPART_WEBHOOK_TIMEOUT_MS: Type.Integer({ minimum: 100, maximum: 120_000, default: 10_000 }),
  RAMPART_WEBHOOK_CONCURRENCY: Type.Integer({ minimum: 1, maximum: 256, default: 16 }),
  RAMPART_WEBHOOK_CA_FILE: Type.Optional(Type.String({ minLength: 1 })),
  RAMPART_REPORT_LINK_TTL: Type.Integer({ minimum: 60, maximum: 86400 * 90, default: 86400 * 7 }),
  RAMPART_MIN_QOD: Type.Integer({ minimum: 0, maximum: 100, default: DEFAULT_MIN_QOD }),
  RAMPART_MAIL_RETRY_DELAYS: Type.String({ pattern: '^[0-9]+(,[0-9]+)*$', default: '60,300,1800,7200,21600' }),
  RAMPART_MCP_SESSION_IDLE: Type.Integer({ minimum: 1, maximum: 86_400, default: 1800 }),
  RAMPART_MCP_SESSIONS_PER_ACCOUNT: Type.Integer({ minimum: 1, maximum: 1000, default: 10 }),
  RAMPART_REQUIRE_EMAIL_VERIFICATION: Type.Boolean({ default: true }),
  RAMPART_SIGN_UP: Type.Boolean({ default: true }),
  RAMPART_SESSION_IDLE_MINUTES: Type.Integer({ minimum: 5, maximum: 43_200, default: 720 }),
  RAMPART_SESSION_MAX_HOURS: Type.Integer({ minimum: 1, maximum: 8_760, default: 168 }),
  RAMPART_OIDC_ISSUER: Type.Optional(Type.String({ pattern: '^https?://[^\\s]+$' })),
  RAMPART_OIDC_CLIENT_ID: Type.Optional(Type.String({ minLength: 1 })),
  RAMPART_OIDC_CLIENT_SECRET: Type.Optional(Type.String({ minLength: 1 })),
  RAMPART_OIDC_NAME: Type.String({ minLength: 1, maxLength: 60, default: 'single sign-on' }),
});
type Env = Static<typeof EnvSchema>;

/** Every variable the configuration reads (the README's configuration table lists them all). */
export const ENV_VARIABLES: readonly string[] = Object.keys(EnvSchema.properties);

/** Requests per minute by role (DESIGN.md "Rate limits"). */
export const DEFAULT_RATE_LIMITS: Record<Role, number> = {
  trial: 60,
  basic: 120,
  premium: 300,
  pro: 600,
  admin: 1200,
};

export interface Config {
  port: number;
  host: string;
  /** Public base URL, without a trailing slash: the JWT issuer and audience, and every link. */
  baseUrl: string;
  dataDir: string;
  /** Start although the data directory is open to group or others (RAMPART_ALLOW_INSECURE_DATA_DIR). */
  allowInsecureDataDir: boolean;
  /** Real PostgreSQL when set; otherwise the embedded PGlite store under `dataDir`. */
  databaseUrl: string | undefined;
  /** PostgreSQL schema holding Rampart's tables (lets several deployments share a database). */
  dbSchema: string;
  jwtSecret: string | undefined;
  /** The key before the last rotation: still accepted when verifying tokens, never used to sign. */
  jwtPreviousSecret: string | undefined;
  tokenTtlSeconds: number;
  smtpUrl: string | undefined;
  mailFrom: string;
  rateLimits: Record<Role, number>;
  redisUrl: string | undefined;
  /** Prefix of every Redis key, so several deployments can share one Redis. */
  redisPrefix: string;
  bodyLimit: number;
  /** Largest results file accepted by POST /api/scans/{uuid}/results and `rampart import`. */
  uploadMaxBytes: number;
  logLevel: string;
  trustProxy: boolean;
  agentCodeTtlSeconds: number;
  /** Agent registrations (codes mailed) per hour to one email address and from one client address. */
  agentAuthLimits: { perEmail: number; perClient: number };
  /**
   * The local agent (docs/AGENT.md): days a downloaded agent's credential lasts, seconds an agent's
   * lease on a run lasts between heartbeats, and the agent bundle the download serves
   * (`dist/agent/agent.cjs`, built by `npm run build`; tests point it elsewhere).
   */
  localAgent: { credentialDays: number; leaseSeconds: number; bundlePath: string };
  /** CIDRs that managed scans and webhooks may reach although private (RAMPART_ALLOW_TARGETS). */
  allowTargets: string[];
  maxTargetAddresses: number;
  loginScriptMaxBytes: number;
  /**
   * Replaying ZAP login scripts: the Python with Selenium that runs them (Debian's, where
   * python3-selenium installs; the PATH python may be another) and the time limit of one login.
   */
  loginScripts: { python: string; timeoutMs: number };
  worker: { concurrency: number; leaseSeconds: number; pollMs: number };
  schedulerIntervalMs: number;
  scan: {
    ports: 'default' | 'all' | number[];
    ratePerSecond: number;
    maxConcurrency: number;
    connectTimeoutMs: number;
    readTimeoutMs: number;
    /** The Rampart engine may try the MySQL/MariaDB empty-password login (its only credential attempt). */
    emptyPasswordLogins: boolean;
  };
  /**
   * The built-in nuclei engine: the templates directory (RAMPART_NUCLEI_TEMPLATES, else
   * `<data dir>/nuclei-templates`, where `rampart templates sync` writes), whether the directory was
   * set explicitly, whether `unsafe: true` templates may run, and the bound on one exchange.
   */
  nuclei: { templatesDir: string; templatesDirSet: boolean; unsafe: boolean; timeoutMs: number };
  /**
   * The release `rampart templates sync` reads, and who runs Nuclei scans: the built-in engine, or
   * the `nuclei` program (RAMPART_NUCLEI_MODE=binary; RAMPART_NUCLEI_BIN, else found on PATH).
   */
  nucleiCli: { releaseUrl: string; mode: 'builtin' | 'binary'; bin: string | undefined };
  /**
   * Who runs ZAP scans: Rampart's built-in web scanner, or an OWASP ZAP daemon driven over its API
   * (RAMPART_ZAP_MODE=daemon, at RAMPART_ZAP_URL with RAMPART_ZAP_API_KEY).
   */
  zap: { mode: 'builtin' | 'daemon'; url: string | undefined; apiKey: string | undefined };
  /** Where `rampart vulndb sync` downloads from (defaults: NVD, CISA, FIRST). */
  vulndb: { nvdUrl?: string; kevUrl?: string; epssUrl?: string; nvdApiKey?: string };
  /** An OpenAI-compatible chat API for attack narratives; without a URL the built-in writer is used. */
  llm: { url: string | undefined; model: string; apiKey: string | undefined; timeoutMs: number };
  /**
   * Webhook delivery: seconds before each retry (attempts = retries + 1; a Retry-After answer can
   * only lengthen a wait), the time limit of one attempt, attempts in flight per process, and a
   * PEM file of extra trusted CAs (Node's own roots stay trusted).
   */
  webhooks: { retryDelaysSeconds: number[]; timeoutMs: number; concurrency: number; caFile: string | undefined };
  /** Seconds to wait before each retry of a report email (attempts = retries + 1). */
  mailRetryDelaysSeconds: number[];
  /**
   * People in the web application: whether anyone may sign up, whether a new address must be
   * verified before sign-in, and how long a browser session lasts (idle, and at most).
   */
  web: { signUp: boolean; requireEmailVerification: boolean; sessionIdleMinutes: number; sessionMaxHours: number };
  /** OpenID Connect sign-in, when an issuer and client are configured; `name` labels the button. */
  oidc: { issuer: string; clientId: string; clientSecret: string | undefined; name: string } | undefined;
  /** Lifetime of the signed report links of emails and webhook events, in seconds. */
  reportLinkTtlSeconds: number;
  /** Reports and the CSV export hide findings whose quality of detection is below this (0-100), unless a request says otherwise. */
  minQod: number;
  /**
   * MCP sessions: seconds of inactivity after which a session ends, and how many one account may
   * hold in this process (opening one more ends the account's least recently used).
   */
  mcp: { sessionIdleSeconds: number; sessionsPerAccount: number };
}

/** Reads and validates the environment; throws an Error listing every bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: Partial<Config> = {}): Config {
  const raw: Record<string, unknown> = {};
  for (const key of Object.keys(EnvSchema.properties)) {
    const value = env[key];
    if (value !== undefined && value !== '') raw[key] = value;
  }
  const parsed = Value.Default(EnvSchema, Value.Convert(EnvSchema, raw)) as Env;
  const problems = Value.Errors(EnvSchema, parsed).map((e) => `${e.instancePath.slice(1) || 'environment'} ${e.message}`);
  if (problems.length > 0) throw new Error(`Invalid configuration: ${problems.join('; ')}`);

  const port = overrides.port ?? parsed.RAMPART_PORT;
  const config: Config = {
    port,
    host: parsed.RAMPART_HOST,
    baseUrl: (parsed.RAMPART_BASE_URL ?? `http://localhost:${port}`).replace(/\/+$/, ''),
    dataDir: path.resolve(parsed.RAMPART_DATA_DIR),
    allowInsecureDataDir: parsed.RAMPART_ALLOW_INSECURE_DATA_DIR,
    databaseUrl: parsed.DATABASE_URL,
    dbSchema: parsed.RAMPART_DB_SCHEMA,
    jwtSecret: parsed.RAMPART_JWT_SECRET,
    jwtPreviousSecret: parsed.RAMPART_JWT_PREVIOUS_SECRET,
    tokenTtlSeconds: parsed.RAMPART_TOKEN_TTL,
    smtpUrl: parsed.RAMPART_SMTP_URL,
    mailFrom: parsed.RAMPART_MAIL_FROM,
    rateLimits: parseRateLimits(parsed.RAMPART_RATE_LIMITS),
    redisUrl: parsed.RAMPART_REDIS_URL,
    redisPrefix: parsed.RAMPART_REDIS_PREFIX,
    bodyLimit: parsed.RAMPART_BODY_LIMIT,
    uploadMaxBytes: parsed.RAMPART_UPLOAD_MAX_BYTES,
    logLevel: parsed.RAMPART_LOG_LEVEL,
    trustProxy: parsed.RAMPART_TRUST_PROXY,
    agentCodeTtlSeconds: parsed.RAMPART_AGENT_CODE_TTL,
    agentAuthLimits: { perEmail: parsed.RAMPART_AGENT_AUTH_PER_EMAIL, perClient: parsed.RAMPART_AGENT_AUTH_PER_CLIENT },
    localAgent: {
      credentialDays: parsed.RAMPART_AGENT_CREDENTIAL_DAYS,
      leaseSeconds: parsed.RAMPART_AGENT_LEASE_SECONDS,
      // dist/src/config.js -> dist/agent/agent.cjs
      bundlePath: fileURLToPath(new URL('../agent/agent.cjs', import.meta.url)),
    },
    allowTargets: parseAllowList(parsed.RAMPART_ALLOW_TARGETS),
    maxTargetAddresses: parsed.RAMPART_MAX_TARGET_ADDRESSES,
    loginScriptMaxBytes: parsed.RAMPART_LOGIN_SCRIPT_MAX_BYTES,
    loginScripts: { python: parsed.RAMPART_PYTHON, timeoutMs: parsed.RAMPART_LOGIN_SCRIPT_TIMEOUT_SECONDS * 1000 },
    worker: {
      concurrency: parsed.RAMPART_WORKER_CONCURRENCY,
      leaseSeconds: parsed.RAMPART_RUN_LEASE_SECONDS,
      pollMs: parsed.RAMPART_WORKER_POLL_MS,
    },
    schedulerIntervalMs: parsed.RAMPART_SCHEDULER_INTERVAL_MS,
    scan: {
      ports: parsePorts(parsed.RAMPART_SCAN_PORTS),
      ratePerSecond: parsed.RAMPART_SCAN_RATE,
      maxConcurrency: parsed.RAMPART_SCAN_CONCURRENCY,
      connectTimeoutMs: parsed.RAMPART_CONNECT_TIMEOUT_MS,
      readTimeoutMs: parsed.RAMPART_READ_TIMEOUT_MS,
      emptyPasswordLogins: parsed.RAMPART_EMPTY_PASSWORD_LOGINS,
    },
    nuclei: {
      templatesDir: path.resolve(parsed.RAMPART_NUCLEI_TEMPLATES ?? path.join(parsed.RAMPART_DATA_DIR, 'nuclei-templates')),
      templatesDirSet: parsed.RAMPART_NUCLEI_TEMPLATES !== undefined,
      unsafe: parsed.RAMPART_NUCLEI_UNSAFE,
      timeoutMs: parsed.RAMPART_NUCLEI_TIMEOUT_MS,
    },
    nucleiCli: { releaseUrl: parsed.RAMPART_NUCLEI_TEMPLATES_URL, mode: parsed.RAMPART_NUCLEI_MODE, bin: parsed.RAMPART_NUCLEI_BIN },
    zap: { mode: parsed.RAMPART_ZAP_MODE, url: parsed.RAMPART_ZAP_URL, apiKey: parsed.RAMPART_ZAP_API_KEY },
    vulndb: {
      ...(parsed.RAMPART_NVD_URL ? { nvdUrl: parsed.RAMPART_NVD_URL } : {}),
      ...(parsed.RAMPART_KEV_URL ? { kevUrl: parsed.RAMPART_KEV_URL } : {}),
      ...(parsed.RAMPART_EPSS_URL ? { epssUrl: parsed.RAMPART_EPSS_URL } : {}),
      ...(parsed.RAMPART_NVD_API_KEY ? { nvdApiKey: parsed.RAMPART_NVD_API_KEY } : {}),
    },
    llm: { url: parsed.RAMPART_LLM_URL, model: parsed.RAMPART_LLM_MODEL, apiKey: parsed.RAMPART_LLM_KEY, timeoutMs: parsed.RAMPART_LLM_TIMEOUT_MS },
    webhooks: {
      retryDelaysSeconds: parsed.RAMPART_WEBHOOK_RETRY_DELAYS.split(',').map(Number),
      timeoutMs: parsed.RAMPART_WEBHOOK_TIMEOUT_MS,
      concurrency: parsed.RAMPART_WEBHOOK_CONCURRENCY,
      caFile: parsed.RAMPART_WEBHOOK_CA_FILE,
    },
    mailRetryDelaysSeconds: parsed.RAMPART_MAIL_RETRY_DELAYS.split(',').map(Number),
    web: {
      signUp: parsed.RAMPART_SIGN_UP,
      requireEmailVerification: parsed.RAMPART_REQUIRE_EMAIL_VERIFICATION,
      sessionIdleMinutes: parsed.RAMPART_SESSION_IDLE_MINUTES,
      sessionMaxHours: parsed.RAMPART_SESSION_MAX_HOURS,
    },
    oidc:
      parsed.RAMPART_OIDC_ISSUER && parsed.RAMPART_OIDC_CLIENT_ID
        ? { issuer: parsed.RAMPART_OIDC_ISSUER, clientId: parsed.RAMPART_OIDC_CLIENT_ID, clientSecret: parsed.RAMPART_OIDC_CLIENT_SECRET, name: parsed.RAMPART_OIDC_NAME }
        : undefined,
    reportLinkTtlSeconds: parsed.RAMPART_REPORT_LINK_TTL,
    minQod: parsed.RAMPART_MIN_QOD,
    mcp: { sessionIdleSeconds: parsed.RAMPART_MCP_SESSION_IDLE, sessionsPerAccount: parsed.RAMPART_MCP_SESSIONS_PER_ACCOUNT },
  };
  return { ...config, ...overrides };
}

/** `default`, `all`, or a list of ports and ranges such as `22,80,8000-8100`. */
function parsePorts(text: string): 'default' | 'all' | number[] {
  if (text === 'default' || text === 'all') return text;
  const ports = new Set<number>();
  for (const part of text.split(',')) {
    const [from, to = from] = part.split('-').map(Number) as [number, number?];
    if (!(from >= 1 && to <= 65535 && from <= to)) throw new Error(`Invalid configuration: RAMPART_SCAN_PORTS entry "${part}" is not a port or range in 1-65535`);
    for (let p = from; p <= to; p++) ports.add(p);
  }
  return [...ports].sort((a, b) => a - b);
}

/** Parses `trial=60,basic=120,...`; roles left out keep their defaults. */
function parseRateLimits(text: string): Record<Role, number> {
  const limits = { ...DEFAULT_RATE_LIMITS };
  for (const part of text.split(',').map((p) => p.trim()).filter(Boolean)) {
    const [role, value] = part.split('=').map((s) => s.trim());
    const perMinute = Number(value);
    if (!ROLES.includes(role as Role) || !Number.isInteger(perMinute) || perMinute < 1) {
      throw new Error(`Invalid configuration: RAMPART_RATE_LIMITS entry "${part}" must be <role>=<requests per minute>`);
    }
    limits[role as Role] = perMinute;
  }
  return limits;
}
