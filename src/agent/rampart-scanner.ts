/**
 * Rampart's network engine as the agent runs it: its caps are the deployment's limits the job
 * carries, and it resolves each target name to the addresses the guard was built from, so the
 * engine and the guard agree on what a name means for the whole attempt.
 */
import { createRampartEngine } from '../engines/rampart/rampart.engine.js';
import { resolveWithSystemDns } from '../engines/rampart/targets.js';
import type { EngineIdentity } from '../engines/engine.js';
import type { AgentScanner } from './attempt.js';

export function createRampartScanner(identity: EngineIdentity): AgentScanner {
  return {
    identity: () => identity,
    create: (guard, take) =>
      createRampartEngine({
        caps: take.job.limits,
        resolveHost: async (name) => guard.resolved.get(name) ?? resolveWithSystemDns(name),
      }),
  };
}
