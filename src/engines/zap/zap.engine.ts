/**
 * ZAP scans run by an OWASP ZAP daemon the deployment provides (RAMPART_ZAP_MODE=daemon): a
 * driver over ZAP's API, not a scanner. A run:
 * 1. asks the daemon's version (`core/view/version`) and says what runs: `zap 2.17.0 via daemon <url>`;
 *    a daemon that does not answer, or refuses the key, fails the run at once (`config`);
 * 2. per URL target: checks it against the address guard first (ZAP connects by itself and knows
 *    nothing of the guard), then makes a context of its own (`rampart-<uuid>`) holding the
 *    target's scope, deletes the alerts ZAP still holds there from earlier scans, logs in when the
 *    scan has a login script and injects the session with replacer rules (zap-session.ts),
 *    spiders (and AJAX-spiders when asked), waits for the passive scanner's queue to drain, runs
 *    the active scan on the context, and reads the alerts under the target in pages until an
 *    empty page (zap-alerts.ts maps them like the report importer), each with the request and
 *    response it was raised on (`core/view/message`, bounded per run);
 * 3. always removes what it added (rules, context); stops the scans still running when the job
 *    aborts (then ends without an error) or when the time limit strikes (then reports the alerts
 *    found so far and says the run is incomplete).
 */
import { randomUUID } from 'node:crypto';
import type { Engine, EngineEvent, EngineJob } from '../engine.js';
import { EngineError } from '../engine.js';
import { AlertCollector, readAlerts } from './zap-alerts.js';
import { cleanUp, stopScans, type Running } from './zap-cleanup.js';
import { createZapApi, integerOf, scalarOf, ZapApiError, type ZapApi, type ZapParam } from './zap-api.js';
import { ZapOptionsSchema, type ZapOptions } from './zap-options.js';
import { assertTargetAllowed, scopePrefix, scopeRegexes } from './zap-scope.js';
import { injectSession, type ZapLogin } from './zap-session.js';

export type { ZapLogin, ZapLoginSession } from './zap-session.js';

/** What the registry gives the driver. */
export interface ZapEngineSettings {
  /** The daemon's API, `http://127.0.0.1:8080` (RAMPART_ZAP_URL). */
  url: string;
  /** RAMPART_ZAP_API_KEY. */
  apiKey: string;
  /** Run the AJAX spider unless a scan says otherwise (default no). */
  ajaxSpider?: boolean;
  /** Between two status polls (default 2 s). */
  pollMs?: number;
  /** Time limit of a whole run (default 2 h; a scan's `max_duration_minutes` may lower it). */
  timeoutMs?: number;
  /** Bound on one API call (default 30 s). */
  callTimeoutMs?: number;
  /** Alerts read per page (default 5000, ZAP's documented page). */
  alertsPageSize?: number;
  /** Replays a scan's login script; without it, authenticated scans are refused. */
  login?: ZapLogin;
}

const DEFAULT_POLL_MS = 2000;
const DEFAULT_TIMEOUT_MS = 2 * 60 * 60 * 1000;
/** Share of one target's progress each phase ends at, in percent. */
const PHASE_END = { spider: 30, ajax: 40, passive: 45, active: 95 } as const;

/** The Engine running ZAP scans with a ZAP daemon. */
export function createZapEngine(settings: ZapEngineSettings): Engine {
  const api = createZapApi({ url: settings.url, apiKey: settings.apiKey, ...(settings.callTimeoutMs ? { callTimeoutMs: settings.callTimeoutMs } : {}) });
  return { name: 'zap', version: 'daemon', optionsSchema: ZapOptionsSchema, run: (job) => runZap(api, settings, job) };
}

