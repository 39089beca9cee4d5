/**
 * The `rampart` command line: every command, its options and its help. Admin commands should
 * answer at once, so this file loads only what every command needs; the server (Fastify, MCP,
 * reports), the store code and even the configuration schema (typebox: hundreds of modules) are
 * imported when a command uses them. A command the running server runs needs none of them.
 */
import path from 'node:path';
import { Command, InvalidArgumentError } from 'commander';
import type { Config } from '../config.js';
import { storeLocation } from '../db/store-location.js';
import { AppError } from '../shared/errors.js';
import { VERSION } from '../shared/version.js';
import { SCAN_TYPES, type ScanType } from '../shared/scan-types.js';
import { vulnDbSources } from '../vulndb/sources.js';
import { acquireLock, lockHolder, sendAdminCommand } from './admin-channel.js';
import { secureDataDir } from './data-dir.js';
import type { AdminCommand } from './admin-types.js';
import type { Roles } from './serve.js';

function port(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new InvalidArgumentError('must be a port number (0-65535).');
  return n;
}

function count(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 100) throw new InvalidArgumentError('must be a whole number from 0 to 100.');
  return n;
}

function seconds(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 3600) throw new InvalidArgumentError('must be a whole number of seconds from 1 to 3600.');
  return n;
}

function httpUrl(value: string): string {
  if (!/^https?:\/\/\S+$/.test(value)) throw new InvalidArgumentError('must be an http:// or https:// URL.');
  return value;
}

/** The `--retries` and `--timeout` options of a command that downloads. */
function withDownloadOptions(command: Command): Command {
  return command
    .option('--retries <n>', 'retries of a request after a 5xx, 429, network error or timeout', count, 3)
    .option('--timeout <seconds>', 'longest wait for a response, then for each next piece of a download', seconds, 120);
}

/** `ZAP,Nuclei` -> the scan types, each one of the contract's (any case); duplicates dropped. */
function scanTypes(value: string): ScanType[] {
  const types: ScanType[] = [];
  for (const part of value.split(',').map((p) => p.trim()).filter(Boolean)) {
    const type = SCAN_TYPES.find((known) => known.toLowerCase() === part.toLowerCase());
    if (!type) throw new InvalidArgumentError(`"${part}" is not a scan type. Valid: ${SCAN_TYPES.join(', ')}.`);
    if (!types.includes(type)) types.push(type);
  }
  if (types.length === 0) throw new InvalidArgumentError(`name at least one scan type: ${SCAN_TYPES.join(', ')}.`);
  return types;
}

/**
 * Runs an admin command against the store, or through the server that holds it; progress lines
 * go to stderr either way. `cmd` may be built from this process's configuration (its settings
 * travel with the command, whoever runs it).
 */
async function admin(cmd: AdminCommand | ((config: Config) => AdminCommand)): Promise<void> {
  const progress = (message: string) => process.stderr.write(`${message}\n`);
  const location = storeLocation();
  let result;
  if (!location.databaseUrl && lockHolder(location.dataDir) !== undefined) {
    // Only a command built from this process's settings needs them read (and checked).
    const command = typeof cmd === 'function' ? cmd((await import('../config.js')).loadConfig()) : cmd;
    result = await sendAdminCommand(location.dataDir, command, progress);
  } else {
    const config = (await import('../config.js')).loadConfig();
    const command = typeof cmd === 'function' ? cmd(config) : cmd;
    const [{ openStore }, { runAdminCommand }] = await Promise.all([import('../db/database.js'), import('./admin-commands.js')]);
    if (!config.databaseUrl) secureDataDir(config.dataDir, { create: true, allowInsecure: config.allowInsecureDataDir });
    const release = config.databaseUrl ? () => {} : acquireLock(config.dataDir);
    const store = await openStore({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, schema: config.dbSchema, poolSize: 2 });
    try {
      if (command.command !== 'migrate') await runAdminCommand(store, { command: 'migrate' });
      result = await runAdminCommand(store, command, { progress, config });
    } finally {
      await store.close();
      release();
    }
  }
  for (const line of result.lines) process.stdout.write(`${line}\n`);
}

