/**
 * Real daemons on random loopback ports for the Rampart check tests: redis-server, sshd,
 * vsftpd, memcached, an rsync daemon and MariaDB. Each `start*` returns `{port, stop}` once the port
 * accepts connections, registers `stop` (and the removal of its temporary files) with
 * `t.after`, and returns null after `t.skip()` naming the Debian package when the program is
 * missing (or, for sshd and vsftpd, when not running as root).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { chmod, chown, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TestContext } from 'node:test';
import type { Endpoint, ServiceInfo } from '../../src/engines/rampart/checks/check.js';
import { LOOPBACK_EGRESS } from './egress.js';

export interface Daemon {
  port: number;
  stop(): Promise<void>;
}

/** How long a daemon may take to accept its first connection. */
const START_TIMEOUT_MS = 15_000;
/** Pause between two connection attempts while a daemon starts. */
const RETRY_DELAY_MS = 20;

/** Skips the test with the package to install when `program` is absent; true when it is there. */
export function requireProgram(t: TestContext, program: string, debianPackage: string): boolean {
  if (existsSync(program)) return true;
  t.skip(`${program} not found: install the Debian package ${debianPackage}`);
  return false;
}

function requireRoot(t: TestContext, what: string): boolean {
  if (process.getuid?.() === 0) return true;
  t.skip(`${what} must be started as root for this test`);
  return false;
}

/** A TCP port that was free a moment ago on 127.0.0.1. */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A temporary directory removed after the test. */
export async function tempDir(t: TestContext, prefix: string): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), `rampart-${prefix}-`));
  // Retried: `after` hooks run in the order they were added, so a process the test started later
  // (a daemon in this directory) may still be writing in it while it is removed.
  // Never thrown: a failed hook would skip the hooks after it, leaving their processes running.
  t.after(() => rm(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 }).catch(() => undefined));
  return dir;
}

/** Spawns `command`, waits until `port` of `host` (default loopback) accepts a connection, and stops it after the test. */
export async function spawnDaemon(t: TestContext, command: string, args: string[], port: number, env?: NodeJS.ProcessEnv, host = '127.0.0.1'): Promise<Daemon> {
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], ...(env ? { env: { ...process.env, ...env } } : {}) });
  let output = '';
  const keep = (chunk: Buffer): void => {
    if (output.length < 8192) output += chunk.toString('utf8');
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const exited = once(child, 'exit');
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await exited;
    }
  };
  t.after(stop);
  try {
    await waitForPort(host, port, child, () => output);
  } catch (error) {
    await stop();
    throw error;
  }
  return { port, stop };
}

/** Retries a connect until one succeeds, the child exits (with its output in the error) or time runs out. */
async function waitForPort(host: string, port: number, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`${child.spawnfile} exited (${child.exitCode ?? child.signalCode}) before listening: ${output()}`);
    }
    const connected = await new Promise<boolean>((resolve) => {
      const socket = net.connect({ host, port });
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => {
        socket.destroy();
        resolve(false);
      });
    });
    if (connected) return;
    if (Date.now() > deadline) throw new Error(`${child.spawnfile} did not listen on ${port}: ${output()}`);
    await new Promise((resolve) => setTimeout(resolve, RETRY_DELAY_MS));
  }
}

/** redis-server without persistence; `password` turns on requirepass. */
export async function startRedis(t: TestContext, options: { password?: string } = {}): Promise<Daemon | null> {
  const program = '/usr/bin/redis-server';
  if (!requireProgram(t, program, 'redis-server')) return null;
  const port = await freePort();
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--protected-mode', 'no'];
  if (options.password) args.push('--requirepass', options.password);
  return spawnDaemon(t, program, args, port);
}

/** memcached on TCP only. */
export async function startMemcached(t: TestContext): Promise<Daemon | null> {
  const program = '/usr/bin/memcached';
  if (!requireProgram(t, program, 'memcached')) return null;
  const port = await freePort();
  return spawnDaemon(t, program, ['-p', String(port), '-l', '127.0.0.1', '-U', '0', '-u', 'root'], port);
}

/** sshd with a fresh Ed25519 host key and no config file; `options` are extra `-o` settings. */
export async function startSshd(t: TestContext, options: string[] = []): Promise<Daemon | null> {
  const program = '/usr/sbin/sshd';
  if (!requireProgram(t, program, 'openssh-server') || !requireProgram(t, '/usr/bin/ssh-keygen', 'openssh-client') || !requireRoot(t, 'sshd')) return null;
  const dir = await tempDir(t, 'sshd');
  const hostKey = path.join(dir, 'hostkey');
  execFileSync('/usr/bin/ssh-keygen', ['-q', '-t', 'ed25519', '-f', hostKey, '-N', ''], { stdio: 'ignore' });
  // Privilege separation needs this directory; Debian creates it when the service starts.
  await mkdir('/run/sshd', { recursive: true, mode: 0o755 });
  const port = await freePort();
  const args = ['-D', '-e', '-f', '/dev/null', '-o', `Port=${port}`, '-o', 'ListenAddress=127.0.0.1', '-o', `HostKey=${hostKey}`, '-o', `PidFile=${path.join(dir, 'pid')}`];
  for (const option of options) args.push('-o', option);
  return spawnDaemon(t, program, args, port);
}

