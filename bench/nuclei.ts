/**
 * bench/nuclei: the nuclei engine's default selection of the shared community templates against
 * one loopback host, as a scan runs it (the engine's own discovery of the host's one HTTP port,
 * its host gate at the default rate, the shared response cache), twice:
 * - `404`: a web server answering 404 to everything (the cost of a scan that finds nothing);
 * - `site`: a web server serving a few real weaknesses (a Git config, an environment file, Apache's
 *   server-status, a phpinfo page) and 404 elsewhere: the templates that must fire, and any other.
 * Prints templates/s, requests received by the server, requests sent and answered from the shared
 * cache (the engine's own totals note), findings, wall time and peak RSS (goal: the whole default set
 * against one host under 3 minutes with RSS under 500 MB, issue 15).
 *
 *   npm run bench:nuclei [-- --dir DIR] [--rate N]
 */
import http from 'node:http';
import type net from 'node:net';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import type { EngineEvent, EngineJob } from '../src/engines/engine.js';
import { NUCLEI_EXECUTORS } from '../src/engines/nuclei/executors.js';
import { createNucleiEngine } from '../src/engines/nuclei/nuclei.engine.js';
import { SUPPORTED_FEATURES } from '../src/engines/nuclei/supported-features.js';
import { createRampartDiscovery } from '../src/engines/nuclei-discovery.js';
import { LOOPBACK_EGRESS } from '../test/helpers/egress.js';
import { SHARED_DIR } from '../test/helpers/shared.js';

const { values } = parseArgs({
  options: {
    dir: { type: 'string', default: path.join(SHARED_DIR, 'third_party', 'nuclei-templates') },
    rate: { type: 'string' },
  },
});

/** What the `site` server serves, each a weakness a community template reports (its id). */
const SITE: Record<string, { type: string; body: string; expect: string }> = {
  '/.git/config': { type: 'text/plain', body: '[core]\n\trepositoryformatversion = 0\n[remote "origin"]\n\turl = https://deploy:s3cret@git.example.com/app.git\n', expect: 'git-config' },
  '/.env': { type: 'text/plain', body: 'APP_ENV=production\nDB_PASSWORD=hunter2\nAPI_SECRET_KEY=abc123\n', expect: 'generic-env' },
  '/server-status': {
    type: 'text/html',
    body: '<html><head><title>Apache Status</title></head><body><h1>Apache Server Status for localhost</h1><dl><dt>Server Version: Apache/2.4.62 (Debian)</dt></dl></body></html>',
    expect: 'apache-server-status',
  },
};

async function startServer(site: boolean): Promise<{ port: number; received: () => number; close: () => Promise<void> }> {
  let received = 0;
  const server = http.createServer((req, res) => {
    received++;
    req.resume();
    req.on('end', () => {
      const page = site ? SITE[(req.url ?? '/').split('?')[0]!] : undefined;
      if (page) {
        res.writeHead(200, { 'Content-Type': page.type, Server: 'Apache/2.4.62 (Debian)' });
        res.end(page.body);
        return;
      }
      res.writeHead(404, { 'Content-Type': 'text/html', Server: 'Apache/2.4.62 (Debian)' });
      res.end('<html><head><title>404 Not Found</title></head><body><h1>Not Found</h1></body></html>');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    received: () => received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const limits: EngineJob['limits'] = { connectTimeoutMs: 1500, readTimeoutMs: 3000, maxConcurrency: 256, ratePerSecond: 0 };
const engine = createNucleiEngine({
  templatesDir: values.dir as string,
  supported: SUPPORTED_FEATURES,
  executors: NUCLEI_EXECUTORS,
  timeoutMs: 10_000,
  caps: { ratePerSecond: 0, maxConcurrency: 256 },
  discover: createRampartDiscovery({ ratePerSecond: 0, maxConcurrency: 256, connectTimeoutMs: 1500 }),
});

let peakRss = process.memoryUsage().rss;
const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 200);

console.log(`nuclei engine, default selection of ${values.dir}, one loopback host per case`);
for (const site of [false, true]) {
  const server = await startServer(site);
  const options = values.rate ? { rate_per_host: Number(values.rate) } : {};
  const job: EngineJob = {
    targets: [{ kind: 'ip', value: '127.0.0.1' }],
    ports: [server.port],
    limits,
    options,
    guard: LOOPBACK_EGRESS.guard,
    egress: LOOPBACK_EGRESS,
    signal: new AbortController().signal,
  };
  const started = performance.now();
  const findings: string[] = [];
  const notes: string[] = [];
  let identity = '';
  for await (const event of engine.run(job) as AsyncIterable<EngineEvent>) {
    if (event.type === 'finding') findings.push(event.finding.ruleId);
    else if (event.type === 'log') notes.push(event.message);
    else if (event.type === 'engine') identity = `${event.name} ${event.version} ${event.detail ?? ''}`;
  }
  const seconds = (performance.now() - started) / 1000;
  await server.close();
  const totals = notes.find((n) => /template runs on/.test(n)) ?? '(no totals note)';
  const runs = Number(/^(\d+) template runs/.exec(totals)?.[1] ?? 0);
  console.log(`\n== ${site ? 'site (a few real weaknesses)' : '404 for everything'}: ${identity}`);
  console.log(`wall time            ${seconds.toFixed(1)} s`);
  console.log(`template runs        ${runs} (${(runs / seconds).toFixed(0)} templates/s)`);
  console.log(`engine totals        ${totals}`);
  console.log(`requests received    ${server.received()} at the server`);
  console.log(`findings             ${findings.length}: ${[...new Set(findings)].sort().join(', ')}`);
  if (site) {
    for (const page of Object.values(SITE)) {
      console.log(`  expected ${page.expect.padEnd(22)} ${findings.some((id) => id === page.expect || id.startsWith(`${page.expect}:`)) ? 'found' : 'MISSED'}`);
    }
  }
  console.log(`peak RSS so far      ${(peakRss / 2 ** 20).toFixed(0)} MB`);
}
clearInterval(sampler);
console.log(`\ngoal: under 180 s per host and RSS under 500 MB; peak RSS ${(peakRss / 2 ** 20).toFixed(0)} MB`);
