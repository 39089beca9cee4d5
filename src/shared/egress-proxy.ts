/**
 * A local HTTP proxy that applies the egress guard to every upstream connection, for external
 * tools (ZAP, nuclei) that cannot take the egress as a library: they are pointed at it
 * (`http_proxy`/`https_proxy`, `-proxy`), so what they reach is what the guard allows.
 *
 * - CONNECT host:port (HTTPS and any other tunnel): the tunnel is opened by `Egress.connect`, so
 *   the name is resolved once, every address checked, and the checked address connected to.
 * - Absolute-form requests (`GET http://host/path`) for plain HTTP: forwarded on a fresh guarded
 *   connection, one upstream connection per request. Redirects are the tool's to follow, and each
 *   comes back through here.
 * - A refused address: 403 with a body naming it; an upstream that cannot be reached: 502.
 *
 * It listens on 127.0.0.1 only, on an ephemeral port; at most `maxConnections` client
 * connections are accepted at once (more are dropped by the server); every socket, client or
 * upstream, is closed after `idleTimeoutMs` without traffic; `close()` resolves once every socket
 * is gone.
 */
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { EgressError } from './egress-error.js';
import type { Egress } from './egress.js';

/** The egress the proxy connects through, and its bounds. */
export interface EgressProxyOptions {
  egress: Egress;
  /** Client connections at once; default 64. */
  maxConnections?: number;
  /** Any socket without traffic this long is closed; default 60000 ms. */
  idleTimeoutMs?: number;
  /** Bound on each upstream connect; default 10000 ms. */
  connectTimeoutMs?: number;
}

/** A running proxy: its address for the tool, and how to stop it. */
export interface EgressProxy {
  /** e.g. `http://127.0.0.1:40123`. */
  url: string;
  port: number;
  /** Stops listening, destroys every socket, and resolves when all are closed. */
  close(): Promise<void>;
}

/** Headers that belong to one connection (RFC 9110 7.6.1) and are not forwarded. */
const HOP_BY_HOP = ['connection', 'keep-alive', 'proxy-connection', 'proxy-authorization', 'proxy-authenticate', 'te', 'trailer', 'transfer-encoding', 'upgrade'];

/** Starts the proxy on 127.0.0.1 and an ephemeral port. */
export async function startEgressProxy(options: EgressProxyOptions): Promise<EgressProxy> {
  const { egress } = options;
  const idleTimeoutMs = options.idleTimeoutMs ?? 60_000;
  const connectTimeoutMs = options.connectTimeoutMs ?? 10_000;
  const sockets = new Map<Duplex, Promise<void>>();
  let closing = false;
  // Aborts the upstream connects still in progress when the proxy closes.
  const closer = new AbortController();
  const pending = new Set<Promise<unknown>>();

  /** Tracks a socket until it closes, with the idle timeout; false (and destroyed) once closing. */
  const track = (socket: Socket): boolean => {
    if (closing) {
      socket.destroy();
      return false;
    }
    socket.on('error', () => undefined);
    socket.setTimeout(idleTimeoutMs, () => socket.destroy());
    sockets.set(socket, new Promise((resolve) => socket.once('close', () => (sockets.delete(socket), resolve()))));
    return true;
  };
  const upstream = (host: string, port: number): Promise<Socket | EgressError> => {
    const connecting = egress.connect({ host, port, timeoutMs: connectTimeoutMs, signal: closer.signal }).then(
      (socket) => (track(socket) ? socket : new EgressError('aborted', 'The proxy is closing.')),
      (error: unknown) => (error instanceof EgressError ? error : new EgressError('unreachable', String(error))),
    );
    pending.add(connecting);
    void connecting.finally(() => pending.delete(connecting));
    return connecting;
  };

  const server = http.createServer();
  server.maxConnections = options.maxConnections ?? 64;
  server.on('connection', track);
  server.on('clientError', (_error, socket) => socket.destroy());

  server.on('connect', (request: http.IncomingMessage, client: Duplex, head: Buffer) => {
    const target = parseAuthority(request.url ?? '');
    if (!target) return void refuseRaw(client, 400, `Bad CONNECT target "${request.url ?? ''}": expected host:port.`);
    void upstream(target.host, target.port).then((socket) => {
      if (socket instanceof EgressError) return refuseRaw(client, statusOf(socket), socket.message);
      if (client.destroyed) return void socket.destroy();
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) socket.write(head);
      socket.pipe(client).pipe(socket);
      const end = (): void => {
        socket.destroy();
        client.destroy();
      };
      socket.once('close', end);
      client.once('close', end).on('error', end);
    });
  });

  server.on('request', (request: http.IncomingMessage, response: http.ServerResponse) => {
    let url: URL;
    try {
      url = new URL(request.url ?? '');
    } catch {
      return reply(response, 400, 'This is a proxy: send absolute-form requests (http://host/path), or CONNECT for HTTPS.');
    }
    if (url.protocol !== 'http:') return reply(response, 400, `Only http:// is proxied in absolute form; use CONNECT for ${url.protocol}.`);
    void upstream(url.hostname, Number(url.port) || 80).then((socket) => {
      if (socket instanceof EgressError) return reply(response, statusOf(socket), socket.message);
      const headers = { ...request.headers };
      for (const name of HOP_BY_HOP) delete headers[name];
      const forward = http.request({
        createConnection: () => socket,
        method: request.method,
        path: `${url.pathname}${url.search}`,
        headers: { ...headers, host: url.host, connection: 'close' },
      });
      forward.on('error', (error) => (response.headersSent ? response.destroy() : reply(response, 502, `Upstream ${url.host} failed: ${error.message}`)));
      forward.on('response', (answer) => {
        const out = { ...answer.headers };
        for (const name of HOP_BY_HOP) delete out[name];
        response.writeHead(answer.statusCode ?? 502, out);
        answer.pipe(response);
        answer.on('error', () => response.destroy());
      });
      response.on('close', () => socket.destroy());
      request.pipe(forward);
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    // Loopback only: the proxy opens the guarded network to whoever can reach it.
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    async close() {
      closing = true;
      closer.abort();
      await Promise.all(pending);
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of sockets.keys()) socket.destroy();
      await Promise.all([stopped, ...sockets.values()]);
    },
  };
}

/** `host:port` or `[v6]:port` of a CONNECT request; null when malformed. */
function parseAuthority(authority: string): { host: string; port: number } | null {
  const match = /^(?:\[([0-9a-fA-F:.]+)\]|([^\s:[\]/]+)):(\d{1,5})$/.exec(authority);
  const port = Number(match?.[3]);
  if (!match || port < 1 || port > 65535) return null;
  return { host: match[1] ?? match[2]!, port };
}

function statusOf(error: EgressError): number {
  if (error.code === 'refused') return 403;
  return error.code === 'aborted' ? 503 : 502;
}

function reply(response: http.ServerResponse, status: number, message: string): void {
  if (response.headersSent) return void response.destroy();
  response.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', connection: 'close' });
  response.end(`${message}\n`);
}

/** An HTTP answer written on a CONNECT socket (no ServerResponse there), then the socket is closed. */
function refuseRaw(socket: Duplex, status: number, message: string): void {
  const body = `${message}\n`;
  const reason = http.STATUS_CODES[status] ?? 'Error';
  socket.end(`HTTP/1.1 ${status} ${reason}\r\ncontent-type: text/plain; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`);
}
