/**
 * Rampart's web application scanner (DAST), the engine of ZAP scans on every deployment
 * (issue 16). A run scans each URL target in turn (scan-site.ts): log in when the scan has a
 * login script, crawl, then the passive checks on every response and the active checks on every
 * input, each proving what it reports. The scan's options (options.ts) bound pages, depth,
 * requests and time, and narrow the deployment's rate and concurrency.
 *
 * Abort: once `job.signal` aborts no further event is yielded and the iteration returns normally.
 */
import { EgressError } from '../../shared/egress.js';
import { streamEvents } from '../../shared/event-channel.js';
import { untilAborted } from '../../shared/until-aborted.js';
import { EngineError, type Engine, type EngineEvent, type EngineJob } from '../engine.js';
import { ALL_CHECKS } from './checks/index.js';
import type { LoginRunner, WebCheck, WebRule } from './contract.js';
import { ruleLookup, ruleOf } from './severity.js';
import { applyWebOptions, webOptionsSchema, type WebOptionCaps } from './options.js';
import { scanSite } from './scan-site.js';

/** The engine's name on runs and reports. */
export const WEB_ENGINE_NAME = 'rampart-web';
/** Version recorded on each run; bump it when what the engine finds changes. */
export const WEB_ENGINE_VERSION = '0.1.0';

const CHANNEL_CAPACITY = 64;

export interface WebEngineSettings {
  /** The deployment's limits, which bound the options a scan may set. */
  caps?: WebOptionCaps;
  /** Replays a scan's login script; without it, authenticated scans fail with a `config` error. */
  login?: LoginRunner;
  /** The checks (default: every check of checks/index.ts). */
  checks?: WebCheck[];
  /** The rules of `checks` when they are not those of checks/index.ts (tests). */
  rules?: WebRule[];
}

/** The web engine of a deployment. */
export function createWebEngine(settings: WebEngineSettings = {}): Engine {
  return {
    name: WEB_ENGINE_NAME,
    version: WEB_ENGINE_VERSION,
    optionsSchema: webOptionsSchema(settings.caps ?? { ratePerSecond: 0, maxConcurrency: 4096 }, (settings.checks ?? ALL_CHECKS).map((check) => check.id)),
    run: (job) => runJob(job, settings),
  };
}

async function* runJob(job: EngineJob, settings: WebEngineSettings): AsyncGenerator<EngineEvent, void, undefined> {
  const other = job.targets.find((target) => target.kind !== 'url');
  if (other) throw new EngineError('config', `ZAP scans take URL targets (http:// or https://); ${other.value} is a ${other.kind}.`);
  if (job.loginScript !== undefined && !settings.login) {
    throw new EngineError('config', 'Authenticated scans need the login script runner, and this deployment has none: run the scan without zap_authenticated, or install the login runner (python3-selenium, chromium, chromium-driver).');
  }
  const applied = applyWebOptions(job);
  const checks = (settings.checks ?? ALL_CHECKS).filter((check) => applied.runsCheck(check.id));
  yield { type: 'engine', name: WEB_ENGINE_NAME, version: WEB_ENGINE_VERSION, detail: `${checks.length} checks` };
  yield* streamEvents<EngineEvent>(
    job.signal,
    CHANNEL_CAPACITY,
    (stop, push) => produceEvents(job, settings, applied, checks, stop, push),
    (error) => (error instanceof EngineError ? error : new EngineError('internal', `The web scanner failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error })),
  );
}

async function produceEvents(
  job: EngineJob,
  settings: WebEngineSettings,
  applied: ReturnType<typeof applyWebOptions>,
  checks: WebCheck[],
  signal: AbortSignal,
  emit: (event: EngineEvent) => Promise<void>,
): Promise<void> {
  const budget = { remaining: applied.maxRequests, deadline: Date.now() + applied.maxDurationMs };
  const targets = job.targets.map((target) => target.value);
  let failed: EgressError | undefined;
  let scanned = 0;
  for (const [index, url] of targets.entries()) {
    if (signal.aborted) return;
    const hostname = new URL(url).hostname.replace(/^\[|\]$/g, '');
    try {
      const address = (await untilAborted(job.egress.resolve(hostname), signal))?.[0];
      if (address === undefined) return;
      const outcome = await scanSite({
        url,
        hostname,
        address,
        job,
        applied,
        checks,
        login: settings.login,
        rules: settings.rules ? ruleLookup(settings.rules) : ruleOf,
        budget,
        signal,
        emit,
        percent: (share) => Math.min(100, Math.floor((index * 100 + share) / targets.length)),
      });
      scanned++;
      for (const message of outcome.incomplete) await emit({ type: 'incomplete', message });
      await emit({ type: 'log', level: 'info', message: `${url}: ${outcome.requestsSent} requests sent.` });
    } catch (error) {
      if (!(error instanceof EgressError) || error.code === 'aborted') throw error;
      failed = error;
      await emit({ type: 'log', level: 'warn', message: `${url} was not scanned: ${error.message}` });
      await emit({ type: 'host', hostname, address: hostname, state: 'down' });
    }
  }
  if (scanned === 0 && failed && !signal.aborted) {
    const permanent = failed.code === 'refused' || failed.code === 'unresolvable' || failed.code === 'bad-url';
    throw new EngineError(permanent ? 'network-permanent' : 'network-temporary', `No target could be scanned: ${failed.message}`, { cause: failed });
  }
  await emit({ type: 'progress', percent: 100 });
}
