/**
 * `unsafe: true` raw requests (nuclei's rawhttp client): the rendered bytes written as they are on a
 * guarded connection (`egress.connect`/`connectTls`), so malformed request lines (`GET / HTTP/1337`),
 * conflicting `Content-Length`/`Transfer-Encoding` (request smuggling) and pipelined requests reach
 * the server unchanged. The first response is read: status line, headers, then a body framed by
 * chunked encoding, Content-Length or the close of the connection, up to the body cap and the deadline.
 * The bytes read are capped too (64 KiB of head, then twice the body cap): past that the response
 * counts as closed, so a server that never ends a line cannot grow memory until the deadline.
 * The engine passes `unsafe` templates to the executor only when the scan opted in.
 */
import type net from 'node:net';
import { performance } from 'node:perf_hooks';
import { EgressError } from '../../../shared/egress.js';
import type { ExecutionContext } from './contract.js';
import type { HttpHop } from './http-hop.js';

/** Bytes a response head may take; Node's own parser stops at 16 KiB, some servers send more. */
const MAX_HEAD_BYTES = 64 * 1024;

/** A parsed response head and where its body starts. */
interface Head {
  httpVersion: string;
  status: number;
  statusText: string;
  headers: Record<string, string | string[]>;
  bodyStart: number;
}

/** The head, once its blank line is in `buffer` (searched from `from`: earlier bytes held none). */
function parseHead(buffer: Buffer, from: number): Head | undefined {
  const crlf = buffer.indexOf('\r\n\r\n', from);
  const lf = buffer.indexOf('\n\n', from);
  if (crlf < 0 && lf < 0) return undefined;
  const [end, separator] = lf < 0 || (crlf >= 0 && crlf < lf) ? [crlf, 4] : [lf, 2];
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

/** The size on a chunk-size line (extensions after `;` ignored); NaN when it is not hex. */
function chunkSize(data: Buffer, start: number, lineEnd: number): number {
  return Number.parseInt(data.subarray(start, lineEnd).toString('latin1').split(';')[0]!.trim(), 16);
}

/**
 * A chunked body read as it arrives: each call goes on from the last complete chunk (and does not
 * search a chunk-size line again), so the work stays linear in the bytes received.
 */
class ChunkedBody {
  private at = 0;
  private searchFrom = 0;
  private readonly parts: Buffer[] = [];
  length = 0;
  done = false;

  /** Reads the complete chunks of `data` (the bytes after the head) not read yet. */
  advance(data: Buffer): void {
    while (!this.done) {
      const lineEnd = data.indexOf('\r\n', Math.max(this.at, this.searchFrom));
      if (lineEnd < 0) {
        this.searchFrom = Math.max(this.at, data.length - 1);
        return;
      }
      const size = chunkSize(data, this.at, lineEnd);
      if (!Number.isFinite(size) || size <= 0) {
        this.done = true;
        return;
      }
      const start = lineEnd + 2;
      if (start + size + 2 > data.length) {
        this.searchFrom = lineEnd;
        return;
      }
      this.parts.push(data.subarray(start, start + size));
      this.length += size;
      this.at = start + size + 2;
      this.searchFrom = this.at;
    }
  }

  /** The body so far, with the part of an unfinished chunk that arrived. */
  body(data: Buffer): Buffer {
    const parts = [...this.parts];
    const lineEnd = this.done ? -1 : data.indexOf('\r\n', this.at);
    const size = lineEnd < 0 ? NaN : chunkSize(data, this.at, lineEnd);
    if (size > 0) parts.push(data.subarray(lineEnd + 2, Math.min(lineEnd + 2 + size, data.length)));
    return Buffer.concat(parts);
  }
}

/**
 * The bytes of one response as they arrive, in one buffer grown by doubling (no re-concatenation
 * per packet), at most `limit` bytes: the head cap, then twice the body cap (chunk framing).
 */
class ResponseBuffer {
  private buffer = Buffer.alloc(0);
  length = 0;

  constructor(readonly limit: number) {}

  /** Appends what fits below the limit; false when the limit is reached. */
  append(chunk: Buffer): boolean {
    const take = Math.min(chunk.length, this.limit - this.length);
    if (this.length + take > this.buffer.length) {
      const grown = Buffer.allocUnsafe(Math.min(this.limit, Math.max(this.buffer.length * 2, this.length + take, 16 * 1024)));
      this.buffer.copy(grown, 0, 0, this.length);
      this.buffer = grown;
    }
    chunk.copy(this.buffer, this.length, 0, take);
    this.length += take;
    return this.length < this.limit;
  }

  /** The bytes received so far (a view, no copy). */
  get data(): Buffer {
    return this.buffer.subarray(0, this.length);
  }
}

/** Whether the message is complete, and its body (cut at `maxBody`). */
function bodyOf(head: Head, rest: Buffer, chunked: ChunkedBody | undefined, method: string, closed: boolean, maxBody: number): { body: Buffer; complete: boolean } {
  if (method === 'HEAD' || head.status === 204 || head.status === 304) return { body: Buffer.alloc(0), complete: true };
  if (chunked) {
    chunked.advance(rest);
    const complete = chunked.done || closed || chunked.length >= maxBody;
    return { body: complete ? chunked.body(rest).subarray(0, maxBody) : Buffer.alloc(0), complete };
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
  // An abort between the connect and the listener below would otherwise go unnoticed.
  if (context.signal.aborted) {
    socket.destroy();
    throw new EgressError('aborted', `${request.url}: aborted.`);
  }
  const head = await new Promise<{ head: Head; body: Buffer }>((resolve, reject) => {
    const received = new ResponseBuffer(MAX_HEAD_BYTES + 2 * maxBody);
    let parsed: Head | undefined;
    let chunked: ChunkedBody | undefined;
    let searched = 0;
    const finish = (closed: boolean, error?: Error): void => {
      const data = received.data;
      try {
        parsed ??= parseHead(data, Math.max(0, searched - 3));
      } catch (failure) {
        return done(failure as Error);
      }
      searched = data.length;
      if (!parsed) {
        if (data.length >= MAX_HEAD_BYTES) return done(new EgressError('unreachable', `${request.url}: the response head is larger than ${MAX_HEAD_BYTES} bytes.`));
        return closed || error ? done(error ?? new EgressError('unreachable', `${request.url}: the connection closed before a response.`)) : undefined;
      }
      if (chunked === undefined && String(parsed.headers['transfer-encoding'] ?? '').toLowerCase().includes('chunked')) chunked = new ChunkedBody();
      const { body, complete } = bodyOf(parsed, data.subarray(parsed.bodyStart), chunked, request.method, closed || error !== undefined, maxBody);
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
      // Past the cap the response counts as closed: complete as far as it got (or a head too large).
      finish(!received.append(chunk));
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
