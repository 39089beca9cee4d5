/**
 * bench/network-hosts: builds the test network of bench/network. One network namespace per host
 * (a veth pair, 198.18.<100+i>.2/24 in the namespace, .1 on our side), each an ordinary Debian 12
 * server running this machine's real Debian daemons bound to its address, with temporary config
 * and data directories. `destroyNetwork` kills every process left in the namespaces and deletes
 * them; it also clears what a crashed earlier run left behind.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, chown, mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The hosts, in namespace order; the truth table of bench/network names them. */
export const HOST_NAMES = ['web', 'web-safe', 'files', 'files-safe', 'data', 'data-safe', 'tls', 'tls-safe'] as const;
export type HostName = (typeof HOST_NAMES)[number];

export const addressOf = (host: HostName): string => `198.18.${101 + HOST_NAMES.indexOf(host)}.2`;
const nsOf = (i: number) => `rampart-net-${i}`;

/** How long a daemon may take to accept its first connection (MariaDB under load is the slowest). */
const START_TIMEOUT_MS = 60_000;
const POLL_MS = 50;

const sh = (cmd: string) => execFileSync('sh', ['-c', cmd], { stdio: 'pipe' }).toString();

/** Per-host TLS material issued by bench/network's CA (PEM file paths). */
export type Certificates = Record<HostName, { cert: string; key: string }> & { ca: string };

export interface Network {
  children: ChildProcess[];
  dir: string;
}

/** Kills everything in our namespaces and deletes them (and their veths); safe to call twice. */
export function destroyNetwork(network?: Network): void {
  for (const child of network?.children ?? []) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  HOST_NAMES.forEach((_, k) => {
    const ns = nsOf(k + 1);
    sh(`for p in $(ip netns pids ${ns} 2>/dev/null); do kill -9 $p 2>/dev/null; done; ip netns del ${ns} 2>/dev/null; ip link del rnet${k + 1}a 2>/dev/null; true`);
  });
  if (network) execFileSync('rm', ['-rf', network.dir]);
}

/**
 * Throws unless every host's address is routed through its veth. Without the namespaces (deleted by
 * a crash, or by a second bench run) the addresses would follow the default route off this machine.
 */
export function assertRoutes(): void {
  HOST_NAMES.forEach((host, k) => {
    const route = sh(`ip route get ${addressOf(host)}`);
    if (!route.includes(`dev rnet${k + 1}a `)) throw new Error(`${addressOf(host)} is not routed through rnet${k + 1}a (${route.trim()}): the test network is gone`);
  });
}

/** Creates the namespaces and starts every daemon; throws (after cleaning up) when one does not start. */
export async function createNetwork(certs: Certificates): Promise<Network> {
  destroyNetwork();
  const network: Network = { children: [], dir: await mkdtemp(path.join(tmpdir(), 'rampart-net-')) };
  await chmod(network.dir, 0o755);
  try {
    HOST_NAMES.forEach((_, k) => {
      const i = k + 1;
      const ns = nsOf(i);
      sh(`ip netns add ${ns} && ip link add rnet${i}a type veth peer name rnet${i}b && ip link set rnet${i}b netns ${ns}`);
      sh(`ip addr add 198.18.${100 + i}.1/24 dev rnet${i}a && ip link set rnet${i}a up`);
      sh(`ip netns exec ${ns} sh -c 'ip addr add 198.18.${100 + i}.2/24 dev rnet${i}b && ip link set rnet${i}b up && ip link set lo up'`);
    });
    const d = new Daemons(network);
    await Promise.all([d.mariadb('data', { password: null, certs }), d.mariadb('data-safe', { password: secret(), certs })]);
    for (const host of HOST_NAMES) await d.sshd(host, host === 'web' ? 'weak' : 'hardened');
    await d.fake('web', 'telnet', [23]);
    await d.fake('web', 'apache', [80]);
    await d.fake('web-safe', 'hardened-web', [80, 443], certs['web-safe']);
    await d.vsftpd('files', null);
    await d.vsftpd('files-safe', certs['files-safe']);
    await d.rsyncd('files', false);
    await d.rsyncd('files-safe', true);
    await d.redis('data', null);
    await d.redis('data-safe', secret());
    await d.memcached('data', true);
    await d.memcached('data-safe', false);
    await d.snmpd('data', 'public', false);
    await d.snmpd('data-safe', secret(), true);
    await d.sServer('tls', certs.tls, 'ALL:eNULL:@SECLEVEL=0', []);
    await d.sServer('tls-safe', certs['tls-safe'], 'ECDHE+AESGCM:ECDHE+CHACHA20', ['-no_tls1', '-no_tls1_1', '-serverpref']);
    return network;
  } catch (error) {
    destroyNetwork(network);
    throw error;
  }
}

