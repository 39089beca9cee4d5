/** The local agent's side of the protocol for tests: an app with a stub bundle, an Unmanaged scan, its downloaded credential. */
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import { isIP } from 'node:net';
import path from 'node:path';
import type { TestContext } from 'node:test';
import { AGENT_CONFIG_GLOBAL, type AgentConfig } from '../../src/shared/agent-protocol.js';
import { buildTestApp, signUp, tempDir, type TestApp } from './app.js';

/** What the stub bundle holds: enough to tell it was served whole after the config line. */
export const STUB_BUNDLE = '#!/usr/bin/env node\n"use strict";\nconsole.log("stub agent", globalThis.RAMPART_AGENT.scanUuid);\n';

export type User = Awaited<ReturnType<typeof signUp>>;

/** An app whose agent bundle is a stub file in a temporary directory. */
export async function agentApp(t: TestContext, options: { clock?: () => Date; uploadMaxBytes?: number } = {}): Promise<TestApp> {
  const dir = await tempDir(t);
  const bundlePath = path.join(dir, 'agent.cjs');
  await fs.writeFile(bundlePath, STUB_BUNDLE);
  return buildTestApp(t, {
    config: { localAgent: { credentialDays: 30, leaseSeconds: 120, bundlePath }, ...(options.uploadMaxBytes ? { uploadMaxBytes: options.uploadMaxBytes } : {}) },
    ...(options.clock ? { clock: options.clock } : {}),
  });
}

export async function unmanagedScan(ctx: TestApp, user: User, body: Record<string, unknown> = {}): Promise<string> {
  const res = await ctx.app.inject({
    method: 'POST',
    url: '/api/new-scan',
    headers: user.auth,
    payload: { scan_name: 'Office LAN', scan_type: 'OpenVas', scan_frequency: 'Unmanaged', scan_time_zone: 'UTC', scan_email: 'ops@example.com', scan_target: '10.20.0.0/24, nas.office.lan', ...body },
  });
  assert.equal(res.statusCode, 200, res.body);
  return res.json().uuid;
}

/** Downloads the scan's agent and reads the config line out of it. */
export async function downloadAgent(ctx: TestApp, user: User, uuid: string): Promise<AgentConfig> {
  const res = await ctx.app.inject({ method: 'GET', url: `/api/scans/${uuid}/agent`, headers: user.auth });
  assert.equal(res.statusCode, 200, res.body);
  const line = res.body.split('\n').find((l) => l.startsWith(`globalThis.${AGENT_CONFIG_GLOBAL} = `));
  assert.ok(line, 'the file has the config line');
  return JSON.parse(line.slice(`globalThis.${AGENT_CONFIG_GLOBAL} = `.length, -1)) as AgentConfig;
}

/** One agent call: `path` relative to /api/scans/{uuid}/agent. */
export function agentCall(ctx: TestApp, credential: string, uuid: string, method: 'POST' | 'PUT', path: string, payload: unknown) {
  return ctx.app.inject({ method, url: `/api/scans/${uuid}/agent${path}`, headers: { authorization: `Bearer ${credential}` }, payload: payload as Record<string, unknown> });
}

export const SELF = { agent_id: 'agent-one', version: '0.1.0', hostname: 'lab-7', gvmd: false };

/**
 * A finding on the wire at `host`: an address is its own address; a name's is `hostIp`, by default
 * one the agent's network resolved it to, outside the scan's ranges.
 */
export function wireFinding(host: string, ruleId = 'rampart:telnet-open', hostIp = isIP(host) ? host : '192.168.50.4') {
  return {
    type: 'finding' as const,
    finding: {
      hostname: host,
      hostIp,
      port: 23,
      protocol: 'tcp' as const,
      service: 'telnet',
      ruleId,
      name: 'Telnet service exposed',
      description: 'Telnet sends credentials in clear text.',
      solution: 'Disable telnet; use SSH.',
      threat: 'Medium' as const,
      cvssBase: 5.3,
      cvssVector: null,
      cve: [],
      cwe: 'CWE-319',
      evidence: 'login:',
      references: [],
    },
  };
}