export interface FtpDaemon extends Daemon {
  /** The anonymous root directory (read-only; with `writable`, its `upload` directory is not). */
  root: string;
  /** vsftpd's log of every FTP command and reply (log_ftp_protocol). */
  log: string;
}

/**
 * vsftpd allowing anonymous login in a temporary root holding `readme.txt` and the `files` given
 * (relative paths, directories made as needed); `writable` also allows anonymous upload and delete.
 */
export async function startVsftpd(t: TestContext, options: { writable?: boolean; files?: Record<string, string> } = {}): Promise<FtpDaemon | null> {
  const program = '/usr/sbin/vsftpd';
  if (!requireProgram(t, program, 'vsftpd') || !requireRoot(t, 'vsftpd')) return null;
  const dir = await tempDir(t, 'vsftpd');
  const root = path.join(dir, 'root');
  const empty = path.join(dir, 'empty');
  await mkdir(root);
  await mkdir(empty);
  await writeFile(path.join(root, 'readme.txt'), 'public file\n');
  for (const [name, content] of Object.entries(options.files ?? {})) {
    await mkdir(path.dirname(path.join(root, name)), { recursive: true, mode: 0o755 });
    await writeFile(path.join(root, name), content, { mode: 0o644 });
  }
  // vsftpd's chroot wants directories root owns; the ftp user must be able to enter them.
  await chmod(dir, 0o755);
  await chmod(empty, 0o755);
  await chmod(root, 0o555);
  // vsftpd refuses a writable anonymous root whatever allow_writeable_chroot says: uploads go to
  // an `upload` directory the ftp user owns, as on real anonymous drop boxes.
  if (options.writable) {
    const ftpUid = Number(execFileSync('id', ['-u', 'ftp']).toString().trim());
    await mkdir(path.join(root, 'upload'), { mode: 0o755 });
    await chown(path.join(root, 'upload'), ftpUid, -1);
  }
  const port = await freePort();
  const lines = [
    'listen=YES',
    'listen_ipv6=NO',
    `listen_port=${port}`,
    'listen_address=127.0.0.1',
    'background=NO',
    'anonymous_enable=YES',
    'local_enable=NO',
    'no_anon_password=NO',
    `anon_root=${root}`,
    `secure_chroot_dir=${empty}`,
    'seccomp_sandbox=NO',
    'xferlog_enable=YES',
    'log_ftp_protocol=YES',
    `vsftpd_log_file=${path.join(dir, 'vsftpd.log')}`,
    'pasv_enable=YES',
    'pasv_address=127.0.0.1',
  ];
  if (options.writable) lines.push('write_enable=YES', 'anon_upload_enable=YES', 'anon_other_write_enable=YES', 'anon_umask=022');
  const config = path.join(dir, 'vsftpd.conf');
  await writeFile(config, `${lines.join('\n')}\n`, { mode: 0o600 });
  const daemon = await spawnDaemon(t, program, [config], port);
  return { ...daemon, root, log: path.join(dir, 'vsftpd.log') };
}

/** An rsync daemon sharing one read-only module per entry of `modules` (name -> comment). */
export async function startRsyncd(t: TestContext, modules: Record<string, string>): Promise<Daemon | null> {
  const program = '/usr/bin/rsync';
  if (!requireProgram(t, program, 'rsync')) return null;
  const dir = await tempDir(t, 'rsyncd');
  const sections = Object.entries(modules).map(([name, comment]) => `[${name}]\n  path = ${dir}\n  comment = ${comment}\n  read only = yes\n`);
  const config = path.join(dir, 'rsyncd.conf');
  await writeFile(config, `use chroot = no\nlog file = ${path.join(dir, 'log')}\n${sections.join('')}`);
  const port = await freePort();
  return spawnDaemon(t, program, ['--daemon', '--no-detach', '--port', String(port), '--address', '127.0.0.1', '--config', config], port);
}

/** Net-SNMP's snmpd with its SMUX socket (RFC 1227) on a random TCP port, the port returned; its agent on a random UDP port. */
export async function startSnmpdSmux(t: TestContext): Promise<Daemon | null> {
  const program = '/usr/sbin/snmpd';
  if (!requireProgram(t, program, 'snmpd')) return null;
  const dir = await tempDir(t, 'snmpd');
  const port = await freePort();
  const config = path.join(dir, 'snmpd.conf');
  await writeFile(config, `rocommunity public 127.0.0.1\nsmuxsocket 127.0.0.1:${port}\n`);
  // No MIB files to load (they are optional), and state kept in the temporary directory.
  const env = { MIBS: '', MIBDIRS: dir, SNMP_PERSISTENT_DIR: dir };
  return spawnDaemon(t, program, ['-Lo', '-f', '-C', '-c', config, `udp:127.0.0.1:${await freePort()}`], port, env);
}

