/** The job and the event collection of engine tests that connect on loopback only. */
import type { EngineEvent, EngineJob } from '../../src/engines/engine.js';
import { LOOPBACK_EGRESS } from './egress.js';

/** A job with loopback-only egress, default ports and modest limits; `overrides` replace fields. */
export function loopbackJob(overrides: Partial<EngineJob> & Pick<EngineJob, 'targets'>): EngineJob {
  return {
    ports: 'default',
    limits: { connectTimeoutMs: 2000, readTimeoutMs: 3000, maxConcurrency: 256, ratePerSecond: 0 },
    guard: LOOPBACK_EGRESS.guard,
    egress: LOOPBACK_EGRESS,
    signal: new AbortController().signal,
    ...overrides,
  };
}

/** Every event of a run, in order (rejects with the run's error). */
export async function collectEvents(events: AsyncIterable<EngineEvent>): Promise<EngineEvent[]> {
  const out: EngineEvent[] = [];
  for await (const event of events) out.push(event);
  return out;
}
