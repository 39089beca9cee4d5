/**
 * `node agent.js`: the local agent's entry (docs in README, "Internal networks with the local
 * agent"). The downloaded file is this program bundled into one CommonJS file
 * (dist/agent/agent.cjs), preceded by a line setting `globalThis.RAMPART_AGENT` to the scan's
 * AgentConfig. The Node version is checked before anything else is loaded: the rest is imported
 * afterwards, so an old Node gets a sentence instead of a syntax error.
 */
/** Set by the bundler (scripts/build-agent.mjs) to the package version; 'dev' when run unbundled. */
declare const RAMPART_AGENT_VERSION: string | undefined;

const MIN_NODE_MAJOR = 20;

const major = Number(process.versions.node.split('.')[0]);
if (major < MIN_NODE_MAJOR) {
  process.stderr.write(`The Rampart agent needs Node.js ${MIN_NODE_MAJOR} or later; this is Node.js ${process.versions.node}.\n`);
  process.exit(2);
}

const controller = new AbortController();
let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    // A second signal means now.
    if (stopping) process.exit(1);
    stopping = true;
    process.stdout.write(`${new Date().toISOString()} ${signal}: stopping (a scan in progress is abandoned, not completed)\n`);
    controller.abort();
  });
}

void import('./agent-cli.js')
  .then(({ runAgentCli, downloadedConfig }) =>
    runAgentCli({
      config: downloadedConfig(),
      argv: process.argv.slice(2),
      version: typeof RAMPART_AGENT_VERSION === 'string' ? RAMPART_AGENT_VERSION : 'dev',
      signal: controller.signal,
    }),
  )
  .then(
    (code) => process.exit(code),
    (error: unknown) => {
      process.stderr.write(`The Rampart agent stopped on an unexpected error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      process.exit(1);
    },
  );
