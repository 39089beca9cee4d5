/**
 * Rampart's nuclei engine: runs the community nuclei templates (a directory of YAML, loaded once
 * per worker) against the services of a job, in TypeScript, through the job's egress. Issue 15.
 *
 * A run: load the templates (parse failures are one note, never a failure); select the safe,
 * executable ones for the scan (selection.ts); find the services (URL targets directly, hosts,
 * ranges and `host:port` targets through the injected discovery, services.ts); run every (template, service) pair through
 * the protocol executors under the run's host gate (host-gate.ts) and response cache
 * (run-templates.ts); report each match as a finding (findings.ts).
 *
 * Abort: once `job.signal` aborts no further event is yielded and the iteration returns normally.
 */
import path from 'node:path';
import { EngineError, type Engine, type EngineEvent, type EngineJob } from '../engine.js';
import { streamEvents } from '../../shared/event-channel.js';
import type { ServiceTarget, SharedResponses, TemplateExecutor } from './execute/contract.js';
import { createSharedResponses } from './execute/shared-responses.js';
import { createHostGate } from './host-gate.js';
import { applyNucleiOptions, DEFAULT_MAX_HOST_ERRORS, nucleiOptionsSchema, type NucleiOptionCaps } from './options.js';
import { runTemplates } from './run-templates.js';
import { selectTemplates, type ProtocolFamily, type TemplateSelection } from './selection.js';
import { discoveryRuns, serviceOfUrl, serviceTarget, type DiscoverServices } from './services.js';
import { loadTemplatesCached, type LoadedTemplates } from './templates/load-templates.js';
import { untilAborted } from '../../shared/until-aborted.js';
import { readSyncManifest } from './templates/sync-manifest.js';

/** Version recorded on each run; bump it when what the engine finds changes. */
export const NUCLEI_ENGINE_VERSION = '0.1.0';
/** The engine's name on runs and reports. */
export const NUCLEI_ENGINE_NAME = 'rampart-nuclei';
/** Bound on one exchange when the deployment sets none (nuclei's `-timeout 10`). */
export const DEFAULT_NUCLEI_TIMEOUT_MS = 10_000;

/** Parse failures named in the note (the rest counted). */
const FAILURES_NAMED = 3;
/** The share of progress discovery takes when it runs. */
const DISCOVERY_SHARE = 20;
const CHANNEL_CAPACITY = 64;

/** How a deployment sets the engine up. */
export interface NucleiEngineSettings {
  /** The templates directory (RAMPART_NUCLEI_TEMPLATES). */
  templatesDir: string;
  /** The features the executors implement (templates/features.ts vocabulary). */
  supported: ReadonlySet<string>;
  /** One executor per protocol family; a family without one is not run. */
  executors: Partial<Record<ProtocolFamily, TemplateExecutor>>;
  /** A fresh response cache for one run (default: execute/shared-responses.ts). */
  createCache?: () => SharedResponses;
  /** Run templates with `unsafe: true` blocks, sent byte for byte (RAMPART_NUCLEI_UNSAFE; default no). */
  unsafe?: boolean;
  /** The DNS resolvers `dns:` templates query (default: the system's). */
  resolvers?: string[];
  /** Finds the services of host and CIDR targets; without it only URL targets are scanned. */
  discover?: DiscoverServices;
  /** Bound on one exchange (RAMPART_NUCLEI_TIMEOUT_MS). */
  timeoutMs?: number;
  /** The deployment's limits, which bound the options a scan may set. */
  caps?: NucleiOptionCaps;
  /** Consecutive network errors after which a host is skipped (default 30). */
  maxHostErrors?: number;
}

/** The nuclei engine of a deployment. */
export function createNucleiEngine(settings: NucleiEngineSettings): Engine {
  return {
    name: NUCLEI_ENGINE_NAME,
    version: NUCLEI_ENGINE_VERSION,
    optionsSchema: nucleiOptionsSchema(settings.caps ?? { ratePerSecond: 0, maxConcurrency: 4096 }),
    run: (job) => runJob(job, settings),
  };
}

/**
 * The template set's name for reports: the release `rampart templates sync` installed (its
 * manifest, `.rampart-sync.json`), else the directory's name.
 */
async function templateSetName(directory: string): Promise<string> {
  // A directory set by hand has no manifest: its name says enough.
  const release = (await readSyncManifest(directory))?.release;
  return typeof release === 'string' && release.trim() !== '' ? release.trim().slice(0, 64) : path.basename(directory);
}

async function loadOrFail(directory: string): Promise<LoadedTemplates> {
  try {
    return await loadTemplatesCached(directory);
  } catch (error) {
    throw new EngineError('config', `The nuclei templates directory ${directory} cannot be read (${error instanceof Error ? error.message : String(error)}). Set RAMPART_NUCLEI_TEMPLATES or run \`rampart templates sync\`.`, { cause: error });
  }
}

