/**
 * `rampart vulndb sync` as an operator runs it: a `rampart serve` process holds the embedded store,
 * and the CLI, with its own sources and NVD API key in its environment (the server has none), asks
 * the server to sync, printing its progress on stderr. The sources are the real NVD, KEV and EPSS
 * fixtures of ../shared/vulndb served over local HTTP.
 */
import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import { tempDir } from './helpers/app.js';
import { freePort, runCli, startServe } from './helpers/cli.js';
import { skip, startSources } from './helpers/vulndb-sources.js';

/** A running `rampart serve` on a fresh embedded store (never DATABASE_URL, whatever the suite uses). */
async function startEmbeddedServe(t: TestContext): Promise<Record<string, string | undefined>> {
  const env = { RAMPART_DATA_DIR: await tempDir(t), RAMPART_PORT: String(await freePort()), RAMPART_LOG_LEVEL: 'info', DATABASE_URL: undefined };
  const server = startServe(t, env);
  await server.waitForLog((l) => typeof l.msg === 'string' && l.msg.startsWith('Rampart ') && l.msg.includes('listening'));
  return env;
}

test('vulndb sync while serve holds the store: the CLI sources and key, progress on stderr, the records stored', { skip }, async (t) => {
  const fake = await startSources(t);
  const env = await startEmbeddedServe(t);
  const cliEnv = {
    ...env,
    RAMPART_NVD_URL: fake.sources.nvdBaseUrl,
    RAMPART_KEV_URL: fake.sources.kevUrl,
    RAMPART_EPSS_URL: fake.sources.epssUrl,
    RAMPART_NVD_API_KEY: 'cli-nvd-key',
  };

  const synced = await runCli(['vulndb', 'sync'], cliEnv);
  assert.equal(synced.code, 0, synced.stderr);
  assert.equal(synced.stdout, 'Vulnerability database synced: 46 NVD records, 1404 KEV entries, 24 EPSS scores.\n');
  const progress = synced.stderr.split('\n');
  for (const line of [
    `NVD: full download from ${fake.sources.nvdBaseUrl}`,
    'NVD: page 1 of 3, 20/46 records (43%)',
    'NVD: page 2 of 3, 40/46 records (86%)',
    'NVD: page 3 of 3, 46/46 records (100%)',
    `KEV: downloading ${fake.sources.kevUrl}`,
    'KEV: 1404 entries (catalog 2025.08.25)',
    `EPSS: downloading ${fake.sources.epssUrl}`,
  ]) {
    assert.ok(progress.includes(line), `"${line}" in stderr:\n${synced.stderr}`);
  }
  const nvdHeaders = fake.headers.filter((_, i) => fake.requests[i]?.pathname === '/nvd');
  assert.equal(nvdHeaders.length, 3);
  assert.ok(nvdHeaders.every((h) => h.apikey === 'cli-nvd-key'), "the CLI's NVD API key is sent");

  const status = await runCli(['vulndb', 'status'], env);
  assert.equal(status.code, 0, status.stderr);
  assert.match(status.stdout, /^NVD: 46 CVE records, \d+ CPE match criteria, synced \d{4}-\d\d-\d\dT/m);
  assert.match(status.stdout, /^KEV: 1404 entries, synced /m);
  assert.match(status.stdout, /^EPSS: 24 scores, synced /m);
});

test('vulndb sync through serve names the cause and the URL of a failure: HTTP 500, connection refused', { skip }, async (t) => {
  const fake = await startSources(t);
  const env = await startEmbeddedServe(t);
  const sources = { ...env, RAMPART_NVD_URL: fake.sources.nvdBaseUrl, RAMPART_KEV_URL: fake.sources.kevUrl, RAMPART_EPSS_URL: fake.sources.epssUrl, RAMPART_NVD_API_KEY: 'k' };

  const failing = await runCli(['vulndb', 'sync', '--retries', '0'], { ...sources, RAMPART_NVD_URL: `${fake.base}/status/500` });
  assert.equal(failing.code, 1);
  assert.match(failing.stderr, /^error: NVD download failed: HTTP 500 from http:\/\/127\.0\.0\.1:\d+\/status\/500\?resultsPerPage=2000&startIndex=0$/m);

  const closed = await freePort();
  const refused = await runCli(['vulndb', 'sync', '--retries', '0'], { ...sources, RAMPART_KEV_URL: `http://127.0.0.1:${closed}/kev.json` });
  assert.equal(refused.code, 1);
  assert.ok(refused.stderr.includes('NVD: page 3 of 3, 46/46 records (100%)'), refused.stderr);
  assert.ok(
    refused.stderr.includes(`error: KEV download failed: connection refused by 127.0.0.1:${closed} (ECONNREFUSED) (http://127.0.0.1:${closed}/kev.json)\n`),
    refused.stderr,
  );

  const status = await runCli(['vulndb', 'status'], env);
  assert.match(status.stdout, /^NVD: 46 CVE records, .*synced /m, 'the NVD part of the failed sync is kept');
  assert.match(status.stdout, /^KEV: 0 entries, never synced$/m);
});
