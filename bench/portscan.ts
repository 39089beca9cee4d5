/**
 * bench/portscan: Rampart's port scan against `nmap -sT -T4` on the same hosts and ports, in one
 * run. The hosts are 127.0.0.1 and four test hosts in network namespaces this bench creates (the
 * RFC 2544 benchmarking range 198.18.0.0/15, reachable only through their veth pairs), each with
 * real listeners, closed ports (RST) and firewalled ports (nft drop), so both scanners meet open,
 * closed and filtered ports. Prints both wall times, their ratio and the agreement on open ports
 * for each round, then over all rounds: in how many Rampart's open ports were exactly nmap's, how
 * many of nmap's open ports it found, how many of its runs it called complete, and the median
 * time ratio.
 *
 *   sudo npm run bench:portscan                       (needs root, iproute2, nftables and nmap: see README)
 *   sudo npm run bench:portscan -- --busy             (the same with the CPU busy: a second process
 *                                                      spinning every core while both scanners run)
 *   sudo npm run bench:portscan -- --rounds 3 --hosts 2
 *
 * Rampart runs its engine in process with the service stage reduced to the connect (no banner,
 * no detection, no checks), which is what `nmap -sT` does; both scan Rampart's default port list.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { parseArgs } from 'node:util';
import { createRampartEngine } from '../src/engines/rampart/rampart.engine.js';
import { DEFAULT_TCP_PORTS } from '../src/engines/rampart/ports.js';
import { createAddressGuard } from '../src/shared/address-guard.js';
import type { EngineEvent, JobTarget } from '../src/engines/engine.js';
import { createEgress } from '../src/shared/egress.js';

const { values } = parseArgs({
  options: { hosts: { type: 'string', default: '4' }, rounds: { type: 'string', default: '10' }, busy: { type: 'boolean', default: false } },
});
const HOSTS = Number(values.hosts);

function need(command: string, pkg: string): void {
  try {
    execFileSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' });
  } catch {
    console.error(`bench/portscan needs ${command} (Debian package ${pkg}).`);
    process.exit(2);
  }
}
if (process.getuid?.() !== 0) {
  console.error('bench/portscan needs root: it creates network namespaces.');
  process.exit(2);
}
need('ip', 'iproute2');
need('nft', 'nftables');
need('nmap', 'nmap');

const sh = (cmd: string) => execFileSync('sh', ['-c', cmd], { stdio: 'pipe' }).toString();

interface TestHost {
  ns: string;
  address: string;
  open: number[];
  listener: ChildProcess;
}

/** A deterministic pick of `count` ports of the default list for host `i`. */
function pick(i: number, count: number): number[] {
  const ports = DEFAULT_TCP_PORTS.filter((p) => p > 1024 || p % 7 === i % 7);
  return Array.from({ length: count }, (_, k) => ports[(k * 37 + i * 101) % ports.length]!).filter((p, k, a) => a.indexOf(p) === k);
}

async function createHost(i: number): Promise<TestHost> {
  const ns = `rampart-bench-${i}`;
  const address = `198.18.${i}.2`;
  sh(`ip netns del ${ns} 2>/dev/null; ip link del rb${i}a 2>/dev/null; true`);
  sh(`ip netns add ${ns} && ip link add rb${i}a type veth peer name rb${i}b && ip link set rb${i}b netns ${ns}`);
  sh(`ip addr add 198.18.${i}.1/24 dev rb${i}a && ip link set rb${i}a up`);
  sh(`ip netns exec ${ns} sh -c 'ip addr add ${address}/24 dev rb${i}b && ip link set rb${i}b up && ip link set lo up'`);
  // Odd hosts sit behind a firewall that drops a third of the ports: those look filtered.
  if (i % 2 === 1) {
    sh(`ip netns exec ${ns} nft add table inet bench`);
    sh(`ip netns exec ${ns} nft 'add chain inet bench input { type filter hook input priority 0; }'`);
    sh(`ip netns exec ${ns} nft add rule inet bench input tcp dport 1-400 drop`);
    sh(`ip netns exec ${ns} nft add rule inet bench input tcp dport 5000-6000 drop`);
  }
  const open = pick(i, 12 + 3 * i);
  const script = `const net=require('net');let n=0;for(const p of ${JSON.stringify(open)}){net.createServer(s=>s.destroy()).listen(p,'${address}',()=>{if(++n===${open.length})console.log('ready')})}`;
  const listener = spawn('ip', ['netns', 'exec', ns, process.execPath, '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    listener.stdout!.on('data', (d: Buffer) => d.toString().includes('ready') && resolve());
    listener.once('exit', (code) => reject(new Error(`listener in ${ns} exited (${code})`)));
  });
  return { ns, address, open, listener };
}

