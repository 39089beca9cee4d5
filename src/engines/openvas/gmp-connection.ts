/**
 * A connection to gvmd speaking GMP, over its Unix socket or over TLS (`gvmd --listen`), with the
 * protocol's rules enforced here rather than trusted to callers:
 * - one command in flight: a command sent while another's reply is still arriving waits for it
 *   (commands queue in order; the socket never carries two);
 * - only `get_version` (and `authenticate` itself) before a successful `authenticate`;
 * - replies read incrementally until their root element closes (gmp-reply.ts);
 * - timeouts: connecting (TLS handshake included), and silence while a reply is awaited;
 * - TLS trusts the configured CA file only (Node's own roots are not consulted) and checks the
 *   certificate's name against the host unless the deployment turned that off.
 * Failures are EngineErrors: gvmd unreachable or its certificate refused is `config` (the
 * deployment must fix it); the connection lost or silent once open is `network-temporary`.
 */
import { readFileSync } from 'node:fs';
import net from 'node:net';
import tls from 'node:tls';
import { EngineError } from '../engine.js';
import { childText, readXml, type XmlNode } from '../importers/safe-xml-reader.js';
import { statusError } from './gmp-errors.js';
import { ReplyReader, type GmpReplyStream } from './gmp-reply.js';
import { isSuccess, statusOf, type GmpCommand } from './gmp-xml.js';

/** Where gvmd listens, and how long to wait for it. */
export interface GmpEndpoint {
  /** gvmd's Unix socket (`/run/gvmd/gvmd.sock`); else `host` and `port` over TLS. */
  socket?: string;
  host?: string;
  port?: number;
  /** PEM file of the CA that signed gvmd's certificate: the only trust anchor of the TLS connection. */
  caFile?: string;
  /** Check the certificate's name against `host` (default true). */
  verifyHostname?: boolean;
  connectTimeoutMs?: number;
  /** Longest silence while a reply is awaited. */
  readTimeoutMs?: number;
}

export const GMP_DEFAULT_PORT = 9390;
const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;
const DEFAULT_READ_TIMEOUT_MS = 120_000;
/** Text of one reply held unread before the socket is paused. */
const MAX_QUEUED_CHARS = 4 * 1024 * 1024;
/** Largest reply `request` reads whole (reports are streamed instead). */
const MAX_REQUEST_CHARS = 16 * 1024 * 1024;
const PRE_AUTH_COMMANDS = new Set(['get_version', 'authenticate']);

/** `/run/gvmd/gvmd.sock` or `gvmd.example:9390`: how the run's identity names gvmd. */
export function endpointLabel(endpoint: GmpEndpoint): string {
  return endpoint.socket ?? `${endpoint.host ?? '?'}:${endpoint.port ?? GMP_DEFAULT_PORT}`;
}

/** Opens the socket (and the TLS session) within the connect timeout. */
async function openSocket(endpoint: GmpEndpoint, label: string): Promise<net.Socket> {
  const timeoutMs = endpoint.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
  let socket: net.Socket;
  let ready: string;
  if (endpoint.socket) {
    socket = net.connect({ path: endpoint.socket });
    ready = 'connect';
  } else {
    if (!endpoint.host) throw new EngineError('config', 'gvmd is configured with neither a socket nor a host.');
    if (!endpoint.caFile) throw new EngineError('config', `gvmd at ${label} is reached over TLS, which needs the CA that signed its certificate: set RAMPART_GVMD_CA_FILE.`);
    let ca: Buffer;
    try {
      ca = readFileSync(endpoint.caFile);
    } catch (error) {
      throw new EngineError('config', `The gvmd CA file ${endpoint.caFile} cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)}).`, { cause: error });
    }
    const host = endpoint.host;
    socket = tls.connect({
      host,
      port: endpoint.port ?? GMP_DEFAULT_PORT,
      ca,
      minVersion: 'TLSv1.2',
      rejectUnauthorized: true,
      ...(net.isIP(host) ? {} : { servername: host }),
      checkServerIdentity: (_name, cert) => (endpoint.verifyHostname === false ? undefined : tls.checkServerIdentity(host, cert)),
    });
    ready = 'secureConnect';
  }
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => fail(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    const fail = (error: Error & { code?: string }) => {
      clearTimeout(timer);
      socket.destroy();
      const tlsRefused = typeof error.code === 'string' && /CERT|SELF_SIGNED|ERR_TLS|HOSTNAME|ALTNAME|SIGNATURE|ISSUER/.test(error.code);
      const why = tlsRefused
        ? `its TLS certificate was refused (${error.code}: ${error.message}); gvmd's certificate must be signed by the CA of RAMPART_GVMD_CA_FILE${endpoint.verifyHostname === false ? '' : ' and name the host'}`
        : error.code === 'EACCES'
          ? `permission denied on the socket: the user running Rampart must be able to write to it (add it to gvmd's group)`
          : `${error.code ? `${error.code}: ` : ''}${error.message}`;
      reject(new EngineError('config', `Cannot connect to gvmd at ${label}: ${why}.`, { cause: error }));
    };
    socket.once('error', fail);
    socket.once(ready, () => {
      clearTimeout(timer);
      socket.off('error', fail);
      resolve(socket);
    });
  });
}

