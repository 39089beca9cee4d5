/**
 * SSH: the server speaks first with its identification string (RFC 4253 4.2),
 * `SSH-protoversion-softwareversion SP comments`, e.g. `SSH-2.0-OpenSSH_9.6p1 Debian-3`.
 */
import type { Identified } from './info.js';

const IDENTIFICATION = /^SSH-(\d+\.\d+)-(\S+)(?:[ \t]+([^\r\n]*))?/;

/** Known software names in the identification string, with the product they name. */
const SOFTWARE: ReadonlyArray<{ pattern: RegExp; product: string }> = [
  { pattern: /^OpenSSH_(\d+(?:\.\d+)*(?:p\d+)?)/, product: 'OpenSSH' },
  { pattern: /^dropbear_(\d+(?:\.\d+)*)/, product: 'Dropbear' },
  { pattern: /^libssh[-_](\d+(?:\.\d+)*)/, product: 'libssh' },
];

/** The SSH service an identification string names, or null when `text` is not one. */
export function identifySsh(text: string): Identified | null {
  const match = IDENTIFICATION.exec(text);
  if (!match) return null;
  const [, protocol = '', software = '', comment] = match;
  const details: Record<string, string> = { protocol, software };
  if (comment) details.comment = comment;
  for (const { pattern, product } of SOFTWARE) {
    const version = pattern.exec(software)?.[1];
    if (version) return { name: 'ssh', product, version, details };
  }
  // Unknown software: its name up to the first separator is the best product guess we have.
  const generic = /^([A-Za-z][A-Za-z0-9]*)(?:[_-](\d[\w.]*))?/.exec(software);
  return { name: 'ssh', product: generic?.[1] ?? null, version: generic?.[2] ?? null, details };
}
