/**
 * Rampart's own network scanning engine: target expansion, a TCP connect port scan with per-host
 * adaptive timing, and, for every open port as it is found, the service stage (banner, service
 * detection, checks, known-vulnerability matching).
 *
 * Abort semantics: once `job.signal` aborts, no further event is yielded; in-flight sockets are
 * destroyed, and the iteration returns normally (it does not throw) as soon as the scan's
 * workers have let go of their sockets and timers. The orchestrator knows it aborted.
 */
import { EngineError, type Engine, type EngineEvent, type EngineJob, type EngineLimits } from '../engine.js';
import { streamEvents } from '../../shared/event-channel.js';
import { resolvePorts, type PortSet } from './ports.js';
import { scanPorts } from './scan.js';
import type { Check } from './checks/check.js';
import { DEFAULT_CHECKS, detectDefault } from './checks/registry.js';
import { ServiceStage, type DetectService } from './service-stage.js';
import { SocketBudget } from './budget.js';
import { TokenBucket } from './rate-limit.js';
import { planTargets, resolveWithSystemDns, type ResolveHost } from './targets.js';
import { applyOptions, rampartOptionsSchema, UNCAPPED, type OptionCaps } from './options.js';
import { withSeverityBasis } from './severity.js';

/** Version recorded on each run; bump it when what the engine finds changes. */
export const RAMPART_ENGINE_VERSION = '0.3.0';

/** Ports worked on at once by the service stage (each holds a connection for a while). */
const SERVICE_CONCURRENCY = 32;
/** The port scan reports progress up to here; the service stage the rest. */
const PORT_SCAN_SHARE = 90;

/** Seams for tests; production uses the defaults. */
export interface RampartEngineOptions {
  /** Host-name resolver (default: the system resolver, A and AAAA). */
  resolveHost?: ResolveHost;
  /** Service detection (default: every detector of services/). */
  detect?: DetectService;
  /** Checks run on each identified service (default: all of checks/registry.ts). */
  checks?: readonly Check[];
  /** Probe the default UDP services of each live host (default: yes). */
  udp?: boolean;
  /** The deployment's limits, which bound the options a scan may set (default: the widest). */
  caps?: OptionCaps;
  /**
   * The deployment allows checks that send a credential (`Check.attemptsLogin`: the MySQL
   * empty-password login), RAMPART_EMPTY_PASSWORD_LOGINS (default: yes). A scan may turn them off, never on.
   */
  emptyPasswordLogins?: boolean;
}

/** Events buffered between the scan and a slow consumer before the scan waits. */
const CHANNEL_CAPACITY = 64;

/** Node's timers overflow past this many milliseconds (and then fire at once). */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * The built-in network scanner. `run` validates the job on its first `next()`: a bad port list,
 * target or limit throws `EngineError('config')` before anything is sent; an unexpected failure
 * during the scan ends it with `EngineError('internal')`.
 */
export function createRampartEngine(options: RampartEngineOptions = {}): Engine {
  const stages: Stages = {
    resolveHost: options.resolveHost ?? resolveWithSystemDns,
    detect: options.detect ?? detectDefault,
    checks: options.checks ?? DEFAULT_CHECKS,
    udp: options.udp ?? true,
    emptyPasswordLogins: options.emptyPasswordLogins ?? true,
  };
  return {
    name: 'rampart',
    version: RAMPART_ENGINE_VERSION,
    optionsSchema: rampartOptionsSchema(options.caps ?? UNCAPPED),
    run: (job) => runJob(job, stages),
  };
}

interface Stages {
  resolveHost: ResolveHost;
  detect: DetectService;
  checks: readonly Check[];
  udp: boolean;
  emptyPasswordLogins: boolean;
}

async function* runJob(given: EngineJob, deployment: Stages): AsyncGenerator<EngineEvent, void, undefined> {
  // The scan's options over the deployment's settings, within its caps.
  const { emptyPasswordLogins, ...applied } = applyOptions(given);
  const job = { ...given, ...applied };
  // Credential-sending checks run only when both the deployment and the scan allow them.
  const loginsAllowed = deployment.emptyPasswordLogins && emptyPasswordLogins;
  const stages = loginsAllowed ? deployment : { ...deployment, checks: deployment.checks.filter((check) => !check.attemptsLogin) };
  const ports = resolvePorts(job.ports);
  validateLimits(job.limits);
  if (job.signal.aborted) return;
  yield { type: 'engine', name: 'rampart', version: RAMPART_ENGINE_VERSION };

  yield* streamEvents<EngineEvent>(job.signal, CHANNEL_CAPACITY, (stop, push) => produceEvents(job, ports, stages, stop, push), toEngineError);
}

