/**
 * Numbered text replies shared by FTP (RFC 959 4.2) and SMTP (RFC 5321 4.2): `ddd-text` lines
 * continue a reply, `ddd text` ends it.
 */
import { untilLineMatching, type Conversation } from './conn.js';
import { linesOf } from './info.js';

export interface NumberedReply {
  /** The reply code, or null when the answer was not a numbered reply (or nothing came). */
  code: number | null;
  lines: string[];
}

const LAST_LINE = /^\d{3}(?: |$)/;

/** Reads one complete numbered reply (bounded by the conversation's read limits). */
export async function readNumberedReply(conversation: Conversation): Promise<NumberedReply> {
  const lines = linesOf(await conversation.read(untilLineMatching(LAST_LINE)));
  const last = lines.findLast((line) => LAST_LINE.test(line));
  return { code: last ? Number(last.slice(0, 3)) : null, lines };
}

/** Sends one command line and reads its reply. */
export async function command(conversation: Conversation, line: string): Promise<NumberedReply> {
  conversation.write(`${line}\r\n`);
  return readNumberedReply(conversation);
}

/** The text of a reply's lines without their `ddd-` / `ddd ` prefixes. */
export function replyText(reply: NumberedReply): string[] {
  return reply.lines.map((line) => line.replace(/^\d{3}[ -]?/, ''));
}
