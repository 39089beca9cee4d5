/**
 * The README and the decisions tell the truth: the two set-up commands start Rampart without a
 * second build, every configuration variable is documented (and every documented one exists),
 * and the figures the docs give come from the code.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ENV_VARIABLES } from '../src/config.js';
import { DEFAULT_TCP_PORTS } from '../src/engines/rampart/ports.js';
import { buildTestApp, signUp, tempDir } from './helpers/app.js';
import { freePort } from './helpers/cli.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const README = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
const DECISIONS = fs.readFileSync(path.join(ROOT, 'docs/DECISIONS.md'), 'utf8');
const PACKAGE = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };

/** "1,206" -> 1206 */
const count = (text: string) => Number(text.replace(/,/g, ''));

test("the README's first commands install, start without rebuilding, and test", async (t) => {
  const block = /```sh\n([\s\S]*?)```/.exec(README)?.[1] ?? '';
  const [install, tests] = block.split('\n').map((line) => line.replace(/#.*/, '').trim());
  assert.equal(install, 'npm ci && npm start');
  assert.equal(tests, 'npm test');
  // npx would copy the package and run `prepare` (tsc) again: about 30 s before anything starts.
  const commands = [...README.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!).join('\n');
  assert.doesNotMatch(commands, /npx rampart/);
  assert.doesNotMatch(PACKAGE.scripts.start ?? '', /tsc|npx|prestart/);
  assert.equal(PACKAGE.scripts.prestart, undefined);

  // `npm start` really starts the server on a fresh data directory.
  const dataDir = path.join(await tempDir(t), 'data');
  const port = await freePort();
  const child = spawn('npm', ['start', '--silent'], {
    cwd: ROOT,
    env: { ...process.env, RAMPART_DATA_DIR: dataDir, RAMPART_PORT: String(port), RAMPART_LOG_LEVEL: 'info' },
    detached: true,
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  t.after(async () => {
    if (child.exitCode === null) {
      process.kill(-child.pid!, 'SIGKILL');
      await exited;
    }
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const listening = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout }).on('line', (line) => {
      if (line.includes('listening on')) resolve(line);
    });
    void exited.then((code) => reject(new Error(`npm start exited (${code}): ${stderr}`)));
  });
  assert.match(listening, new RegExp(`localhost:${port}`));
  const res = await fetch(`http://127.0.0.1:${port}/api/user`);
  assert.equal(res.status, 401);
  process.kill(-child.pid!, 'SIGTERM');
  await exited;
});

test('every configuration variable is in the README table, and the table names no other', () => {
  const documented = new Set([...README.matchAll(/^\| `((?:RAMPART_|DATABASE_URL)[A-Z_]*)`/gm)].map((m) => m[1]!));
  // Rows that group several variables: "| `RAMPART_NVD_URL`, `RAMPART_KEV_URL`, `RAMPART_EPSS_URL` |".
  for (const row of README.matchAll(/^\| (`[A-Z_]+`(?:, `[A-Z_]+`)+) \|/gm)) {
    for (const name of row[1]!.matchAll(/`([A-Z_]+)`/g)) documented.add(name[1]!);
  }
  const missing = ENV_VARIABLES.filter((name) => !documented.has(name));
  const unknown = [...documented].filter((name) => !ENV_VARIABLES.includes(name));
  assert.deepEqual(missing, [], 'variables the README does not document');
  assert.deepEqual(unknown, [], 'variables the README documents but the configuration does not read');
});

test('the default port list has the size the docs give', () => {
  const readme = /`default` \(([0-9,]+) ports: the ([0-9,]+) system ports 1-1023 and ([0-9,]+) higher/.exec(README);
  assert.ok(readme, 'the README describes the default port list');
  const system = DEFAULT_TCP_PORTS.filter((port) => port < 1024).length;
  assert.deepEqual([count(readme[1]!), count(readme[2]!), count(readme[3]!)], [DEFAULT_TCP_PORTS.length, system, DEFAULT_TCP_PORTS.length - system]);
  const decisions = /all ([0-9,]+) system ports \(1-1023\) plus ([0-9,]+) higher ports[\s\S]*?: ([0-9,]+) in all/.exec(DECISIONS);
  assert.ok(decisions, 'DECISIONS.md describes the default port list');
  assert.deepEqual([count(decisions[1]!), count(decisions[2]!), count(decisions[3]!)], [system, DEFAULT_TCP_PORTS.length - system, DEFAULT_TCP_PORTS.length]);
});

test('the README gives the number of MCP tools the endpoint lists', async (t) => {
  const ctx = await buildTestApp(t);
  const { token } = await signUp(ctx);
  const address = await ctx.app.listen({ port: 0, host: '127.0.0.1' });
  const client = new Client({ name: 'docs-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${address}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  t.after(() => client.close());
  const { tools } = await client.listTools();
  const stated = /: ([0-9]+) in\s+all\)/.exec(README);
  assert.ok(stated, 'the README states how many tools there are');
  assert.equal(Number(stated[1]), tools.length);
});
