/**
 * Account housekeeping: a background loop, started with the other long-running loops of a process
 * (src/runs/background.ts), that removes ended sessions, old mailed links, quiet sign-in counters
 * and expired OIDC logins every few minutes, so those tables stay the size of what is live.
 */
import type { Db } from '../db/database.js';
import type { Logger } from '../shared/logger.js';
import { PollLoop } from '../shared/poll-loop.js';
import { pruneAccountRecords } from './housekeeping.queries.js';

/** How often the records are pruned. Any number of processes may prune: deletes do not conflict. */
export const HOUSEKEEPING_INTERVAL_MS = 10 * 60_000;

export function createAccountHousekeeping(db: Db, log: Logger, intervalMs = HOUSEKEEPING_INTERVAL_MS): PollLoop {
  const tick = async () => {
    const pruned = await pruneAccountRecords(db);
    if (pruned.sessions + pruned.emailTokens + pruned.throttles + pruned.oidcLogins > 0) log.info({ pruned }, 'account records pruned');
    return false;
  };
  return new PollLoop(tick, intervalMs, (error) => log.warn({ err: error }, 'account housekeeping could not reach the store; retrying'));
}

export { pruneAccountRecords };