async function* runJob(job: EngineJob, settings: NucleiEngineSettings): AsyncGenerator<EngineEvent, void, undefined> {
  const loaded = await loadOrFail(settings.templatesDir);
  if (job.signal.aborted) return;
  const applied = applyNucleiOptions(job);
  const selection = selectTemplates(loaded.templates, applied.selection, {
    allowUnsafe: settings.unsafe ?? false,
    supported: settings.supported,
    families: new Set(Object.keys(settings.executors) as ProtocolFamily[]),
  });
  yield {
    type: 'engine',
    name: NUCLEI_ENGINE_NAME,
    version: NUCLEI_ENGINE_VERSION,
    detail: `templates ${await templateSetName(loaded.directory)}, ${selection.selected.length} of ${loaded.templates.length} templates`,
  };
  for (const message of selectionNotes(loaded, selection)) yield message;

  yield* streamEvents<EngineEvent>(
    job.signal,
    CHANNEL_CAPACITY,
    (stop, push) => produceEvents(job, settings, selection, applied, stop, push),
    (error) => (error instanceof EngineError ? error : new EngineError('internal', `The nuclei engine failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error })),
  );
}

/** The notes saying what of the template set did not run and why. */
function selectionNotes(loaded: LoadedTemplates, selection: TemplateSelection): EngineEvent[] {
  const notes: EngineEvent[] = [];
  if (loaded.failures.length > 0) {
    const named = loaded.failures.slice(0, FAILURES_NAMED).map((f) => `${f.path} (${f.reason})`).join('; ');
    const more = loaded.failures.length > FAILURES_NAMED ? ` and ${loaded.failures.length - FAILURES_NAMED} more` : '';
    notes.push({ type: 'log', level: 'warn', message: `${loaded.failures.length} template file${loaded.failures.length === 1 ? '' : 's'} could not be loaded: ${named}${more}.` });
  }
  const blockers = selection.blockers.slice(0, 5).map(([feature, n]) => `${feature} ${n}`).join(', ');
  notes.push({
    type: 'log',
    level: 'info',
    message:
      `Templates: ${selection.defaultSet} in the default set, ${selection.refused} never run here (code, headless, javascript, file, unsafe), ` +
      `${selection.filtered} left out by the tag exclusions and the scan's options, ${selection.selected.length} run.`,
  });
  if (selection.notExecutable > 0) {
    notes.push({ type: 'log', level: 'warn', message: `${selection.notExecutable} selected templates were skipped: they need features this engine does not implement yet (${blockers}).` });
  }
  return notes;
}

async function produceEvents(
  job: EngineJob,
  settings: NucleiEngineSettings,
  selection: TemplateSelection,
  applied: ReturnType<typeof applyNucleiOptions>,
  signal: AbortSignal,
  emit: (event: EngineEvent) => Promise<void>,
): Promise<void> {
  const services: ServiceTarget[] = [];
  const urlHosts = new Map<string, string>();
  for (const target of job.targets) {
    if (target.kind !== 'url') continue;
    if (signal.aborted) return;
    try {
      // A look-up takes up to the DNS timeout: an abort must not wait for it, target after target.
      const service = await untilAborted(serviceOfUrl(target.value, job), signal);
      if (service === undefined) return;
      services.push(service);
      urlHosts.set(service.host, service.address);
    } catch (error) {
      const host = new URL(target.value).hostname;
      await emit({ type: 'log', level: 'warn', message: `${target.value} was not scanned: ${error instanceof Error ? error.message : String(error)}` });
      await emit({ type: 'host', hostname: host, address: host, state: 'down' });
    }
  }
  const hostTargets = job.targets.filter((t) => t.kind !== 'url');
  const discovering = hostTargets.length > 0;
  if (discovering && !settings.discover) {
    throw new EngineError('config', 'This nuclei engine has no service discovery, so it can scan URL targets only.');
  }
  if (discovering && settings.discover) {
    const runs = discoveryRuns(job);
    for (const [index, run] of runs.entries()) {
      for await (const event of settings.discover({ ...job, ...run, signal })) {
        if (signal.aborted) return;
        if (event.type === 'service') services.push(serviceTarget(event.service));
        else if (event.type === 'progress') await emit({ type: 'progress', percent: Math.floor(((index * 100 + event.percent) * DISCOVERY_SHARE) / (100 * runs.length)) });
        else await emit(event);
      }
    }
  }
  if (signal.aborted) return;
  const start = discovering ? DISCOVERY_SHARE : 0;
  await emit({ type: 'progress', percent: start });

  const answered = new Set<string>();
  const failed = new Set<string>();
  const skipped: string[] = [];
  const gate = createHostGate({
    concurrency: applied.hostConcurrency,
    ratePerHost: applied.ratePerHost,
    rateOverall: applied.rateOverall,
    maxErrors: settings.maxHostErrors ?? DEFAULT_MAX_HOST_ERRORS,
    signal,
    onSkip: (host, errors, last) => skipped.push(`${host} stopped answering (${errors} network errors in a row, the last: ${last instanceof Error ? last.message : String(last)}); its remaining templates were skipped.`),
  });
  const totals = await runTemplates({
    templates: selection.selected,
    services,
    executors: settings.executors,
    context: {
      egress: job.egress,
      signal,
      gate: {
        ...gate,
        answered: (host) => (answered.add(host), gate.answered(host)),
        networkError: (host, error) => (failed.add(host), gate.networkError(host, error)),
      },
      timeoutMs: settings.timeoutMs ?? DEFAULT_NUCLEI_TIMEOUT_MS,
      templatesDir: settings.templatesDir,
      vars: {},
      cache: settings.createCache?.() ?? createSharedResponses(),
      ...(settings.resolvers ? { resolvers: settings.resolvers } : {}),
    },
    concurrency: applied.runConcurrency,
    emit,
    percentOf: (share) => start + Math.floor((100 - start) * share),
  });
  if (signal.aborted) return;
  // URL targets had no discovery to say whether they were up: a host is down when its exchanges
  // failed and none was answered; one nothing was asked of (no template ran on it) resolved, so up.
  for (const [host, address] of urlHosts) await emit({ type: 'host', hostname: host, address, state: failed.has(host) && !answered.has(host) ? 'down' : 'up' });
  for (const message of skipped) await emit({ type: 'incomplete', message });
  await emit({
    type: 'log',
    level: 'info',
    message: `${totals.pairs} template runs on ${services.length} service${services.length === 1 ? '' : 's'}: ${totals.matches} matches, ${totals.requestsSent} requests sent, ${totals.requestsShared} answered from the shared cache.`,
  });
  await emit({ type: 'progress', percent: 100 });
}
