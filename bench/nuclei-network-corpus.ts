/**
 * Runs every tcp, ssl and dns template of ../shared/third_party/nuclei-templates through the
 * network executors against loopback stand-ins that answer nothing useful (a TCP server echoing a
 * neutral line, a TLS server with a test certificate, a resolver answering NXDOMAIN), and counts
 * what each executor made of them: ran, threw (should be 0), matched (should be 0 or near), notes.
 * Run: npm run bench:nuclei-network  (-- --timeout MS, default 300: the reads of silent peers)
 */
import { execFileSync } from 'node:child_process';
import dgram from 'node:dgram';
import dnsPacket from 'dns-packet';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import type { ExecutionContext, HostGate, TemplateExecutor } from '../src/engines/nuclei/execute/contract.js';
import { runDnsTemplate } from '../src/engines/nuclei/execute/dns.js';
import { runSslTemplate } from '../src/engines/nuclei/execute/ssl.js';
import { runTcpTemplate } from '../src/engines/nuclei/execute/tcp.js';
import { NETWORK_EXECUTOR_FEATURES } from '../src/engines/nuclei/execute/network-features.js';
import { checkExecutable } from '../src/engines/nuclei/templates/features.js';
import { loadTemplates } from '../src/engines/nuclei/templates/load-templates.js';
import type { Template } from '../src/engines/nuclei/templates/template.types.js';
import { LOOPBACK_EGRESS } from '../test/helpers/egress.js';
import { SHARED_DIR } from '../test/helpers/shared.js';

const ROOT = path.join(SHARED_DIR, 'third_party', 'nuclei-templates');
const timeoutIndex = process.argv.indexOf('--timeout');
const timeoutMs = timeoutIndex > 0 ? Number(process.argv[timeoutIndex + 1]) : 300;

function listen(server: net.Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as net.AddressInfo).port)));
}

const neutral = (socket: net.Socket): void => {
  socket.on('error', () => undefined);
  socket.write('hello\r\n');
  socket.on('data', () => socket.write('ok\r\n'));
};
const tcpServer = net.createServer(neutral);
const tcpPort = await listen(tcpServer);

const dir = mkdtempSync(path.join(tmpdir(), 'rampart-bench-'));
execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', path.join(dir, 'k.pem'), '-out', path.join(dir, 'c.pem'),
  '-days', '2', '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost'], { stdio: 'ignore' });
const tlsServer = tls.createServer({ key: readFileSync(path.join(dir, 'k.pem')), cert: readFileSync(path.join(dir, 'c.pem')) }, neutral);
tlsServer.on('tlsClientError', () => undefined);
const tlsPort = await listen(tlsServer);

const resolver = dgram.createSocket('udp4');
resolver.on('message', (message, peer) => {
  const query = dnsPacket.decode(message);
  const answer = dnsPacket.encode({ type: 'response', id: query.id, flags: dnsPacket.RECURSION_AVAILABLE | 3, questions: query.questions });
  resolver.send(answer, peer.port, peer.address);
});
await new Promise<void>((resolve) => resolver.bind(0, '127.0.0.1', resolve));

const gate: HostGate = { run: (_h, send) => send(), answered: () => undefined, networkError: () => undefined, isSkipped: () => false };
const context: ExecutionContext = {
  egress: LOOPBACK_EGRESS,
  signal: new AbortController().signal,
  gate,
  timeoutMs,
  templatesDir: ROOT,
  vars: {},
  cache: { get: async (_k, produce) => ({ value: await produce(), shared: false }) },
  resolvers: [`127.0.0.1:${(resolver.address() as net.AddressInfo).port}`],
};

const started = Date.now();
const loaded = await loadTemplates(ROOT);
console.log(`templates loaded: ${loaded.templates.length} (${loaded.failures.length} failures) in ${Date.now() - started} ms`);

interface Tally { templates: number; threw: string[]; matched: string[]; noted: Map<string, number>; sent: number }
async function runAll(name: string, pick: (t: Template) => boolean, run: TemplateExecutor, target: { host: string; port: number; tls: boolean }): Promise<Tally> {
  const tally: Tally = { templates: 0, threw: [], matched: [], noted: new Map(), sent: 0 };
  const t0 = Date.now();
  for (const template of loaded.templates.filter(pick)) {
    tally.templates++;
    try {
      const outcome = await run(template, { ...target, address: '127.0.0.1', scheme: null, basePath: '/' }, context);
      tally.sent += outcome.requestsSent;
      if (outcome.matches.length > 0) tally.matched.push(template.path);
      for (const note of outcome.notes) {
        const kind = note.replace(/^[^:]+: /, '').replace(/"[^"]*"/g, '"…"').replace(/\d+/g, 'N').slice(0, 90);
        tally.noted.set(kind, (tally.noted.get(kind) ?? 0) + 1);
      }
    } catch (error) {
      tally.threw.push(`${template.path}: ${(error as Error).stack ?? String(error)}`);
    }
  }
  console.log(`\n${name}: ${tally.templates} templates, ${tally.threw.length} threw, ${tally.matched.length} matched, ${tally.sent} requests, ${Date.now() - t0} ms`);
  const supported = new Set(NETWORK_EXECUTOR_FEATURES);
  const blockers = new Map<string, number>();
  let executable = 0;
  for (const template of loaded.templates.filter(pick)) {
    const check = checkExecutable(template, supported);
    if (check.executable) executable++;
    for (const b of check.blockers) blockers.set(b, (blockers.get(b) ?? 0) + 1);
  }
  console.log(`  executable by feature analysis (NETWORK_EXECUTOR_FEATURES): ${executable} of ${tally.templates}; blockers: ${[...blockers].map(([b, n]) => `${b} ${n}`).join(', ') || 'none'}`);
  for (const line of tally.threw.slice(0, 10)) console.log(`  threw ${line.split('\n').slice(0, 3).join(' | ')}`);
  for (const line of tally.matched) console.log(`  matched ${line}`);
  for (const [kind, count] of [...tally.noted].sort((a, b) => b[1] - a[1])) console.log(`  note x${count}: ${kind}`);
  return tally;
}

await runAll('tcp', (t) => t.tcp.length > 0, runTcpTemplate, { host: '127.0.0.1', port: tcpPort, tls: false });
await runAll('ssl', (t) => t.ssl.length > 0, runSslTemplate, { host: 'localhost', port: tlsPort, tls: true });
await runAll('dns', (t) => t.dns.length > 0, runDnsTemplate, { host: 'nothing.rampart.test', port: 53, tls: false });

tcpServer.close();
tlsServer.close();
resolver.close();
rmSync(dir, { recursive: true, force: true });
