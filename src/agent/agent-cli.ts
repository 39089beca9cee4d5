/**
 * The agent's command line: flags, the run-once and daemon loops, and what each ending prints and
 * exits with. Exit codes: 0 done (or nothing to do), 1 the run failed or was lost, 2 the agent
 * cannot work as it is (bad flags, credential expired or revoked, scan gone, TLS not trusted).
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { parseArgs } from 'node:util';
import { AGENT_CONFIG_GLOBAL, AGENT_PATHS, type AgentConfig, type AgentSelf, type CheckInResponse } from '../shared/agent-protocol.js';
import { agentIdentity, runAttempt, type AgentScanner, type AttemptDeps } from './attempt.js';
import { createGvmdScanner, type GvmdFlags } from './gvmd-scanner.js';
import { backoffMs, createAgentClient, isPlainHttpOffLoopback, pause, PLAIN_HTTP_REFUSED, ServiceError, UnreachableError, UntrustedTlsError } from './http-client.js';
import { createAgentLog, type AgentLog } from './agent-log.js';
import { createRampartScanner } from './rampart-scanner.js';

export const HELP = `Usage: node agent.js [--daemon] [--ca FILE] [--insecure-http] [--gvmd-socket PATH --gvmd-username NAME --gvmd-password SECRET]

Runs the scan this file was downloaded for, from this machine, and uploads the results.

  (no flag)          run the waiting run once, if there is one, then exit
  --daemon           keep running: check in every few minutes and run each run that comes (scheduled scans)
  --ca FILE          also trust this CA (PEM) for the service's TLS certificate
  --insecure-http    allow a plain http:// service that is not on loopback (lab use only: the credential travels in clear)
  --gvmd-socket PATH run OpenVAS through the local gvmd at this Unix socket instead of Rampart's scanner
  --gvmd-username, --gvmd-password   gvmd's account (or RAMPART_GVMD_USERNAME / RAMPART_GVMD_PASSWORD)
  --help             this text

Exit codes: 0 done or nothing to do, 1 the run failed or another agent took it, 2 the agent cannot
work as it is (credential expired or revoked, scan deleted, TLS certificate not trusted, bad flags).`;

/** Most time between two check-ins of a daemon that cannot reach the service. */
const MAX_DAEMON_BACKOFF_MS = 5 * 60_000;

export interface AgentEnvironment {
  config: AgentConfig | undefined;
  argv: string[];
  version: string;
  signal: AbortSignal;
  log?: AgentLog;
}

export async function runAgentCli(environment: AgentEnvironment): Promise<number> {
  const log = environment.log ?? createAgentLog();
  let flags;
  try {
    flags = parseArgs({
      args: environment.argv,
      options: {
        daemon: { type: 'boolean', default: false },
        once: { type: 'boolean', default: false },
        ca: { type: 'string' },
        'insecure-http': { type: 'boolean', default: false },
        'gvmd-socket': { type: 'string' },
        'gvmd-username': { type: 'string' },
        'gvmd-password': { type: 'string' },
        help: { type: 'boolean', default: false },
      },
    }).values;
  } catch (error) {
    return refuse(log, `${(error as Error).message}\n\n${HELP}`);
  }
  if (flags.help) {
    process.stdout.write(`${HELP}\n`);
    return 0;
  }
  const config = environment.config;
  if (!config) return refuse(log, "this file carries no scan: download the agent from the scan's page (or GET /api/scans/{uuid}/agent) and run that file");
  if (flags.daemon && flags.once) return refuse(log, '--daemon and --once exclude each other');
  const baseUrl = new URL(config.baseUrl);
  if (isPlainHttpOffLoopback(baseUrl)) {
    if (!flags['insecure-http']) return refuse(log, `${PLAIN_HTTP_REFUSED} (${baseUrl.origin}); --insecure-http allows it in a lab, the credential then travels in clear`);
    log.warn(`--insecure-http: the credential travels in clear to ${baseUrl.origin}; use this in a lab only`);
  }
  const gvmd = gvmdFlags(flags);
  if (typeof gvmd === 'string') return refuse(log, gvmd);
  let extraCa: string | undefined;
  if (flags.ca !== undefined) {
    try {
      extraCa = readFileSync(flags.ca, 'utf8');
    } catch (error) {
      return refuse(log, `--ca ${flags.ca}: ${(error as Error).message}`);
    }
    if (!extraCa.includes('-----BEGIN CERTIFICATE-----')) return refuse(log, `--ca ${flags.ca}: no PEM certificate in the file`);
  }

  const scanner: AgentScanner = gvmd ? createGvmdScanner(gvmd, environment.version) : createRampartScanner(agentIdentity(environment.version));
  const deps: AttemptDeps = {
    client: createAgentClient({
      agentUrl: `${config.baseUrl.replace(/\/+$/, '')}/api/scans/${encodeURIComponent(config.scanUuid)}/agent`,
      credential: config.credential,
      signal: environment.signal,
      insecureHttp: flags['insecure-http'],
      ...(extraCa ? { extraCa } : {}),
    }),
    self: {
      agent_id: agentIdOf(config.credential),
      version: environment.version,
      hostname: hostname().slice(0, 255),
      gvmd: gvmd !== undefined,
    },
    scanner,
    log,
    signal: environment.signal,
  };
  log.info(`rampart agent ${environment.version} on ${deps.self.hostname}: scan "${config.scanName}" (${config.scanUuid}) at ${config.baseUrl}${gvmd ? `; OpenVAS through the local gvmd at ${gvmd.socket}` : ''}`);
  try {
    return flags.daemon ? await runDaemon(deps) : await runOnce(deps);
  } catch (error) {
    return reportFatal(log, error);
  }
}