async function* runZap(api: ZapApi, settings: ZapEngineSettings, job: EngineJob): AsyncGenerator<EngineEvent> {
  if (job.signal.aborted) return;
  const options = (job.options ?? {}) as ZapOptions;
  const targets = job.targets.map((target) => {
    if (target.kind !== 'url') throw new EngineError('config', `ZAP scans take http(s) URLs; "${target.value}" is not one.`);
    return target.value;
  });
  if (job.loginScript && !settings.login) throw new EngineError('config', "This deployment's ZAP driver cannot replay login scripts: authenticated ZAP scans are not available with RAMPART_ZAP_MODE=daemon here.");
  const limitMs = Math.min(settings.timeoutMs ?? DEFAULT_TIMEOUT_MS, (options.max_duration_minutes ?? Infinity) * 60_000);
  const deadline = AbortSignal.timeout(limitMs);
  const run: RunState = {
    api,
    job,
    signal: AbortSignal.any([job.signal, deadline]),
    deadline,
    pollMs: settings.pollMs ?? DEFAULT_POLL_MS,
    ajaxSpider: options.ajax_spider ?? settings.ajaxSpider ?? false,
    limitMinutes: Math.max(1, Math.floor(limitMs / 60_000)),
  };
  try {
    const version = scalarOf(await api.call('core/view/version', {}, job.signal), 'version');
    yield { type: 'engine', name: 'zap', version, detail: `via daemon ${api.url}` };
    const collector = new AlertCollector();
    const hosts = new Set<string>();
    for (const [index, target] of targets.entries()) {
      if (run.deadline.aborted) {
        yield { type: 'incomplete', message: `The ZAP scan reached its time limit (${run.limitMinutes} min) before ${targets.slice(index).join(', ')}: not scanned.` };
        break;
      }
      if (!(await assertTargetAllowed(job, target))) return;
      const scale = (percent: number): number => Math.floor((100 * index + percent) / targets.length);
      for await (const event of scanTarget(run, settings, target, collector)) {
        if (event.type === 'progress') yield { ...event, percent: scale(event.percent) };
        else if (event.type === 'finding') {
          if (!hosts.has(event.finding.hostname)) {
            hosts.add(event.finding.hostname);
            yield { type: 'host', hostname: event.finding.hostname, address: event.finding.hostIp, state: 'up' };
          }
          yield event;
        } else yield event;
      }
      if (job.signal.aborted) return;
      yield { type: 'progress', percent: scale(100) };
    }
    if (collector.falsePositives > 0) yield { type: 'log', level: 'info', message: `${collector.falsePositives} alert(s) marked false positive in ZAP were not reported.` };
  } catch (error) {
    // A call cut short by the job's abort is the abort, not a failure.
    if (job.signal.aborted) return;
    throw error;
  }
}

/** What the phases of one run share. */
interface RunState {
  api: ZapApi;
  job: EngineJob;
  /** Aborts on the job's abort or at the time limit. */
  signal: AbortSignal;
  deadline: AbortSignal;
  pollMs: number;
  ajaxSpider: boolean;
  limitMinutes: number;
}

/** One call of the run's API, bounded by the run's signal. */
type Call = (path: Parameters<ZapApi['call']>[0], params?: Record<string, ZapParam>) => Promise<Record<string, unknown>>;

async function* scanTarget(run: RunState, settings: ZapEngineSettings, target: string, collector: AlertCollector): AsyncGenerator<EngineEvent> {
  const call: Call = (path, params = {}) => run.api.call(path, params, run.signal);
  const context = { name: `rampart-${randomUUID()}`, made: false };
  const rules: string[] = [];
  const running: Running = {};
  const scan: TargetScan = { call, target, context, rules, running, collector, alertsFresh: false };
  try {
    try {
      yield* scanPhases(run, settings, scan);
    } catch (error) {
      // A call cut short by the abort or the time limit is that, not a failure.
      if (!run.signal.aborted) throw error;
    }
    if (run.signal.aborted) yield* cutShort(run, scan);
  } finally {
    await cleanUp(run.api, context.made ? context.name : undefined, rules, running);
  }
}

interface TargetScan {
  call: Call;
  target: string;
  context: { name: string; made: boolean };
  /** Descriptions of the replacer rules added (removed at the end). */
  rules: string[];
  running: Running;
  collector: AlertCollector;
  /** The alerts ZAP holds under the target are this run's (earlier ones deleted, or not deletable). */
  alertsFresh: boolean;
}

/** The phases of one target; returns early once the run's signal aborts. */
async function* scanPhases(run: RunState, settings: ZapEngineSettings, scan: TargetScan): AsyncGenerator<EngineEvent> {
  const { call, target, running, context } = scan;
  const contextName = context.name;
  const contextId = scalarOf(await call('context/action/newContext', { contextName }), 'contextId');
  context.made = true;
  for (const regex of scopeRegexes(target)) await call('context/action/includeInContext', { contextName, regex });
  const forgotten = await forgetEarlierAlerts(call, target);
  scan.alertsFresh = true;
  if (forgotten) yield forgotten;
  if (run.job.loginScript && settings.login) {
    const session = await settings.login({ script: run.job.loginScript, startUrl: target, signal: run.signal, egress: run.job.egress });
    if (run.signal.aborted) return;
    await injectSession(run.api, { target, ruleName: contextName, session, signal: run.signal }, scan.rules);
  }

  running.spider = scalarOf(await call('spider/action/scan', { url: target, contextName, recurse: true, subtreeOnly: true }), 'scan');
  yield* poll(run, [0, PHASE_END.spider], 'spider', async () => integerOf(await call('spider/view/status', { scanId: running.spider }), 'status'));
  if (run.signal.aborted) return;
  delete running.spider;

  if (run.ajaxSpider) {
    const started = await startAjaxSpider(run, call, target, contextName);
    yield started;
    if (started.type === 'progress') {
      running.ajax = true;
      yield* poll(run, [PHASE_END.spider, PHASE_END.ajax], 'AJAX spider', async () => (scalarOf(await call('ajaxSpider/view/status'), 'status') === 'stopped' ? 100 : 0));
      if (run.signal.aborted) return;
      delete running.ajax;
    }
  }

  yield* poll(run, [PHASE_END.ajax, PHASE_END.passive], 'passive scan', async () => (integerOf(await call('pscan/view/recordsToScan'), 'recordsToScan') === 0 ? 100 : 0));
  if (run.signal.aborted) return;

  running.ascan = scalarOf(await startActiveScan(call, target, contextId), 'scan');
  yield* poll(run, [PHASE_END.passive, PHASE_END.active], 'active scan', async () => integerOf(await call('ascan/view/status', { scanId: running.ascan }), 'status'));
  if (run.signal.aborted) return;
  delete running.ascan;

  yield* readAlerts(run.api, target, scan.collector, run.signal, settings.alertsPageSize);
}

