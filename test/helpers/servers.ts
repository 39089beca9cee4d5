/** Loopback TCP servers for engine and run tests. */
import type http from 'node:http';
import net from 'node:net';
import type { TestContext } from 'node:test';

export interface TcpServer {
  port: number;
  /** Sockets accepted so far. */
  connections: number;
  /** Resolves when the next connection arrives (or at once if `after` connections already did). */
  connected(after?: number): Promise<void>;
  /** Resolves when every accepted socket has been closed by the client. */
  allClosed(): Promise<void>;
  close(): Promise<void>;
}

/**
 * A server that greets each connection with `banner` (if given) or stays silent, holding the
 * socket open until the client closes it.
 */
export async function startTcpServer(t: TestContext, options: { banner?: () => string | undefined; host?: string } = {}): Promise<TcpServer> {
  const sockets = new Set<net.Socket>();
  const waiters: { after: number; resolve: () => void }[] = [];
  let closedWaiters: (() => void)[] = [];
  const state = { connections: 0 };
  const server = net.createServer((socket) => {
    state.connections++;
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => {
      sockets.delete(socket);
      if (sockets.size === 0) {
        for (const resolve of closedWaiters) resolve();
        closedWaiters = [];
      }
    });
    const banner = options.banner?.();
    if (banner) socket.write(banner);
    for (const w of [...waiters]) {
      if (state.connections > w.after) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
    }
  });
  await new Promise<void>((resolve) => server.listen(0, options.host ?? '127.0.0.1', resolve));
  const close = () =>
    new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    });
  t.after(close);
  return {
    port: (server.address() as net.AddressInfo).port,
    get connections() {
      return state.connections;
    },
    connected(after = state.connections) {
      return state.connections > after ? Promise.resolve() : new Promise((resolve) => waiters.push({ after, resolve }));
    },
    allClosed() {
      return sockets.size === 0 ? Promise.resolve() : new Promise((resolve) => closedWaiters.push(resolve));
    },
    close,
  };
}

/**
 * Listens on 127.0.0.1 (a free port) until the test ends, then closes with every connection ended
 * first: a plain close() waits for the connections clients still hold, for ever when the client is
 * the test file's shared browser keeping a keep-alive connection open (web-oidc hung CI so).
 */
export async function listenOnLoopback(t: TestContext, server: net.Server | http.Server): Promise<number> {
  const sockets = new Set<net.Socket>();
  server.on('connection', (socket: net.Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(
    () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      }),
  );
  return (server.address() as net.AddressInfo).port;
}

/** A loopback port with nothing listening (listened on, then closed). */
export async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Polls `check` until it returns a value (not undefined), or fails after `timeoutMs`. */
export async function waitFor<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