function destroyHost(i: number, host?: TestHost): void {
  host?.listener.kill('SIGKILL');
  sh(`ip netns del rampart-bench-${i} 2>/dev/null; ip link del rb${i}a 2>/dev/null; true`);
}

/**
 * The busy CPU: one process spinning a thread per core (its main thread and workers), so both
 * scanners share every core with it, as on a loaded machine.
 */
async function startSpinner(): Promise<ChildProcess> {
  const cores = availableParallelism();
  const script =
    `const { Worker } = require('node:worker_threads');` +
    `for (let i = 1; i < ${cores}; i++) new Worker('for (;;);', { eval: true }).on('online', () => {});` +
    `console.log('spinning'); setImmediate(() => { for (;;); });`;
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve) => child.stdout!.once('data', () => resolve()));
  return child;
}

async function scanWithRampart(targets: string[]): Promise<{ seconds: number; open: Set<string>; incomplete: string[]; notes: string[] }> {
  const engine = createRampartEngine({ checks: [], udp: false, detect: async () => ({ name: 'unknown', product: null, version: null, cpe: null, tls: false, banner: null, details: {} }) });
  const started = performance.now();
  const open = new Set<string>();
  const incomplete: string[] = [];
  const notes: string[] = [];
  const job = {
    targets: targets.map((value): JobTarget => ({ kind: 'ip', value })),
    ports: [...DEFAULT_TCP_PORTS],
    // Rampart's defaults (RAMPART_CONNECT_TIMEOUT_MS, RAMPART_SCAN_CONCURRENCY); no banner wait.
    limits: { connectTimeoutMs: 1500, readTimeoutMs: 0, maxConcurrency: 256, ratePerSecond: 0 },
    guard: createAddressGuard(['127.0.0.1/32', '198.18.0.0/15']),
    egress: createEgress({ guard: createAddressGuard(['127.0.0.1/32', '198.18.0.0/15']) }),
    signal: new AbortController().signal,
    vulnerabilities: { syncedAt: new Date(), forCpe: async () => [] },
  };
  for await (const event of engine.run(job) as AsyncIterable<EngineEvent>) {
    if (event.type === 'finding') open.add(`${event.finding.hostIp}:${event.finding.port}`);
    if (event.type === 'incomplete') incomplete.push(event.message);
    if (event.type === 'log' && event.level === 'warn') notes.push(event.message);
  }
  return { seconds: (performance.now() - started) / 1000, open, incomplete, notes };
}

async function scanWithNmap(targets: string[]): Promise<{ seconds: number; open: Set<string> }> {
  const started = performance.now();
  const xml = await new Promise<string>((resolve, reject) => {
    const child = spawn('nmap', ['-sT', '-T4', '-n', '-Pn', '-p', DEFAULT_TCP_PORTS.join(','), '-oX', '-', ...targets], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.once('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`nmap exited ${code}`))));
  });
  const seconds = (performance.now() - started) / 1000;
  const open = new Set<string>();
  for (const host of xml.split('<host ').slice(1)) {
    const address = /<address addr="([^"]+)"/.exec(host)?.[1];
    for (const m of host.matchAll(/<port protocol="tcp" portid="(\d+)"><state state="open"/g)) open.add(`${address}:${m[1]}`);
  }
  return { seconds, open };
}

