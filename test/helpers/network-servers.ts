/** Loopback servers for the nuclei network executor tests: TCP/TLS servers, a DNS resolver, certificates. */
import { execFileSync } from 'node:child_process';
import dgram from 'node:dgram';
import { readFileSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import tls from 'node:tls';
import dnsPacket, { type Answer, type Packet } from 'dns-packet';
import type { KeyPair, TestPki } from './pki.js';

/** What a test server does with one connection. */
export type Handler = (socket: net.Socket, received: Buffer[]) => void;

/** A loopback server; `handler` runs per connection; every byte received is kept. */
export async function startServer(handler: Handler, secure?: KeyPair & tls.TlsOptions, host = '127.0.0.1'): Promise<{ port: number; received: Buffer[]; connections: () => number; close: () => Promise<void> }> {
  const received: Buffer[] = [];
  let connections = 0;
  const onSocket = (socket: net.Socket): void => {
    connections++;
    socket.on('error', () => undefined);
    socket.on('data', (chunk: Buffer) => received.push(chunk));
    handler(socket, received);
  };
  const server = secure ? tls.createServer(secure, onSocket) : net.createServer(onSocket);
  server.on('tlsClientError', () => undefined);
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    port,
    received,
    connections: () => connections,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        (server as net.Server & { closeAllConnections?: () => void }).closeAllConnections?.();
      }),
  };
}

/** Writes `reply` once the first chunk arrives (a request/response protocol). */
export const replyOnData = (reply: Buffer | string): Handler => (socket) => socket.once('data', () => socket.write(reply));

/** A certificate made with the openssl CLI in the PKI's directory: self-signed, or signed by its CA with key identifiers. */
export function makeCertificate(pki: TestPki, name: string, options: { subject: string; san?: string; signed?: boolean; days?: number }): KeyPair {
  const file = (suffix: string): string => path.join(pki.dir, `${name}.${suffix}`);
  const ext = [`subjectAltName=${options.san ?? 'DNS:localhost'}`, 'subjectKeyIdentifier=hash', 'authorityKeyIdentifier=keyid'].join('\n');
  writeFileSync(file('ext'), `${ext}\n`);
  const run = (args: string[]): void => void execFileSync('openssl', args, { stdio: 'pipe' });
  if (options.signed) {
    run(['req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', file('key'), '-out', file('csr'), '-subj', options.subject]);
    run(['x509', '-req', '-in', file('csr'), '-CA', path.join(pki.dir, 'ca.pem'), '-CAkey', path.join(pki.dir, 'ca.key'), '-CAcreateserial',
      '-days', String(options.days ?? 30), '-extfile', file('ext'), '-out', file('pem')]);
  } else {
    run(['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', file('key'), '-out', file('pem'), '-subj', options.subject,
      '-days', String(options.days ?? 30), ...(options.san ? ['-addext', `subjectAltName=${options.san}`] : [])]);
  }
  return { key: readFileSync(file('key'), 'utf8'), cert: readFileSync(file('pem'), 'utf8') };
}

/** Whether this OpenSSL completes a TLS 1.0 handshake at security level 0 (some builds remove it). */
export async function tls10Works(cert: KeyPair): Promise<boolean> {
  const legacy = { minVersion: 'TLSv1', maxVersion: 'TLSv1', ciphers: 'DEFAULT@SECLEVEL=0' } as const;
  const server = await startServer((socket) => socket.end(), { ...cert, ...legacy });
  try {
    return await new Promise<boolean>((resolve) => {
      const client = tls.connect({ host: '127.0.0.1', port: server.port, rejectUnauthorized: false, ...legacy }, () => {
        client.destroy();
        resolve(true);
      });
      client.on('error', () => resolve(false));
    });
  } finally {
    await server.close();
  }
}

/** What a test resolver answers to one question: the rcode and the records. */
export type Zone = (name: string, type: string) => { rcode?: number; answers?: Answer[]; truncate?: boolean };

/** A loopback resolver over UDP and TCP on one port number; every question is recorded. */
export async function startResolver(zone: Zone): Promise<{ resolver: string; questions: string[]; close: () => Promise<void> }> {
  const questions: string[] = [];
  const reply = (query: Packet, overTcp: boolean): Buffer => {
    const question = query.questions![0]!;
    questions.push(`${question.type} ${question.name}${overTcp ? ' tcp' : ''}`);
    const answer = zone(question.name, question.type);
    const truncated = answer.truncate === true && !overTcp;
    return dnsPacket.encode({
      type: 'response',
      id: query.id,
      flags: dnsPacket.RECURSION_DESIRED | dnsPacket.RECURSION_AVAILABLE | (truncated ? dnsPacket.TRUNCATED_RESPONSE : 0) | (answer.rcode ?? 0),
      questions: query.questions,
      answers: truncated ? [] : (answer.answers ?? []),
    });
  };
  const tcp = net.createServer((socket) => {
    socket.on('error', () => undefined);
    socket.on('data', (chunk: Buffer) => {
      const message = reply(dnsPacket.decode(chunk.subarray(2)), true);
      const length = Buffer.alloc(2);
      length.writeUInt16BE(message.length);
      socket.end(Buffer.concat([length, message]));
    });
  });
  await new Promise<void>((resolve) => tcp.listen(0, '127.0.0.1', resolve));
  const { port } = tcp.address() as net.AddressInfo;
  const udp = dgram.createSocket('udp4');
  udp.on('message', (message, peer) => udp.send(reply(dnsPacket.decode(message), false), peer.port, peer.address));
  await new Promise<void>((resolve) => udp.bind(port, '127.0.0.1', resolve));
  return {
    resolver: `127.0.0.1:${port}`,
    questions,
    close: async () => {
      await new Promise<void>((resolve) => udp.close(() => resolve()));
      await new Promise<void>((resolve) => tcp.close(() => resolve()));
    },
  };
}

/** A CNAME record. */
export const cname = (name: string, target: string): Answer => ({ type: 'CNAME', name, ttl: 300, class: 'IN', data: target });
/** The rcode of a name that does not exist. */
export const NXDOMAIN = 3;
