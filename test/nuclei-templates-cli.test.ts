/**
 * `rampart templates check` and `rampart templates sync` as an operator runs them (the real CLI as
 * a child process). Check runs over the shared community set and over a directory with a broken
 * template; sync downloads from a loopback server that plays GitHub's "latest release" JSON and
 * serves tar.gz archives built here from REAL signed templates of the shared set, whole, tampered
 * or truncated. Nothing touches the internet.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { test, type TestContext } from 'node:test';
import * as tar from 'tar';
import { tempDir } from './helpers/app.js';
import { runCli } from './helpers/cli.js';
import { SHARED_DIR } from './helpers/shared.js';

const TEMPLATES = path.join(SHARED_DIR, 'third_party', 'nuclei-templates');
const skip = existsSync(TEMPLATES) ? false : `shared nuclei templates absent (${TEMPLATES}); set RAMPART_SHARED_DIR`;
const TOP = 'projectdiscovery-nuclei-templates-a64f60e';

/** The first `n` templates of a shared folder, as [relative path, content]. */
async function realTemplates(folder: string, n: number): Promise<Array<[string, string]>> {
  const names = (await fs.readdir(path.join(TEMPLATES, folder))).filter((f) => f.endsWith('.yaml')).sort().slice(0, n);
  return Promise.all(names.map(async (name) => [`${folder}/${name}`, await fs.readFile(path.join(TEMPLATES, folder, name), 'utf8')] as [string, string]));
}

