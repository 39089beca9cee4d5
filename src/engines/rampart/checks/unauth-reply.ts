/**
 * Numeric replies as FTP (RFC 959 §4.2) and SMTP (RFC 5321 §4.2) send them, shared by the
 * anonymous-FTP and cleartext checks: a reply is one line `ddd text`, or lines from `ddd-text`
 * to the first `ddd text`.
 */
import type { Session } from './unauth-session.js';

/** Lines of one multi-line reply we read at most (FEAT and EHLO answers have a few dozen). */
const MAX_REPLY_LINES = 100;

export interface NumericReply {
  code: number;
  /** All lines of the reply, CR/LF stripped. */
  lines: string[];
}

/** Reads one reply; null on timeout, abort, a closed connection or text that is not a numeric reply. */
export async function readNumericReply(session: Session): Promise<NumericReply | null> {
  const first = await session.readLine(1024);
  const match = first === null ? null : /^(\d{3})([ -])/.exec(first);
  if (!first || !match) return null;
  const lines = [first];
  if (match[2] === '-') {
    const end = `${match[1]} `;
    for (;;) {
      if (lines.length >= MAX_REPLY_LINES) return null;
      const line = await session.readLine(1024);
      if (line === null) return null;
      lines.push(line);
      if (line.startsWith(end) || line === match[1]) break;
    }
  }
  return { code: Number(match[1]), lines };
}

/** Sends a command and reads its reply. */
export async function sendCommand(session: Session, command: string): Promise<NumericReply | null> {
  session.write(`${command}\r\n`);
  return readNumericReply(session);
}