async function produceEvents(
  job: EngineJob,
  ports: PortSet,
  stages: Stages,
  signal: AbortSignal,
  emit: (event: EngineEvent) => Promise<void>,
): Promise<void> {
  const plan = await planTargets(job.targets, { resolveHost: stages.resolveHost, timeoutMs: job.limits.connectTimeoutMs, signal });
  if (signal.aborted) return;
  for (const { hostname, reason } of plan.unresolved) {
    await emit({ type: 'log', level: 'warn', message: `Could not resolve ${hostname} (${reason}); reported down.` });
    // A name that gave no address is reported under its name: the glossary's host is "an address (or name)".
    await emit({ type: 'host', hostname, address: hostname, state: 'down' });
  }
  if (!job.vulnerabilities) {
    await emit({ type: 'log', level: 'warn', message: 'No vulnerability database is synced, so software versions were not matched to known CVEs. Run `rampart vulndb sync`.' });
  }
  const budget = new SocketBudget(job.limits.maxConcurrency);
  // One rate limit for every packet-sending stage of the job.
  const bucket = job.limits.ratePerSecond > 0 ? new TokenBucket(job.limits.ratePerSecond) : undefined;
  const services = new ServiceStage({
    budget,
    egress: job.egress,
    limits: job.limits,
    signal,
    // Every finding says what its threat rests on (a CVSS vector or the severity table's row).
    emit: (event) => emit(event.type === 'finding' ? { ...event, finding: withSeverityBasis(event.finding) } : event),
    detect: stages.detect,
    checks: stages.checks,
    vulnerabilities: job.vulnerabilities,
    concurrency: Math.min(SERVICE_CONCURRENCY, job.limits.maxConcurrency),
    udp: stages.udp,
    bucket,
  });
  let lastPercent = 0;
  const progress = async (percent: number) => {
    if (percent <= lastPercent) return;
    lastPercent = percent;
    await emit({ type: 'progress', percent });
  };
  await scanPorts({
    groups: plan.groups,
    ports,
    egress: job.egress,
    limits: job.limits,
    signal,
    progressCeiling: PORT_SCAN_SHARE,
    budget,
    bucket,
    emit: (event) => (event.type === 'progress' ? progress(event.percent) : emit(event)),
    onOpenPort: (host, port) => services.add(host, port),
    onHostDone: async (host, up) => {
      if (up) await services.addUdp(host);
    },
  });
  // The rest of the progress follows the service stage as it drains.
  const ticker = setInterval(() => {
    const { added, done } = services.counts;
    if (added > 0) void progress(PORT_SCAN_SHARE + Math.floor(((99 - PORT_SCAN_SHARE) * done) / added));
  }, 250);
  try {
    await services.drain();
  } finally {
    clearInterval(ticker);
  }
  if (signal.aborted) return;
  await emit({ type: 'progress', percent: 100 });
}

function validateLimits(limits: EngineLimits): void {
  const check = (ok: boolean, message: string): void => {
    if (!ok) throw new EngineError('config', message);
  };
  const isMs = (value: number, min: number): boolean => Number.isInteger(value) && value >= min && value <= MAX_TIMER_MS;
  check(isMs(limits.connectTimeoutMs, 1), `connectTimeoutMs must be an integer from 1 to ${MAX_TIMER_MS}.`);
  check(isMs(limits.readTimeoutMs, 0), `readTimeoutMs must be an integer from 0 to ${MAX_TIMER_MS}.`);
  check(Number.isInteger(limits.maxConcurrency) && limits.maxConcurrency >= 1, 'maxConcurrency must be an integer of at least 1.');
  check(Number.isFinite(limits.ratePerSecond) && limits.ratePerSecond >= 0, 'ratePerSecond must be 0 (no limit) or more.');
}

function toEngineError(error: unknown): EngineError {
  if (error instanceof EngineError) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new EngineError('internal', `The Rampart scan failed: ${message}`, { cause: error });
}
