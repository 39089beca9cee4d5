/**
 * Mail protocols. SMTP: a `220` greeting, then `EHLO` lists the extensions (RFC 5321 4.1.1.1),
 * `STARTTLS` among them (RFC 3207). POP3: `+OK` greeting, `CAPA` (RFC 2449) with `STLS`
 * (RFC 2595). IMAP: `* OK` greeting, `CAPABILITY` (RFC 9051) with `STARTTLS`. Nothing past the
 * capability listing is sent: no login, no mail command.
 */
import { DETECTION_SESSION, untilLine, untilLineMatching, withSession, type Session } from '../protocols/session.js';
import { replyText, sendCommand } from '../protocols/reply.js';
import { linesOf, type Identified } from './info.js';
import type { Endpoint } from '../checks/check.js';

/** The name our EHLO gives: `.invalid` (RFC 2606) cannot be anybody's real domain. */
const CLIENT_NAME = 'rampart.invalid';

const SMTP_PRODUCTS: ReadonlyArray<{ pattern: RegExp; product: string }> = [
  { pattern: /\bESMTP Postfix\b/, product: 'Postfix' },
  { pattern: /\bExim (\d[\w.]*)/, product: 'Exim' },
  { pattern: /\bSendmail (\d[\w.]*)/, product: 'Sendmail' },
  { pattern: /\bOpenSMTPD\b/, product: 'OpenSMTPD' },
  { pattern: /Microsoft ESMTP MAIL Service/, product: 'Microsoft SMTP' },
];

/**
 * Says `EHLO` on a session past its `220` greeting. Identifies SMTP on a `250` answer, or on
 * any numbered answer when the greeting already said (E)SMTP; null otherwise.
 */
export async function probeSmtp(session: Session, greeting: string): Promise<Identified | null> {
  const reply = await sendCommand(session, `EHLO ${CLIENT_NAME}`);
  const saidSmtp = /\bE?SMTP\b/i.test(greeting);
  if (reply?.code !== 250 && !(saidSmtp && reply)) return null;
  // The first line of a 250 answer is the server's name; the others are extension keywords.
  const extensions = reply?.code === 250 ? replyText(reply).slice(1) : [];
  const details: Record<string, string> = {
    starttls: extensions.some((line) => /^STARTTLS\b/i.test(line)) ? 'yes' : 'no',
  };
  const auth = extensions.find((line) => /^AUTH[ =]/i.test(line));
  if (auth) details.auth_mechanisms = auth.slice(5).trim();
  if (extensions.length > 0) details.extensions = extensions.join(', ');
  const named = SMTP_PRODUCTS.find(({ pattern }) => pattern.test(greeting));
  return { name: 'smtp', product: named?.product ?? null, version: named?.pattern.exec(greeting)?.[1] ?? null, details };
}

const MAILBOX_PRODUCTS: ReadonlyArray<{ pattern: RegExp; product: string }> = [
  { pattern: /\bDovecot\b/, product: 'Dovecot' },
  { pattern: /\bCyrus (?:IMAP|POP3)(?: v| )?(\d[\w.]*)?/, product: 'Cyrus IMAP' },
  { pattern: /\bCourier-IMAP\b/, product: 'Courier' },
  { pattern: /\bMicrosoft Exchange\b/, product: 'Microsoft Exchange' },
];

function mailboxProduct(greeting: string): Pick<Identified, 'product' | 'version'> {
  const named = MAILBOX_PRODUCTS.find(({ pattern }) => pattern.test(greeting));
  return { product: named?.product ?? null, version: named?.pattern.exec(greeting)?.[1] ?? null };
}

/** POP3: reads the `+OK` greeting, asks `CAPA`, says `QUIT`. Null when the greeting is not POP3. */
export function probePop3(endpoint: Endpoint, tls: boolean): Promise<Identified | null> {
  return withSession(endpoint, { ...DETECTION_SESSION, tls }, null, async (session) => {
    const greeting = linesOf(await session.readUntil(untilLine)).join('\n');
    if (!/^\+OK\b/.test(greeting)) return null;
    session.write('CAPA\r\n');
    const capa = linesOf(await session.readUntil(untilLineMatching(/^(\.|-ERR\b.*)$/)));
    session.write('QUIT\r\n');
    const capabilities = capa[0]?.startsWith('+OK') ? capa.slice(1).filter((line) => line !== '.') : [];
    const details: Record<string, string> = {
      starttls: capabilities.some((line) => /^STLS\b/i.test(line)) ? 'yes' : 'no',
    };
    if (capabilities.length > 0) details.capabilities = capabilities.join(', ');
    const implementation = capabilities.find((line) => /^IMPLEMENTATION /i.test(line));
    return { name: 'pop3', ...mailboxProduct(`${greeting} ${implementation ?? ''}`), details };
  });
}

/**
 * IMAP: takes the capabilities from the greeting when it lists them (`* OK [CAPABILITY ...]`),
 * else asks `CAPABILITY`, then says `LOGOUT`. Null when the greeting is not IMAP.
 */
export function probeImap(endpoint: Endpoint, tls: boolean): Promise<Identified | null> {
  return withSession(endpoint, { ...DETECTION_SESSION, tls }, null, async (session) => {
    const greeting = linesOf(await session.readUntil(untilLine))[0] ?? '';
    if (!/^\* (OK|PREAUTH)\b/i.test(greeting)) return null;
    let capabilities = /\[CAPABILITY ([^\]]*)\]/i.exec(greeting)?.[1];
    if (capabilities === undefined) {
      session.write('r1 CAPABILITY\r\n');
      const answer = linesOf(await session.readUntil(untilLineMatching(/^r1 /)));
      capabilities = answer.find((line) => /^\* CAPABILITY /i.test(line))?.slice(13);
    }
    session.write('r2 LOGOUT\r\n');
    const list = capabilities?.trim().split(/\s+/) ?? [];
    const details: Record<string, string> = { starttls: list.some((c) => /^STARTTLS$/i.test(c)) ? 'yes' : 'no' };
    if (list.length > 0) details.capabilities = list.join(' ');
    if (list.some((c) => /^LOGINDISABLED$/i.test(c))) details.login_disabled = 'yes';
    if (/^\* PREAUTH\b/i.test(greeting)) details.auth = 'none';
    return { name: 'imap', ...mailboxProduct(greeting), details };
  });
}
