/**
 * Anonymous FTP: `USER anonymous` / `PASS rampart@example.com` — the one login Rampart ever
 * attempts, since whether it works is the question. When it does, writability is tested as
 * gently as possible: a passive data connection, `STOR` of an empty, uniquely named file, then
 * `DELE` of that file; first in the login directory, then in the conventional upload directories
 * (`upload`, `incoming`, `pub/incoming`) that exist, stopping at the first accepted upload.
 * The data connection goes to the endpoint's own address whatever the PASV reply names: a
 * hostile server naming 169.254.169.254 or another host of the network gets no connection there
 * (no FTP bounce), and the connection it does get goes through the egress, which checks it.
 */
import { randomBytes } from 'node:crypto';
import type { Socket } from 'node:net';
import net from 'node:net';
import { connectTcp } from '../port-scan.js';
import type { Check, CheckFinding, Endpoint, ServiceInfo } from './check.js';
import { sendCommand, readNumericReply, type NumericReply } from '../protocols/reply.js';
import { withSession, type Session } from '../protocols/session.js';
import { printable } from './evidence.js';
import { severityOf } from '../severity.js';

const ANONYMOUS_PASSWORD = 'rampart@example.com';
const REFERENCES = ['https://www.rfc-editor.org/rfc/rfc1635', 'https://cwe.mitre.org/data/definitions/284.html'];

/** The anonymous FTP check: applies to plain `ftp` (implicit FTPS is not probed). */
export const ftpAnonymousCheck: Check = {
  id: 'ftp-anonymous',
  appliesTo: (service: ServiceInfo) => service.name === 'ftp' && !service.tls,
  run: (endpoint: Endpoint) =>
    withSession(endpoint, {}, [] as CheckFinding[], async (session) => {
      const greeting = await readNumericReply(session);
      if (greeting?.code !== 220) return [];
      let login = await sendCommand(session, 'USER anonymous');
      if (login?.code === 331) login = await sendCommand(session, `PASS ${ANONYMOUS_PASSWORD}`);
      if (login?.code !== 230) return [];
      const findings = [anonymousFinding(greeting, login)];
      const write = await testWrite(session, endpoint);
      if (write) findings.push(writableFinding(write));
      session.write('QUIT\r\n');
      await readNumericReply(session);
      return findings;
    }),
};

interface WriteResult {
  /** Where the test file went: the login directory, or one of `UPLOAD_DIRECTORIES` under it. */
  directory: string;
  fileName: string;
  storReply: string;
  removed: boolean;
  deleReply: string;
}

/**
 * Directories tried after the login directory, relative to it: vsftpd (among others) refuses a
 * writable anonymous root, so writable anonymous servers conventionally accept uploads here.
 */
const UPLOAD_DIRECTORIES = ['upload', 'incoming', 'pub/incoming'];

/**
 * Tries to store an empty file in the login directory, then in each existing upload directory,
 * and removes it again; null when no upload was accepted. At most one file is created.
 */
async function testWrite(session: Session, endpoint: Endpoint): Promise<WriteResult | null> {
  if (!(await sendCommand(session, 'TYPE I'))) return null;
  const home = await currentDirectory(session);
  for (const directory of home === null ? [''] : ['', ...UPLOAD_DIRECTORIES]) {
    const path = directory ? `${home === '/' ? '' : home}/${directory}` : (home ?? '(login directory)');
    if (directory) {
      const cwd = await sendCommand(session, `CWD ${path}`);
      if (cwd === null) return null;
      if (cwd.code !== 250) continue;
    }
    const result = await tryStore(session, endpoint);
    if (result === 'lost') return null;
    if (result) return { ...result, directory: path };
  }
  return null;
}

