/**
 * The file upload check against the test application through a real web client on loopback: the
 * upload form that stores any file is reported once, with the file served back as proof; the
 * twin that accepts only pictures refuses every script name and yields nothing.
 */
import assert from 'node:assert/strict';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { CHECKS } from '../src/engines/web/checks/upload.js';
import type { FormField } from '../src/engines/web/contract.js';
import { startVulnApp } from './helpers/vuln-app/app.js';
import { formEndpoint, startCheckRun } from './helpers/web-checks.js';

const [check] = CHECKS;
const FIELDS: FormField[] = [
  { name: 'title', type: 'text', value: 'holiday' },
  { name: 'file', type: 'file', value: '' },
];

test('file upload: a stored and served-back script name is reported once, and the twin that checks pictures is not', async (t) => {
  const app = await startVulnApp(t);
  const run = startCheckRun(t, app.url);
  await check!.testEndpoint!(formEndpoint(app.url, '/upload', FIELDS, { multipart: true }), run.ctx);
  await check!.testEndpoint!(formEndpoint(app.url, '/safe/upload', FIELDS, { multipart: true }), run.ctx);

  assert.equal(run.drafts.length, 1, run.drafts.map((d) => d.url).join(', '));
  const [draft] = run.drafts;
  assert.equal(draft!.ruleId, 'rampart:web-file-upload');
  assert.equal(draft!.url, `${app.url}upload`);
  assert.equal(draft!.parameter, 'file');
  const [uploaded, served] = draft!.proof;
  assert.equal(uploaded!.request.method, 'POST');
  assert.match(uploaded!.request.body, /filename="rampart-[a-z0-9]{8}\.php"/);
  assert.match(served!.url, new RegExp(`^${app.url}uploads/rampart-[a-z0-9]{8}\\.php$`));
  assert.ok(served!.body.includes(draft!.highlight!));
  assert.match(draft!.summary, /remains on the server/);
  // One harmless file left on the vulnerable form; the twin stored nothing after refusing .php, .phtml and .jsp.
  assert.equal((await readdir(path.join(app.ctx.dir, 'uploads'))).length, 1);
  const twin = run.responses.filter((r) => r.request.method === 'POST' && r.request.url.endsWith('/safe/upload'));
  assert.deepEqual(twin.map((r) => [/filename="rampart-[a-z0-9]+\.(\w+)"/.exec(r.request.body)?.[1], r.status]), [['php', 400], ['phtml', 400], ['jsp', 400]]);
});

test('file upload: forms without a file field, or not multipart, are not probed', async (t) => {
  const app = await startVulnApp(t);
  const run = startCheckRun(t, app.url);
  await check!.testEndpoint!(formEndpoint(app.url, '/upload', FIELDS.slice(0, 1), { multipart: true }), run.ctx);
  await check!.testEndpoint!(formEndpoint(app.url, '/upload', FIELDS), run.ctx);
  assert.equal(run.responses.length, 0);
});
