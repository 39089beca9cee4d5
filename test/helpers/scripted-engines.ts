/**
 * Runs through the real worker with scripted engines: each run yields the findings the test set
 * for it (per engine), so a test decides exactly what every run sees, and everything after the
 * engine (storing, deduplicating, judging, reports, email) is the real code.
 */
import assert from 'node:assert/strict';
import type { TestContext } from 'node:test';
import type { Engine, EngineErrorKind, EngineEvent, EngineIdentity, EngineJob, Finding } from '../../src/engines/engine.js';
import { EngineError } from '../../src/engines/engine.js';
import type { ScanType } from '../../src/shared/scan-types.js';
import { rampartOptionsSchema, UNCAPPED } from '../../src/engines/rampart/options.js';
import { buildTestApp, signUp, startTestBackground, type TestApp } from './app.js';
import { waitFor } from './servers.js';

export const HOST = '127.0.0.1';

/**
 * What the next run of each engine yields; `fail` makes it fail after yielding its findings (true:
 * a temporary network failure; a kind: an EngineError of that kind; 'bug': a plain Error).
 * `identity` is yielded first as the `engine` event.
 */
export interface Script {
  findings: Finding[];
  fail?: boolean | EngineErrorKind | 'bug';
  identity?: EngineIdentity;
}

export function finding(ruleId: string, overrides: Partial<Finding> = {}): Finding {
  return {
    hostname: HOST,
    hostIp: HOST,
    port: 443,
    protocol: 'tcp',
    service: 'https',
    ruleId,
    name: `Finding ${ruleId}`,
    description: 'A weakness.',
    solution: 'Fix it.',
    threat: 'Medium',
    cvssBase: 5,
    cvssVector: null,
    cve: [],
    cwe: null,
    evidence: `seen by ${ruleId}`,
    references: [],
    ...overrides,
  };
}

/** An engine that yields what `script.next` says and remembers the jobs it was given. */
export function scriptedEngine(name: string, script: { next: Script; jobs?: EngineJob[] }, optionsSchema?: Engine['optionsSchema']): Engine {
  return {
    name,
    version: '1.0.0-test',
    ...(optionsSchema ? { optionsSchema } : {}),
    async *run(job): AsyncIterable<EngineEvent> {
      script.jobs?.push(job);
      const { findings, fail, identity } = script.next;
      if (identity) yield { type: 'engine', ...identity };
      yield { type: 'host', hostname: HOST, address: HOST, state: 'up' };
      for (const f of findings) yield { type: 'finding', finding: f };
      if (fail === 'bug') throw new TypeError('scripted bug: cannot read properties of undefined');
      if (fail) throw new EngineError(fail === true ? 'network-temporary' : fail, 'The scripted engine was told to fail.');
    },
  };
}

/**
 * Stand-ins for the scan types this deployment has no engine for (ZAP, Nuclei), for tests that
 * create such scans as data: they yield one host and nothing else.
 */
export function standInEngines(): Partial<Record<ScanType, Engine>> {
  return { ZAP: scriptedEngine('zap', { next: { findings: [] } }), Nuclei: scriptedEngine('nuclei', { next: { findings: [] } }) };
}

export interface Harness {
  ctx: TestApp;
  auth: { authorization: string };
  scripts: { rampart: { next: Script; jobs: EngineJob[] }; nuclei: { next: Script; jobs: EngineJob[] } };
}

/** An app with a run worker whose engines are scripted; `mail` sends report emails too; `clock` is the API's. */
export async function startScripted(
  t: TestContext,
  options: { env?: Record<string, string>; mail?: boolean; role?: string; clock?: () => Date } = {},
): Promise<Harness> {
  const env = { RAMPART_ALLOW_TARGETS: '127.0.0.0/8', RAMPART_WORKER_POLL_MS: '20', RAMPART_RATE_LIMITS: 'pro=100000', ...options.env };
  const scripts = { rampart: { next: { findings: [] as Finding[] } as Script, jobs: [] as EngineJob[] }, nuclei: { next: { findings: [] as Finding[] } as Script, jobs: [] as EngineJob[] } };
  // The scripted Rampart engine takes the real engine's options (unbounded caps).
  const rampart = scriptedEngine('rampart', scripts.rampart, rampartOptionsSchema(UNCAPPED));
  const ctx = await buildTestApp(t, {
    env,
    ...(options.clock ? { clock: options.clock } : {}),
    engines: { Rampart: rampart, OpenVas: rampart, ZAP: rampart, Nuclei: scriptedEngine('nuclei', scripts.nuclei) },
  });
  const background = startTestBackground(ctx, { mail: options.mail ?? false });
  t.after(() => background.stop());
  const user = await signUp(ctx, { role: options.role ?? 'pro' });
  return { ctx, auth: user.auth, scripts };
}

export async function createScan(h: Harness, type: 'Rampart' | 'Nuclei', extra: Record<string, unknown> = {}): Promise<string> {
  const res = await h.ctx.app.inject({
    method: 'POST',
    url: '/api/new-scan',
    headers: h.auth,
    payload: { scan_name: `${type} scan`, scan_type: type, scan_frequency: 'One-time', scan_time_zone: 'UTC', scan_email: 'ops@example.com', scan_target: HOST, ...extra },
  });
  assert.equal(res.statusCode, 200, res.body);
  return res.json().uuid;
}

/** Waits until the scan's run `index` (the first run is 0) has completed and returns it as the runs summary shows it. */
export async function completedRun(h: Harness, uuid: string, index: number) {
  return waitFor(`run ${index} of ${uuid} to complete`, async () => {
    const runs = (await h.ctx.app.inject({ method: 'GET', url: `/api/scans/${uuid}/runs`, headers: h.auth })).json().runs;
    const run = runs.find((r: { run_index: number }) => r.run_index === index);
    return run?.status === 'completed' ? run : undefined;
  });
}

export async function rerun(h: Harness, uuid: string, index: number) {
  const res = await h.ctx.app.inject({ method: 'POST', url: `/api/scans/${uuid}/rerun`, headers: h.auth, payload: {} });
  assert.equal(res.statusCode, 202, res.body);
  return completedRun(h, uuid, index);
}

