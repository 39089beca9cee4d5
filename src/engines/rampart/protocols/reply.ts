/**
 * Numbered replies as FTP (RFC 959 4.2) and SMTP (RFC 5321 4.2) send them, shared by service
 * detection (`services/ftp.ts`, `services/mail.ts`) and the checks (`checks/unauth-ftp.ts`,
 * `checks/cleartext.ts`): a reply is one line `ddd text`, or lines from `ddd-text` to the first
 * line `ddd text` (or a bare `ddd`) with the same code. Read line by line off a `Session`, so
 * whatever the server sent after the reply stays for the next read.
 */
import type { Session } from './session.js';

/** Lines of one multi-line reply we read at most (FEAT and EHLO answers have a few dozen). */
const MAX_REPLY_LINES = 100;
/** The longest reply line we keep; RFC 5321 allows 512 octets, we keep more and cut the rest. */
const MAX_LINE_BYTES = 1024;

export interface NumericReply {
  code: number;
  /** All lines of the reply, CR/LF stripped, code prefixes kept. */
  lines: string[];
}

/** Reads one reply; null on timeout, abort, a closed connection or text that is not a numeric reply. */
export async function readNumericReply(session: Session): Promise<NumericReply | null> {
  const first = await session.readLine(MAX_LINE_BYTES);
  const match = first === null ? null : /^(\d{3})([ -])/.exec(first);
  if (!first || !match) return null;
  const lines = [first];
  if (match[2] === '-') {
    const end = `${match[1]} `;
    for (;;) {
      if (lines.length >= MAX_REPLY_LINES) return null;
      const line = await session.readLine(MAX_LINE_BYTES);
      if (line === null) return null;
      lines.push(line);
      if (line.startsWith(end) || line === match[1]) break;
    }
  }
  return { code: Number(match[1]), lines };
}

/** Sends one command line and reads its reply. */
export async function sendCommand(session: Session, command: string): Promise<NumericReply | null> {
  session.write(`${command}\r\n`);
  return readNumericReply(session);
}

/** The text of a reply's lines without their `ddd-` / `ddd ` prefixes. */
export function replyText(reply: NumericReply): string[] {
  return reply.lines.map((line) => line.replace(/^\d{3}[ -]?/, ''));
}
