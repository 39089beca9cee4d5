/**
 * bench/network: the team's own multi-host test network, scanned by the Rampart engine and scored
 * against the truth (issue 14, "Done means"). Eight hosts, one network namespace each
 * (198.18.101.2 - 198.18.108.2, see bench/network-hosts.ts): four ordinary Debian 12 servers
 * configured with known weaknesses, and four safe twins (the same services hardened) that must
 * produce no finding at Low or above. Every daemon is this machine's real Debian package, except
 * Apache httpd, the hardened web server and telnetd, which are not installed: Node servers speak
 * their protocol and send their real pages (bench/network-fakes.ts).
 *
 *   sudo npm run bench:network [-- --runs N]     (root: it creates network namespaces)
 *
 * Each run is a full engine run as a deployment does it: the default TCP ports, the UDP probes,
 * every default check and detector, the default limits, and known-vulnerability matching over a
 * PGlite store synced from ../shared/vulndb (served locally; skipped with a message if absent).
 * The hosts run current Debian 12 packages, so no CVE of that set applies: every CVE finding at
 * the default quality of detection (QoD >= 70) is a false positive.
 *
 * Printed per run: the truth weaknesses found (and which were missed), false positives, severity
 * mismatches against the issue's table, completeness (every open port of the truth seen) and the
 * wall time; then a summary, and the time of `nmap -sV` over the same hosts and ports.
 */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';
import { createRampartEngine } from '../src/engines/rampart/rampart.engine.js';
import { DEFAULT_TCP_PORTS } from '../src/engines/rampart/ports.js';
import { DEFAULT_UDP_PORTS } from '../src/engines/rampart/udp/udp-ports.js';
import type { EngineEvent, Finding, JobTarget, Threat, VulnerabilityLookup } from '../src/engines/engine.js';
import { createAddressGuard } from '../src/shared/address-guard.js';
import { createEgress } from '../src/shared/egress.js';
import { DEFAULT_MIN_QOD, QOD, THREATS } from '../src/shared/finding.js';
import { migrateToLatest, openStore } from '../src/db/database.js';
import { createVulnerabilityLookup, syncVulnDb } from '../src/vulndb/vulndb.service.js';
import { TestPki } from '../test/helpers/pki.js';
import { addressOf, assertRoutes, createNetwork, destroyNetwork, HOST_NAMES, type Certificates, type HostName, type Network } from './network-hosts.js';

// ---------------------------------------------------------------------------------------------
// The truth

/**
 * One weakness a scan from outside the host can see. `rule` matches the finding's rule id and,
 * when given, `text` its name and evidence (one finding may report several suites). `severity`
 * is the issue's table (section 4) where it rates the weakness, otherwise our call (said in a
 * comment); a list accepts any of its threats.
 */
interface Weakness {
  id: string;
  host: HostName;
  port: number;
  protocol: 'tcp' | 'udp';
  rule: RegExp;
  text?: RegExp;
  severity: Threat | Threat[];
}

