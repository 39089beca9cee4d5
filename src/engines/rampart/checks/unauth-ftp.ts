/**
 * Anonymous FTP: `USER anonymous` / `PASS rampart@example.com` — the public login FTP defines,
 * not a credential (the engine's only credential attempt is the MySQL empty-password login,
 * `mysql.ts`), since whether it works is the question. When it does, what the anonymous user can
 * read is listed (`MLSD` when `FEAT` offers MLST, else `LIST`; from the login directory down
 * to `MAX_DEPTH` levels, at most `MAX_DIRECTORIES` listings), file names that suggest dumps,
 * backups, keys or credentials are flagged, and writability is INFERRED, never tested: Rampart
 * never creates, changes or deletes anything on a scanned host (an anonymous upload often cannot
 * be deleted by the same user, so a test file would be left behind). A directory counts as
 * probably writable when MLSD's `perm=` fact grants this session create rights, or its listed
 * mode lets everyone write, or it belongs to the anonymous session's own account (as `STAT`
 * names it) with the owner's write bit (ftp-listing.ts); that finding carries a lower quality of
 * detection and says why.
 * The data connection goes to the endpoint's own address whatever the PASV reply names: a
 * hostile server naming 169.254.169.254 or another host of the network gets no connection there
 * (no FTP bounce), and the connection it does get goes through the egress, which checks it.
 */
import net from 'node:net';
import { connectTcp } from '../port-scan.js';
import type { Check, CheckFinding, Endpoint, ServiceInfo } from './check.js';
import { sendCommand, readNumericReply, replyText, type NumericReply } from '../protocols/reply.js';
import { Session, takeToken, withSession } from '../protocols/session.js';
import { printable } from './evidence.js';
import { parseListing, parseMlsd, writableGuess, type FtpEntry, type WritableGuess } from './ftp-listing.js';
import { describeSensitive } from './sensitive-names.js';
import { severityOf } from '../severity.js';

const ANONYMOUS_PASSWORD = 'rampart@example.com';
const REFERENCES = ['https://www.rfc-editor.org/rfc/rfc1635', 'https://cwe.mitre.org/data/definitions/284.html'];
/** Directory levels listed below the login directory. */
const MAX_DEPTH = 2;
/** `LIST` commands per server at most (each opens one data connection). */
const MAX_DIRECTORIES = 20;
/** Bytes of one listing read at most; the rest is dropped. */
const MAX_LISTING_BYTES = 256 * 1024;
/** Names quoted in evidence at most. */
const MAX_NAMES_SHOWN = 30;
/**
 * Quality of detection of a writability inferred from a listing (`probable`): OpenVAS's
 * "remote_analysis" level, shown at the default threshold but below a version match (80), since
 * the server's own upload switch may still refuse what the file system would allow.
 */
export const INFERRED_WRITE_QOD = 70;
/**
 * Quality of detection when only a numeric owner suggests it (`possible`): OpenVAS's
 * "remote_probe" level, hidden at the default threshold (70) and shown when asked for.
 */
export const POSSIBLE_WRITE_QOD = 50;

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
      const account = await sessionAccount(session);
      const mlsd = await offersMlst(session);
      const tree = await listTree(session, endpoint, mlsd);
      const findings = [anonymousFinding(greeting, login, tree)];
      const sensitive = describeSensitive(tree.files.map((file) => file.path));
      if (sensitive.length > 0) findings.push(sensitiveFinding(sensitive));
      const writable = tree.directories.flatMap((directory) => {
        const guess = writableGuess(directory.entry, account);
        return guess === null ? [] : [{ path: directory.path, ...guess }];
      });
      if (writable.length > 0) findings.push(writableFinding(writable, account));
      session.write('QUIT\r\n');
      await readNumericReply(session);
      return findings;
    }),
};

interface Listed {
  path: string;
  entry: FtpEntry;
}

/** What the walk saw: files and directories with their full paths, and how many listings it made. */
interface Tree {
  files: Listed[];
  directories: Listed[];
  listed: number;
  /** The walk stopped at a bound (depth, listings) with directories left unlisted. */
  incomplete: boolean;
}