async function runRoles(roles: Roles, options: { port?: number; types?: ScanType[] }): Promise<void> {
  const [{ loadConfig }, { serve }] = await Promise.all([import('../config.js'), import('./serve.js')]);
  const config: Config = loadConfig(process.env, options.port === undefined ? {} : { port: options.port });
  const server = await serve(config, roles, options.types ? { workerTypes: options.types } : {});
  const shutdown = (signal: string) => {
    server.log.info({ signal }, 'signal received');
    server.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        server.log.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
}

async function templatesCheck(options: { dir?: string; json?: boolean }): Promise<void> {
  const [{ loadConfig }, { checkTemplates, formatTemplatesCheck }] = await Promise.all([import('../config.js'), import('./templates-check.js')]);
  const check = await checkTemplates(options.dir ?? loadConfig().nuclei.templatesDir);
  const lines = options.json ? [JSON.stringify(check, null, 2)] : formatTemplatesCheck(check);
  for (const line of lines) process.stdout.write(`${line}\n`);
}

async function syncTemplatesCommand(options: { url?: string; retries: number; timeout: number }): Promise<void> {
  const [{ loadConfig }, { syncTemplates }] = await Promise.all([import('../config.js'), import('./templates-sync.js')]);
  const config = loadConfig();
  const directory = config.nuclei.templatesDir;
  // The default place is inside the data directory: keep that private as every writer does.
  if (!path.relative(config.dataDir, directory).startsWith('..')) secureDataDir(config.dataDir, { create: true, allowInsecure: config.allowInsecureDataDir });
  const manifest = await syncTemplates({
    releaseUrl: options.url ?? config.nucleiCli.releaseUrl,
    directory,
    timeoutMs: options.timeout * 1000,
    retries: options.retries,
    progress: (line) => process.stderr.write(`${line}\n`),
  });
  process.stdout.write(`${manifest.release}: ${manifest.verified} verified templates installed in ${directory} (${manifest.removed.length} left out)\n`);
}

export function buildProgram(): Command {
  const program = new Command('rampart')
    .description('Rampart: a self-hostable security scanning service.')
    .version(VERSION)
    .showHelpAfterError('(run with --help for usage)')
    .addHelpText(
      'after',
      '\nConfiguration comes from the environment: DATABASE_URL (PostgreSQL; default: embedded store in\n' +
        'RAMPART_DATA_DIR, ./data), RAMPART_PORT, RAMPART_BASE_URL, RAMPART_JWT_SECRET and more: see README.md.',
    );

  program
    .command('serve')
    .description('Run everything in one process: the API, run workers and the scheduler (embedded store unless DATABASE_URL is set).')
    .option('-p, --port <port>', 'port to listen on (env RAMPART_PORT, default 8080)', port)
    .action((o: { port?: number }) => runRoles({ api: true, worker: true, scheduler: true }, o));
  program
    .command('api')
    .description('Run only the API (scale-out on PostgreSQL: pair with worker and scheduler processes).')
    .option('-p, --port <port>', 'port to listen on (env RAMPART_PORT, default 8080)', port)
    .action((o: { port?: number }) => runRoles({ api: true, worker: false, scheduler: false }, o));
  program
    .command('worker')
    .description('Run only scan workers; start as many as you like, on any machine, against one PostgreSQL (DATABASE_URL).')
    .option('--types <types>', `scan types whose runs this worker claims, comma-separated (${SCAN_TYPES.join(', ')}; default: every type with an engine on this deployment)`, scanTypes)
    .action((o: { types?: ScanType[] }) => runRoles({ api: false, worker: true, scheduler: false }, o.types ? { types: o.types } : {}));
  program
    .command('scheduler')
    .description('Run only the scheduler (fires scheduled scans); several may run, each period fires once.')
    .action(() => runRoles({ api: false, worker: false, scheduler: true }, {}));

  program
    .command('migrate')
    .description('Apply pending database migrations (serve also applies them on start).')
    .action(() => admin({ command: 'migrate' }));

  const user = program.command('user').description('Manage accounts.');
  user
    .command('create')
    .description('Create an account.')
    .requiredOption('--email <email>', 'email address (unique, case-insensitive)')
    .requiredOption('--password <password>', 'password: at least 12 characters, not a commonly used one')
    .option('--name <name>', 'display name (default: the part of the email before @)')
    .option('--role <role>', 'plan: trial, basic, premium, pro or admin', 'trial')
    .action((o: { email: string; password: string; name?: string; role: string }) =>
      admin({ command: 'user.create', email: o.email, password: o.password, name: o.name, role: o.role }),
    );

  user
    .command('role')
    .description("Change an account's plan (role); it applies from the account's next request.")
    .requiredOption('--email <email>', 'the account')
    .requiredOption('--role <role>', 'plan: trial, basic, premium, pro or admin')
    .action((o: { email: string; role: string }) => admin({ command: 'user.role', email: o.email, role: o.role }));

  const key = program.command('key').description('Manage API keys.');
  key
    .command('create')
    .description('Create an API key; prints it alone on the last line (the only time it is shown).')
    .requiredOption('--email <email>', 'the account the key belongs to')
    .option('--name <name>', 'a name for the key, e.g. the integration using it', 'default')
    .action((o: { email: string; name: string }) => admin({ command: 'key.create', email: o.email, name: o.name }));
  key
    .command('list')
    .description("List an account's API keys (prefixes only).")
    .requiredOption('--email <email>', 'the account')
    .action((o: { email: string }) => admin({ command: 'key.list', email: o.email }));
  key
    .command('delete')
    .description('Delete (revoke) an API key: it can no longer be exchanged or refreshed.')
    .requiredOption('--email <email>', 'the account')
    .requiredOption('--key <key>', 'the key itself or its visible prefix (rk_xxxxxxxx)')
    .action((o: { email: string; key: string }) => admin({ command: 'key.delete', email: o.email, key: o.key }));

  const vulndb = program.command('vulndb').description('The vulnerability database (NVD CVE records, CISA KEV, FIRST EPSS).');
  const vulndbSync = vulndb
    .command('sync')
    .description(
      'Download or update the database; progress goes to stderr. Uses this shell\'s RAMPART_NVD_API_KEY (faster) and ' +
        'RAMPART_NVD_URL/KEV_URL/EPSS_URL (mirrors), also when a running server does the work.',
    )
    .option('--full', 'download every NVD record, not only those changed since the last sync');
  withDownloadOptions(vulndbSync)
    .action((o: { full?: boolean; retries: number; timeout: number }) =>
      admin((config) => ({ command: 'vulndb.sync', sources: vulnDbSources(config), full: o.full, retries: o.retries, timeoutSeconds: o.timeout })),
    );
  vulndb
    .command('status')
    .description('What the database holds: NVD records, KEV entries, EPSS scores, and when each was last synced.')
    .action(() => admin({ command: 'vulndb.status' }));

  const templates = program.command('templates').description('The nuclei templates of Nuclei scans (RAMPART_NUCLEI_TEMPLATES, default <data dir>/nuclei-templates).');
  templates
    .command('check')
    .description('Load the templates and print how many parse, how many verify, the default set, the share the built-in engine can run and what blocks the rest.')
    .option('--dir <dir>', 'the templates directory (default: RAMPART_NUCLEI_TEMPLATES, else <data dir>/nuclei-templates)')
    .option('--json', 'print one JSON document instead of lines')
    .action((o: { dir?: string; json?: boolean }) => templatesCheck(o));
  const templatesSync = templates
    .command('sync')
    .description(
      'Download the latest community templates release, verify it (a whole archive; ProjectDiscovery signatures) and install it ' +
        'into the templates directory in one rename; the previous set stays on any failure. Progress goes to stderr.',
    )
    .option('--url <url>', 'the release JSON to read (default: RAMPART_NUCLEI_TEMPLATES_URL, else GitHub\'s latest release)', httpUrl);
  withDownloadOptions(templatesSync)
    .action((o: { url?: string; retries: number; timeout: number }) => syncTemplatesCommand(o));

  program
    .command('import')
    .description(
      'Import a scanner results file into a scan as a completed run (nmap XML, OpenVAS/Greenbone XML or CSV, ZAP XML or JSON, ' +
        'nuclei JSON Lines or array; detected from the content). Prints the run index and counts.',
    )
    .requiredOption('--scan <uuid>', 'the scan the results belong to')
    .argument('<file>', 'the results file')
    .action((file: string, o: { scan: string }) => admin({ command: 'import', scan: o.scan, file: path.resolve(file) }));
  return program;
}

/** Prints an error the way a person can act on, and exits non-zero. */
export function reportError(error: unknown): never {
  if (error instanceof AppError) {
    process.stderr.write(`error: ${error.message}\n`);
    for (const [field, messages] of Object.entries(error.errors ?? {})) {
      for (const message of messages) process.stderr.write(`  --${field}: ${message}\n`);
    }
  } else {
    process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
  }
  process.exit(1);
}
