/**
 * bench/nuclei-http: runs every default-set template with http blocks (and no tcp/ssl/dns) that the
 * http executor can run (HTTP_EXECUTOR_FEATURES, beside level L7 of ../shared/reference/nuclei.md
 * for comparison) against one loopback server
 * answering 404 to everything, through the http executor with a shared response cache. Prints the
 * count, the time, requests sent and shared, matches, notes by kind, and errors thrown (should be 0).
 *
 *   npx tsc -p . && node dist/bench/nuclei-http.js [--dir DIR] [--concurrency N] [--limit N] [--ok]
 *
 * `--ok`: the server answers 200 with a plain page instead (matches then are templates that fire on
 * any page: a false-positive measure).
 */
import { setMaxListeners } from 'node:events';
import http from 'node:http';
import type net from 'node:net';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import type { HostGate } from '../src/engines/nuclei/execute/contract.js';
import { runHttpTemplate } from '../src/engines/nuclei/execute/http-executor.js';
import { HTTP_EXECUTOR_FEATURES } from '../src/engines/nuclei/execute/http-features.js';
import { createSharedResponses } from '../src/engines/nuclei/execute/shared-responses.js';
import { checkExecutable } from '../src/engines/nuclei/templates/features.js';
import { levelFeatureSets } from '../src/engines/nuclei/templates/levels.js';
import { loadTemplates } from '../src/engines/nuclei/templates/load-templates.js';
import { isInDefaultSet } from '../src/engines/nuclei/templates/safety.js';
import { LOOPBACK_EGRESS } from '../test/helpers/egress.js';
import { SHARED_DIR } from '../test/helpers/shared.js';

const { values } = parseArgs({
  options: {
    dir: { type: 'string', default: path.join(SHARED_DIR, 'third_party', 'nuclei-templates') },
    concurrency: { type: 'string', default: '16' },
    limit: { type: 'string', default: '0' },
    ok: { type: 'boolean', default: false },
  },
});
const directory = values.dir as string;
const l7 = levelFeatureSets().find((l) => l.level === 'L7')!.supported;
const supported = new Set(HTTP_EXECUTOR_FEATURES);
const { templates } = await loadTemplates(directory);
const httpOnly = templates.filter((t) => isInDefaultSet(t) && t.http.length > 0 && t.tcp.length + t.ssl.length + t.dns.length === 0);
const atL7 = httpOnly.filter((t) => checkExecutable(t, l7).executable).length;
let selected = httpOnly.filter((t) => checkExecutable(t, supported).executable);
const blockers = new Map<string, number>();
for (const t of httpOnly) for (const b of checkExecutable(t, supported).blockers) blockers.set(b, (blockers.get(b) ?? 0) + 1);
if (Number(values.limit) > 0) selected = selected.slice(0, Number(values.limit));

let received = 0;
const server = http.createServer((req, res) => {
  received++;
  req.resume();
  req.on('end', () => {
    res.writeHead(values.ok ? 200 : 404, { 'Content-Type': 'text/html' });
    res.end(values.ok ? '<html><head><title>Welcome</title></head><body>It works.</body></html>' : '<html><body>Not Found</body></html>');
  });
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const port = (server.address() as net.AddressInfo).port;

const gate: HostGate = { run: (_h, send) => send(), answered: () => undefined, networkError: () => undefined, isSkipped: () => false };
const controller = new AbortController();
// Every request in flight listens to the run's signal: one listener per concurrent template.
setMaxListeners(0, controller.signal);
const context = {
  egress: LOOPBACK_EGRESS,
  signal: controller.signal,
  gate,
  timeoutMs: 10_000,
  templatesDir: directory,
  vars: {},
  cache: createSharedResponses(),
};
const service = { host: '127.0.0.1', address: '127.0.0.1', port, scheme: 'http' as const, tls: false, basePath: '/' };

let sent = 0;
let shared = 0;
let matches = 0;
const errors: string[] = [];
const notes = new Map<string, number>();
const matched: string[] = [];
const started = performance.now();
let next = 0;
await Promise.all(
  Array.from({ length: Number(values.concurrency) }, async () => {
    while (next < selected.length) {
      const template = selected[next++]!;
      try {
        const outcome = await runHttpTemplate(template, service, context);
        sent += outcome.requestsSent;
        shared += outcome.requestsShared;
        matches += outcome.matches.length;
        if (outcome.matches.length > 0) matched.push(template.path);
        for (const note of outcome.notes) {
          const kind = note.replace(/^[^:]+: /, '').replace(/\{\{[^}]*\}\}/g, '{{…}}').replace(/"[^"]*"/g, '"…"').slice(0, 70);
          notes.set(kind, (notes.get(kind) ?? 0) + 1);
        }
      } catch (error) {
        errors.push(`${template.path}: ${(error as Error).stack ?? String(error)}`);
      }
    }
  }),
);
const seconds = (performance.now() - started) / 1000;
server.close();

const share = (n: number): string => `${((100 * n) / httpOnly.length).toFixed(1)}%`;
console.log(`default set, http only: ${httpOnly.length}; executable by the http executor ${selected.length} (${share(selected.length)}), at L7 ${atL7} (${share(atL7)})`);
console.log(`blockers:        ${[...blockers].sort((a, b) => b[1] - a[1]).slice(0, 8).map(([k, v]) => `${k} ${v}`).join(', ')}`);
console.log(`templates run:   ${selected.length}`);
console.log(`time:            ${seconds.toFixed(1)} s`);
console.log(`requests:        ${sent} sent, ${shared} shared (server received ${received})`);
console.log(`matches:         ${matches} on a ${values.ok ? '200' : '404'} server${matched.length > 0 ? ` (${matched.slice(0, 10).join(', ')}${matched.length > 10 ? ', ...' : ''})` : ''}`);
console.log(`errors thrown:   ${errors.length}`);
for (const e of errors.slice(0, 10)) console.log(`  ${e.split('\n').slice(0, 3).join(' | ')}`);
console.log('notes by kind:');
for (const [kind, count] of [...notes].sort((a, b) => b[1] - a[1]).slice(0, 15)) console.log(`  ${String(count).padStart(5)}  ${kind}`);
console.log(`peak RSS:        ${(process.memoryUsage().rss / 1024 / 1024).toFixed(0)} MiB`);