/** The local gvmd's settings from the flags (credentials also from the environment), a refusal, or undefined without --gvmd-socket. */
function gvmdFlags(flags: { 'gvmd-socket'?: string; 'gvmd-username'?: string; 'gvmd-password'?: string }): GvmdFlags | string | undefined {
  const socket = flags['gvmd-socket'];
  const username = flags['gvmd-username'] ?? process.env.RAMPART_GVMD_USERNAME;
  const password = flags['gvmd-password'] ?? process.env.RAMPART_GVMD_PASSWORD;
  if (socket === undefined) {
    const stray = flags['gvmd-username'] !== undefined || flags['gvmd-password'] !== undefined;
    return stray ? '--gvmd-username and --gvmd-password need --gvmd-socket PATH' : undefined;
  }
  if (socket === '') return '--gvmd-socket needs the path of gvmd\'s Unix socket (e.g. /run/gvmd/gvmd.sock)';
  if (!username || !password) return "--gvmd-socket needs gvmd's account: --gvmd-username and --gvmd-password, or RAMPART_GVMD_USERNAME and RAMPART_GVMD_PASSWORD";
  return { socket, username, password };
}

/** The AgentConfig the download put before the program, if this file is a download. */
export function downloadedConfig(): AgentConfig | undefined {
  return (globalThis as Record<string, unknown>)[AGENT_CONFIG_GLOBAL] as AgentConfig | undefined;
}

/** Stable per machine and credential: a restarted agent is recognised and retakes its run at once. */
export function agentIdOf(credential: string): string {
  return createHash('sha256').update(`${hostname()}\n${credential}`).digest('hex').slice(0, 32);
}

async function checkIn(deps: AttemptDeps): Promise<CheckInResponse> {
  return deps.client.call<CheckInResponse>('POST', AGENT_PATHS.checkIn, deps.self satisfies AgentSelf);
}

async function runOnce(deps: AttemptDeps): Promise<number> {
  const answer = await checkIn(deps);
  if (!answer.run) {
    deps.log.info(`no run is waiting for an agent (next scheduled: ${answer.scan.next_run_at ?? 'none, this is a one-time scan'})`);
    return 0;
  }
  const outcome = await runAttempt(deps, answer.run.run_index);
  switch (outcome.kind) {
    case 'completed':
      return outcome.succeeded ? 0 : 1;
    case 'taken-over':
      deps.log.warn(`run #${answer.run.run_index} is held by another agent: ${outcome.message}`);
      return 1;
    case 'cancelled':
      // The service stops a run it no longer wants (held past the next scheduled run): a failure for whoever runs the agent.
      deps.log.warn(`run #${answer.run.run_index} was stopped by the service (see the run's error there): the scan stopped`);
      return 1;
    case 'stopped':
      deps.log.info('stopped: the scan was abandoned, nothing was completed');
      return 0;
  }
}

async function runDaemon(deps: AttemptDeps): Promise<number> {
  const { log, signal } = deps;
  let failures = 0;
  let idleSaid = '';
  while (!signal.aborted) {
    let waitMs: number;
    try {
      const answer = await checkIn(deps);
      failures = 0;
      if (answer.run) {
        idleSaid = '';
        const outcome = await runAttempt(deps, answer.run.run_index);
        if (outcome.kind === 'completed' || outcome.kind === 'cancelled') continue;
        if (outcome.kind === 'taken-over') log.warn(`run #${answer.run.run_index} is held by another agent: ${outcome.message}`);
      } else {
        const said = `waiting for a run (next scheduled: ${answer.scan.next_run_at ?? 'none'}; checking every ${answer.poll_seconds} s)`;
        if (said !== idleSaid) log.info(said);
        idleSaid = said;
      }
      // Jittered so that many agents restarted together do not check in in step.
      waitMs = answer.poll_seconds * 1000 * (0.8 + Math.random() * 0.4);
    } catch (error) {
      if (signal.aborted) break;
      if (!(error instanceof UnreachableError) && !(error instanceof ServiceError && (error.status === 409 || error.status === 429))) throw error;
      failures++;
      waitMs = Math.min(MAX_DAEMON_BACKOFF_MS, backoffMs(failures) * 4);
      log.warn(`${error.message}; checking in again in ${Math.round(waitMs / 1000)} s`);
    }
    await pause(waitMs, signal);
  }
  log.info('stopped: any scan in progress was abandoned, nothing was completed');
  return 0;
}

/** The message and exit code of what ends the agent. */
function reportFatal(log: AgentLog, error: unknown): number {
  if (error instanceof UntrustedTlsError) return refuse(log, error.message);
  if (error instanceof ServiceError && error.status === 401) {
    const hint = /download/i.test(error.message) ? '' : " (download the agent again from the scan's page)";
    return refuse(log, `the service refused this agent's credential: ${error.message}${hint}`);
  }
  if (error instanceof ServiceError && error.status === 404) return refuse(log, `the scan no longer exists (${error.message})`);
  if (error instanceof ServiceError) return refuse(log, `the service refused: ${error.message} (HTTP ${error.status})`);
  log.warn(`error: ${error instanceof Error ? error.message : String(error)}`);
  return 1;
}

function refuse(log: AgentLog, message: string): number {
  log.warn(message);
  return 2;
}