const TRUTH: Weakness[] = [
  // web: sshd with passwords and legacy algorithms, telnetd, Apache with a listing and mod_status.
  { id: 'ssh-password-auth', host: 'web', port: 22, protocol: 'tcp', rule: /^rampart:ssh-password-auth$/, severity: 'Low' }, // a private address: Low (Medium on a public one)
  { id: 'ssh-weak-kex', host: 'web', port: 22, protocol: 'tcp', rule: /^rampart:ssh-weak-kex$/, severity: 'Medium' }, // group1-sha1: docs/SEVERITY.md
  { id: 'ssh-weak-cipher', host: 'web', port: 22, protocol: 'tcp', rule: /^rampart:ssh-weak-cipher$/, severity: 'Medium' }, // 3des-cbc, as today's rule rates it
  { id: 'ssh-weak-mac', host: 'web', port: 22, protocol: 'tcp', rule: /^rampart:ssh-weak-mac$/, severity: 'Medium' }, // hmac-md5, as today's rule rates it
  { id: 'telnet-exposed', host: 'web', port: 23, protocol: 'tcp', rule: /^rampart:telnet/, severity: 'High' }, // issue table
  { id: 'http-listing', host: 'web', port: 80, protocol: 'tcp', rule: /^rampart:http-directory-listing$/, severity: 'Medium' }, // /backups/, linked from / only
  { id: 'http-sensitive-file', host: 'web', port: 80, protocol: 'tcp', rule: /^rampart:http-listing-sensitive-files$/, text: /db\.sql\.bak/, severity: 'Medium' }, // judged on the name: Medium (a dump proved by its content is http-backup-exposed, High)
  { id: 'http-dump-served', host: 'web', port: 80, protocol: 'tcp', rule: /^rampart:http-backup-exposed$/, text: /db\.sql\.bak/, severity: 'High' }, // the dump downloads and its content proves it (docs/SEVERITY.md)
  { id: 'http-server-status', host: 'web', port: 80, protocol: 'tcp', rule: /^rampart:http-status-page-exposed$/, severity: 'Medium' },
  { id: 'http-missing-headers', host: 'web', port: 80, protocol: 'tcp', rule: /^rampart:http-missing-(csp|frame-options|content-type-options)$/, severity: 'Low' },
  { id: 'http-no-https', host: 'web', port: 80, protocol: 'tcp', rule: /^rampart:http-no-https-redirect$/, severity: 'Medium' },
  { id: 'http-version-disclosure', host: 'web', port: 80, protocol: 'tcp', rule: /^rampart:http-version-disclosure$/, severity: 'Low' },
  // files: vsftpd with anonymous read of backup.sql and a writable upload/, an anonymous rsync module.
  { id: 'ftp-anonymous', host: 'files', port: 21, protocol: 'tcp', rule: /^rampart:ftp-anonymous(-login|-access|-read)?$/, severity: 'Medium' },
  { id: 'ftp-sensitive-file', host: 'files', port: 21, protocol: 'tcp', rule: /^rampart:ftp-sensitive-files$/, text: /backup\.sql/, severity: 'Medium' }, // judged on the name
  { id: 'ftp-anonymous-write', host: 'files', port: 21, protocol: 'tcp', rule: /^rampart:ftp-anonymous-write$/, severity: 'High' }, // inferred from the listing, never written
  { id: 'ftp-cleartext', host: 'files', port: 21, protocol: 'tcp', rule: /^rampart:ftp-no-starttls$/, severity: 'Medium' },
  { id: 'rsync-anonymous-module', host: 'files', port: 873, protocol: 'tcp', rule: /^rampart:rsync-/, severity: 'Medium' }, // docs/SEVERITY.md
  // data: Redis and memcached without auth, MariaDB root without password and without TLS, SNMP public.
  { id: 'redis-noauth', host: 'data', port: 6379, protocol: 'tcp', rule: /^rampart:redis-noauth$/, severity: 'Critical' }, // issue table
  { id: 'memcached-noauth', host: 'data', port: 11211, protocol: 'tcp', rule: /^rampart:memcached-noauth$/, severity: 'Medium' }, // docs/SEVERITY.md
  { id: 'memcached-udp', host: 'data', port: 11211, protocol: 'udp', rule: /^rampart:udp-memcached/, severity: 'High' }, // amplification: docs/SEVERITY.md
  { id: 'mysql-root-empty-password', host: 'data', port: 3306, protocol: 'tcp', rule: /^rampart:mysql-empty-password$/, severity: 'Critical' }, // issue table
  { id: 'mysql-no-tls', host: 'data', port: 3306, protocol: 'tcp', rule: /^rampart:mysql-no-tls$/, severity: 'Medium' },
  { id: 'snmp-public', host: 'data', port: 161, protocol: 'udp', rule: /snmp.*(public|default-community)/, severity: 'Medium' }, // issue table
  // tls: openssl s_server with every suite (NULL and anonymous included) and an expired self-signed certificate.
  { id: 'tls-null-suites', host: 'tls', port: 443, protocol: 'tcp', rule: /^rampart:tls-null-cipher$/, severity: 'High' }, // issue table
  { id: 'tls-anonymous-suites', host: 'tls', port: 443, protocol: 'tcp', rule: /^rampart:tls-anonymous-cipher$/, severity: 'High' }, // issue table
  // No 3DES or RC4 item: Debian 12's OpenSSL 3.0 offers neither ('openssl ciphers 3DES' matches nothing), so s_server cannot accept them.
  { id: 'tls-no-forward-secrecy', host: 'tls', port: 443, protocol: 'tcp', rule: /^rampart:tls-no-forward-secrecy$/, severity: 'Low' },
  { id: 'tls-cbc-tls1.0', host: 'tls', port: 443, protocol: 'tcp', rule: /^rampart:tls-cbc-tls10$/, severity: 'Low' },
  { id: 'tls-no-server-order', host: 'tls', port: 443, protocol: 'tcp', rule: /^rampart:tls-no-server-cipher-order$/, severity: 'Low' }, // s_server without -serverpref
  { id: 'tls-1.0', host: 'tls', port: 443, protocol: 'tcp', rule: /^rampart:tls-tls10-accepted$/, severity: 'Medium' },
  { id: 'tls-1.1', host: 'tls', port: 443, protocol: 'tcp', rule: /^rampart:tls-tls11-accepted$/, severity: 'Low' },
  { id: 'tls-cert-expired', host: 'tls', port: 443, protocol: 'tcp', rule: /^rampart:tls-cert-expired$/, severity: 'High' }, // issue table
  { id: 'tls-cert-self-signed', host: 'tls', port: 443, protocol: 'tcp', rule: /^rampart:tls-cert-self-signed$/, severity: 'Low' },
];