/**
 * Deletes the alerts ZAP holds under the target's scope (`alert/action/deleteAlerts`, ZAP 2.14+),
 * so the run reports what this scan found: a weakness fixed since an earlier scan of the site must
 * not come back from ZAP's memory. An older daemon keeps them: a warning says so.
 */
async function forgetEarlierAlerts(call: Call, target: string): Promise<EngineEvent | undefined> {
  try {
    await call('alert/action/deleteAlerts', { baseurl: scopePrefix(target) });
    return undefined;
  } catch (error) {
    if (!(error instanceof ZapApiError && error.code === 'bad_action')) throw error;
    return { type: 'incomplete', message: `This ZAP daemon (older than 2.14) cannot delete the alerts of earlier scans of ${target}: alerts found before this run may be reported again.` };
  }
}

function startActiveScan(call: Call, target: string, contextId: string): Promise<Record<string, unknown>> {
  return call('ascan/action/scan', { url: target, recurse: true, inScopeOnly: true, contextId }).catch((error: unknown) => {
    if (error instanceof ZapApiError && error.code === 'url_not_found') {
      throw new EngineError('network-temporary', `ZAP holds no response from ${target} (its spider reached nothing there): the target did not answer ZAP.`, { cause: error });
    }
    throw error;
  });
}

/**
 * Starts the AJAX spider, bounded by the run's time limit: a progress event when it started, a
 * warning when another run holds it (ZAP runs one AJAX spider at a time).
 */
async function startAjaxSpider(run: RunState, call: Call, target: string, contextName: string): Promise<EngineEvent> {
  await call('ajaxSpider/action/setOptionMaxDuration', { Integer: run.limitMinutes });
  try {
    await call('ajaxSpider/action/scan', { url: target, inScope: true, contextName, subtreeOnly: true });
    return { type: 'progress', percent: PHASE_END.spider, detail: 'AJAX spider started' };
  } catch (error) {
    if (error instanceof ZapApiError && error.code === 'scan_in_progress') {
      return { type: 'log', level: 'warn', message: "ZAP's AJAX spider was busy with another scan: this run crawled with the traditional spider only." };
    }
    throw error;
  }
}

/**
 * Polls `percentOf` (0-100) until 100 or the run's signal aborts, yielding progress within the
 * phase's share `[from, to]`. A stopped ZAP scan also reports 100: callers check the signal after
 * each phase rather than trusting the 100.
 */
async function* poll(run: RunState, [from, to]: [number, number], phase: string, percentOf: () => Promise<number>): AsyncGenerator<EngineEvent> {
  let last = -1;
  for (;;) {
    const percent = Math.min(100, Math.max(0, await percentOf()));
    if (percent !== last) {
      last = percent;
      yield { type: 'progress', percent: Math.floor(from + ((to - from) * percent) / 100), detail: `${phase} ${percent}%` };
    }
    if (percent >= 100 || run.signal.aborted) return;
    await sleep(run.pollMs, run.signal);
    if (run.signal.aborted) return;
  }
}

/**
 * The run was cut short: on the job's abort, nothing more (the caller's finally stops the scans);
 * at the time limit, the scans are stopped, the alerts this scan found until then reported, and
 * the run incomplete.
 */
async function* cutShort(run: RunState, scan: TargetScan): AsyncGenerator<EngineEvent> {
  if (run.job.signal.aborted || !run.deadline.aborted) return;
  await stopScans(run.api, scan.running);
  yield { type: 'incomplete', message: `The ZAP scan of ${scan.target} reached its time limit (${run.limitMinutes} min) and was stopped: the alerts found until then are reported.` };
  if (scan.alertsFresh) yield* readAlerts(run.api, scan.target, scan.collector, run.job.signal);
}

/** Waits `ms`, or less when the signal aborts. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = (): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}