const hosts: TestHost[] = [];
let spinner: ChildProcess | undefined;
const cleanup = () => {
  spinner?.kill('SIGKILL');
  Array.from({ length: HOSTS }, (_, k) => destroyHost(k + 1, hosts[k]));
};
process.once('SIGINT', () => (cleanup(), process.exit(130)));
try {
  for (let i = 1; i <= HOSTS; i++) hosts.push(await createHost(i));
  const targets = ['127.0.0.1', ...hosts.map((h) => h.address)];
  const firewalled = (h: TestHost, p: number) => Number(h.address.split('.')[2]) % 2 === 1 && (p <= 400 || (p >= 5000 && p <= 6000));
  const expected = new Set(hosts.flatMap((h) => h.open.filter((p) => !firewalled(h, p)).map((p) => `${h.address}:${p}`)));
  console.log(`targets: ${targets.join(', ')}; ${DEFAULT_TCP_PORTS.length} TCP ports each (Rampart's default list)`);
  console.log(`test hosts: ${hosts.map((h) => `${h.address} (${h.open.length} open${Number(h.address.split('.')[2]) % 2 === 1 ? ', firewalled: 1-400 and 5000-6000 dropped' : ''})`).join('; ')}`);
  if (values.busy) spinner = await startSpinner();
  console.log(`mode: ${values.busy ? `CPU busy (a second process spinning all ${availableParallelism()} cores)` : 'normal'}; ${values.rounds} rounds`);
  const rounds = Number(values.rounds);
  const summary = { identical: 0, nmapOpen: 0, foundOfNmap: 0, complete: 0, ratios: [] as number[] };
  for (let round = 1; round <= rounds; round++) {
    const nmap = await scanWithNmap(targets);
    const rampart = await scanWithRampart(targets);
    const onlyNmap = [...nmap.open].filter((x) => !rampart.open.has(x));
    const onlyRampart = [...rampart.open].filter((x) => !nmap.open.has(x));
    const missedPlanted = [...expected].filter((x) => !rampart.open.has(x));
    const identical = onlyNmap.length === 0 && onlyRampart.length === 0;
    summary.identical += identical ? 1 : 0;
    summary.nmapOpen += nmap.open.size;
    summary.foundOfNmap += nmap.open.size - onlyNmap.length;
    summary.complete += rampart.incomplete.length === 0 ? 1 : 0;
    summary.ratios.push(nmap.seconds / rampart.seconds);
    console.log(
      `round ${round}: nmap -sT -T4 ${nmap.seconds.toFixed(2)} s, Rampart ${rampart.seconds.toFixed(2)} s, ` +
        `ratio nmap/Rampart ${(nmap.seconds / rampart.seconds).toFixed(2)}x; open ports: nmap ${nmap.open.size}, Rampart ${rampart.open.size}, ` +
        `agreement ${identical ? 'identical' : `differs (only nmap: ${onlyNmap.join(' ')}; only Rampart: ${onlyRampart.join(' ')})`}` +
        `; reachable planted listeners found by Rampart: ${expected.size - missedPlanted.length}/${expected.size}` +
        `; Rampart run ${rampart.incomplete.length === 0 ? 'complete' : `incomplete (${rampart.incomplete.join(' ')})`}`,
    );
    for (const note of rampart.notes) console.log(`  note: ${note}`);
  }
  const sorted = [...summary.ratios].sort((a, b) => a - b);
  const median = sorted.length % 2 === 1 ? sorted[(sorted.length - 1) / 2]! : (sorted[sorted.length / 2 - 1]! + sorted[sorted.length / 2]!) / 2;
  const percent = (n: number, of: number) => (of === 0 ? '-' : `${((100 * n) / of).toFixed(1)}%`);
  console.log(
    `summary (${values.busy ? 'CPU busy' : 'normal'}): open ports identical to nmap's in ${summary.identical}/${rounds} runs (${percent(summary.identical, rounds)}); ` +
      `Rampart found ${summary.foundOfNmap}/${summary.nmapOpen} of nmap's open ports (${percent(summary.foundOfNmap, summary.nmapOpen)}); ` +
      `Rampart called ${summary.complete}/${rounds} runs complete; time ratio nmap/Rampart median ${median.toFixed(2)}x ` +
      `(min ${sorted[0]!.toFixed(2)}x, max ${sorted.at(-1)!.toFixed(2)}x)`,
  );
} finally {
  cleanup();
}
