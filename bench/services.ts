/**
 * bench/services: Rampart's service detection against `nmap -sV` on the same loopback ports, in
 * one run. The ports are this machine's own services (PostgreSQL, MariaDB, Redis, RabbitMQ,
 * Mosquitto, NATS, when running) and daemons the bench starts on random ports: sshd, vsftpd,
 * memcached, rsync and an nginx-like HTTP server. Prints a table and the agreement on service
 * and product names.
 *
 *   sudo npm run bench:services        (needs nmap; sshd/vsftpd/memcached/rsync when installed)
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createRampartEngine } from '../src/engines/rampart/rampart.engine.js';
import { detectService } from '../src/engines/rampart/services/detect.js';
import type { ServiceInfo } from '../src/engines/rampart/checks/check.js';
import { createAddressGuard } from '../src/shared/address-guard.js';
import { createEgress } from '../src/shared/egress.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rampart-bench-services-'));
const children: ChildProcess[] = [];

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

async function listening(port: number): Promise<boolean> {
  for (let i = 0; i < 100; i++) {
    const ok = await new Promise<boolean>((resolve) => {
      const s = net.connect(port, '127.0.0.1', () => (s.destroy(), resolve(true)));
      s.on('error', () => resolve(false));
    });
    if (ok) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return false;
}

/** Starts a daemon if its program exists; returns its port. */
async function daemon(program: string, args: (port: number) => string[]): Promise<number | undefined> {
  if (!fs.existsSync(program)) return undefined;
  const port = await freePort();
  children.push(spawn(program, args(port), { stdio: 'ignore' }));
  return (await listening(port)) ? port : undefined;
}

const ports: number[] = [];
for (const port of [5432, 3306, 6379, 5672, 1883, 4222]) if (await listening(port).then((ok) => ok)) ports.push(port);
const hostKey = path.join(dir, 'hostkey');
execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-f', hostKey, '-N', '']);
fs.mkdirSync('/run/sshd', { recursive: true });
fs.writeFileSync(path.join(dir, 'vsftpd.conf'), ['listen=YES', 'listen_ipv6=NO', 'listen_address=127.0.0.1', 'anonymous_enable=YES', `anon_root=${dir}`, 'secure_chroot_dir=/var/run', 'seccomp_sandbox=NO', 'run_as_launching_user=NO', ''].join('\n'));
fs.writeFileSync(path.join(dir, 'rsyncd.conf'), `[data]\npath = ${dir}\nread only = yes\n`);
const started = [
  await daemon('/usr/sbin/sshd', (p) => ['-D', '-e', '-f', '/dev/null', '-o', `Port=${p}`, '-o', 'ListenAddress=127.0.0.1', '-o', `HostKey=${hostKey}`, '-o', `PidFile=${dir}/sshd.pid`]),
  await daemon('/usr/sbin/vsftpd', (p) => [path.join(dir, 'vsftpd.conf'), `-olisten_port=${p}`]),
  await daemon('/usr/bin/memcached', (p) => ['-p', String(p), '-l', '127.0.0.1', '-U', '0', '-u', 'root']),
  await daemon('/usr/bin/rsync', (p) => ['--daemon', '--no-detach', '--port', String(p), '--address', '127.0.0.1', '--config', path.join(dir, 'rsyncd.conf')]),
];
const web = http.createServer((_req, res) => res.writeHead(200, { server: 'nginx/1.24.0', 'content-type': 'text/html' }).end('<html>hi</html>'));
await new Promise<void>((r) => web.listen(0, '127.0.0.1', r));
ports.push(...started.filter((p): p is number => p !== undefined), (web.address() as net.AddressInfo).port);

try {
  // Rampart: the engine's own service stage, recording what detection said for each port.
  const ours = new Map<number, ServiceInfo>();
  const engine = createRampartEngine({ checks: [], udp: false, detect: async (endpoint, banner) => { const s = await detectService(endpoint, banner); ours.set(endpoint.port, s); return s; } });
  let started = performance.now();
  for await (const _ of engine.run({
    targets: [{ kind: 'ip', value: '127.0.0.1' }],
    ports,
    limits: { connectTimeoutMs: 1500, readTimeoutMs: 3000, maxConcurrency: 64, ratePerSecond: 0 },
    guard: createAddressGuard(['127.0.0.1/32']),
    egress: createEgress({ guard: createAddressGuard(['127.0.0.1/32']) }),
    signal: new AbortController().signal,
    vulnerabilities: { syncedAt: new Date(), forCpe: async () => [] },
  })) void _;
  const rampartSeconds = (performance.now() - started) / 1000;

  started = performance.now();
  const xml = execFileSync('nmap', ['-sV', '-n', '-Pn', '-p', ports.join(','), '-oX', '-', '127.0.0.1'], { maxBuffer: 16 * 1024 * 1024 }).toString();
  const nmapSeconds = (performance.now() - started) / 1000;
  const theirs = new Map<number, { name: string; product: string }>();
  // One <port> element at a time: a port without a <service> must not borrow the next one's.
  for (const m of xml.matchAll(/<port protocol="tcp" portid="(\d+)">(.*?)<\/port>/gs)) {
    const service = /<service ([^>]*)\/?>/.exec(m[2]!)?.[1] ?? '';
    const attr = (n: string) => new RegExp(`\\b${n}="([^"]*)"`).exec(service)?.[1] ?? '';
    theirs.set(Number(m[1]), { name: attr('name') || '?', product: [attr('product'), attr('version')].filter(Boolean).join(' ') });
  }

  const alias: Record<string, string> = { 'http-proxy': 'http', https: 'http', 'ssl/http': 'http' };
  const norm = (s: string) => alias[s.toLowerCase()] ?? s.toLowerCase();
  const productKey = (s: string) => s.toLowerCase().split(/[\s/]/)[0] ?? '';
  let sameService = 0;
  let sameProduct = 0;
  let nmapProducts = 0;
  console.log('port   nmap -sV                                       Rampart');
  for (const port of ports) {
    const n = theirs.get(port) ?? { name: '?', product: '' };
    const r = ours.get(port);
    const rp = [r?.product, r?.version].filter(Boolean).join(' ');
    const serviceAgrees = r !== undefined && norm(n.name) === norm(r.name);
    const productAgrees = n.product !== '' && rp !== '' && productKey(n.product).includes(productKey(rp).replace(/httpd$/, '')) ;
    if (serviceAgrees) sameService++;
    if (n.product) nmapProducts++;
    if (productAgrees) sameProduct++;
    console.log(`${String(port).padEnd(6)} ${`${n.name} ${n.product}`.slice(0, 46).padEnd(46)} ${`${r?.name ?? '-'} ${rp}`.slice(0, 46)}${serviceAgrees ? '' : '   <- service differs'}`);
  }
  console.log(`service names agree on ${sameService}/${ports.length} ports; products agree on ${sameProduct}/${nmapProducts} ports where nmap named one`);
  console.log(`time: nmap -sV ${nmapSeconds.toFixed(1)} s, Rampart (detection only) ${rampartSeconds.toFixed(1)} s`);
} finally {
  for (const child of children) child.kill('SIGKILL');
  web.close();
  fs.rmSync(dir, { recursive: true, force: true });
}