/**
 * A private MariaDB server with its own data directory (mariadb-install-db, a few seconds), so
 * the shared server's accounts are never touched. `root` reaches it over TCP from 127.0.0.1 with
 * `rootPassword`; `tls` gives it a fresh self-signed certificate (else it offers no TLS). Its
 * unix `socket` lets the OS root in (socket authentication) to change accounts in a test.
 */
export async function startMariadb(t: TestContext, options: { rootPassword: string; tls: boolean }): Promise<(Daemon & { socket: string }) | null> {
  const program = '/usr/sbin/mariadbd';
  if (!requireProgram(t, program, 'mariadb-server') || !requireProgram(t, '/usr/bin/mariadb-install-db', 'mariadb-server')) return null;
  const dir = await tempDir(t, 'mariadb');
  const data = path.join(dir, 'data');
  execFileSync('/usr/bin/mariadb-install-db', ['--no-defaults', `--datadir=${data}`, '--auth-root-authentication-method=socket', '--skip-test-db'], {
    stdio: 'ignore',
  });
  const init = path.join(dir, 'init.sql');
  const password = options.rootPassword.replace(/'/g, "''");
  // The init file takes one statement per line.
  await writeFile(init, `CREATE USER root@'127.0.0.1' IDENTIFIED BY '${password}';\nGRANT ALL ON *.* TO root@'127.0.0.1' WITH GRANT OPTION;\n`);
  const port = await freePort();
  const args = ['--no-defaults', '--user=root', `--datadir=${data}`, `--socket=${path.join(dir, 'sock')}`, `--port=${port}`, '--bind-address=127.0.0.1', '--skip-name-resolve'];
  args.push(`--pid-file=${path.join(dir, 'pid')}`, `--init-file=${init}`, '--innodb-buffer-pool-size=16M', '--skip-log-bin');
  if (options.tls) {
    const key = path.join(dir, 'key.pem');
    const cert = path.join(dir, 'cert.pem');
    execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', key, '-out', cert, '-days', '2', '-subj', '/CN=localhost'], { stdio: 'ignore' });
    args.push(`--ssl-cert=${cert}`, `--ssl-key=${key}`);
  } else {
    args.push('--skip-ssl');
  }
  return { ...(await spawnDaemon(t, program, args, port)), socket: path.join(dir, 'sock') };
}

// ---------------------------------------------------------------------------------------------
// Fake servers and check inputs

export interface ScriptedServer {
  port: number;
  /** Connections accepted so far. */
  readonly connections: number;
  /** Resolves once every accepted socket has closed (the check released it). */
  allClosed(): Promise<void>;
}

/**
 * A loopback server that hands each connection to `script`; sockets are destroyed and the
 * server closed after the test.
 */
export async function startScriptedServer(t: TestContext, script: (socket: net.Socket) => void): Promise<ScriptedServer> {
  const sockets = new Set<net.Socket>();
  const closed: Promise<unknown>[] = [];
  const server = net.createServer((socket) => {
    sockets.add(socket);
    // Not events.once: it would reject on a reset, and a reset is a way of closing too.
    closed.push(new Promise((resolve) => socket.once('close', resolve)));
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
    script(socket);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.after(
    () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  );
  return {
    port: (server.address() as net.AddressInfo).port,
    get connections() {
      return closed.length;
    },
    allClosed: async () => {
      await Promise.all(closed);
    },
  };
}

/** Calls `onLine` with each CRLF/LF-terminated line a socket receives (without the line ending). */
export function onLines(socket: net.Socket, onLine: (line: string) => void): void {
  let pending = '';
  socket.on('data', (chunk: Buffer) => {
    pending += chunk.toString('latin1');
    for (let end = pending.indexOf('\n'); end >= 0; end = pending.indexOf('\n')) {
      const line = pending.slice(0, end).replace(/\r$/, '');
      pending = pending.slice(end + 1);
      onLine(line);
    }
  });
}

/** Limits generous enough for a loaded CI machine; tests never assert on timing. */
export const TEST_LIMITS = { connectTimeoutMs: 5000, readTimeoutMs: 5000, maxConcurrency: 4, ratePerSecond: 0 };

/** A check endpoint on 127.0.0.1. */
export function loopbackEndpoint(port: number, options: { signal?: AbortSignal; readTimeoutMs?: number } = {}): Endpoint {
  return {
    hostname: '127.0.0.1',
    address: '127.0.0.1',
    port,
    limits: { ...TEST_LIMITS, ...(options.readTimeoutMs === undefined ? {} : { readTimeoutMs: options.readTimeoutMs }) },
    signal: options.signal ?? new AbortController().signal,
    egress: LOOPBACK_EGRESS,
  };
}

/** What service detection would have said: `name`, plain TCP, nothing else unless given. */
export function serviceInfo(name: string, overrides: Partial<ServiceInfo> = {}): ServiceInfo {
  return { name, product: null, version: null, cpe: null, tls: false, banner: null, details: {}, ...overrides };
}
