/**
 * The module rules of docs/ARCHITECTURE.md hold: dependency-cruiser (the `.dependency-cruiser.cjs`
 * that `npm run lint:deps` and CI use) finds no violation in src/, and each of its rules does catch
 * the violation it names in a small project written here, so no rule passes by matching nothing.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const DEPCRUISE = path.join(ROOT, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs');

interface Violation {
  from: string;
  to: string;
  type: string;
  rule: { name: string };
  cycle?: { name: string }[] | string[];
}

interface CruiseResult {
  summary: { violations: Violation[]; totalCruised: number; ruleSetUsed: { forbidden: { name: string }[] } };
}

/** Runs dependency-cruiser on `target` from `cwd` with the config found there; its JSON result. */
function cruise(cwd: string, target: string): Promise<CruiseResult> {
  return new Promise((resolve, reject) => {
    // Exit status 0 or the number of errors: the JSON on stdout is the answer either way.
    execFile(
      process.execPath,
      [DEPCRUISE, target, '--config', '.dependency-cruiser.cjs', '--output-type', 'json'],
      { cwd, timeout: 120_000, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (!stdout) return reject(new Error(`dependency-cruiser gave no result: ${error?.message ?? ''}\n${stderr}`));
        try {
          resolve(JSON.parse(stdout) as CruiseResult);
        } catch (parseError) {
          reject(new Error(`dependency-cruiser's answer is not JSON (${String(parseError)}): ${stderr}`));
        }
      },
    );
  });
}

const describe = (v: Violation) =>
  `${v.rule.name}: ${v.from} -> ${v.to}${v.cycle ? ` (cycle ${v.cycle.map((c) => (typeof c === 'string' ? c : c.name)).join(' -> ')})` : ''}`;

test('src/ keeps every module rule (npm run lint:deps)', async () => {
  const result = await cruise(ROOT, 'src');
  assert.deepEqual(result.summary.violations.map(describe), []);
  // It saw the code: every module and the engine's files, not an empty or misread tree.
  assert.ok(result.summary.totalCruised > 200, `only ${result.summary.totalCruised} modules cruised`);
});

/** A small project breaking each rule once; its own config reuses the real rules. */
const FIXTURE: Record<string, string> = {
  'package.json': JSON.stringify({
    name: 'fixture',
    type: 'module',
    dependencies: { fastify: '*', kysely: '*' },
    devDependencies: { typescript: '*' },
  }),
  'tsconfig.json': JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', strict: true } }),
  // node_modules is a link to the repository's: resolve packages where they are linked.
  '.dependency-cruiser.cjs': `const base = require(${JSON.stringify(path.join(ROOT, '.dependency-cruiser.cjs'))});
module.exports = { ...base, options: { ...base.options, preserveSymlinks: true } };`,
  'src/config.ts': 'export const config = 1;',
  'src/db/database.ts': 'export const db = 1;',
  'src/shared/errors.ts': 'export const errors = 1;',
  'src/app.ts': "import { rows } from './beta/beta.queries.js';\nexport const app = rows;",
  // engine-contract-imports-only-shared
  'src/engines/engine.ts': "import { db } from '../db/database.js';\nexport const contract = db;",
  // engine-registry-imports-only-engines
  'src/engines/registry.ts': "import { config } from '../config.js';\nimport { alpha } from './alpha/alpha.engine.js';\nexport const registry = [config, alpha];",
  // engine-imports-only-engine-contract (sibling engine), engine-no-http-or-sql-package
  'src/engines/alpha/alpha.engine.ts':
    "import type { FastifyInstance } from 'fastify';\nimport { contract } from '../engine.js';\nimport { beta } from '../beta/beta.engine.js';\n" +
    'export const alpha = [contract, beta];\nexport type App = FastifyInstance;',
  'src/engines/beta/beta.engine.ts':
    "import { errors } from '../../shared/errors.js';\nimport { parse } from '../importers/nmap.js';\nexport const beta = [errors, parse];",
  // Importers are the engines' shared parsers: engines may import them, they import only the contract.
  'src/engines/importers/nmap.ts': "import { contract } from '../engine.js';\nexport const parse = contract;",
  'src/engines/importers/zap.ts': "import { alpha } from '../alpha/alpha.engine.js';\nexport const parse = alpha;",
  // sql-only-in-queries, service-no-http, queries-only-from-own-module, modules-not-to-root,
  // not-to-unresolvable, not-to-dev-dependency
  'src/alpha/alpha.service.ts':
    "import { sql } from 'kysely';\nimport type { FastifyReply } from 'fastify';\nimport ts from 'typescript';\n" +
    "import { rows } from '../beta/beta.queries.js';\nimport { app } from '../app.js';\nimport { gone } from './gone.js';\n" +
    'export const service = [sql, ts, rows, app, gone];\nexport type Reply = FastifyReply;',
  'src/alpha/alpha.schema.ts': 'export const schema = 1;',
  // no-circular-modules: alpha -> beta (above) and beta -> alpha, with no file-level cycle
  'src/beta/beta.queries.ts': "import { schema } from '../alpha/alpha.schema.js';\nexport const rows = schema;",
  // no-circular
  'src/gamma/one.ts': "import { two } from './two.js';\nexport const one = () => two;",
  'src/gamma/two.ts': "import { one } from './one.js';\nexport const two = () => one;",
  // Allowed, and must stay unreported: type-only kysely in a service, SQL in a module's own queries.
  'src/gamma/gamma.service.ts': "import type { Kysely } from 'kysely';\nimport { count } from './gamma.queries.js';\nexport type Db = Kysely<object>;\nexport const total = count;",
  'src/gamma/gamma.queries.ts': "import { sql } from 'kysely';\nexport const count = sql`select 1`;",
  // agent-imports-only-engines-and-shared (the store), agent-no-server-package (fastify); an engine and shared/ are allowed
  'src/agent/main.ts':
    "import type { FastifyInstance } from 'fastify';\nimport { db } from '../db/database.js';\nimport { errors } from '../shared/errors.js';\n" +
    "import { beta } from '../engines/beta/beta.engine.js';\nexport const agent = [db, errors, beta];\nexport type App = FastifyInstance;",
  // nothing-imports-agent
  'src/gamma/three.ts': "import { agent } from '../agent/main.js';\nexport const three = agent;",
};

