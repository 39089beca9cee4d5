/**
 * Cleartext protocols: Telnet, and FTP / SMTP / POP3 / IMAP that do not offer an upgrade to TLS.
 * Services already on TLS (`service.tls`) are skipped. Whether STARTTLS is offered comes from
 * service detection (`details.starttls` = `yes` | `no`) when it said; otherwise we ask once
 * ourselves (FTP `FEAT`, POP3 `CAPA`, IMAP `CAPABILITY`, SMTP `EHLO`) and log out. No login.
 *
 * | Rule id                      | Threat | CWE     | Finding when                                             |
 * |------------------------------|--------|---------|----------------------------------------------------------|
 * | `rampart:telnet-cleartext`   | High   | CWE-319 | a Telnet service accepts a connection                    |
 * | `rampart:ftp-no-starttls`    | Medium | CWE-319 | FEAT lacks `AUTH TLS` (or FEAT is refused)               |
 * | `rampart:smtp-no-starttls`   | Medium | CWE-319 | EHLO lacks `STARTTLS` (or EHLO is refused: no ESMTP)     |
 * | `rampart:pop3-no-starttls`   | Medium | CWE-319 | CAPA lacks `STLS` (or CAPA is refused)                   |
 * | `rampart:imap-no-starttls`   | Medium | CWE-319 | CAPABILITY lacks `STARTTLS`                              |
 *
 * Threats come from the severity table (`../severity.ts`, docs/SEVERITY.md): Medium for mail and FTP
 * (credentials and content readable from the network path), High for Telnet (a whole shell
 * session hijackable from the path). A probe that gets no usable answer reports
 * nothing: "no STARTTLS" is only said when the server answered the capability question.
 */
import type { Check, CheckFinding, Endpoint, ServiceInfo } from './check.js';
import { readNumericReply, sendCommand } from '../protocols/reply.js';
import { withSession, type Session } from '../protocols/session.js';
import { printable } from './evidence.js';
import { severityOf } from '../severity.js';

type MailOrFtp = 'ftp' | 'smtp' | 'pop3' | 'imap';

/** What a capability probe learned: whether TLS upgrade is offered, and what was seen. */
interface StartTlsProbe {
  offered: boolean;
  evidence: string;
}

/** Capability lines (POP3 CAPA, IMAP CAPABILITY) read at most. */
const MAX_CAPABILITY_LINES = 50;
/** Telnet: how much of the first bytes to describe. */
const MAX_TELNET_BYTES = 512;

const PROTOCOLS: Record<MailOrFtp, { label: string; command: string; probe: (session: Session) => Promise<StartTlsProbe | null>; solution: string; references: string[] }> = {
  ftp: {
    label: 'FTP',
    command: 'AUTH TLS',
    probe: probeFtp,
    solution: 'Enable explicit FTPS (AUTH TLS; ssl_enable=YES in vsftpd) and require it for logins and data (force_local_logins_ssl, force_local_data_ssl), or replace FTP with SFTP.',
    references: ['https://www.rfc-editor.org/rfc/rfc4217', 'https://cwe.mitre.org/data/definitions/319.html'],
  },
  smtp: {
    label: 'SMTP',
    command: 'STARTTLS',
    probe: probeSmtp,
    solution: 'Offer STARTTLS with a valid certificate (and MTA-STS or DANE for server-to-server mail); require TLS on submission ports, or use implicit TLS on port 465.',
    references: ['https://www.rfc-editor.org/rfc/rfc3207', 'https://www.rfc-editor.org/rfc/rfc8314', 'https://cwe.mitre.org/data/definitions/319.html'],
  },
  pop3: {
    label: 'POP3',
    command: 'STLS',
    probe: probePop3,
    solution: 'Offer STLS and refuse logins before it, or serve POP3 over implicit TLS on port 995 only (RFC 8314).',
    references: ['https://www.rfc-editor.org/rfc/rfc2595', 'https://www.rfc-editor.org/rfc/rfc8314', 'https://cwe.mitre.org/data/definitions/319.html'],
  },
  imap: {
    label: 'IMAP',
    command: 'STARTTLS',
    probe: probeImap,
    solution: 'Offer STARTTLS and refuse logins before it (LOGINDISABLED), or serve IMAP over implicit TLS on port 993 only (RFC 8314).',
    references: ['https://www.rfc-editor.org/rfc/rfc3501#section-6.2.1', 'https://www.rfc-editor.org/rfc/rfc8314', 'https://cwe.mitre.org/data/definitions/319.html'],
  },
};

