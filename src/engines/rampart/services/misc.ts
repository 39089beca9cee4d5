/**
 * Services recognised from their first bytes alone: Telnet (option negotiation), rsync daemon
 * (`@RSYNCD:` greeting) and VNC (`RFB` version string); and SMUX, from its answer to any request
 * that is not its own.
 */
import type { Identified } from './info.js';

const IAC = 0xff;
/** WILL, WONT, DO, DONT (RFC 854): the verbs a telnet server opens its negotiation with. */
const NEGOTIATION_VERBS = new Set([0xfb, 0xfc, 0xfd, 0xfe]);
const VERB_NAMES: Readonly<Record<number, string>> = { 0xfb: 'WILL', 0xfc: 'WONT', 0xfd: 'DO', 0xfe: 'DONT' };

/**
 * Telnet: a server that opens with `IAC <verb> <option>` triples, e.g. netkit telnetd's
 * `DO TERMINAL-TYPE, DO TSPEED, ...`. The options asked for go to `details.negotiation`.
 */
export function identifyTelnet(bytes: Uint8Array): Identified | null {
  if (bytes[0] !== IAC || !NEGOTIATION_VERBS.has(bytes[1] ?? 0) || bytes.length < 3) return null;
  const asked: string[] = [];
  for (let i = 0; i + 2 < bytes.length && bytes[i] === IAC; i += 3) {
    const verb = bytes[i + 1] ?? 0;
    if (!NEGOTIATION_VERBS.has(verb)) break;
    asked.push(`${VERB_NAMES[verb]} ${bytes[i + 2]}`);
  }
  return { name: 'telnet', details: { negotiation: asked.join(', ') } };
}

/** rsync daemon: `@RSYNCD: <protocol>[.<sub>] [digests]`; the protocol version is not a release. */
export function identifyRsync(text: string): Identified | null {
  const match = /^@RSYNCD: (\d+(?:\.\d+)?)(?: ([^\r\n]*))?/.exec(text);
  if (!match) return null;
  const details: Record<string, string> = { protocol: match[1] ?? '' };
  if (match[2]) details.digests = match[2];
  return { name: 'rsync', product: 'rsync', details };
}

/** VNC: the server's `RFB xxx.yyy\n` protocol version (RFC 6143 7.1.1). */
export function identifyVnc(text: string): Identified | null {
  const match = /^RFB (\d{3})\.(\d{3})\n/.exec(text);
  if (!match) return null;
  return { name: 'vnc', details: { protocol: `${Number(match[1])}.${Number(match[2])}` } };
}

/** SMUX ClosePDU reasons (RFC 1227 §3.1.2). */
const SMUX_CLOSE_REASONS = ['goingDown', 'unsupportedVersion', 'packetFormat', 'protocolError', 'internalError', 'authenticationFailure'];

/**
 * SMUX, the SNMP multiplexing protocol (RFC 1227, Net-SNMP's `smuxsocket`, usually 199/tcp): a
 * silent server that answers anything other than an OpenPDU with a three-byte ClosePDU
 * (`[APPLICATION 1]`, length 1, the reason, e.g. `41 01 02` packetFormat) and closes.
 */
export function identifySmux(bytes: Uint8Array): Identified | null {
  if (bytes.length !== 3 || bytes[0] !== 0x41 || bytes[1] !== 0x01) return null;
  const reason = SMUX_CLOSE_REASONS[bytes[2] ?? 0xff];
  return reason ? { name: 'smux', details: { close_reason: reason } } : null;
}
