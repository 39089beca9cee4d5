/**
 * One DNS message sent to the deployment's own resolvers and the answer read back: the channel
 * nuclei's `dns:` templates use. These packets go to the resolvers (the deployment's
 * infrastructure, as `egress.resolve` uses through the system), never to a target, so they do
 * not pass the address guard: the guard decides what a scan may connect to, and a DNS question
 * about a name in scope connects to nothing of the target's.
 *
 * UDP first; a truncated answer (TC) is asked again over TCP (RFC 7766). Each resolver in turn
 * until one answers; every attempt is bounded in time and follows the abort signal.
 */
import dgram from 'node:dgram';
import { getServers } from 'node:dns';
import net from 'node:net';

/** How to ask. */
export interface ResolverQueryOptions {
  /** `host:port` or `[v6]:port` or a bare address (port 53); default the system's resolvers. */
  resolvers?: string[];
  timeoutMs: number;
  signal?: AbortSignal;
}

/** The answer, and which resolver gave it. */
export interface ResolverAnswer {
  message: Buffer;
  resolver: string;
}

/** A DNS reply is at most 64 KiB over TCP; a larger length prefix is a broken peer. */
const MAX_TCP_MESSAGE = 65535;

/** The system's resolvers as `host:port`. */
export function systemResolvers(): string[] {
  return getServers().map((server) => (net.isIP(server) === 6 ? `[${server}]:53` : net.isIP(server) === 4 ? `${server}:53` : server));
}

function parseResolver(resolver: string): { host: string; port: number } {
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(resolver);
  if (bracketed) return { host: bracketed[1]!, port: Number(bracketed[2] ?? 53) };
  if (net.isIP(resolver) === 6) return { host: resolver, port: 53 };
  const [host = resolver, port] = resolver.split(':');
  return { host, port: Number(port ?? 53) };
}

/** Waits for `start` to settle it, bounded by `timeoutMs` and the signal; `cleanup` always runs. */
function bounded<T>(timeoutMs: number, signal: AbortSignal | undefined, start: (settle: (value: T | Error) => void) => () => void): Promise<T> {
  return new Promise((resolve, reject) => {
    let cleanup = (): void => undefined;
    let done = false;
    const settle = (value: T | Error): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      cleanup();
      if (value instanceof Error) reject(value);
      else resolve(value);
    };
    const onAbort = (): void => settle(new Error('DNS query aborted.'));
    const timer = setTimeout(() => settle(new Error(`no DNS answer within ${timeoutMs} ms`)), timeoutMs);
    signal?.addEventListener('abort', onAbort, { once: true });
    cleanup = start(settle);
    if (signal?.aborted) onAbort();
  });
}

function overUdp(query: Buffer, host: string, port: number, options: ResolverQueryOptions): Promise<Buffer> {
  return bounded(options.timeoutMs, options.signal, (settle) => {
    const socket = dgram.createSocket(net.isIPv6(host) ? 'udp6' : 'udp4');
    socket.on('error', (error) => settle(error));
    socket.on('message', (message) => {
      // An answer to another id is a stray or a spoof: keep waiting.
      if (message.length >= 12 && message.readUInt16BE(0) === query.readUInt16BE(0)) settle(message);
    });
    socket.send(query, port, host, (error) => error && settle(error));
    return () => socket.close();
  });
}

function overTcp(query: Buffer, host: string, port: number, options: ResolverQueryOptions): Promise<Buffer> {
  return bounded(options.timeoutMs, options.signal, (settle) => {
    const socket = net.connect({ host, port });
    let received = Buffer.alloc(0);
    socket.on('error', (error) => settle(error));
    socket.on('connect', () => {
      const length = Buffer.alloc(2);
      length.writeUInt16BE(query.length);
      socket.write(Buffer.concat([length, query]));
    });
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      if (received.length < 2) return;
      const size = received.readUInt16BE(0);
      if (size > MAX_TCP_MESSAGE) settle(new Error('oversized DNS message'));
      else if (received.length >= size + 2) settle(received.subarray(2, size + 2));
    });
    socket.on('end', () => settle(new Error('the resolver closed the TCP connection before answering')));
    return () => socket.destroy();
  });
}

/** Sends one DNS message (wire format) and returns the first answer; rejects with the last failure. */
export async function queryResolvers(query: Buffer, options: ResolverQueryOptions): Promise<ResolverAnswer> {
  const resolvers = options.resolvers && options.resolvers.length > 0 ? options.resolvers : systemResolvers();
  let failure: Error = new Error('no DNS resolver is configured');
  for (const resolver of resolvers) {
    if (options.signal?.aborted) throw new Error('DNS query aborted.');
    const { host, port } = parseResolver(resolver);
    try {
      let message = await overUdp(query, host, port, options);
      const truncated = (message.readUInt16BE(2) & 0x0200) !== 0;
      if (truncated) message = await overTcp(query, host, port, options);
      return { message, resolver };
    } catch (error) {
      failure = error as Error;
    }
  }
  throw failure;
}