/** The cleartext check: applies to Telnet and to FTP, SMTP, POP3 and IMAP not already on TLS. */
export const cleartextCheck: Check = {
  id: 'cleartext',
  appliesTo: (service: ServiceInfo) => !service.tls && (service.name === 'telnet' || Object.hasOwn(PROTOCOLS, service.name)),
  async run(endpoint: Endpoint, service: ServiceInfo): Promise<CheckFinding[]> {
    if (service.tls) return [];
    if (service.name === 'telnet') return checkTelnet(endpoint);
    if (!Object.hasOwn(PROTOCOLS, service.name)) return [];
    const name = service.name as MailOrFtp;
    const protocol = PROTOCOLS[name];
    const known = service.details.starttls;
    let probe: StartTlsProbe | null;
    if (known === 'yes' || known === 'no') {
      probe = { offered: known === 'yes', evidence: `Service detection reported that the server does not offer ${protocol.command}.` };
    } else {
      probe = await withSession(endpoint, {}, null, protocol.probe);
    }
    if (!probe || probe.offered) return [];
    return [
      {
        ruleId: `rampart:${name}-no-starttls`,
        name: `${protocol.label} service without ${protocol.command}`,
        description: `The ${protocol.label} service does not offer an upgrade to TLS (${protocol.command}), so user names, passwords and content travel in clear text, readable and modifiable by anyone on the network path.`,
        solution: protocol.solution,
        ...severityOf(`rampart:${name}-no-starttls` as const),
        cve: [],
        cwe: 'CWE-319',
        evidence: printable(probe.evidence, 600),
        references: protocol.references,
      },
    ];
  },
};

async function checkTelnet(endpoint: Endpoint): Promise<CheckFinding[]> {
  const first = await withSession(endpoint, {}, null, (session) => session.readAvailable(MAX_TELNET_BYTES));
  if (first === null) return [];
  const seen = first.length === 0 ? 'sent nothing within the read timeout' : `sent: ${describeTelnet(first)}`;
  return [
    {
      ruleId: 'rampart:telnet-cleartext',
      name: 'Telnet service exposed',
      description: 'Telnet carries logins, passwords and whole sessions in clear text: anyone on the network path can read or hijack them. Telnet services are also a favourite target of credential-stuffing botnets.',
      solution: 'Disable the Telnet service and use SSH instead; if a device offers nothing else, reach it only through an isolated management network or VPN.',
      ...severityOf('rampart:telnet-cleartext'),
      cve: [],
      cwe: 'CWE-319',
      evidence: printable(`The Telnet service accepted a connection and ${seen}`, 600),
      references: ['https://www.rfc-editor.org/rfc/rfc854', 'https://cwe.mitre.org/data/definitions/319.html'],
    },
  ];
}

const TELNET_COMMANDS: Record<number, string> = { 251: 'WILL', 252: 'WONT', 253: 'DO', 254: 'DONT' };
const TELNET_OPTIONS: Record<number, string> = { 1: 'ECHO', 3: 'SUPPRESS-GO-AHEAD', 24: 'TERMINAL-TYPE', 31: 'NAWS', 32: 'TERMINAL-SPEED', 33: 'LFLOW', 34: 'LINEMODE', 35: 'X-DISPLAY', 36: 'OLD-ENVIRON', 39: 'NEW-ENVIRON' };

/** Telnet negotiation as words (`IAC DO TERMINAL-TYPE`), other bytes as printable text. */
export function describeTelnet(bytes: Buffer): string {
  const parts: string[] = [];
  let text = '';
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i]!;
    const command = bytes[i + 1];
    if (byte === 0xff && command !== undefined && TELNET_COMMANDS[command] && bytes[i + 2] !== undefined) {
      if (text) parts.push(JSON.stringify(text));
      text = '';
      const option = bytes[i + 2]!;
      parts.push(`IAC ${TELNET_COMMANDS[command]} ${TELNET_OPTIONS[option] ?? option}`);
      i += 2;
    } else {
      text += String.fromCharCode(byte);
    }
  }
  if (text) parts.push(JSON.stringify(text));
  return parts.join(', ');
}