/** The open TCP ports of each host, for completeness. */
const OPEN_TCP: Record<HostName, number[]> = {
  web: [22, 23, 80],
  'web-safe': [22, 80, 443],
  files: [21, 22, 873],
  'files-safe': [21, 22, 873],
  data: [22, 199, 3306, 6379, 11211], // 199: snmpd's SMUX
  'data-safe': [22, 3306, 6379],
  tls: [22, 443],
  'tls-safe': [22, 443],
};
/** The UDP services that answer the engine's probes (the twin's snmpd answers no probe: its community is secret). */
const OPEN_UDP: Partial<Record<HostName, number[]>> = { data: [161, 11211] };

// ---------------------------------------------------------------------------------------------
// Set-up: as root, with the bench's CA trusted the way a deployment trusts its private CA

const { values } = parseArgs({
  options: { runs: { type: 'string', default: '3' }, 'no-nmap': { type: 'boolean', default: false }, findings: { type: 'string' } },
});
const RUNS = Number(values.runs);
if (!Number.isInteger(RUNS) || RUNS < 1) throw new Error('--runs takes a positive integer');
if (process.getuid?.() !== 0) {
  console.error('bench/network needs root: it creates network namespaces and starts sshd, vsftpd and MariaDB.');
  process.exit(2);
}


/**
 * Issues the hosts' certificates, then runs the bench in a child that trusts the bench's CA
 * (NODE_EXTRA_CA_CERTS is read at start-up only): the safe twins present certificates a
 * deployment with its organisation's CA installed would trust, as a hardened network does.
 */
async function runAsChild(): Promise<void> {
  const pki = new TestPki();
  const files: Record<string, { cert: string; key: string }> = {};
  const write = (name: string, pair: { cert: string; key: string }) => {
    files[name] = { cert: path.join(pki.dir, `${name}.crt`), key: path.join(pki.dir, `${name}.key`) };
    fs.writeFileSync(files[name].cert, pair.cert);
    fs.writeFileSync(files[name].key, pair.key, { mode: 0o600 });
  };
  for (const host of HOST_NAMES) {
    const san = `IP:${addressOf(host)}`;
    write(host, host === 'tls' ? pki.issue({ cn: addressOf(host), san, selfSigned: true, start: '20230101000000Z', end: '20240101000000Z' }) : pki.issue({ cn: addressOf(host), san }));
  }
  fs.chmodSync(pki.dir, 0o755);
  fs.writeFileSync(path.join(pki.dir, 'hosts.json'), JSON.stringify({ ...files, ca: path.join(pki.dir, 'ca.pem') }));
  const child = spawn(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), ...process.argv.slice(2)], {
    stdio: 'inherit',
    env: { ...process.env, BENCH_NETWORK_PKI: pki.dir, NODE_EXTRA_CA_CERTS: path.join(pki.dir, 'ca.pem') },
  });
  const stop = (signal: NodeJS.Signals) => child.kill(signal);
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  const code = await new Promise<number>((resolve) => child.once('exit', (c, s) => resolve(c ?? (s ? 130 : 1))));
  destroyNetwork(); // in case the child died before its own clean-up
  pki.cleanup();
  process.exit(code);
}