/** The account the anonymous session runs as, from `STAT` ("Logged in as ftp" in vsftpd); null when unsaid. */
async function sessionAccount(session: Session): Promise<string | null> {
  const stat = await sendCommand(session, 'STAT');
  if (stat === null || stat.code !== 211) return null;
  const line = replyText(stat).find((text) => /Logged in as /i.test(text));
  return line ? (/Logged in as (\S+)/i.exec(line)?.[1] ?? null) : null;
}

/** Whether `FEAT` lists MLST (then `MLSD` gives typed entries and this session's `perm=` rights). */
async function offersMlst(session: Session): Promise<boolean> {
  const feat = await sendCommand(session, 'FEAT');
  return feat?.code === 211 && replyText(feat).some((line) => /^\s*MLST\b/i.test(line));
}

/** Lists the login directory and its subdirectories breadth first, within the bounds. */
async function listTree(session: Session, endpoint: Endpoint, mlsd: boolean): Promise<Tree> {
  const tree: Tree = { files: [], directories: [], listed: 0, incomplete: false };
  const home = (await currentDirectory(session)) ?? '/';
  const queue: Array<{ path: string; depth: number }> = [{ path: home, depth: 0 }];
  const join = (parent: string, name: string): string => `${parent.endsWith('/') ? parent : `${parent}/`}${name}`;
  let attempts = 0;
  while (queue.length > 0 && !endpoint.signal.aborted) {
    if (attempts++ >= MAX_DIRECTORIES) {
      tree.incomplete = true;
      break;
    }
    const { path, depth } = queue.shift()!;
    // The login directory is where the session already is: no CWD (some servers refuse CWD to it).
    const listing = await listDirectory(session, endpoint, depth === 0 ? null : path, mlsd);
    if (listing === 'lost') break;
    if (listing !== null) tree.listed += 1;
    // Only MLSD describes the login directory itself (its `cdir` entry); below, the parent's listing does.
    if (depth === 0 && listing?.self) tree.directories.push({ path, entry: listing.self });
    for (const entry of listing?.entries ?? []) {
      const listed = { path: join(path, entry.name), entry };
      if (entry.type === 'dir') {
        tree.directories.push(listed);
        // Links are not followed: they may loop or lead outside what the server meant to share.
        if (depth < MAX_DEPTH) queue.push({ path: listed.path, depth: depth + 1 });
        else tree.incomplete = true;
      } else if (entry.type === 'file') {
        tree.files.push(listed);
      }
    }
  }
  return tree;
}

/**
 * `CWD` (unless `path` is null: the current directory) then `MLSD` or `LIST` over a passive data
 * connection; null when refused, 'lost' when the control connection died.
 */
