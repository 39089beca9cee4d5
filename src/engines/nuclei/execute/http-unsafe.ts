/**
 * `unsafe: true` raw requests (nuclei's rawhttp client): the rendered bytes written as they are on a
 * guarded connection (`egress.connect`/`connectTls`), so malformed request lines (`GET / HTTP/1337`),
 * conflicting `Content-Length`/`Transfer-Encoding` (request smuggling) and pipelined requests reach
 * the server unchanged. The first response is read: status line, headers, then a body framed by
 * chunked encoding, Content-Length or the close of the connection, up to the body cap and the deadline.
 * The engine passes `unsafe` templates to the executor only when the scan opted in.
 */
import type net from 'node:net';
import { performance } from 'node:perf_hooks';
import { EgressError } from '../../../shared/egress.js';
import type { ExecutionContext } from './contract.js';
import type { HttpHop } from './http-hop.js';

/** A parsed response head and where its body starts. */
interface Head {
  httpVersion: string;
  status: number;
  statusText: string;
  headers: Record<string, string | string[]>;
  bodyStart: number;
}

function parseHead(buffer: Buffer): Head | undefined {
  let end = buffer.indexOf('\r\n\r\n');
  let separator = 4;
  if (end < 0) {
    end = buffer.indexOf('\n\n');
    separator = 2;
  }
  if (end < 0) return undefined;
  const lines = buffer.subarray(0, end).toString('latin1').split(/\r?\n/);
  const status = /^HTTP\/(\d(?:\.\d)?)\s+(\d{3})\s?(.*)$/.exec(lines[0] ?? '');
  if (!status) throw new EgressError('unreachable', `not an HTTP response: "${(lines[0] ?? '').slice(0, 60)}"`);
  const headers: Record<string, string | string[]> = {};
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    const existing = headers[name];
    if (name === 'set-cookie') headers[name] = [...((existing as string[] | undefined) ?? []), value];
    else headers[name] = existing === undefined ? value : `${String(existing)}, ${value}`;
  }
  return { httpVersion: status[1]!, status: Number(status[2]), statusText: status[3] ?? '', headers, bodyStart: end + separator };
}

/** The body of a chunked message so far, and whether the last chunk arrived. */
function dechunk(data: Buffer): { body: Buffer; done: boolean } {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = data.indexOf('\r\n', at);
    if (lineEnd < 0) return { body: Buffer.concat(parts), done: false };
    const size = Number.parseInt(data.subarray(at, lineEnd).toString('latin1').split(';')[0]!.trim(), 16);
    if (!Number.isFinite(size)) return { body: Buffer.concat(parts), done: true };
    if (size === 0) return { body: Buffer.concat(parts), done: true };
    const start = lineEnd + 2;
    parts.push(data.subarray(start, Math.min(start + size, data.length)));
    if (start + size + 2 > data.length) return { body: Buffer.concat(parts), done: false };
    at = start + size + 2;
  }
}

/** Whether the message is complete, and its body (cut at `maxBody`). */
function bodyOf(head: Head, rest: Buffer, method: string, closed: boolean, maxBody: number): { body: Buffer; complete: boolean } {
  if (method === 'HEAD' || head.status === 204 || head.status === 304) return { body: Buffer.alloc(0), complete: true };
  if (String(head.headers['transfer-encoding'] ?? '').toLowerCase().includes('chunked')) {
    const { body, done } = dechunk(rest);
    return { body: body.subarray(0, maxBody), complete: done || closed || body.length >= maxBody };
  }
  const length = Number(head.headers['content-length']);
  if (head.headers['content-length'] !== undefined && Number.isFinite(length) && length >= 0) {
    return { body: rest.subarray(0, Math.min(length, maxBody)), complete: closed || rest.length >= Math.min(length, maxBody) };
  }
  return { body: rest.subarray(0, maxBody), complete: closed || rest.length >= maxBody };
}

/** What an unsafe request needs: where to connect, the bytes, and how it is reported. */
export interface UnsafeRequest {
  origin: string;
  bytes: Buffer;
  method: string;
  url: string;
  timeoutMs: number;
}

/** Sends one unsafe request and reads the first response (throws EgressError on network failure). */
export async function sendUnsafe(request: UnsafeRequest, context: ExecutionContext, maxBody: number): Promise<HttpHop> {
  const url = new URL(`${request.origin}/`);
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const secure = url.protocol === 'https:';
  const port = Number(url.port) || (secure ? 443 : 80);
  const started = performance.now();
  const connect = { host, port, signal: context.signal, timeoutMs: Math.min(request.timeoutMs, context.timeoutMs) };
  const socket: net.Socket = secure ? await context.egress.connectTls({ ...connect, tls: { rejectUnauthorized: false } }) : await context.egress.connect(connect);
  const head = await new Promise<{ head: Head; body: Buffer }>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let parsed: Head | undefined;
    const finish = (closed: boolean, error?: Error): void => {
      const data = Buffer.concat(chunks);
      try {
        parsed ??= parseHead(data);
      } catch (failure) {
        return done(failure as Error);
      }
      if (!parsed) return closed || error ? done(error ?? new EgressError('unreachable', `${request.url}: the connection closed before a response.`)) : undefined;
      const { body, complete } = bodyOf(parsed, data.subarray(parsed.bodyStart), request.method, closed || error !== undefined, maxBody);
      if (complete) done(undefined, { head: parsed, body });
    };
    const done = (error: Error | undefined, value?: { head: Head; body: Buffer }): void => {
      clearTimeout(timer);
      context.signal.removeEventListener('abort', onAbort);
      socket.removeAllListeners('data').removeAllListeners('end').removeAllListeners('close');
      socket.destroy();
      if (value) resolve(value);
      else reject(error);
    };
    const onAbort = (): void => done(new EgressError('aborted', `${request.url}: aborted.`));
    // At the deadline a response read to the close is complete as far as it got.
    const timer = setTimeout(() => finish(true, new EgressError('timeout', `${request.url}: no complete answer within ${request.timeoutMs} ms.`)), request.timeoutMs);
    context.signal.addEventListener('abort', onAbort, { once: true });
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      finish(false);
    });
    socket.on('end', () => finish(true));
    socket.on('close', () => finish(true));
    socket.on('error', (error) => finish(true, new EgressError('unreachable', `${request.url}: ${error.message}`, { cause: error })));
    socket.write(request.bytes);
  });
  return {
    url: request.url,
    host,
    method: request.method,
    status: head.head.status,
    statusText: head.head.statusText,
    httpVersion: head.head.httpVersion,
    headers: head.head.headers,
    body: head.body,
    durationSeconds: (performance.now() - started) / 1000,
    requestDump: request.bytes.toString('latin1'),
  };
}
