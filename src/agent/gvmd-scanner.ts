/**
 * OpenVAS through a gvmd on the agent's machine (`--gvmd-socket`): the service's OpenVAS engine,
 * given the agent's own settings. The engine checks the targets against the job's guard and
 * egress, built by the attempt from exactly the scan's targets, before gvmd sees them, so gvmd is
 * never asked to scan what the service did not hand out. The run's engine names gvmd's version,
 * known only once the engine has asked it.
 */
import { hostname } from 'node:os';
import { createOpenvasEngine, DEFAULT_PORT_LIST, DEFAULT_SCAN_CONFIG } from '../engines/openvas/openvas.engine.js';
import type { AgentScanner } from './attempt.js';

export interface GvmdFlags {
  socket: string;
  username: string;
  password: string;
}

export function createGvmdScanner(flags: GvmdFlags, agentVersion: string): AgentScanner {
  const detail = `via local gvmd ${flags.socket} by rampart agent ${agentVersion} on ${hostname()}`;
  return {
    // gvmd unreachable before it said its version: the run still says what was meant to run.
    identity: (engine) => ({ name: 'openvas', version: engine?.version ?? 'unknown', detail: detail.slice(0, 300) }),
    create: () =>
      createOpenvasEngine({
        socket: flags.socket,
        username: flags.username,
        password: flags.password,
        scanConfig: DEFAULT_SCAN_CONFIG,
        portList: DEFAULT_PORT_LIST,
      }),
  };
}
