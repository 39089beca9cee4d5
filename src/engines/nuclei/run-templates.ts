/**
 * Runs the selected templates on the job's services: every (template, service) pair a family
 * applies to (services.ts), at most `concurrency` at once through the shared pool, each match a
 * finding, progress in percent of the pairs done (whole percents only, so a run of 100,000 pairs
 * writes at most 100 progress events).
 *
 * A template run that throws (a bug in an executor, not the template's own fault, which executors
 * report as notes) does not stop the others: the failures are counted and the first few named in a
 * note. A host that stopped answering is skipped quietly here; the gate says so once.
 */
import type { EngineEvent } from '../engine.js';
import { runPool } from '../../shared/pool.js';
import { HostSkippedError, type ExecutionContext, type ServiceTarget, type TemplateExecutor } from './execute/contract.js';
import { findingOfMatch } from './findings.js';
import { protocolFamilyOf, type ProtocolFamily } from './selection.js';
import { servicesFor } from './services.js';
import type { Template } from './templates/template.types.js';

/** Template notes kept word for word before the rest are only counted. */
const MAX_TEMPLATE_NOTES = 20;
/** Failed template runs named in the note. */
const MAX_FAILURES_NAMED = 3;

/** One template on one service. */
interface Pair {
  template: Template;
  family: ProtocolFamily;
  service: ServiceTarget;
}

/** What the run over templates needs. */
export interface TemplateRunInput {
  templates: readonly Template[];
  services: readonly ServiceTarget[];
  executors: Partial<Record<ProtocolFamily, TemplateExecutor>>;
  context: ExecutionContext;
  concurrency: number;
  emit: (event: EngineEvent) => Promise<void>;
  /** Maps the pairs' progress (0..1) to the run's percent. */
  percentOf: (share: number) => number;
}

/** Counts of a run over templates, for the closing note. */
export interface TemplateRunTotals {
  pairs: number;
  matches: number;
  requestsSent: number;
  requestsShared: number;
}

function* pairsOf(templates: readonly Template[], services: readonly ServiceTarget[]): Generator<Pair> {
  // Template by template, so consecutive runs spread over the hosts instead of queueing on one.
  for (const template of templates) {
    const family = protocolFamilyOf(template);
    if (family === null) continue;
    for (const service of servicesFor(template, family, services)) yield { template, family, service };
  }
}

/** Runs every pair; resolves when all settled or the context's signal aborted. */
export async function runTemplates(input: TemplateRunInput): Promise<TemplateRunTotals> {
  const { context, emit } = input;
  let pairs = 0;
  for (const _ of pairsOf(input.templates, input.services)) pairs += 1;
  const totals: TemplateRunTotals = { pairs, matches: 0, requestsSent: 0, requestsShared: 0 };
  const notes = new Set<string>();
  let notesDropped = 0;
  const failures: string[] = [];
  let done = 0;
  let lastPercent = -1;

  const runPair = async ({ template, family, service }: Pair): Promise<void> => {
    const executor = input.executors[family];
    if (!executor || context.gate.isSkipped(service.host)) return;
    try {
      const outcome = await executor(template, service, context);
      totals.requestsSent += outcome.requestsSent;
      totals.requestsShared += outcome.requestsShared;
      for (const note of outcome.notes) {
        // Executors start each note with the template id already.
        if (notes.size < MAX_TEMPLATE_NOTES) notes.add(note);
        else notesDropped += 1;
      }
      for (const match of outcome.matches) {
        if (context.signal.aborted) return;
        totals.matches += 1;
        await emit({ type: 'finding', finding: findingOfMatch(template, service, match) });
      }
    } catch (error) {
      if (context.signal.aborted || error instanceof HostSkippedError) return;
      failures.push(`${template.id} on ${service.host}:${service.port}: ${error instanceof Error ? error.message : String(error)}`);
    }
  };

  await runPool(
    pairsOf(input.templates, input.services),
    input.concurrency,
    async (pair) => {
      await runPair(pair);
      done += 1;
      const percent = input.percentOf(pairs === 0 ? 1 : done / pairs);
      if (percent > lastPercent && !context.signal.aborted) {
        lastPercent = percent;
        await emit({ type: 'progress', percent });
      }
    },
    context.signal,
  );
  if (context.signal.aborted) return totals;
  for (const note of notes) await emit({ type: 'log', level: 'info', message: note });
  if (notesDropped > 0) await emit({ type: 'log', level: 'info', message: `${notesDropped} more template notes were left out.` });
  if (failures.length > 0) {
    const named = failures.slice(0, MAX_FAILURES_NAMED).join('; ');
    await emit({ type: 'log', level: 'warn', message: `${failures.length} template run${failures.length === 1 ? '' : 's'} failed in the engine (a bug, reported as such): ${named}${failures.length > MAX_FAILURES_NAMED ? '; ...' : ''}` });
    await emit({ type: 'incomplete', message: `${failures.length} template runs did not complete, so their weaknesses may be missing.` });
  }
  return totals;
}
