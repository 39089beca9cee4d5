/**
 * SSH authentication methods: completes a key exchange (protocols/ssh-transport.ts), asks for the
 * `ssh-userauth` service and sends one `none` request (RFC 4252 §5.2) for a user name no system
 * has; the failure answer lists the methods the server offers. No password, key or answer is sent.
 *
 * | Rule id                     | Threat                      | CWE     | When                                          |
 * |-----------------------------|-----------------------------|---------|-----------------------------------------------|
 * | `rampart:ssh-password-auth` | Medium on a public address, Low otherwise | CWE-307 | `password` or `keyboard-interactive` is offered |
 *
 * Why: a server that takes passwords can be guessed at and credential-stuffed by anyone who
 * reaches it; keys cannot. On an internet-facing server (a public address: not loopback,
 * private, CGNAT, link-local or unique-local; src/shared/address-blocks.ts) that is every bot on
 * the internet, so Medium; on a private address only those inside the network (an insider, or an
 * attacker moving laterally), so Low. Not High: a strong password with rate limiting holds, and
 * keyboard-interactive is also how one-time codes are asked for, which cannot be told remotely.
 */
import { classifyAddress } from '../../../shared/address-guard.js';
import { checkFinding, type Check, type CheckFinding, type Endpoint, type ServiceInfo } from './check.js';
import { severityOf } from '../severity.js';
import { withSession } from '../protocols/session.js';
import { CLIENT_IDENT, readIdentification, SshClient, SshUnsupported } from '../protocols/ssh-transport.js';
import { printable } from './evidence.js';

/** A user name that exists nowhere, so the `none` request can never log in. */
export const SSH_PROBE_USER = 'rampart-scan-nonexistent';
const PASSWORD_METHODS = ['password', 'keyboard-interactive'];

/** The SSH authentication-methods check: applies to every plain `ssh` service. */
export const sshAuthMethodsCheck: Check = {
  id: 'ssh-auth-methods',
  appliesTo: (service: ServiceInfo) => service.name === 'ssh' && !service.tls,
  run: (endpoint: Endpoint) =>
    withSession(endpoint, {}, [] as CheckFinding[], async (session) => {
      const serverIdent = await readIdentification(session);
      if (serverIdent === null || !/^SSH-(2\.0|1\.99)-/.test(serverIdent)) return [];
      session.write(`${CLIENT_IDENT}\r\n`);
      const client = new SshClient(session);
      const kexInit = await client.readPacket();
      if (!kexInit) return [];
      try {
        await client.exchangeKeys(CLIENT_IDENT, serverIdent, kexInit);
      } catch (error) {
        if (error instanceof SshUnsupported) return [];
        throw error;
      }
      const answer = await client.authMethods(SSH_PROBE_USER);
      client.disconnect();
      if (answer === null || answer === 'accepted') return [];
      return assessAuthMethods(endpoint.address, serverIdent, answer.methods);
    }),
};

/** Findings for the methods a server listed (exported for unit tests). */
export function assessAuthMethods(address: string, serverIdent: string, methods: string[]): CheckFinding[] {
  const offered = methods.filter((method) => PASSWORD_METHODS.includes(method));
  if (offered.length === 0) return [];
  const internetFacing = isPublic(address);
  const where = internetFacing
    ? `${address} is a public address: anyone on the internet can try passwords here.`
    : `${address} is not a public address (loopback, private or otherwise internal): only hosts inside that network can try passwords here.`;
  return [
    checkFinding({
      ruleId: 'rampart:ssh-password-auth',
      name: internetFacing ? 'Internet-facing SSH server accepts password authentication' : 'SSH server accepts password authentication',
      description:
        `The server offers ${offered.join(' and ')} authentication, so accounts can be attacked by password guessing and credential stuffing; public-key authentication cannot. ` +
        (internetFacing ? 'The server is on a public address, where automated guessing never stops.' : 'The server is on an internal address, reachable by insiders or an attacker already inside.') +
        ' keyboard-interactive may also carry a one-time code (a second factor), which cannot be seen from outside.',
      solution:
        'Use public keys (or certificates) only: PasswordAuthentication no and KbdInteractiveAuthentication no in sshd_config (keep keyboard-interactive only when it asks for a second factor), and rate-limit or firewall the port.',
      ...severityOf('rampart:ssh-password-auth', internetFacing ? 'Medium' : 'Low'),
      cwe: 'CWE-307',
      evidence: `A "none" authentication request for the non-existent user ${SSH_PROBE_USER} was answered with the methods: ${printable(methods.join(','), 200)}. ${where} Server identification: ${printable(serverIdent, 120)}.`,
      references: ['https://www.rfc-editor.org/rfc/rfc4252#section-5.2', 'https://man.openbsd.org/sshd_config#PasswordAuthentication', 'https://cwe.mitre.org/data/definitions/307.html'],
    }),
  ];
}

function isPublic(address: string): boolean {
  try {
    return classifyAddress(address) === 'public';
  } catch {
    return false;
  }
}
