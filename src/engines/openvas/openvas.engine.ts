/**
 * OpenVas scans run by a Greenbone gvmd the deployment provides: a driver over GMP, not a
 * scanner. A run (../shared/reference/engines.md section 2):
 * 1. checks the targets against the address guard (gmp-targets.ts: a name becomes its checked
 *    addresses, every one of them allowed), connects (gmp-connection.ts),
 *    asks gvmd's version and says what runs: `openvas <gvmd version> via gvmd <socket or host:port>`;
 * 2. authenticates, finds the scan config, port list and scanner, creates a target and a task of
 *    its own, starts the task and polls it into progress events;
 * 3. when the task is Done, reads its report with details and hands it, as it streams in, to the
 *    OpenVAS report importer of `rampart import` (one parser for both), the NVT OID becoming the
 *    rule id `openvas:<oid>`, and each address shown under the target that gave it (a name's
 *    address under the name);
 * 4. always removes the task and target (gmp-cleanup.ts): after the report, or when the run failed,
 *    was cancelled (the task is stopped first; the run then ends without an error) or ran out of
 *    time. A task that ends Stopped or Interrupted fails the run with what gvmd said.
 * It takes a plain settings object and no service configuration, so the local agent can run it
 * against a gvmd of its own.
 */
import type { Engine, EngineEvent, EngineJob, Finding } from '../engine.js';
import { EngineError } from '../engine.js';
import { importOpenvasXml } from '../importers/openvas.importer.js';
import { endpointLabel, GmpConnection, type GmpEndpoint } from './gmp-connection.js';
import { cleanUp, type CleanupSettings } from './gmp-cleanup.js';
import { authenticate } from './gmp-session.js';
import { statusError } from './gmp-errors.js';
import { gmpTargets, type GmpTargets } from './gmp-targets.js';
import { createTask, lookUpResources, reportCommand, startTask, taskState, TERMINAL_STATUSES, type Created } from './gmp-task.js';
import { isSuccess, statusOf } from './gmp-xml.js';

/** Where gvmd is and how to use it (the service builds it from RAMPART_GVMD_*; the local agent from its flags). */
export interface GvmdSettings extends GmpEndpoint {
  username: string;
  password: string;
  /** Scan config, by name or UUID (default on the service: "Full and fast"). */
  scanConfig: string;
  /** Port list, by name or UUID (default on the service: "All IANA assigned TCP"). */
  portList: string;
  /** Between two polls of the task (default 5 s). */
  pollMs?: number;
  /** Time limit of a whole run (default 24 h): the task is then stopped and the run fails with `deadline`. */
  timeoutMs?: number;
  /** Time limit of the cleanup (default 60 s). */
  cleanupTimeoutMs?: number;
}

export const DEFAULT_SCAN_CONFIG = 'Full and fast';
export const DEFAULT_PORT_LIST = 'All IANA assigned TCP';
const DEFAULT_POLL_MS = 5000;
const DEFAULT_TIMEOUT_MS = 24 * 60 * 60 * 1000;

/** The Engine running OpenVas scans on a gvmd. */
export function createOpenvasEngine(settings: GvmdSettings): Engine {
  return { name: 'openvas', version: 'gvmd', run: (job) => runOpenvas(settings, job) };
}

