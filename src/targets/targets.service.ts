/** Targets as runs create and update them (the browse API comes with the findings module). */
import { isIP } from 'node:net';
import type { Db } from '../db/database.js';
import * as targets from './targets.queries.js';

export type { TargetKey } from './targets.queries.js';

export function targetKey(name: string): targets.TargetKey {
  return { target: name, type: isIP(name) ? 'Ip' : 'Domain' };
}

/** Makes sure the named hosts exist as targets (Unknown until scanned); returns name -> id. */
export function ensureTargets(db: Db, userId: number, names: string[]): Promise<Map<string, number>> {
  return targets.ensureTargets(db, userId, [...new Set(names)].map(targetKey));
}

/** Records a run's view of its hosts: `up` names become Active, the rest Inactive. */
export function recordHostStates(db: Db, userId: number, states: Map<string, boolean>, scannedAt: Date): Promise<void> {
  return targets.recordHostStates(
    db,
    userId,
    [...states].map(([name, up]) => ({ ...targetKey(name), status: up ? 'Active' : 'Inactive' })),
    scannedAt,
  );
}
