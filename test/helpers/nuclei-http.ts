/** Loopback HTTP(S) servers and an execution context for the nuclei http executor tests. */
import { readFile } from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import type net from 'node:net';
import path from 'node:path';
import type { TestContext } from 'node:test';
import type { Egress } from '../../src/shared/egress.js';
import type { ExecutionContext, HostGate, ServiceTarget } from '../../src/engines/nuclei/execute/contract.js';
import { createSharedResponses } from '../../src/engines/nuclei/execute/shared-responses.js';
import { isTemplateFailure, parseTemplate } from '../../src/engines/nuclei/templates/parse-template.js';
import type { Template } from '../../src/engines/nuclei/templates/template.types.js';
import { LOOPBACK_EGRESS } from './egress.js';
import { SHARED_DIR } from './shared.js';
import { listenOnLoopback } from './servers.js';

/** The community templates (read in place, never copied). */
export const CORPUS = path.join(SHARED_DIR, 'third_party', 'nuclei-templates');

/** One request a test server received, as it arrived (the URL is the raw request-target). */
export interface SeenRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** Answers a request: status, headers, body. */
export type Reply = (request: SeenRequest) => { status?: number; headers?: Record<string, string | string[] | undefined>; body?: string | Buffer };

/** A started server: its port and every request it saw, in order. */
export interface TestServer {
  port: number;
  seen: SeenRequest[];
}

/** Starts a loopback HTTP server (HTTPS with `tls`), closed after the test. */
export async function serve(t: TestContext, reply: Reply, tls?: { key: string; cert: string }): Promise<TestServer> {
  const seen: SeenRequest[] = [];
  const handler = (req: http.IncomingMessage, res: http.ServerResponse): void => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request: SeenRequest = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('latin1') };
      seen.push(request);
      const answer = reply(request);
      res.writeHead(answer.status ?? 200, Object.fromEntries(Object.entries(answer.headers ?? {}).filter(([, v]) => v !== undefined)) as Record<string, string | string[]>);
      res.end(answer.body ?? '');
    });
  };
  const server = tls ? https.createServer(tls, handler) : http.createServer(handler);
  await listenOnLoopback(t, server);
  return { port: (server.address() as net.AddressInfo).port, seen };
}

/** A gate that lets everything through and counts what it is told. */
export function openGate(): HostGate & { answers: number; errors: number } {
  const gate = {
    answers: 0,
    errors: 0,
    run: <T>(_host: string, send: () => Promise<T>): Promise<T> => send(),
    answered: () => {
      gate.answers++;
    },
    networkError: () => {
      gate.errors++;
    },
    isSkipped: () => false,
  };
  return gate;
}

/** The service of a loopback server. */
export function loopbackService(port: number, scheme: 'http' | 'https' = 'http', basePath = '/'): ServiceTarget {
  return { host: '127.0.0.1', address: '127.0.0.1', port, scheme, tls: scheme === 'https', basePath };
}

/** An execution context on the loopback egress (each call: its own cache unless one is given). */
export function executionContext(over: Partial<ExecutionContext> & { egress?: Egress } = {}): ExecutionContext {
  return {
    egress: LOOPBACK_EGRESS,
    signal: new AbortController().signal,
    gate: openGate(),
    timeoutMs: 5000,
    templatesDir: CORPUS,
    vars: {},
    cache: createSharedResponses(),
    ...over,
  };
}

/** A community template, parsed. */
export async function loadTemplate(relative: string): Promise<Template> {
  const result = parseTemplate(await readFile(path.join(CORPUS, relative), 'utf8'), relative);
  if (isTemplateFailure(result)) throw new Error(`${relative}: ${result.reason}`);
  return result;
}