/** A gzip'd tar of the files under one top folder, as GitHub's tarball_url serves. */
async function archiveOf(t: TestContext, files: Array<[string, string]>): Promise<Buffer> {
  const staging = await tempDir(t);
  for (const [name, content] of files) {
    await fs.mkdir(path.dirname(path.join(staging, TOP, name)), { recursive: true });
    await fs.writeFile(path.join(staging, TOP, name), content);
  }
  const chunks: Buffer[] = [];
  for await (const chunk of tar.c({ gzip: true, cwd: staging, portable: true }, [TOP])) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** A template with one word of its matchers changed: its signature no longer verifies. */
const tamper = ([name, content]: [string, string]): [string, string] => [name, content.replace(/^(id: .*)$/m, '$1-tampered')];

/** Serves `/release` (a latest-release JSON pointing at `/archive.tar.gz`) and the archive. */
async function startReleaseServer(t: TestContext, archive: Buffer): Promise<string> {
  const server = http.createServer((request, response) => {
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    if (request.url === '/release') {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ tag_name: 'v10.3.9', tarball_url: `${base}/archive.tar.gz`, zipball_url: `${base}/archive.zip` }));
    } else if (request.url === '/archive.tar.gz') {
      response.writeHead(200, { 'content-type': 'application/x-gzip', 'content-length': archive.length });
      response.end(archive);
    } else {
      response.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise((resolve) => server.close(resolve)));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/release`;
}

/** A data directory holding a previous set with one marker template. */
async function dataDirWithOldSet(t: TestContext): Promise<{ env: Record<string, string>; installed: string }> {
  const dataDir = await tempDir(t);
  await fs.chmod(dataDir, 0o700);
  const installed = path.join(dataDir, 'nuclei-templates');
  await fs.mkdir(path.join(installed, 'http'), { recursive: true });
  await fs.writeFile(path.join(installed, 'http', 'old-marker.yaml'), 'id: old-marker\ninfo:\n  name: old\n  severity: info\n');
  return { env: { RAMPART_DATA_DIR: dataDir, RAMPART_NUCLEI_TEMPLATES: '' }, installed };
}

async function listing(dir: string): Promise<string[]> {
  return ((await fs.readdir(dir, { recursive: true })) as string[]).map((f) => f.split(path.sep).join('/')).sort();
}

test('templates check over the shared community set: every file parses and verifies, most of the default set runs', { skip }, async () => {
  const result = await runCli(['templates', 'check', '--json', '--dir', TEMPLATES], {});
  assert.equal(result.code, 0, result.stderr);
  const check = JSON.parse(result.stdout) as Record<string, any>;
  assert.equal(check.directory, TEMPLATES);
  assert.ok(check.files > 10_000, `files ${check.files}`);
  assert.equal(check.parsed, check.files);
  assert.deepEqual(check.signatures, { verified: check.files, unsigned: 0, invalid: 0 });
  assert.ok(check.defaultSet > 9000 && check.defaultSet < check.files, `default set ${check.defaultSet}`);
  assert.equal(check.share, check.executable / check.defaultSet);
  assert.ok(check.share >= 0.85, `executable share ${check.share}`);
  // The blockers of level L8: OOB and -var inputs lead.
  assert.deepEqual(check.blockers.slice(0, 2).map((b: { feature: string }) => b.feature).sort(), ['interactsh', 'var-input']);
});

test('templates check names a broken template and its reason, counts unsigned and tampered files, and reads RAMPART_NUCLEI_TEMPLATES', { skip }, async (t) => {
  const dir = await tempDir(t);
  const [good, other] = await realTemplates('http/cves/2021', 2);
  await fs.mkdir(path.join(dir, 'http'), { recursive: true });
  await fs.writeFile(path.join(dir, good![0].replace('http/cves/2021', 'http')), good![1]);
  await fs.writeFile(path.join(dir, 'http', 'tampered.yaml'), tamper(other!)[1]);
  await fs.writeFile(path.join(dir, 'http', 'broken.yaml'), 'id: broken\ninfo: [unclosed\n');
  await fs.writeFile(path.join(dir, 'http', 'no-id.yaml'), 'info:\n  name: x\n');

  const result = await runCli(['templates', 'check'], { RAMPART_NUCLEI_TEMPLATES: dir });
  assert.equal(result.code, 0, result.stderr);
  const lines = result.stdout.split('\n');
  assert.equal(lines[0], `templates: ${dir}`);
  assert.ok(lines.includes('files: 4, parsed: 2, failed: 2'), result.stdout);
  assert.ok(lines.includes('  1 x missing or empty `id` (e.g. http/no-id.yaml)'), result.stdout);
  assert.ok(lines.some((l) => /^ {2}1 x YAML error: .* \(e\.g\. http\/broken\.yaml\)$/.test(l)), result.stdout);
  assert.ok(lines.includes('signatures: 1 verified, 2 unsigned, 1 invalid'), result.stdout);
  assert.match(result.stdout, /^executable by the built-in engine: \d \(\d+\.\d% of the default set\)$/m);

  const missing = await runCli(['templates', 'check', '--dir', path.join(dir, 'nope')], {});
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /^error: No nuclei templates directory at .*nope: run `rampart templates sync`/);
});

test('templates sync installs a verified release atomically, leaving out a tampered and an unsigned template', { skip }, async (t) => {
  const real = await realTemplates('http/cves/2021', 40);
  const workflowLike: [string, string] = ['workflows/wf.yaml', 'id: wf\ninfo:\n  name: wf\n  author: x\n  severity: info\nworkflows:\n  - template: http/x.yaml\n'];
  const unsigned: [string, string] = ['http/unsigned.yaml', real[1]![1].replace(/\n# digest: .*\s*$/, '\n')];
  const archive = await archiveOf(t, [...real, tamper(['http/tampered.yaml', real[0]![1]]), unsigned, workflowLike, ['helpers/words.txt', 'a\nb\n']]);
  const releaseUrl = await startReleaseServer(t, archive);
  const { env, installed } = await dataDirWithOldSet(t);

  const result = await runCli(['templates', 'sync', '--retries', '0'], { ...env, RAMPART_NUCLEI_TEMPLATES_URL: releaseUrl });
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.stdout, `v10.3.9: 40 verified templates installed in ${installed} (2 left out)\n`);
  const progress = result.stderr.split('\n');
  assert.equal(progress[0], `release: reading ${releaseUrl}`);
  assert.ok(progress.includes(`release v10.3.9: downloading ${releaseUrl.replace('/release', '/archive.tar.gz')}`), result.stderr);
  assert.ok(progress.includes('signatures: 40 of 42 templates verify (95.2%)'), result.stderr);

  const files = await listing(installed);
  assert.ok(!files.includes('http/old-marker.yaml'), 'the old set is replaced');
  assert.ok(files.includes(real[5]![0]) && files.includes('workflows/wf.yaml') && files.includes('helpers/words.txt'));
  assert.ok(!files.includes('http/tampered.yaml') && !files.includes('http/unsigned.yaml'));
  const manifest = JSON.parse(await fs.readFile(path.join(installed, '.rampart-sync.json'), 'utf8')) as Record<string, unknown>;
  assert.equal(manifest.release, 'v10.3.9');
  assert.equal(manifest.verified, 40);
  assert.equal(manifest.signed, 41);
  assert.deepEqual(manifest.removed, ['http/tampered.yaml', 'http/unsigned.yaml']);
  assert.match(String(manifest.archiveSha256), /^[0-9a-f]{64}$/);
  assert.deepEqual((await fs.readdir(path.dirname(installed))).filter((f) => f.startsWith('nuclei-templates')), ['nuclei-templates'], 'no temporary directory left');

  const check = await runCli(['templates', 'check'], env);
  assert.equal(check.code, 0, check.stderr);
  assert.match(check.stdout, /^release: v10\.3\.9 \(synced \d{4}-/m);
  assert.match(check.stdout, /^signatures: 40 verified, 1 unsigned, 0 invalid$/m);
});

test('templates sync refuses a release with too many bad signatures, and a truncated archive; the old set stays', { skip }, async (t) => {
  const real = await realTemplates('http/cves/2021', 20);
  const tampered = [...real.slice(0, 17), ...real.slice(17).map(tamper)];
  const whole = await archiveOf(t, real);
  for (const [label, archive, message] of [
    ['tampered', await archiveOf(t, tampered), /^error: Release v10\.3\.9 refused: 17 of 20 templates carry a valid ProjectDiscovery signature \(at least 95% must\)/m],
    ['truncated', whole.subarray(0, Math.floor(whole.length / 2)), /^error: The templates archive is damaged or incomplete: gzip: unexpected end of file$/m],
  ] as const) {
    const releaseUrl = await startReleaseServer(t, archive);
    const { env, installed } = await dataDirWithOldSet(t);
    const result = await runCli(['templates', 'sync', '--retries', '0', '--url', releaseUrl], env);
    assert.equal(result.code, 1, `${label}: ${result.stdout}`);
    assert.match(result.stderr, message, label);
    assert.deepEqual(await listing(installed), ['http', 'http/old-marker.yaml'], `${label}: the old set is kept`);
    assert.deepEqual((await fs.readdir(path.dirname(installed))).filter((f) => f.startsWith('nuclei-templates')), ['nuclei-templates'], `${label}: nothing left behind`);
  }
});