const secret = () => randomBytes(12).toString('hex');

class Daemons {
  constructor(private readonly network: Network) {}

  private async dir(host: HostName, daemon: string): Promise<string> {
    const dir = path.join(this.network.dir, `${host}-${daemon}`);
    await mkdir(dir, { recursive: true, mode: 0o755 });
    return dir;
  }

  /** Runs `command` in the host's namespace; resolves once `ready` holds (a TCP port accepts, or a line was printed). */
  async spawn(host: HostName, command: string, args: string[], ready: { port: number } | { output: RegExp } | null, env?: Record<string, string>): Promise<ChildProcess> {
    if (!existsSync(command)) throw new Error(`${command} not found (bench/network needs it: see the README's Debian package list)`);
    const ns = nsOf(HOST_NAMES.indexOf(host) + 1);
    const child = spawn('ip', ['netns', 'exec', ns, command, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
    this.network.children.push(child);
    let output = '';
    const keep = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4000));
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
    if (ready === null) return child;
    const deadline = Date.now() + START_TIMEOUT_MS;
    const what = `${path.basename(command)} on ${host}`;
    for (;;) {
      if (child.exitCode !== null || child.signalCode !== null) throw new Error(`${what} exited (${child.exitCode ?? child.signalCode}): ${output}`);
      if ('output' in ready ? ready.output.test(output) : await accepts(addressOf(host), ready.port)) return child;
      if (Date.now() > deadline) throw new Error(`${what} did not start within ${START_TIMEOUT_MS / 1000} s: ${output}`);
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  }

  /** Debian's sshd; `weak` allows passwords and offers CBC/3DES ciphers, SHA-1 key exchange and MD5 MACs. */
  async sshd(host: HostName, kind: 'weak' | 'hardened'): Promise<void> {
    const dir = await this.dir(host, 'sshd');
    const hostKey = path.join(dir, 'ssh_host_ed25519_key');
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-f', hostKey, '-N', '']);
    await mkdir('/run/sshd', { recursive: true, mode: 0o755 });
    const common = [`ListenAddress ${addressOf(host)}`, 'Port 22', `HostKey ${hostKey}`, `PidFile ${dir}/sshd.pid`, 'PermitRootLogin no', 'UsePAM no'];
    const settings =
      kind === 'weak'
        ? [
            'PasswordAuthentication yes',
            'KbdInteractiveAuthentication yes',
            'KexAlgorithms curve25519-sha256,diffie-hellman-group14-sha256,diffie-hellman-group-exchange-sha1,diffie-hellman-group1-sha1',
            'Ciphers aes128-ctr,aes256-ctr,aes128-cbc,aes256-cbc,3des-cbc',
            'MACs hmac-sha2-256,hmac-sha1,hmac-md5',
          ]
        : [
            'PasswordAuthentication no',
            'KbdInteractiveAuthentication no',
            'AuthenticationMethods publickey',
            'KexAlgorithms sntrup761x25519-sha512@openssh.com,curve25519-sha256,curve25519-sha256@libssh.org',
            'Ciphers chacha20-poly1305@openssh.com,aes256-gcm@openssh.com,aes128-gcm@openssh.com',
            'MACs hmac-sha2-256-etm@openssh.com,hmac-sha2-512-etm@openssh.com',
            'HostKeyAlgorithms ssh-ed25519',
          ];
    const config = path.join(dir, 'sshd_config');
    await writeFile(config, [...common, ...settings, ''].join('\n'), { mode: 0o600 });
    await this.spawn(host, '/usr/sbin/sshd', ['-D', '-e', '-f', config], { port: 22 });
  }

  /** A Node stand-in of bench/network-fakes.ts. */
  async fake(host: HostName, kind: string, ports: number[], tls?: { cert: string; key: string }): Promise<void> {
    const script = path.join(path.dirname(fileURLToPath(import.meta.url)), 'network-fakes.js');
    await this.spawn(host, process.execPath, [script, kind, addressOf(host), ...(tls ? [tls.cert, tls.key] : [])], { output: /^ready$/m });
    for (const port of ports) if (!(await accepts(addressOf(host), port))) throw new Error(`${kind} on ${host} does not accept on ${port}`);
  }

  /** vsftpd; without TLS: anonymous login with a readable backup.sql and a writable upload/ directory. With TLS: no anonymous login, TLS required. */
  async vsftpd(host: HostName, tls: { cert: string; key: string } | null): Promise<void> {
    const dir = await this.dir(host, 'vsftpd');
    const root = path.join(dir, 'root');
    const empty = path.join(dir, 'empty');
    await mkdir(root, { mode: 0o755 });
    await mkdir(empty, { mode: 0o755 });
    await mkdir(path.join(root, 'pub'), { mode: 0o755 });
    await writeFile(path.join(root, 'pub', 'README'), 'Public mirror of the shop\'s price lists.\n');
    await writeFile(path.join(root, 'backup.sql'), '-- MariaDB dump 10.19\nCREATE TABLE `customers` (`id` int, `email` varchar(255));\n', { mode: 0o644 });
    await chmod(root, 0o555);
    const ftpUid = Number(execFileSync('id', ['-u', 'ftp']).toString().trim());
    await mkdir(path.join(root, 'upload'), { mode: 0o755 });
    await chown(path.join(root, 'upload'), ftpUid, -1);
    const lines = [
      'listen=YES', 'listen_ipv6=NO', 'listen_port=21', `listen_address=${addressOf(host)}`, 'background=NO',
      'no_anon_password=NO', `anon_root=${root}`, `secure_chroot_dir=${empty}`, 'seccomp_sandbox=NO',
      'pasv_enable=YES', `pasv_address=${addressOf(host)}`, 'xferlog_enable=NO',
    ];
    if (tls) {
      // Local accounts only, and only over TLS (no account on this host has a password anyone knows).
      lines.push('anonymous_enable=NO', 'local_enable=YES', 'ssl_enable=YES', `rsa_cert_file=${tls.cert}`, `rsa_private_key_file=${tls.key}`, 'allow_anon_ssl=NO',
        'force_local_logins_ssl=YES', 'force_local_data_ssl=YES', 'ssl_tlsv1=YES', 'ssl_sslv2=NO', 'ssl_sslv3=NO', 'require_ssl_reuse=NO',
        'ssl_ciphers=ECDHE-RSA-AES128-GCM-SHA256:ECDHE-RSA-AES256-GCM-SHA384');
    } else {
      lines.push('local_enable=NO', 'anonymous_enable=YES', 'write_enable=YES', 'anon_upload_enable=YES', 'anon_mkdir_write_enable=YES', 'anon_umask=022');
    }
    const config = path.join(dir, 'vsftpd.conf');
    await writeFile(config, `${lines.join('\n')}\n`, { mode: 0o600 });
    await this.spawn(host, '/usr/sbin/vsftpd', [config], { port: 21 });
  }

  /** rsync daemon; open: an anonymous, listed `backup` module; closed: `list = no`, auth users with a secrets file. */
  async rsyncd(host: HostName, closed: boolean): Promise<void> {
    const dir = await this.dir(host, 'rsyncd');
    await mkdir(path.join(dir, 'data'), { mode: 0o755 });
    await writeFile(path.join(dir, 'data', 'site.tar.gz'), 'x');
    const secrets = path.join(dir, 'secrets');
    await writeFile(secrets, `backup:${secret()}\n`, { mode: 0o600 });
    const module = closed
      ? `[backup]\n  path = ${dir}/data\n  comment = nightly backups\n  read only = yes\n  list = no\n  auth users = backup\n  secrets file = ${secrets}\n`
      : `[backup]\n  path = ${dir}/data\n  comment = nightly backups\n  read only = yes\n`;
    const config = path.join(dir, 'rsyncd.conf');
    await writeFile(config, `use chroot = no\nuid = nobody\ngid = nogroup\npid file = ${dir}/pid\n${module}`);
    await this.spawn(host, '/usr/bin/rsync', ['--daemon', '--no-detach', '--port', '873', '--address', addressOf(host), '--config', config], { port: 873 });
  }

  /** redis-server without persistence; a password turns on requirepass (and protected mode stays off either way). */
  async redis(host: HostName, password: string | null): Promise<void> {
    const args = ['--port', '6379', '--bind', addressOf(host), '--save', '', '--appendonly', 'no', '--protected-mode', 'no', '--dir', await this.dir(host, 'redis')];
    if (password) args.push('--requirepass', password);
    await this.spawn(host, '/usr/bin/redis-server', args, { port: 6379 });
  }

  /** memcached; exposed: TCP and UDP on the host's address; otherwise bound to the namespace's loopback. */
  async memcached(host: HostName, exposed: boolean): Promise<void> {
    if (!exposed) {
      // Not reachable from the network: there is nothing to wait for from outside.
      await this.spawn(host, '/usr/bin/memcached', ['-p', '11211', '-U', '0', '-l', '127.0.0.1', '-u', 'root'], null);
      return;
    }
    await this.spawn(host, '/usr/bin/memcached', ['-p', '11211', '-U', '11211', '-l', addressOf(host), '-u', 'root'], { port: 11211 });
  }

  /**
   * snmpd answering v1/v2c reads for `community` on UDP. net-snmp also opens its SMUX port 199/tcp
   * on every address unless told otherwise: left so on the weak host, kept on loopback on the twin.
   */
  async snmpd(host: HostName, community: string, hardened: boolean): Promise<void> {
    const dir = await this.dir(host, 'snmpd');
    const config = path.join(dir, 'snmpd.conf');
    const smux = hardened ? 'smuxsocket 127.0.0.1\n' : '';
    await writeFile(config, `agentAddress udp:${addressOf(host)}:161\nrocommunity ${community}\n${smux}sysLocation Server room\nsysContact ops@example.test\n`);
    await this.spawn(host, '/usr/sbin/snmpd', ['-f', '-Lo', '-C', '-c', config, '-p', path.join(dir, 'pid')], { output: /NET-SNMP version/ }, { SNMP_PERSISTENT_DIR: dir });
  }

  /** openssl s_server on 443 with the given suites; no -www, so it speaks no HTTP. */
  async sServer(host: HostName, tls: { cert: string; key: string }, ciphers: string, extra: string[]): Promise<void> {
    await this.spawn(host, '/usr/bin/openssl', ['s_server', '-accept', `${addressOf(host)}:443`, '-cert', tls.cert, '-key', tls.key, '-cipher', ciphers, '-quiet', ...extra], { port: 443 });
  }

  /**
   * A private MariaDB: mariadb-install-db into a temp dir, then mariadbd on the host's 3306.
   * Weak: root@'%' with an empty password and no TLS. Safe: root@'%' with a password, TLS required.
   */
  async mariadb(host: HostName, options: { password: string | null; certs: Certificates }): Promise<void> {
    const dir = await this.dir(host, 'mariadb');
    const data = path.join(dir, 'data');
    const socket = path.join(dir, 'mysqld.sock');
    execFileSync('/usr/bin/mariadb-install-db', ['--no-defaults', `--datadir=${data}`, '--user=root', '--auth-root-authentication-method=normal', '--skip-test-db'], { stdio: 'pipe', timeout: START_TIMEOUT_MS });
    const args = ['--no-defaults', `--datadir=${data}`, `--socket=${socket}`, '--port=3306', `--bind-address=${addressOf(host)}`, '--user=root',
      `--pid-file=${dir}/pid`, '--skip-name-resolve', '--innodb-buffer-pool-size=16M', '--skip-log-bin', `--log-error=${dir}/error.log`];
    const safe = options.password !== null;
    if (safe) {
      const own = options.certs[host];
      args.push(`--ssl-cert=${own.cert}`, `--ssl-key=${own.key}`, `--ssl-ca=${options.certs.ca}`, '--require-secure-transport=ON');
    }
    await this.spawn(host, '/usr/sbin/mariadbd', args, { port: 3306 });
    const sql = safe
      ? `CREATE USER 'root'@'%' IDENTIFIED BY '${options.password}' REQUIRE SSL; GRANT ALL PRIVILEGES ON *.* TO 'root'@'%' WITH GRANT OPTION;`
      : "CREATE USER 'root'@'%' IDENTIFIED BY ''; GRANT ALL PRIVILEGES ON *.* TO 'root'@'%' WITH GRANT OPTION;";
    // mariadbd may accept on TCP a moment before its socket file exists.
    for (const deadline = Date.now() + START_TIMEOUT_MS; !existsSync(socket); ) {
      if (Date.now() > deadline) throw new Error(`mariadbd on ${host} created no socket ${socket}`);
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
    execFileSync('/usr/bin/mariadb', ['--no-defaults', `--socket=${socket}`, '-uroot', '-e', `${sql} CREATE DATABASE shop; FLUSH PRIVILEGES;`], { stdio: 'pipe', timeout: START_TIMEOUT_MS });
  }
}

/** Whether address:port accepts a TCP connection now (within 1 s). */
function accepts(address: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: address, port, timeout: 1000 });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
    socket.once('timeout', () => done(false));
  });
}

