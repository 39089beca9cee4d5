/**
 * FTP: a `220` greeting, then `FEAT` (RFC 2389) lists the extensions; `AUTH TLS` among them
 * (RFC 4217) means the server offers explicit TLS.
 */
import type { Session } from '../protocols/session.js';
import { replyText, sendCommand, type NumericReply } from '../protocols/reply.js';
import type { Identified } from './info.js';

/** Greetings of known FTP servers, with the product each names and where its version is. */
const PRODUCTS: ReadonlyArray<{ pattern: RegExp; product: string }> = [
  { pattern: /\(vsFTPd (\d[\w.]*)\)/, product: 'vsftpd' },
  { pattern: /ProFTPD (\d[\w.]*)/, product: 'ProFTPD' },
  { pattern: /Pure-FTPd/, product: 'Pure-FTPd' },
  { pattern: /FileZilla Server(?: version)? (\d[\w.]*)/, product: 'FileZilla Server' },
  { pattern: /Microsoft FTP Service/, product: 'Microsoft ftpd' },
];

/** True when a `220` greeting names an FTP server (so FEAT is tried before EHLO). */
export function greetingSuggestsFtp(greeting: string): boolean {
  return /ftp/i.test(greeting) && !/smtp/i.test(greeting);
}

/**
 * Asks `FEAT` on a session past its greeting. Identifies FTP on a `211` feature list, or on
 * any other reply when the greeting already named an FTP server; null otherwise.
 */
export async function probeFtp(session: Session, greeting: string): Promise<Identified | null> {
  const reply = await sendCommand(session, 'FEAT');
  const named = PRODUCTS.find(({ pattern }) => pattern.test(greeting));
  if (reply?.code !== 211 && !(named && reply)) return null;
  return {
    name: 'ftp',
    product: named?.product ?? null,
    version: named?.pattern.exec(greeting)?.[1] ?? null,
    details: ftpDetails(reply),
  };
}

function ftpDetails(feat: NumericReply | null): Record<string, string> {
  const features = feat?.code === 211 ? replyText(feat).slice(1, -1).map((line) => line.trim()) : [];
  const details: Record<string, string> = {
    starttls: features.some((feature) => /^AUTH\b.*\bTLS\b/i.test(feature)) ? 'yes' : 'no',
  };
  if (features.length > 0) details.features = features.join(', ');
  return details;
}