async function main(pkiDir: string): Promise<void> {
  const certs = JSON.parse(fs.readFileSync(path.join(pkiDir, 'hosts.json'), 'utf8')) as Certificates;
  let network: Network | undefined;
  const cleanup = () => destroyNetwork(network);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => (cleanup(), process.exit(130)));
  try {
    const started = performance.now();
    network = await createNetwork(certs);
    console.log(`network: ${HOST_NAMES.map((h) => `${h} ${addressOf(h)}`).join(', ')} (up in ${((performance.now() - started) / 1000).toFixed(1)} s)`);
    console.log(`truth: ${TRUTH.length} weaknesses on ${new Set(TRUTH.map((w) => w.host)).size} hosts; ${HOST_NAMES.filter((h) => !TRUTH.some((w) => w.host === h)).join(', ')} are safe twins`);
    const lookup = await vulnerabilityLookup();
    const scores: RunScore[] = [];
    for (let run = 1; run <= RUNS; run++) {
      const result = await scan(lookup);
      // --findings FILE: every finding of the last run as JSON, to check the truth's matchers against.
      if (values.findings) fs.writeFileSync(values.findings, JSON.stringify(result.findings, null, 1));
      const score = scoreRun(result);
      scores.push(score);
      printRun(run, score);
    }
    printSummary(scores);
    if (!values['no-nmap']) await timeNmap(scores);
  } finally {
    cleanup();
  }
}

// ---------------------------------------------------------------------------------------------
// The vulnerability database: ../shared/vulndb served as the NVD API, KEV and EPSS, synced into PGlite

async function vulnerabilityLookup(): Promise<VulnerabilityLookup | undefined> {
  const fixtures = process.env.RAMPART_VULNDB_FIXTURES ?? path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../shared/vulndb');
  if (!fs.existsSync(path.join(fixtures, 'nvd'))) {
    console.log(`vulndb: ${fixtures} not found: scanning without CVE matching (the CVE part of the score is skipped)`);
    return undefined;
  }
  const records = fs.readdirSync(path.join(fixtures, 'nvd')).filter((f) => f.endsWith('.json')).map((f) => JSON.parse(fs.readFileSync(path.join(fixtures, 'nvd', f), 'utf8')) as unknown);
  const kev = fs.readFileSync(path.join(fixtures, 'kev', 'known_exploited_vulnerabilities.json'));
  const epss = gzipSync(fs.readFileSync(path.join(fixtures, 'epss', 'epss_scores-excerpt.csv')));
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname === '/kev.json') return void res.writeHead(200, { 'content-type': 'application/json' }).end(kev);
    if (url.pathname === '/epss.csv.gz') return void res.writeHead(200, { 'content-type': 'application/gzip' }).end(epss);
    if (url.pathname !== '/nvd') return void res.writeHead(404).end();
    const start = Number(url.searchParams.get('startIndex') ?? 0);
    const page = records.slice(start, start + Number(url.searchParams.get('resultsPerPage') ?? 2000));
    res.writeHead(200, { 'content-type': 'application/json' }).end(
      JSON.stringify({ resultsPerPage: page.length, startIndex: start, totalResults: records.length, format: 'NVD_CVE', version: '2.0', timestamp: new Date().toISOString().slice(0, 23), vulnerabilities: page.map((cve) => ({ cve })) }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    const store = await openStore({ dataDir: 'memory://' });
    await migrateToLatest(store);
    await syncVulnDb(store.db, { sources: { nvdBaseUrl: `${base}/nvd`, kevUrl: `${base}/kev.json`, epssUrl: `${base}/epss.csv.gz` }, pageDelayMs: 0, retryDelayMs: 0, timeoutMs: 30_000, retries: 0 });
    const lookup = await createVulnerabilityLookup(store.db);
    console.log(`vulndb: ${records.length} NVD records from ${fixtures} synced into PGlite`);
    return lookup ?? undefined;
  } finally {
    server.closeAllConnections();
    server.close();
  }
}

