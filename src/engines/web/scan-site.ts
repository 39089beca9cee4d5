/**
 * One target of a web scan: the client (every response through the passive checks), the login
 * when the scan has a script, the crawl, then the active checks: `testInput` on each input of
 * each endpoint, `testEndpoint` on each endpoint (in a pool bounded by the scan's concurrency),
 * then `testSite` once per check. Findings go through the de-duplicating sink as events.
 */
import { randomBytes } from 'node:crypto';
import { EgressError } from '../../shared/egress.js';
import { runPool } from '../../shared/pool.js';
import type { EngineEvent, EngineJob } from '../engine.js';
import { BudgetExhausted, OutOfScope, type CheckContext, type Endpoint, type InputPoint, type LoginRunner, type SiteMap, type WebCheck, type WebResponse, type WebRule } from './contract.js';
import { crawl, type CrawlOutcome } from './crawl/crawl.js';
import { createSessionKeeper, showsLostSession } from './crawl/session.js';
import { createFindingSink } from './findings.js';
import { createWebClient } from './http/client.js';
import { SharedExclusiveLock } from './checks/shared-exclusive-lock.js';
import { inputsOf, isTextInput } from './inputs.js';
import type { AppliedWebOptions } from './options.js';

/** The outside host open-redirect probes name (reserved `.example`, never resolved nor contacted). */
export const CANARY_HOST = 'rampart-redirect-check.example';
/** A lost session is restored at most this often. */
const RELOGIN_INTERVAL_MS = 60_000;
/** Check failures (bugs) named one by one in the log; the rest are counted. */
const FAILURES_LOGGED = 5;

/** Progress shares: the crawl, then the per-input and per-endpoint tests, then the site tests. */
const CRAWL_END = 30;
const INPUTS_END = 90;

export interface SiteScan {
  url: string;
  hostname: string;
  address: string;
  job: EngineJob;
  applied: AppliedWebOptions;
  /** The checks this run uses (the scan's `checks` / `exclude_checks` applied). */
  checks: WebCheck[];
  login: LoginRunner | undefined;
  /** Finds a finding's rule (severity.ts `ruleOf`). */
  rules: (ruleId: string) => WebRule;
  /** Requests still allowed and the scan's end (shared by its targets). */
  budget: { remaining: number; deadline: number };
  signal: AbortSignal;
  emit(event: EngineEvent): Promise<void>;
  /** Maps the progress of this site (0-100) into the run's. */
  percent(share: number): number;
}

export interface SiteOutcome {
  /** Why the site was not scanned in full, when it was not. */
  incomplete: string[];
  requestsSent: number;
}

/** A fresh token of 8 lowercase letters and digits, unique within the scan. */
function tokenMaker(): () => string {
  const used = new Set<string>();
  return () => {
    for (;;) {
      const token = Array.from(randomBytes(8), (b) => 'abcdefghijklmnopqrstuvwxyz0123456789'[b % 36]).join('');
      if (!used.has(token)) {
        used.add(token);
        return token;
      }
    }
  };
}

