/**
 * Every validation rule of the spec's create and update tables, each asserting the field the 422
 * names. No worker runs here, so no scan ever sends a packet (the public address is never contacted).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildTestApp, signUp, STORE_KIND } from './helpers/app.js';
import { standInEngines } from './helpers/scripted-engines.js';

const PUBLIC_IP = '93.184.216.34';
const VALID = {
  scan_name: 'Nightly perimeter',
  scan_type: 'Rampart',
  scan_frequency: 'One-time',
  scan_time_zone: 'Europe/Berlin',
  scan_email: 'ops@example.com',
  scan_target: PUBLIC_IP,
};
const b64 = (text: string) => Buffer.from(text).toString('base64');
const SCRIPT = b64('from selenium import webdriver\n# log in\n');

type Case = [name: string, body: Record<string, unknown>, field: string, message: RegExp];

const omit = (key: string) => {
  const copy: Record<string, unknown> = { ...VALID };
  delete copy[key];
  return copy;
};

const CREATE_CASES: Case[] = [
  ['scan_name required', omit('scan_name'), 'scan_name', /^The scan name field is required\.$/],
  ['scan_name empty', { ...VALID, scan_name: '' }, 'scan_name', /is required/],
  ['scan_name max 255', { ...VALID, scan_name: 'x'.repeat(256) }, 'scan_name', /must not be greater than 255 characters/],
  ['scan_name string', { ...VALID, scan_name: { a: 1 } }, 'scan_name', /must be a string/],
  ['scan_type required', omit('scan_type'), 'scan_type', /is required/],
  ['scan_type enum', { ...VALID, scan_type: 'Nessus' }, 'scan_type', /^The selected scan type is invalid\. Valid: Rampart, OpenVas, ZAP, Nuclei\.$/],
  ['scan_frequency required', omit('scan_frequency'), 'scan_frequency', /is required/],
  ['scan_frequency enum', { ...VALID, scan_frequency: 'Hourly' }, 'scan_frequency', /selected scan frequency is invalid/],
  ['Unmanaged only for OpenVas', { ...VALID, scan_frequency: 'Unmanaged' }, 'scan_frequency', /must be OpenVas scans/],
  ['scan_start_date max 25', { ...VALID, scan_start_date: '2026-12-01'.padEnd(26, ' x') }, 'scan_start_date', /not be greater than 25 characters/],
  ['scan_start_date garbage', { ...VALID, scan_start_date: 'next blue moon' }, 'scan_start_date', /.+/],
  ['scan_start_date ambiguous', { ...VALID, scan_start_date: '03/04/2027' }, 'scan_start_date', /ambiguous/i],
  ['scan_start_date impossible', { ...VALID, scan_start_date: '2027-02-30' }, 'scan_start_date', /.+/],
  ['scan_start_time max 10', { ...VALID, scan_start_time: '09:30:00 PM' }, 'scan_start_time', /not be greater than 10 characters/],
  ['scan_start_time invalid', { ...VALID, scan_start_time: '13:00 PM' }, 'scan_start_time', /.+/],
  ['scan_start_time garbage', { ...VALID, scan_start_time: 'noonish' }, 'scan_start_time', /.+/],
  ['scan_time_zone required', omit('scan_time_zone'), 'scan_time_zone', /is required/],
  ['scan_time_zone max 35', { ...VALID, scan_time_zone: 'America/' + 'x'.repeat(30) }, 'scan_time_zone', /not be greater than 35 characters/],
  ['scan_time_zone IANA', { ...VALID, scan_time_zone: 'Mars/Olympus_Mons' }, 'scan_time_zone', /IANA time zone/],
  ['scan_email required', omit('scan_email'), 'scan_email', /is required/],
  ['scan_email format', { ...VALID, scan_email: 'not-an-email' }, 'scan_email', /must be a valid email address/],
  ['scan_email max 100', { ...VALID, scan_email: `${'a'.repeat(95)}@example.com` }, 'scan_email', /not be greater than 100 characters/],
  ['scan_target required', omit('scan_target'), 'scan_target', /is required/],
  ['scan_target empty', { ...VALID, scan_target: '' }, 'scan_target', /is required/],
  ['scan_target only separators', { ...VALID, scan_target: ' ,\n, ' }, 'scan_target', /.+/],
  ['scan_target scheme for Rampart', { ...VALID, scan_target: 'https://93.184.216.34' }, 'scan_target', /scheme|http/i],
  ['scan_target port', { ...VALID, scan_target: 'example.com:8080' }, 'scan_target', /port/i],
  ['scan_target bad host', { ...VALID, scan_target: 'exa mple..com' }, 'scan_target', /.+/],
  ['scan_target ZAP needs URL', { ...VALID, scan_type: 'ZAP', scan_target: 'example.com' }, 'scan_target', /http/i],
  ['scan_target loopback refused', { ...VALID, scan_target: '127.0.0.1' }, 'scan_target', /loopback/],
  ['scan_target private range refused', { ...VALID, scan_target: '10.1.0.0/16' }, 'scan_target', /private/],
  ['scan_target metadata refused', { ...VALID, scan_target: '169.254.169.254' }, 'scan_target', /metadata/],
  ['scan_target localhost refused after DNS', { ...VALID, scan_target: 'localhost' }, 'scan_target', /non-public|loopback/],
  ['scan_target address cap', { ...VALID, scan_target: '8.0.0.0/15' }, 'scan_target', /65536/],
  ['zap_authenticated boolean', { ...VALID, scan_type: 'ZAP', scan_target: 'https://93.184.216.34', zap_authenticated: 'maybe' }, 'zap_authenticated', /true or false/],
  ['zap_authenticated needs script', { ...VALID, scan_type: 'ZAP', scan_target: 'https://93.184.216.34', zap_authenticated: true }, 'zap_login_script', /required when zap authenticated is true/],
  ['zap_login_script base64', { ...VALID, scan_type: 'ZAP', scan_target: 'https://93.184.216.34', zap_authenticated: true, zap_login_script: 'not base64!!' }, 'zap_login_script', /valid base64/],
  ['zap_login_script text', { ...VALID, scan_type: 'ZAP', scan_target: 'https://93.184.216.34', zap_authenticated: true, zap_login_script: Buffer.from([0xff, 0xfe, 0x00, 0x01]).toString('base64') }, 'zap_login_script', /text file/],
  ['zap options only for ZAP', { ...VALID, zap_authenticated: true, zap_login_script: SCRIPT }, 'zap_authenticated', /ZAP scans only/],
  ['include_attack_narrative boolean', { ...VALID, include_attack_narrative: 'perhaps' }, 'include_attack_narrative', /true or false/],
];

test(`POST /api/new-scan validation (${STORE_KIND})`, async (t) => {
  const ctx = await buildTestApp(t, { engines: standInEngines() });
  const user = await signUp(ctx, { role: 'admin' });
  for (const [name, body, field, message] of CREATE_CASES) {
    await t.test(name, async () => {
      const res = await ctx.app.inject({ method: 'POST', url: '/api/new-scan', headers: user.auth, payload: body });
      assert.equal(res.statusCode, 422, res.body);
      const json = res.json();
      assert.ok(json.errors[field], `errors.${field} in ${res.body}`);
      assert.match(json.errors[field].join(' '), message);
      assert.equal(json.message.split(' (and ')[0], Object.values(json.errors as Record<string, string[]>)[0]![0]);
    });
  }
  const count = await ctx.store.db.selectFrom('scans').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  assert.equal(Number(count.n), 0, 'nothing was stored by a rejected request');
});

test(`plan tiers: 403 naming the plan (${STORE_KIND})`, async (t) => {
  const ctx = await buildTestApp(t, { engines: standInEngines() });
  const trial = await signUp(ctx, { role: 'trial' });
  const basic = await signUp(ctx, { role: 'basic' });
  const premium = await signUp(ctx, { role: 'premium' });
  const pro = await signUp(ctx, { role: 'pro' });
  const post = (auth: Record<string, string>, body: object) => ctx.app.inject({ method: 'POST', url: '/api/new-scan', headers: auth, payload: body });
  const unmanaged = { ...VALID, scan_type: 'OpenVas', scan_frequency: 'Unmanaged', scan_target: '10.0.0.0/24' };

  for (const who of [trial, basic, premium]) {
    const res = await post(who.auth, unmanaged);
    assert.equal(res.statusCode, 403);
    assert.deepEqual(res.json(), { message: 'Internal network (Unmanaged) scans require the pro or admin plan.' });
  }
  assert.equal((await post(pro.auth, unmanaged)).statusCode, 200, 'pro may scan internal networks through the agent');

  for (const who of [trial, basic]) {
    const res = await post(who.auth, { ...VALID, include_attack_narrative: true });
    assert.equal(res.statusCode, 403);
    assert.match(res.json().message, /premium, pro or admin plan/);
  }
  assert.equal((await post(premium.auth, { ...VALID, include_attack_narrative: true })).statusCode, 200);
});

test(`PUT /api/scans/{uuid} validation (${STORE_KIND})`, async (t) => {
  const ctx = await buildTestApp(t, { engines: standInEngines() });
  const user = await signUp(ctx, { role: 'basic' });
  const create = async (body: object) => {
    const res = await ctx.app.inject({ method: 'POST', url: '/api/new-scan', headers: user.auth, payload: body });
    assert.equal(res.statusCode, 200, res.body);
    return res.json().uuid as string;
  };
  const rampart = await create(VALID);
  const zap = await create({ ...VALID, scan_type: 'ZAP', scan_target: 'https://93.184.216.34/app' });
  const put = (uuid: string, payload?: unknown) =>
    ctx.app.inject({ method: 'PUT', url: `/api/scans/${uuid}`, headers: user.auth, ...(payload === undefined ? {} : { payload: payload as object }) });

  const cases: [string, string, unknown, number, string | null, RegExp][] = [
    ['scan_name max 255', rampart, { scan_name: 'y'.repeat(256) }, 422, 'scan_name', /255 characters/],
    ['scan_name empty', rampart, { scan_name: '' }, 422, 'scan_name', /required/],
    ['zap fields on a Rampart scan', rampart, { zap_authenticated: true }, 422, 'zap_authenticated', /ZAP scans only/],
    ['enable without a script', zap, { zap_authenticated: true }, 422, 'zap_login_script', /required/],
    ['script not base64', zap, { zap_login_script: '%%%' }, 422, 'zap_login_script', /base64/],
    ['script and remove together', zap, { zap_login_script: SCRIPT, remove_login_script: true }, 422, 'remove_login_script', /not both/],
    ['remove_login_script boolean', zap, { remove_login_script: 'yes please' }, 422, 'remove_login_script', /true or false/],
    ['narrative needs premium', rampart, { include_attack_narrative: true }, 403, null, /premium, pro or admin plan/],
    ['body required', rampart, undefined, 422, 'body', /JSON object/],
  ];
  for (const [name, uuid, body, status, field, message] of cases) {
    await t.test(name, async () => {
      const res = await put(uuid, body);
      assert.equal(res.statusCode, status, res.body);
      if (field) assert.match(res.json().errors[field].join(' '), message);
      else assert.match(res.json().message, message);
    });
  }
});
