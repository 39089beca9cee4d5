/**
 * One attempt at one run: take it, scan the scan's targets with the engine, stream progress by
 * heartbeat and events by chunk, then complete (re-sending the chunks the service lacks). The
 * attempt ends early, without completing, when the lease is lost (another agent took the run, the
 * run was cancelled) or the agent is told to stop; a retake starts over, and the service drops
 * what an earlier attempt uploaded, so nothing is counted twice.
 */
import { hostname } from 'node:os';
import { AGENT_PATHS, wireEvent, type AgentSelf, type TakeResponse } from '../shared/agent-protocol.js';
import { createEgress } from '../shared/egress.js';
import { EngineError, type Engine, type EngineIdentity, type EngineJob, type JobTarget, type KnownVulnerability, type VulnerabilityLookup } from '../engines/engine.js';
import { ChunkUploader } from './chunk-uploader.js';
import { ServiceError, UnreachableError, type AgentClient } from './http-client.js';
import { LeaseKeeper, type LeaseLoss } from './lease-keeper.js';
import { createTargetGuard, type TargetGuard } from './target-guard.js';
import type { AgentLog } from './agent-log.js';

/** What runs the scan on this machine: Rampart's engine, or a local gvmd's OpenVAS. */
export interface AgentScanner {
  create(guard: TargetGuard, take: TakeResponse): Engine;
  /** The run's engine, as `complete` reports it, given what the engine said it is (if it did). */
  identity(engine: EngineIdentity | undefined): EngineIdentity;
}

export interface AttemptDeps {
  client: AgentClient;
  self: AgentSelf;
  scanner: AgentScanner;
  log: AgentLog;
  /** The agent's own stop (SIGINT/SIGTERM). */
  signal: AbortSignal;
}

export type AttemptOutcome =
  | { kind: 'completed'; runIndex: number; findings: number; succeeded: boolean }
  | { kind: 'taken-over'; message: string }
  | { kind: 'cancelled' }
  | { kind: 'stopped' };

/** How many times `complete` may name missing chunks before the attempt gives up. */
const COMPLETE_ROUNDS = 5;

export async function runAttempt(deps: AttemptDeps, runIndex: number): Promise<AttemptOutcome> {
  const { client, log } = deps;
  let take: TakeResponse;
  try {
    take = await client.call<TakeResponse>('POST', AGENT_PATHS.take(runIndex), deps.self);
  } catch (error) {
    if (error instanceof ServiceError && error.status === 409) return { kind: 'taken-over', message: error.message };
    throw error;
  }
  log.info(`took run #${runIndex} (lease of ${take.lease_seconds} s); targets: ${take.job.targets.map((t) => t.value).join(', ')}`);

  const scanStop = new AbortController();
  const onAgentStop = () => scanStop.abort();
  deps.signal.addEventListener('abort', onAgentStop, { once: true });
  const keeper = new LeaseKeeper(client, runIndex, take.lease, log, () => scanStop.abort());
  const uploader = new ChunkUploader({
    client,
    runIndex,
    lease: take.lease,
    onSent: (seq, events) => log.info(`chunk ${seq} uploaded (${events} events)`),
  });
  keeper.start(take.lease_seconds);
  try {
    const scan = await scanAndUpload(deps, take, keeper, uploader, scanStop.signal);
    const lost = stoppedOutcome(keeper.loss, deps.signal);
    if (lost) return lost;
    const chunks = await uploader.finish();
    const { engine, ...result } = scan;
    const body = { lease: take.lease, chunks, engine: deps.scanner.identity(engine), ...result };
    const completed = await completeRun(client, runIndex, body, uploader);
    log.info(`run #${completed.run_index} ${scan.outcome === 'succeeded' ? 'completed' : 'failed'}: ${completed.findings} findings recorded${scan.complete ? '' : ' (incomplete: the scan may have missed something)'}`);
    return { kind: 'completed', runIndex: completed.run_index, findings: completed.findings, succeeded: scan.outcome === 'succeeded' };
  } catch (error) {
    if (error instanceof ServiceError && error.status === 409) return { kind: 'taken-over', message: error.message };
    const lost = stoppedOutcome(keeper.loss, deps.signal);
    if (lost) return lost;
    throw error;
  } finally {
    // Whatever ended the attempt, the scan stops with it.
    scanStop.abort();
    keeper.stop();
    uploader.abandon();
    deps.signal.removeEventListener('abort', onAgentStop);
  }
}