// ---------------------------------------------------------------------------------------------
// A run

interface RunResult {
  seconds: number;
  findings: Finding[];
  notes: string[];
  error: string | null;
}

async function scan(lookup: VulnerabilityLookup | undefined): Promise<RunResult> {
  assertRoutes();
  const engine = createRampartEngine();
  const guard = createAddressGuard(['198.18.0.0/15']);
  const job = {
    targets: HOST_NAMES.map((host): JobTarget => ({ kind: 'ip', value: addressOf(host) })),
    ports: 'default' as const,
    // The deployment defaults of src/config.ts (RAMPART_CONNECT_TIMEOUT_MS, _READ_TIMEOUT_MS, SCAN_CONCURRENCY, SCAN_RATE).
    limits: { connectTimeoutMs: 1500, readTimeoutMs: 3000, maxConcurrency: 256, ratePerSecond: 0 },
    guard,
    egress: createEgress({ guard }),
    signal: AbortSignal.timeout(30 * 60_000),
    ...(lookup ? { vulnerabilities: lookup } : {}),
  };
  const started = performance.now();
  const findings: Finding[] = [];
  const notes: string[] = [];
  let error: string | null = null;
  try {
    for await (const event of engine.run(job) as AsyncIterable<EngineEvent>) {
      if (event.type === 'finding') findings.push(event.finding);
      else if (event.type === 'log' && event.level === 'warn') notes.push(event.message);
    }
  } catch (e) {
    error = e instanceof Error ? e.message : String(e);
  }
  return { seconds: (performance.now() - started) / 1000, findings, notes, error };
}

// ---------------------------------------------------------------------------------------------
// Scoring

interface RunScore {
  seconds: number;
  found: Weakness[];
  missed: Weakness[];
  /** Reported only below the default QoD threshold: not in a default report, so not counted as found. */
  hidden: Array<{ weakness: Weakness; qod: number }>;
  falsePositives: Finding[];
  cveFalsePositives: Finding[];
  hiddenCves: Finding[];
  mismatches: Array<{ weakness: Weakness; seen: Threat[] }>;
  missingPorts: string[];
  notes: string[];
  error: string | null;
  complete: boolean;
}

const rank = (threat: Threat) => THREATS.length - THREATS.indexOf(threat); // Critical 5 .. Informational 1
const atLeastLow = (f: Finding) => rank(f.threat) >= rank('Low');
const qodOf = (f: Finding) => f.qod ?? QOD.confirmed;
const hostOf = (f: Finding) => HOST_NAMES.find((h) => addressOf(h) === f.hostIp);
const isCve = (f: Finding) => f.cve.length > 0 && /known-vulnerability/.test(f.ruleId);
const where = (f: Finding) => `${hostOf(f) ?? f.hostIp}:${f.port ?? '-'}/${f.protocol ?? '-'}`;
const accepted = (w: Weakness): Threat[] => (Array.isArray(w.severity) ? w.severity : [w.severity]);

function matches(w: Weakness, f: Finding): boolean {
  return f.hostIp === addressOf(w.host) && f.port === w.port && (f.protocol ?? 'tcp') === w.protocol && w.rule.test(f.ruleId) && (!w.text || w.text.test(`${f.name}\n${f.evidence}`));
}

