/**
 * The agent's log: human-readable lines on stdout, one per step, each with its UTC time. The
 * agent runs in a terminal or under systemd (whose journal keeps stdout), not behind a log
 * collector, so plain text beats JSON here.
 */
export interface AgentLog {
  info(message: string): void;
  warn(message: string): void;
}

export function createAgentLog(write: (line: string) => void = (line) => process.stdout.write(line)): AgentLog {
  const line = (level: string, message: string) => write(`${new Date().toISOString()} ${level}${message}\n`);
  return {
    info: (message) => line('', message),
    warn: (message) => line('warning: ', message),
  };
}