test('every module rule catches the violation it names, and only that', async () => {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'rampart-boundaries-'));
  try {
    for (const [file, text] of Object.entries(FIXTURE)) {
      await fs.mkdir(path.dirname(path.join(dir, file)), { recursive: true });
      await fs.writeFile(path.join(dir, file), text);
    }
    await fs.symlink(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
    const result = await cruise(dir, 'src');
    const found = result.summary.violations.map(describe).sort();
    const rules = result.summary.ruleSetUsed.forbidden.map((rule) => rule.name);
    // Every rule fired at least once...
    assert.ok(rules.length >= 13, `the rule set has ${rules.length} rules`);
    assert.deepEqual(rules.filter((name) => !found.some((line) => line.startsWith(`${name}:`))), [], found.join('\n'));
    // ...exactly on the lines planted for it: nothing allowed (type-only kysely in a service, SQL in
    // a module's own queries, an engine importing src/shared/) was reported.
    assert.deepEqual(found, [
      'agent-imports-only-engines-and-shared: src/agent/main.ts -> src/db/database.ts',
      'agent-no-server-package: src/agent/main.ts -> node_modules/fastify/fastify.js',
      'engine-contract-imports-only-shared: src/engines/engine.ts -> src/db/database.ts',
      'engine-imports-only-engine-contract: src/engines/alpha/alpha.engine.ts -> src/engines/beta/beta.engine.ts',
      'engine-imports-only-engine-contract: src/engines/importers/zap.ts -> src/engines/alpha/alpha.engine.ts',
      'engine-no-http-or-sql-package: src/engines/alpha/alpha.engine.ts -> node_modules/fastify/fastify.js',
      'engine-registry-imports-only-engines: src/engines/registry.ts -> src/config.ts',
      'modules-not-to-root: src/alpha/alpha.service.ts -> src/app.ts',
      'no-circular-modules: src/alpha -> src/beta (cycle src/beta -> src/alpha)',
      'no-circular-modules: src/beta -> src/alpha (cycle src/alpha -> src/beta)',
      'no-circular: src/gamma/one.ts -> src/gamma/two.ts (cycle src/gamma/two.ts -> src/gamma/one.ts)',
      'not-to-dev-dependency: src/alpha/alpha.service.ts -> node_modules/typescript/lib/typescript.js',
      'not-to-unresolvable: src/alpha/alpha.service.ts -> ./gone.js',
      'nothing-imports-agent: src/gamma/three.ts -> src/agent/main.ts',
      'queries-not-from-root: src/app.ts -> src/beta/beta.queries.ts',
      'queries-only-from-own-module: src/alpha/alpha.service.ts -> src/beta/beta.queries.ts',
      'service-no-http: src/alpha/alpha.service.ts -> node_modules/fastify/fastify.js',
      'sql-only-in-queries: src/alpha/alpha.service.ts -> node_modules/kysely/dist/esm/index.js',
    ]);
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
});

const QUERY_CALL = /\.(selectFrom|insertInto|updateTable|deleteFrom|replaceInto|mergeInto|selectNoFrom)\(|\bsql`|\.executeQuery\(/;

test('no query is built or run outside *.queries.ts and src/db/', async () => {
  // A service handed a Db could build a query without importing kysely at all: read the text.
  const offending: string[] = [];
  let scanned = 0;
  for (const file of await fs.readdir(path.join(ROOT, 'src'), { recursive: true })) {
    if (!file.endsWith('.ts') || file.endsWith('.queries.ts') || file.startsWith(`db${path.sep}`)) continue;
    scanned++;
    const lines = (await fs.readFile(path.join(ROOT, 'src', file), 'utf8')).split('\n');
    lines.forEach((line, i) => {
      if (QUERY_CALL.test(line)) offending.push(`src/${file}:${i + 1}: ${line.trim()}`);
    });
  }
  assert.ok(scanned > 100, `only ${scanned} files read`);
  assert.deepEqual(offending, []);
});