interface ScanResult {
  outcome: 'succeeded' | 'failed';
  complete: boolean;
  error?: string;
  error_kind?: EngineError['kind'];
  /** What the engine said it is, when it said so. */
  engine?: EngineIdentity;
}

async function scanAndUpload(deps: AttemptDeps, take: TakeResponse, keeper: LeaseKeeper, uploader: ChunkUploader, signal: AbortSignal): Promise<ScanResult> {
  const guard = await createTargetGuard(take.job.targets);
  const job: EngineJob = {
    targets: take.job.targets as JobTarget[],
    ports: take.job.ports,
    limits: take.job.limits,
    options: take.job.options,
    guard,
    egress: createEgress({ guard, connectTimeoutMs: take.job.limits.connectTimeoutMs }),
    signal,
    ...(take.vulndb_synced_at ? { vulnerabilities: remoteLookup(deps.client, take) } : {}),
  };
  let complete = true;
  let engine: EngineIdentity | undefined;
  try {
    for await (const event of deps.scanner.create(guard, take).run(job)) {
      if (signal.aborted) break;
      if (event.type === 'progress') keeper.progress(event.percent, event.detail);
      else if (event.type === 'engine') {
        engine = { name: event.name, version: event.version, ...(event.detail ? { detail: event.detail } : {}) };
        deps.log.info(`engine: ${[event.name, event.version, event.detail].filter(Boolean).join(' ')}`);
      }
      else {
        if (event.type === 'incomplete') complete = false;
        if (event.type === 'finding') deps.log.info(`finding: ${event.finding.name} on ${event.finding.hostIp}${event.finding.port === null ? '' : `:${event.finding.port}`}`);
        await uploader.add(wireEvent(event));
      }
    }
  } catch (error) {
    // The service's answers and an upload that could not get through are not the scan's failure.
    if (signal.aborted || error instanceof ServiceError || error instanceof UnreachableError) throw error;
    const kind = error instanceof EngineError ? error.kind : 'internal';
    const message = error instanceof Error ? error.message : String(error);
    deps.log.warn(`the scan failed (${kind}): ${message}`);
    return { outcome: 'failed', complete: false, error: message.slice(0, 2000), error_kind: kind, ...(engine ? { engine } : {}) };
  }
  return { outcome: 'succeeded', complete, ...(engine ? { engine } : {}) };
}

/** The engine's known-vulnerability look-ups, answered by the service's database. */
function remoteLookup(client: AgentClient, take: TakeResponse): VulnerabilityLookup {
  return {
    syncedAt: new Date(take.vulndb_synced_at ?? 0),
    async forCpe(cpe, context) {
      const body = { lease: take.lease, cpe, ...(context ? { context } : {}) };
      const answer = await client.call<{ vulnerabilities?: KnownVulnerability[] }>('POST', AGENT_PATHS.lookup(take.run_index), body);
      return answer.vulnerabilities ?? [];
    },
  };
}

/** Completes the attempt; a 409 naming missing chunks has them sent again, any other 409 means the lease is gone. */
async function completeRun(client: AgentClient, runIndex: number, body: Record<string, unknown>, uploader: ChunkUploader): Promise<{ run_index: number; findings: number }> {
  for (let round = 1; ; round++) {
    try {
      return await client.call<{ run_index: number; findings: number }>('POST', AGENT_PATHS.complete(runIndex), body);
    } catch (error) {
      const missing = error instanceof ServiceError && error.status === 409 ? error.body.missing : undefined;
      if (!Array.isArray(missing) || round >= COMPLETE_ROUNDS) throw error;
      await uploader.resend(missing as number[]);
    }
  }
}

function stoppedOutcome(loss: LeaseLoss | undefined, agentSignal: AbortSignal): AttemptOutcome | undefined {
  if (loss?.kind === 'refused') throw loss.error;
  if (loss?.kind === 'taken-over') return { kind: 'taken-over', message: loss.message };
  if (loss?.kind === 'cancelled') return { kind: 'cancelled' };
  return agentSignal.aborted ? { kind: 'stopped' } : undefined;
}

/** Rampart's engine identity as this agent reports it. */
export function agentIdentity(version: string): EngineIdentity {
  return { name: 'rampart agent', version, detail: `on ${hostname()}` };
}
