/**
 * Passive banner grab: many services (SSH, FTP, SMTP, POP3, IMAP, MySQL, a protected-mode Redis)
 * speak first, and their greeting names them. We only read what the server sends unprompted;
 * sending anything is left to later, protocol-aware checks.
 */
import type { Socket } from 'node:net';

/** The most a banner may hold; a greeting is short, and evidence should stay readable. */
export const MAX_BANNER_BYTES = 1024;

/**
 * After the first bytes, how long a pause ends the banner when no line ending arrived: a
 * binary greeting (MySQL) has no newline, and waiting out the whole read timeout for it would
 * slow every such port.
 */
const SETTLE_MS = 100;

/**
 * Reads what a connected socket sends unprompted: stops at the first line ending, at
 * `MAX_BANNER_BYTES`, at a `SETTLE_MS` pause after data, when the peer closes, or after
 * `timeoutMs` in all. Resolves with the bytes read (empty for a silent service), or null when
 * `signal` aborted. Does not destroy the socket: the caller owns it.
 */
export function readBanner(socket: Socket, timeoutMs: number, signal: AbortSignal): Promise<Buffer | null> {
  if (signal.aborted) return Promise.resolve(null);
  if (timeoutMs <= 0) return Promise.resolve(Buffer.alloc(0));
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settleTimer: NodeJS.Timeout | undefined;
    const deadline = setTimeout(() => finish(), timeoutMs);

    const finish = (aborted = false): void => {
      clearTimeout(deadline);
      clearTimeout(settleTimer);
      signal.removeEventListener('abort', onAbort);
      socket.off('data', onData).off('end', onEnd).off('close', onEnd).off('error', onEnd);
      socket.pause();
      resolve(aborted ? null : Buffer.concat(chunks, size).subarray(0, MAX_BANNER_BYTES));
    };
    const onAbort = (): void => finish(true);
    const onEnd = (): void => finish();
    const onData = (chunk: Buffer): void => {
      chunks.push(chunk);
      size += chunk.length;
      if (size >= MAX_BANNER_BYTES || chunk.includes(0x0a)) return finish();
      clearTimeout(settleTimer);
      settleTimer = setTimeout(() => finish(), SETTLE_MS);
    };

    signal.addEventListener('abort', onAbort, { once: true });
    socket.on('data', onData).on('end', onEnd).on('close', onEnd).on('error', onEnd);
  });
}

/**
 * Printable text of raw bytes for evidence: printable ASCII as is, CR/LF/TAB as `\r` `\n` `\t`,
 * a backslash doubled, anything else as `\xHH`, so a binary greeting cannot corrupt a report.
 */
export function escapeBanner(bytes: Uint8Array): string {
  let text = '';
  for (const byte of bytes) {
    if (byte === 0x5c) text += '\\\\';
    else if (byte === 0x0d) text += '\\r';
    else if (byte === 0x0a) text += '\\n';
    else if (byte === 0x09) text += '\\t';
    else if (byte >= 0x20 && byte < 0x7f) text += String.fromCharCode(byte);
    else text += `\\x${byte.toString(16).padStart(2, '0')}`;
  }
  return text;
}