/** Scans one site (see the module comment); the start page's network failure is thrown. */
export async function scanSite(scan: SiteScan): Promise<SiteOutcome> {
  const { applied, signal } = scan;
  const incomplete: string[] = [];
  const pending: EngineEvent[] = [];
  const sink = createFindingSink({ hostname: scan.hostname, hostIp: scan.address }, scan.rules);
  const flush = async (): Promise<void> => {
    for (const event of pending.splice(0)) await scan.emit(event);
  };
  const log = (level: 'info' | 'warn', message: string): void => void pending.push({ type: 'log', level, message });
  const site: SiteMap = { start: scan.url, pages: [], endpoints: [] };

  let relogin: (() => Promise<void>) | undefined;
  const session = createSessionKeeper(
    scan.job.loginScript === undefined
      ? undefined
      : () =>
          relogin!().catch((error: unknown) => {
            log('warn', `The session was lost and the login script failed to restore it: ${error instanceof Error ? error.message : String(error)}`);
            throw error;
          }),
    RELOGIN_INTERVAL_MS,
  );
  const passive = scan.checks.filter((check) => check.kind === 'passive' && check.inspect);
  let ctx: CheckContext;
  let passiveFailures = 0;
  const onResponse = (response: WebResponse): void => {
    for (const check of passive) {
      try {
        check.inspect!(response, ctx);
      } catch (error) {
        // A bug in a passive check fails on every response: a few named, not one line per response.
        if (++passiveFailures <= FAILURES_LOGGED) log('warn', `The ${check.id} check failed on ${response.url}: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    // A check's probe that ended the session: log in again in the background (the crawl retries its
    // pages itself). A probe sent without the session (a CSRF check's) is expected to see a login.
    if (session.active && response.request.headers.cookie !== undefined && showsLostSession(response)) void session.restore(session.generation);
  };
  const client = createWebClient({
    egress: scan.job.egress,
    start: scan.url,
    signal,
    ratePerSecond: applied.ratePerSecond,
    maxConcurrency: applied.concurrency,
    timeoutMs: applied.requestTimeoutMs,
    maxRequests: scan.budget.remaining,
    deadline: scan.budget.deadline,
    onResponse,
  });
  ctx = {
    client,
    site,
    signal,
    report(draft) {
      const finding = sink.add(draft);
      if (finding) pending.push({ type: 'finding', finding });
    },
    log,
    token: tokenMaker(),
    canaryHost: CANARY_HOST,
    allowDestructive: applied.allowDestructive,
  };

  if (scan.job.loginScript !== undefined) {
    const login = scan.login!;
    const script = scan.job.loginScript;
    relogin = async () => {
      const made = await login({ script, startUrl: scan.url, signal, egress: scan.job.egress });
      client.setCookies(made.cookies);
      client.setHeaders(made.headers);
    };
    // The first login's failure fails the run (the script's own error, an EngineError `config`).
    await relogin();
    log('info', 'The login script ran: the scan uses the session it produced.');
  }

  let crawled: CrawlOutcome;
  try {
    crawled = await crawl({
      client,
      start: scan.url,
      site,
      signal,
      maxPages: applied.maxPages,
      maxDepth: applied.maxDepth,
      concurrency: applied.concurrency,
      allowDestructive: applied.allowDestructive,
      session,
      log,
      onProgress: (fetched, known) => flushWithProgress(scan, flush, (CRAWL_END * fetched) / Math.max(known, 1)),
    });
  } finally {
    scan.budget.remaining -= client.requestsSent;
  }
  const sentBeforeChecks = client.requestsSent;
  await scan.emit({ type: 'host', hostname: scan.hostname, address: scan.address, state: 'up' });
  log('info', `Crawled ${site.pages.length} pages of ${scan.url}: ${site.endpoints.length} endpoints, ${site.endpoints.reduce((n, e) => n + inputsOf(e).length, 0)} inputs.`);
  if (crawled.destructiveSkipped.length > 0) {
    log('info', `Left alone (they look destructive or end the session; allow_destructive opts in): ${crawled.destructiveSkipped.slice(0, 10).join(', ')}${crawled.destructiveSkipped.length > 10 ? ` and ${crawled.destructiveSkipped.length - 10} more` : ''}.`);
  }
  if (crawled.failures > 0) log('warn', `${crawled.failures} pages of ${scan.url} could not be fetched (network errors or timeouts).`);
  if (crawled.startLeftScope !== null) {
    incomplete.push(`${scan.url} redirects to ${crawled.startLeftScope}, outside the scan's scope (scheme, host, port and path of the target), so the site behind it was not scanned: scan that URL instead.`);
  }
  if (crawled.stoppedBy === 'pages') incomplete.push(`The crawl of ${scan.url} stopped at ${applied.maxPages} pages (max_pages): pages beyond were not tested.`);
  await flushWithProgress(scan, flush, CRAWL_END);

  const stopped = crawled.stoppedBy === 'budget' || signal.aborted ? true : await runActiveChecks(scan, ctx, flush);
  scan.budget.remaining -= client.requestsSent - sentBeforeChecks;
  if (stopped && !signal.aborted) {
    incomplete.push(`The scan of ${scan.url} ran out of its request budget (max_requests) or its time (max_duration_minutes): some inputs were not tested.`);
  }
  if (session.relogins > 0) log('info', `The session was lost and restored ${session.relogins} time${session.relogins === 1 ? '' : 's'} during the scan.`);
  await flush();
  return { incomplete, requestsSent: client.requestsSent };
}

type Unit = { kind: 'input'; check: WebCheck; point: InputPoint } | { kind: 'endpoint'; check: WebCheck; endpoint: Endpoint };

/**
 * The lock of a unit's form, when the unit changes state through it (a POST form), shared by the
 * forms posting to the same action. A check of the whole form (`testEndpoint`: CSRF, upload)
 * proves what it reports by what the form stored: it holds the lock alone, while the checks of
 * single inputs (which submit the same form with their payloads, and hold it together) would
 * otherwise overwrite its marker between its post and the page it reads back.
 */
function formLockOf(locks: Map<string, SharedExclusiveLock>, unit: Unit): SharedExclusiveLock | undefined {
  const endpoint = unit.kind === 'input' ? unit.point.endpoint : unit.endpoint;
  if (endpoint.method !== 'POST') return undefined;
  const key = endpoint.url.replace(/[?#].*$/, '');
  let lock = locks.get(key);
  if (!lock) locks.set(key, (lock = new SharedExclusiveLock()));
  return lock;
}

/** The active checks; resolves true when the budget or the time ran out before they all ran. */
async function runActiveChecks(scan: SiteScan, ctx: CheckContext, flush: () => Promise<void>): Promise<boolean> {
  const active = scan.checks.filter((check) => check.kind === 'active');
  const units: Unit[] = [];
  for (const endpoint of ctx.site.endpoints) {
    const points = inputsOf(endpoint);
    for (const check of active) {
      if (check.testInput) for (const point of points) if ((check.appliesTo ?? isTextInput)(point)) units.push({ kind: 'input', check, point });
      if (check.testEndpoint) units.push({ kind: 'endpoint', check, endpoint });
    }
  }
  let exhausted = false;
  let failures = 0;
  let networkErrors = 0;
  const attempt = async (check: WebCheck, where: string, work: () => Promise<void>): Promise<void> => {
    try {
      await work();
    } catch (error) {
      if (error instanceof BudgetExhausted) {
        exhausted = true;
        throw error;
      }
      if (error instanceof EgressError) {
        if (error.code === 'aborted') throw error;
        networkErrors++;
        return;
      }
      failures++;
      const what = error instanceof OutOfScope ? `it sent a request out of scope (${error.url})` : error instanceof Error ? error.message : String(error);
      if (failures <= FAILURES_LOGGED) ctx.log('warn', `The ${check.id} check failed on ${where}: ${what}`);
    }
  };
  let done = 0;
  const formLocks = new Map<string, SharedExclusiveLock>();
  const runUnit = (unit: Unit): Promise<void> =>
    unit.kind === 'input'
      ? attempt(unit.check, `${unit.point.endpoint.method} ${unit.point.endpoint.url} (${unit.point.name})`, () => unit.check.testInput!(unit.point, ctx))
      : attempt(unit.check, `${unit.endpoint.method} ${unit.endpoint.url}`, () => unit.check.testEndpoint!(unit.endpoint, ctx));
  try {
    await runPool(
      units[Symbol.iterator](),
      scan.applied.concurrency,
      async (unit) => {
        // Checks end quietly on a spent budget (the contract); the units left are not started.
        if (ctx.client.spent) {
          exhausted = true;
          throw new BudgetExhausted("the scan's request budget or time is spent.");
        }
        const lock = formLockOf(formLocks, unit);
        if (!lock) await runUnit(unit);
        else if (unit.kind === 'endpoint') await lock.runExclusive(() => runUnit(unit));
        else await lock.runShared(() => runUnit(unit));
        done++;
        await flushWithProgress(scan, flush, CRAWL_END + ((INPUTS_END - CRAWL_END) * done) / Math.max(units.length, 1));
      },
      scan.signal,
    );
    for (const [i, check] of active.entries()) {
      if (!check.testSite || scan.signal.aborted) continue;
      if (ctx.client.spent) {
        exhausted = true;
        break;
      }
      await attempt(check, 'the site', () => check.testSite!(ctx));
      await flushWithProgress(scan, flush, INPUTS_END + ((100 - INPUTS_END) * (i + 1)) / active.length);
    }
  } catch (error) {
    if (!(error instanceof BudgetExhausted) && !(error instanceof EgressError && error.code === 'aborted')) throw error;
  }
  if (failures > FAILURES_LOGGED) ctx.log('warn', `${failures - FAILURES_LOGGED} more check runs failed.`);
  if (networkErrors > 0) ctx.log('warn', `${networkErrors} check runs on ${scan.url} stopped on network errors or timeouts; what they tested is not proven either way.`);
  await flush();
  // A check that met the spent budget returned quietly: the client knows it was met.
  return exhausted || ctx.client.spent;
}

const lastPercent = new WeakMap<SiteScan, number>();

/** Emits what the checks reported, and the progress when its whole percent moved forward (workers finish out of order). */
async function flushWithProgress(scan: SiteScan, flush: () => Promise<void>, share: number): Promise<void> {
  await flush();
  const percent = Math.floor(scan.percent(share));
  if (percent <= (lastPercent.get(scan) ?? -1)) return;
  lastPercent.set(scan, percent);
  await scan.emit({ type: 'progress', percent });
}