/** One STOR of an empty, uniquely named file in the current directory (then DELE); 'lost' when the connection died. */
async function tryStore(session: Session, endpoint: Endpoint): Promise<Omit<WriteResult, 'directory'> | null | 'lost'> {
  const dataPort = await openPassivePort(session, endpoint);
  if (dataPort === null) return 'lost';
  const outcome = await connectTcp(endpoint.egress, endpoint.address, dataPort, endpoint.limits.connectTimeoutMs, endpoint.signal);
  if (outcome.state !== 'connected') return 'lost';
  const data: Socket = outcome.socket;
  try {
    const fileName = `rampart-write-test-${randomBytes(8).toString('hex')}.txt`;
    const start = await sendCommand(session, `STOR ${fileName}`);
    if (start === null) return 'lost';
    if (start.code !== 125 && start.code !== 150) return null;
    data.end(); // zero bytes: the file stays empty
    const done = await readNumericReply(session);
    // Whatever the final reply, a started upload may have left a file: always try to remove it.
    const dele = await sendCommand(session, `DELE ${fileName}`);
    if (done?.code !== 226 && done?.code !== 250) return done ? null : 'lost';
    return { fileName, storReply: lastLine(done), removed: dele?.code === 250, deleReply: dele ? lastLine(dele) : 'no reply' };
  } finally {
    data.destroy();
  }
}

/** The directory named by a `257 "<path>"` PWD reply (`""` unescaped), or null. */
async function currentDirectory(session: Session): Promise<string | null> {
  const pwd = await sendCommand(session, 'PWD');
  const quoted = pwd?.code === 257 ? /"((?:[^"]|"")*)"/.exec(lastLine(pwd)) : null;
  return quoted ? quoted[1]!.replace(/""/g, '"') : null;
}

/** EPSV first (works over IPv6 and names only a port), then PASV on IPv4; the port to connect to, or null. */
async function openPassivePort(session: Session, endpoint: Endpoint): Promise<number | null> {
  const epsv = await sendCommand(session, 'EPSV');
  const extended = epsv?.code === 229 ? /\(([!-~])\1\1(\d{1,5})\1\)/.exec(lastLine(epsv)) : null;
  if (extended) return validPort(Number(extended[2]));
  if (net.isIPv6(endpoint.address)) return null;
  const pasv = await sendCommand(session, 'PASV');
  const classic = pasv?.code === 227 ? /(\d{1,3}),(\d{1,3}),(\d{1,3}),(\d{1,3}),(\d{1,3}),(\d{1,3})/.exec(lastLine(pasv)) : null;
  return classic ? validPort(Number(classic[5]) * 256 + Number(classic[6])) : null;
}

function validPort(port: number): number | null {
  return Number.isInteger(port) && port > 0 && port < 65536 ? port : null;
}

function lastLine(reply: NumericReply): string {
  return reply.lines[reply.lines.length - 1] ?? '';
}

function anonymousFinding(greeting: NumericReply, login: NumericReply): CheckFinding {
  return {
    ruleId: 'rampart:ftp-anonymous',
    name: 'FTP server allows anonymous login',
    description:
      'The FTP server accepts the anonymous user. Unless it is deliberately a public archive, files on it are readable by anyone, and FTP sends everything, including any real passwords used on it, in clear text.',
    solution: 'Disable anonymous access (anonymous_enable=NO in vsftpd, or the equivalent) unless the server is meant to be a public archive; then make sure it holds only public files.',
    ...severityOf('rampart:ftp-anonymous'),
    cve: [],
    cwe: 'CWE-284',
    evidence: printable(`Greeting: ${lastLine(greeting)}. USER anonymous / PASS ${ANONYMOUS_PASSWORD} answered: ${lastLine(login)}.`, 400),
    references: REFERENCES,
  };
}

function writableFinding(write: WriteResult): CheckFinding {
  const cleanup = write.removed
    ? 'The test file was removed again with DELE.'
    : `The test file could NOT be removed (DELE answered: ${write.deleReply}); delete it by hand.`;
  return {
    ruleId: 'rampart:ftp-anonymous-write',
    name: 'FTP server allows anonymous uploads',
    description:
      'Anonymous users can store files on the FTP server. It can be used to host malware or illegal content, to fill the disk, or to plant files that other services serve or execute.',
    solution: 'Disable anonymous writes (anon_upload_enable=NO, anon_mkdir_write_enable=NO, anon_other_write_enable=NO in vsftpd), or restrict them to a drop-box directory that is not readable or served.',
    ...severityOf('rampart:ftp-anonymous-write'),
    cve: [],
    cwe: 'CWE-732',
    evidence: printable(`As anonymous, STOR of an empty file ${write.fileName} in ${write.directory} completed: ${write.storReply}. ${cleanup}`, 400),
    references: REFERENCES,
  };
}
