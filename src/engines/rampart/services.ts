/**
 * Naming a service from its unprompted banner. Only greetings that identify their protocol
 * beyond doubt are named; real service detection (sending probes) comes in a later slice and
 * should extend this table rather than replace it.
 */

/** One recogniser: the service name when the banner clearly belongs to it. */
interface BannerRule {
  service: string;
  matches(text: string, bytes: Uint8Array): boolean;
}

const RULES: readonly BannerRule[] = [
  { service: 'ssh', matches: (text) => /^SSH-\d+\.\d+-/.test(text) },
  // `220` opens both FTP and SMTP greetings: only a banner that names its protocol decides.
  { service: 'smtp', matches: (text) => /^220[ -]/.test(text) && /smtp/i.test(text) && !/ftp/i.test(text) },
  { service: 'ftp', matches: (text) => /^220[ -]/.test(text) && /ftp/i.test(text) && !/smtp/i.test(text) },
  { service: 'pop3', matches: (text) => /^\+OK\b/.test(text) },
  { service: 'imap', matches: (text) => /^\* (OK|PREAUTH)\b/.test(text) },
  { service: 'redis', matches: (text) => /^-(ERR|DENIED)\b/.test(text) && /redis/i.test(text) },
  { service: 'vnc', matches: (text) => /^RFB \d{3}\.\d{3}\n/.test(text) },
  { service: 'mysql', matches: (_text, bytes) => isMysqlGreeting(bytes) },
];

/**
 * The service a banner names: a name when a rule clearly matches; `'unknown'` when the server
 * spoke but its greeting is ambiguous or unrecognised (a bare `220` could be FTP or SMTP); null
 * when there was no banner, since silence says nothing about the service.
 */
export function guessServiceFromBanner(bytes: Uint8Array): string | null {
  if (bytes.length === 0) return null;
  const text = Buffer.from(bytes).toString('latin1');
  return RULES.find((rule) => rule.matches(text, bytes))?.service ?? 'unknown';
}

/**
 * A MySQL / MariaDB initial handshake: a 3-byte length matching the packet, sequence 0,
 * protocol version 10, then a NUL-terminated printable server version.
 */
function isMysqlGreeting(bytes: Uint8Array): boolean {
  if (bytes.length < 7 || bytes[3] !== 0 || bytes[4] !== 0x0a) return false;
  const length = (bytes[0] ?? 0) | ((bytes[1] ?? 0) << 8) | ((bytes[2] ?? 0) << 16);
  if (length + 4 > bytes.length) return false;
  const end = bytes.indexOf(0, 5);
  if (end < 6) return false;
  for (let i = 5; i < end; i += 1) {
    const byte = bytes[i] ?? 0;
    if (byte < 0x20 || byte >= 0x7f) return false;
  }
  return true;
}