/**
 * Ends the conversation politely and waits for the first line of the answer (bounded by the read
 * timeout), so servers log a clean logout rather than a dropped connection.
 */
async function sayGoodbye(session: Session, command: string): Promise<void> {
  session.write(`${command}\r\n`);
  await session.readLine(1024);
}

async function probeFtp(session: Session): Promise<StartTlsProbe | null> {
  const greeting = await readNumericReply(session);
  if (greeting?.code !== 220) return null;
  const feat = await sendCommand(session, 'FEAT');
  if (!feat) return null;
  await sayGoodbye(session, 'QUIT');
  if (feat.code !== 211) return { offered: false, evidence: `FEAT refused (${feat.lines[0]}): no AUTH TLS advertised. Greeting: ${greeting.lines[0]}` };
  const offered = feat.lines.some((line) => /^\s*AUTH\b.*\bTLS\b/i.test(line));
  return { offered, evidence: `FEAT answered without AUTH TLS: ${feat.lines.slice(1, -1).map((l) => l.trim()).join(', ') || '(no features)'}. Greeting: ${greeting.lines[0]}` };
}

async function probeSmtp(session: Session): Promise<StartTlsProbe | null> {
  const greeting = await readNumericReply(session);
  if (greeting?.code !== 220) return null;
  const ehlo = await sendCommand(session, 'EHLO rampart.local');
  if (!ehlo) return null;
  await sayGoodbye(session, 'QUIT');
  // A 4xx is a temporary refusal, not an answer; a 5xx means no ESMTP, hence no STARTTLS.
  if (ehlo.code >= 400 && ehlo.code < 500) return null;
  if (ehlo.code !== 250) return { offered: false, evidence: `EHLO refused (${ehlo.lines[0]}): no ESMTP, so no STARTTLS. Greeting: ${greeting.lines[0]}` };
  const keywords = ehlo.lines.slice(1).map((line) => line.slice(4).trim());
  const offered = keywords.some((k) => /^STARTTLS\b/i.test(k));
  return { offered, evidence: `EHLO answered without STARTTLS: ${keywords.join(', ') || '(no extensions)'}. Greeting: ${greeting.lines[0]}` };
}

async function probePop3(session: Session): Promise<StartTlsProbe | null> {
  const greeting = await session.readLine(512);
  if (!greeting?.startsWith('+OK')) return null;
  session.write('CAPA\r\n');
  const status = await session.readLine(512);
  if (status === null) return null;
  const capabilities: string[] = [];
  if (status.startsWith('+OK')) {
    for (let line = await session.readLine(512); line !== '.'; line = await session.readLine(512)) {
      if (line === null || capabilities.length >= MAX_CAPABILITY_LINES) return null;
      capabilities.push(line.trim());
    }
  } else if (!status.startsWith('-ERR')) {
    return null;
  }
  await sayGoodbye(session, 'QUIT');
  const offered = capabilities.some((c) => /^STLS\b/i.test(c));
  const seen = status.startsWith('+OK') ? `CAPA answered without STLS: ${capabilities.join(', ') || '(none)'}` : `CAPA refused (${status}): no STLS advertised`;
  return { offered, evidence: `${seen}. Greeting: ${greeting}` };
}

async function probeImap(session: Session): Promise<StartTlsProbe | null> {
  const greeting = await session.readLine(1024);
  // PREAUTH sessions are already logged in and cannot STARTTLS; BYE means no service.
  if (!greeting || !/^\* (OK|PREAUTH)\b/i.test(greeting)) return null;
  session.write('a001 CAPABILITY\r\n');
  const capabilities: string[] = [];
  for (let i = 0; ; i++) {
    const line = await session.readLine(4096);
    if (line === null || i >= MAX_CAPABILITY_LINES) return null;
    const untagged = /^\* CAPABILITY (.*)$/i.exec(line);
    if (untagged) capabilities.push(...untagged[1]!.trim().split(/\s+/));
    if (/^a001 /i.test(line)) {
      if (!/^a001 OK/i.test(line)) return null;
      break;
    }
  }
  await sayGoodbye(session, 'a002 LOGOUT');
  const offered = capabilities.some((c) => c.toUpperCase() === 'STARTTLS');
  return { offered, evidence: `CAPABILITY answered without STARTTLS: ${capabilities.join(' ') || '(none)'}. Greeting: ${greeting}` };
}
