/**
 * Which kind of run failure each gvmd answer is (src/engines/engine.ts `EngineErrorKind`), so the
 * run's error tells the reader whom to call:
 * - authentication refused (400 on `authenticate`), 401 and 403: `config`, the deployment's
 *   gvmd user or its rights must be fixed;
 * - 503 "Service temporarily down" (gvmd busy, its database or scanner restarting):
 *   `network-temporary`, a later run may succeed;
 * - 400, 404 and 409 on anything else: `internal`, gvmd refused a request Rampart built (a driver
 *   bug or a gvmd version it does not speak); lookups that find nothing say so themselves, as
 *   `config`, before this mapping is reached;
 * - 500 and any other code: `internal`: neither the target nor the deployment's settings caused it,
 *   and the run's error carries gvmd's own text for whoever reads the logs.
 * The connection's failures are mapped where they happen (gmp-connection.ts): gvmd unreachable or
 * its certificate refused is `config`, a connection lost or silent mid-run `network-temporary`.
 */
import { EngineError, type EngineErrorKind } from '../engine.js';
import type { GmpStatus } from './gmp-xml.js';

/** The kind of failure a non-2xx status on `command` is. */
export function kindOfStatus(command: string, status: GmpStatus): EngineErrorKind {
  if (command === 'authenticate' && status.code === 400) return 'config';
  if (status.code === 401 || status.code === 403) return 'config';
  if (status.code === 503) return 'network-temporary';
  return 'internal';
}

/** The EngineError of a non-2xx status, worded for the run's error. */
export function statusError(command: string, status: GmpStatus, label: string): EngineError {
  const said = `${status.code}${status.text ? ` "${status.text}"` : ''}`;
  if (command === 'authenticate' && status.code === 400) {
    return new EngineError('config', `gvmd at ${label} refused the credentials (${said}): check RAMPART_GVMD_USERNAME and RAMPART_GVMD_PASSWORD.`);
  }
  const hint: Record<EngineErrorKind, string> = {
    config: " The gvmd user lacks a right Rampart needs: give it a role that may create, start and delete targets and tasks (gvmd's \"User\" role does).",
    'network-temporary': ' gvmd is temporarily unavailable; running the scan again later may succeed.',
    'network-permanent': '',
    deadline: '',
    internal: '',
  };
  const kind = kindOfStatus(command, status);
  return new EngineError(kind, `gvmd at ${label} answered ${command} with ${said}.${hint[kind]}`);
}