function scoreRun(result: RunResult): RunScore {
  const shown = result.findings.filter((f) => qodOf(f) >= DEFAULT_MIN_QOD);
  const found: Weakness[] = [];
  const missed: Weakness[] = [];
  const hidden: RunScore['hidden'] = [];
  const mismatches: RunScore['mismatches'] = [];
  for (const w of TRUTH) {
    const hits = shown.filter((f) => matches(w, f));
    if (hits.length === 0) {
      const below = result.findings.filter((f) => matches(w, f)).map(qodOf);
      if (below.length > 0) hidden.push({ weakness: w, qod: Math.max(...below) });
      else missed.push(w);
      continue;
    }
    found.push(w);
    if (!hits.some((f) => accepted(w).includes(f.threat))) mismatches.push({ weakness: w, seen: [...new Set(hits.map((f) => f.threat))] });
  }
  const unexplained = shown.filter((f) => atLeastLow(f) && !TRUTH.some((w) => matches(w, f)));
  const seenPorts = new Set(result.findings.map((f) => `${f.hostIp}:${f.port}/${f.protocol ?? 'tcp'}`));
  const expected = HOST_NAMES.flatMap((h) => [...OPEN_TCP[h].map((p) => `${h}:${p}/tcp`), ...(OPEN_UDP[h] ?? []).map((p) => `${h}:${p}/udp`)]);
  const missingPorts = expected.filter((port) => {
    const [host, rest] = port.split(':') as [HostName, string];
    return !seenPorts.has(`${addressOf(host)}:${rest}`);
  });
  return {
    seconds: result.seconds,
    found,
    missed,
    hidden,
    falsePositives: unexplained.filter((f) => !isCve(f)),
    cveFalsePositives: unexplained.filter(isCve),
    hiddenCves: result.findings.filter((f) => isCve(f) && qodOf(f) < DEFAULT_MIN_QOD),
    mismatches,
    missingPorts,
    notes: result.notes,
    error: result.error,
    complete: result.error === null && missingPorts.length === 0,
  };
}

function printRun(run: number, s: RunScore): void {
  const line = (f: Finding) => `${f.ruleId} ${where(f)} ${f.threat}${f.qod !== undefined ? ` QoD ${f.qod}` : ''}${isCve(f) ? ` ${f.cve.join(',')}` : ''}`;
  console.log(`\nrun ${run}: ${s.seconds.toFixed(1)} s, ${s.complete ? 'complete' : 'INCOMPLETE'}; found ${s.found.length} of ${TRUTH.length} weaknesses${s.hidden.length ? ` (+ ${s.hidden.length} below QoD ${DEFAULT_MIN_QOD})` : ''}; false positives ${s.falsePositives.length} (+ ${s.cveFalsePositives.length} CVE at QoD >= ${DEFAULT_MIN_QOD}); severity mismatches ${s.mismatches.length}`);
  if (s.error) console.log(`  run failed: ${s.error}`);
  if (s.missingPorts.length) console.log(`  open ports not seen: ${s.missingPorts.join(' ')}`);
  for (const w of s.missed) console.log(`  missed: ${w.id} (${w.host}:${w.port}/${w.protocol})`);
  for (const { weakness: w, qod } of s.hidden) console.log(`  hidden: ${w.id} (${w.host}:${w.port}/${w.protocol}) reported at QoD ${qod}, below the default ${DEFAULT_MIN_QOD}`);
  for (const f of s.falsePositives) console.log(`  false positive: ${line(f)}: ${f.name}`);
  // One line per CVE: the same CVE on every host running the same package.
  const byCve = new Map<string, Finding[]>();
  for (const f of s.cveFalsePositives) {
    const key = `${f.cve.join(',')} ${f.threat}${f.qod !== undefined ? ` QoD ${f.qod}` : ''}`;
    byCve.set(key, [...(byCve.get(key) ?? []), f]);
  }
  for (const [cve, list] of byCve) console.log(`  false CVE: ${cve} (${list[0]!.name.replace(/^[^:]*: /, '')}) on ${list.map(where).join(' ')}`);
  if (s.hiddenCves.length) console.log(`  CVE findings below QoD ${DEFAULT_MIN_QOD} (hidden by default): ${s.hiddenCves.length} (${[...new Set(s.hiddenCves.map((f) => f.cve[0]))].join(', ')})`);
  for (const m of s.mismatches) console.log(`  severity: ${m.weakness.id} expected ${accepted(m.weakness).join('/')}, reported ${m.seen.join('/')}`);
  for (const note of s.notes) console.log(`  note: ${note}`);
}