/** Resolves after `ms`, or at once when `signal` aborts. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

async function* runOpenvas(settings: GvmdSettings, job: EngineJob): AsyncGenerator<EngineEvent> {
  if (job.signal.aborted) return;
  const targets = await gmpTargets(job);
  const cleanup: CleanupSettings = { ...settings, pollMs: settings.pollMs ?? DEFAULT_POLL_MS };
  const created: Created = { running: false };
  let conn: GmpConnection | null = null;
  let cleaned = false;
  try {
    conn = await GmpConnection.open(settings);
    yield { type: 'engine', name: 'openvas', version: await conn.version(), detail: `via gvmd ${endpointLabel(settings)}` };
    await authenticate(conn, settings);
    const ids = await lookUpResources(conn, settings);
    await createTask(conn, targets.hosts, ids, created);
    if (job.signal.aborted) return;
    await startTask(conn, created);
    yield { type: 'progress', percent: 0, detail: 'OpenVAS task started' };
    const state = yield* follow(conn, settings, job, created);
    if (!state) return;
    yield* readReport(conn, created.reportId ?? state.reportId, targets, job.signal);
    const problem = await cleanUp(cleanup, created, conn);
    cleaned = true;
    if (problem) yield { type: 'log', level: 'warn', message: problem };
  } catch (error) {
    // The run's own error stays the error; what the cleanup left behind is added to it.
    const problem = cleaned ? null : await cleanUp(cleanup, created, conn);
    cleaned = true;
    if (problem && error instanceof EngineError) throw new EngineError(error.kind, `${error.message} ${problem}`, { cause: error });
    throw error;
  } finally {
    // A cancelled or abandoned run: the task and target go all the same.
    if (!cleaned) await cleanUp(cleanup, created, conn);
    conn?.close();
  }
}

/**
 * Polls the task until it ends, yielding its progress. Returns its last state when Done, null
 * when the job was cancelled; throws for Stopped, Interrupted and the time limit.
 */
async function* follow(conn: GmpConnection, settings: GvmdSettings, job: EngineJob, created: Created) {
  const limitMs = settings.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const deadline = AbortSignal.timeout(limitMs);
  const wake = AbortSignal.any([job.signal, deadline]);
  let shown = 0;
  for (;;) {
    const state = await taskState(conn, created.taskId!);
    if (TERMINAL_STATUSES.has(state.status)) {
      created.running = false;
      if (state.status === 'Done') return state;
      throw new EngineError(
        'config',
        state.status === 'Stopped'
          ? `The OpenVAS task ended Stopped: it was stopped outside Rampart (in gvmd or its web interface), at ${state.progress}%.`
          : `The OpenVAS task ended Interrupted at ${state.progress}%: the scanner (ospd-openvas) broke it off; its log says why.`,
      );
    }
    const percent = Math.min(99, state.progress);
    if (percent > shown) {
      shown = percent;
      yield { type: 'progress', percent, detail: `OpenVAS task ${state.status}` } satisfies EngineEvent;
    }
    await pause(settings.pollMs ?? DEFAULT_POLL_MS, wake);
    if (job.signal.aborted) return null;
    if (deadline.aborted) throw new EngineError('deadline', `The OpenVAS task did not finish within ${Math.round(limitMs / 60_000)} min; it was stopped.`);
  }
}

/** The finished task's report, parsed by the OpenVAS importer as it arrives (until the job aborts). */
async function* readReport(conn: GmpConnection, reportId: string | undefined, targets: GmpTargets, signal: AbortSignal): AsyncGenerator<EngineEvent> {
  if (!reportId) throw new EngineError('internal', 'gvmd named no report for the finished task.');
  const reply = conn.stream(reportCommand(reportId));
  const status = statusOf((await reply.head).attrs);
  if (!isSuccess(status)) {
    for await (const _ of reply.chunks) void _;
    throw statusError('get_reports', status, conn.label);
  }
  const report = await importOpenvasXml(reply.chunks);
  for await (const event of report.events) {
    // Cancelled while a large report streams in: the rest is read off the socket and dropped.
    if (signal.aborted) return;
    yield underTarget(event, targets);
  }
  yield { type: 'progress', percent: 99, detail: 'OpenVAS report read' };
}

/**
 * A report event as the run's: gvmd scanned addresses only, so each host is named as its target
 * gave it (the name it was resolved from, else the address; not gvmd's reverse look-up, which
 * may differ from run to run and would change the findings' identity), and rule ids name their
 * source, `openvas:<oid>` (DESIGN.md "Vulnerability").
 */
function underTarget(event: EngineEvent, targets: GmpTargets): EngineEvent {
  if (event.type === 'host') return { ...event, hostname: targets.labelOf(event.address) };
  if (event.type !== 'finding') return event;
  const finding: Finding = { ...event.finding, hostname: targets.labelOf(event.finding.hostIp) };
  if (!finding.ruleId.startsWith('openvas:')) finding.ruleId = `openvas:${finding.ruleId}`;
  return { type: 'finding', finding };
}