async function listDirectory(session: Session, endpoint: Endpoint, path: string | null, mlsd: boolean): Promise<{ entries: FtpEntry[]; self: FtpEntry | null } | null | 'lost'> {
  if (path !== null) {
    const cwd = await sendCommand(session, `CWD ${path}`);
    if (cwd === null) return 'lost';
    if (cwd.code !== 250) return null;
  }
  const dataPort = await openPassivePort(session, endpoint);
  if (dataPort === null || !(await takeToken(endpoint))) return 'lost';
  const outcome = await connectTcp(endpoint.egress, endpoint.address, dataPort, endpoint.limits.connectTimeoutMs, endpoint.signal);
  if (outcome.state !== 'connected') return 'lost';
  const data = new Session(outcome.socket, endpoint, null, MAX_LISTING_BYTES);
  try {
    const start = await sendCommand(session, mlsd ? 'MLSD' : 'LIST');
    if (start === null) return 'lost';
    if (start.code !== 125 && start.code !== 150) return null;
    // The server closes the data connection when the listing is complete.
    const listing = await data.readUntil(() => false);
    const done = await readNumericReply(session);
    if (done === null) return 'lost';
    const text = listing.toString('latin1');
    return mlsd ? parseMlsd(text) : { entries: parseListing(text), self: null };
  } finally {
    data.close();
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

function shown(names: readonly string[]): string {
  const head = names.slice(0, MAX_NAMES_SHOWN).join(', ');
  return names.length > MAX_NAMES_SHOWN ? `${head} and ${names.length - MAX_NAMES_SHOWN} more` : head;
}

function anonymousFinding(greeting: NumericReply, login: NumericReply, tree: Tree): CheckFinding {
  const bounds = tree.incomplete ? `; listing stopped at ${MAX_DEPTH} levels or ${MAX_DIRECTORIES} directories` : '';
  const readable =
    tree.files.length === 0
      ? `No file visible in ${tree.listed} listed director${tree.listed === 1 ? 'y' : 'ies'}${bounds}.`
      : `Visible to anonymous: ${tree.files.length} file(s) in ${tree.listed} listed director${tree.listed === 1 ? 'y' : 'ies'}${bounds}: ${shown(tree.files.map((file) => file.path))}.`;
  return {
    ruleId: 'rampart:ftp-anonymous',
    name: 'FTP server allows anonymous login',
    description:
      'The FTP server accepts the anonymous user. Unless it is deliberately a public archive, files on it are readable by anyone, and FTP sends everything, including any real passwords used on it, in clear text.',
    solution: 'Disable anonymous access (anonymous_enable=NO in vsftpd, or the equivalent) unless the server is meant to be a public archive; then make sure it holds only public files.',
    ...severityOf('rampart:ftp-anonymous'),
    cve: [],
    cwe: 'CWE-284',
    evidence: printable(`Greeting: ${lastLine(greeting)}. USER anonymous / PASS ${ANONYMOUS_PASSWORD} answered: ${lastLine(login)}. ${readable}`, 1500),
    references: REFERENCES,
  };
}

function sensitiveFinding(sensitive: readonly string[]): CheckFinding {
  return {
    ruleId: 'rampart:ftp-sensitive-files',
    name: 'Sensitive-looking files visible to anonymous FTP users',
    description:
      'Anonymous FTP users can see files whose names suggest database dumps, backups, archives, keys, credentials or configuration. Judged on the names only: Rampart did not download them.',
    solution: 'Move dumps, backups, keys and configuration out of the anonymous FTP tree (or disable anonymous access), and rotate any secret they held.',
    ...severityOf('rampart:ftp-sensitive-files'),
    cve: [],
    cwe: 'CWE-538',
    evidence: printable(`Listed as anonymous: ${shown(sensitive)}.`, 1500),
    references: [...REFERENCES, 'https://cwe.mitre.org/data/definitions/538.html'],
  };
}

function writableFinding(writable: ReadonlyArray<{ path: string } & WritableGuess>, account: string | null): CheckFinding {
  const who = account === null ? 'STAT did not name the session account (assumed ftp/anonymous)' : `STAT: logged in as ${account}`;
  const probable = writable.some((directory) => directory.strength === 'probable');
  // The strongest evidence first: a reader sees at once why the finding has its QoD.
  const ordered = [...writable].sort((a, b) => (a.strength === b.strength ? 0 : a.strength === 'probable' ? -1 : 1));
  return {
    ruleId: 'rampart:ftp-anonymous-write',
    name: probable ? 'FTP server probably allows anonymous uploads' : 'FTP server may allow anonymous uploads',
    description:
      'Directories the anonymous user can reach look writable by that user in the listing. If uploads are allowed, the server can be used to host malware or illegal content, to fill the disk, or to plant files that other services serve or execute. ' +
      'Inferred from the listed permissions and owners, not tested: Rampart never writes on a scanned host, and the FTP server may still refuse uploads its file system would allow.',
    solution: 'Disable anonymous writes (anon_upload_enable=NO, anon_mkdir_write_enable=NO, anon_other_write_enable=NO in vsftpd), or restrict them to a drop-box directory that is not readable or served; remove write permission for the anonymous account from directories that need none.',
    ...severityOf('rampart:ftp-anonymous-write'),
    cve: [],
    cwe: 'CWE-732',
    evidence: printable(
      `Not tested by writing (nothing was created). ${who}. ${probable ? 'Probably' : 'Possibly'} writable: ${shown(ordered.map((d) => `${d.path} (${d.reason})`))}.`,
      1500,
    ),
    references: REFERENCES,
    qod: probable ? INFERRED_WRITE_QOD : POSSIBLE_WRITE_QOD,
  };
}