function printSummary(scores: RunScore[]): void {
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const safeHosts = HOST_NAMES.filter((h) => !TRUTH.some((w) => w.host === h));
  const onSafe = scores.flatMap((s) => [...s.falsePositives, ...s.cveFalsePositives]).filter((f) => safeHosts.includes(hostOf(f)!));
  const everMissed = [...new Set(scores.flatMap((s) => [...s.missed, ...s.hidden.map((h) => h.weakness)].map((w) => w.id)))];
  console.log(
    `\nsummary over ${scores.length} runs: found ${scores.map((s) => s.found.length).join('/')} of ${TRUTH.length} weaknesses (below QoD ${DEFAULT_MIN_QOD}: ${scores.map((s) => s.hidden.length).join('/')})` +
      `; false positives ${scores.map((s) => s.falsePositives.length).join('/')} (CVE at QoD >= ${DEFAULT_MIN_QOD}: ${scores.map((s) => s.cveFalsePositives.length).join('/')})` +
      `; Low-or-above findings on safe twins ${onSafe.length}; severity mismatches ${scores.map((s) => s.mismatches.length).join('/')}` +
      `; complete runs ${scores.filter((s) => s.complete).length} of ${scores.length}; mean time ${mean(scores.map((s) => s.seconds)).toFixed(1)} s` +
      (everMissed.length ? `; missed in some run: ${everMissed.join(', ')}` : ''),
  );
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** nmap -sV over the same hosts, TCP ports and UDP services, for a time ratio. */
async function timeNmap(scores: RunScore[]): Promise<void> {
  try {
    execFileSync('sh', ['-c', 'command -v nmap'], { stdio: 'ignore' });
  } catch {
    console.log('nmap not installed (Debian package nmap): no time ratio');
    return;
  }
  assertRoutes();
  const ports = `T:${DEFAULT_TCP_PORTS.join(',')},U:${Object.values(DEFAULT_UDP_PORTS).join(',')}`;
  const started = performance.now();
  const code = await new Promise<number | null>((resolve) => {
    const child = spawn('nmap', ['-sV', '-sT', '-sU', '-n', '-Pn', '-T4', '-p', ports, '-oN', '/dev/null', ...HOST_NAMES.map(addressOf)], { stdio: 'ignore' });
    const timer = setTimeout(() => child.kill('SIGKILL'), 30 * 60_000);
    child.once('exit', (c) => (clearTimeout(timer), resolve(c)));
  });
  const seconds = (performance.now() - started) / 1000;
  const rampart = scores.reduce((a, s) => a + s.seconds, 0) / scores.length;
  console.log(`nmap -sV -sT -sU -T4 (same hosts, ${DEFAULT_TCP_PORTS.length} TCP + ${Object.keys(DEFAULT_UDP_PORTS).length} UDP ports): ${seconds.toFixed(1)} s${code === 0 ? '' : ` (exit ${code})`}; Rampart mean ${rampart.toFixed(1)} s; ratio nmap/Rampart ${(seconds / rampart).toFixed(2)}x`);
}

// Last, so every constant above is initialised before the bench starts.
if (process.env.BENCH_NETWORK_PKI === undefined) {
  // One bench at a time: a second one would delete this one's namespaces mid-scan.
  const lock = '/run/rampart-bench-network.pid';
  const holder = fs.existsSync(lock) ? Number(fs.readFileSync(lock, 'utf8')) : 0;
  if (holder > 0 && isAlive(holder)) {
    console.error(`bench/network is already running (pid ${holder}, ${lock})`);
    process.exit(2);
  }
  fs.writeFileSync(lock, String(process.pid));
  process.once('exit', () => fs.rmSync(lock, { force: true }));
  await runAsChild();
}
else await main(process.env.BENCH_NETWORK_PKI);