/** An array as the async source the XML reader takes. */
async function* inOrder(parts: string[]): AsyncGenerator<string> {
  yield* parts;
}

export class GmpConnection {
  private authenticated = false;
  /** Settles when the command before the next one has its whole reply. */
  private lock: Promise<void> = Promise.resolve();
  private current: ReplyReader | null = null;
  private failure: EngineError | null = null;
  private timer: NodeJS.Timeout | undefined;
  private readonly readTimeoutMs: number;

  private constructor(
    private readonly socket: net.Socket,
    readonly label: string,
    endpoint: GmpEndpoint,
  ) {
    this.readTimeoutMs = endpoint.readTimeoutMs ?? DEFAULT_READ_TIMEOUT_MS;
    socket.on('data', (bytes: Buffer) => this.onData(bytes));
    socket.on('error', (error) => this.lose(`the connection failed (${(error as NodeJS.ErrnoException).code ?? error.message})`));
    socket.on('close', () => this.lose('gvmd closed the connection'));
  }

  /** Connects to gvmd; throws a `config` EngineError when it cannot be reached or trusted. */
  static async open(endpoint: GmpEndpoint): Promise<GmpConnection> {
    const label = endpointLabel(endpoint);
    return new GmpConnection(await openSocket(endpoint, label), label, endpoint);
  }

  /** Whether the connection still works. */
  get usable(): boolean {
    return this.failure === null;
  }

  /** Sends one command and streams its reply. The command waits for the reply before it. */
  stream(command: GmpCommand): GmpReplyStream {
    if (!this.authenticated && !PRE_AUTH_COMMANDS.has(command.name)) {
      throw new EngineError('internal', `GMP allows only get_version before authenticate; ${command.name} was not sent.`);
    }
    let release!: () => void;
    const previous = this.lock;
    this.lock = new Promise((resolve) => (release = resolve));
    let released = false;
    const reader = new ReplyReader(
      command.name,
      {
        pause: () => {
          clearTimeout(this.timer);
          this.socket.pause();
        },
        resume: () => {
          this.socket.resume();
          this.armTimer(reader);
        },
        finished: () => {
          if (released) return;
          released = true;
          clearTimeout(this.timer);
          if (this.current === reader) this.current = null;
          release();
        },
      },
      MAX_QUEUED_CHARS,
    );
    void previous.then(() => {
      if (this.failure) return reader.fail(this.failure);
      this.current = reader;
      this.armTimer(reader);
      this.socket.write(command.xml);
    });
    return { head: reader.head, chunks: reader.chunks() };
  }

  /** Sends one command and reads its whole reply as a tree; a non-2xx status throws its EngineError. */
  async request(command: GmpCommand): Promise<XmlNode> {
    const reply = this.stream(command);
    const whole: string[] = [];
    let size = 0;
    for await (const chunk of reply.chunks) {
      size += chunk.length;
      if (size > MAX_REQUEST_CHARS) throw new EngineError('internal', `gvmd's answer to ${command.name} is larger than ${MAX_REQUEST_CHARS} characters.`);
      whole.push(chunk);
    }
    let root: XmlNode | undefined;
    for await (const item of readXml(inOrder(whole), (path) => path.length === 1)) if (item.kind === 'record') root = item.node;
    if (!root) throw new EngineError('internal', `gvmd's answer to ${command.name} is empty.`);
    const status = statusOf(root.attrs);
    if (!isSuccess(status)) throw statusError(command.name, status, this.label);
    if (command.name === 'authenticate') this.authenticated = true;
    return root;
  }

  /** gvmd's version (`<get_version/>`, allowed before authenticating). */
  async version(): Promise<string> {
    const reply = await this.request({ name: 'get_version', xml: '<get_version/>' });
    return childText(reply, 'version') || 'unknown';
  }

  /** Ends the connection (what is in flight fails as lost). */
  close(): void {
    this.failure ??= new EngineError('network-temporary', `The connection to gvmd at ${this.label} was closed.`);
    clearTimeout(this.timer);
    this.socket.destroy();
  }

  private armTimer(reader: ReplyReader): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.lose(`gvmd sent nothing for ${this.readTimeoutMs} ms while answering ${reader.command}`);
      this.socket.destroy();
    }, this.readTimeoutMs);
  }

  private onData(bytes: Buffer): void {
    const reader = this.current;
    if (!reader) {
      // Between replies gvmd has nothing to say; anything but whitespace breaks the framing.
      if (bytes.toString('utf8').trim() !== '') this.lose('gvmd sent data no command asked for');
      return;
    }
    this.armTimer(reader);
    reader.feed(bytes);
  }

  private lose(why: string): void {
    if (this.failure === null) {
      const during = this.current ? ` while waiting for the answer to ${this.current.command}` : '';
      this.failure = new EngineError('network-temporary', `The connection to gvmd at ${this.label} was lost${during}: ${why}.`);
    }
    clearTimeout(this.timer);
    this.current?.fail(this.failure);
    this.socket.destroy();
  }
}
