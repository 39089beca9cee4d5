/**
 * The MCP sessions of this process. A session belongs to the account that opened it, ends when
 * idle for `idleMs` (a sweep closes it) or on DELETE, and an account holds at most `perAccount`:
 * opening one more ends the account's least recently used session, so a client that lost its
 * session id never locks its account out until the idle time passes.
 *
 * Sessions live in memory: behind a load balancer, a client's requests must reach the process
 * that opened its session (session affinity on the Mcp-Session-Id header).
 */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';

export interface McpSession {
  id: string;
  userId: number;
  transport: StreamableHTTPServerTransport;
  server: Server;
  lastSeen: number;
}

export class McpSessions {
  private readonly sessions = new Map<string, McpSession>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    private readonly options: { idleMs: number; perAccount: number; now?: () => number },
  ) {
    this.sweeper = setInterval(() => void this.sweep(), Math.min(options.idleMs, 60_000));
    this.sweeper.unref();
  }

  private now(): number {
    return this.options.now?.() ?? Date.now();
  }

  /** The live session with this id, marked as used now; undefined when unknown or ended. */
  use(id: string): McpSession | undefined {
    const session = this.sessions.get(id);
    if (session) session.lastSeen = this.now();
    return session;
  }

  /** Adds a session, ending the account's least recently used ones beyond its bound. */
  async add(session: Omit<McpSession, 'lastSeen'>): Promise<void> {
    this.sessions.set(session.id, { ...session, lastSeen: this.now() });
    const mine = [...this.sessions.values()].filter((s) => s.userId === session.userId).sort((a, b) => a.lastSeen - b.lastSeen);
    for (const old of mine.slice(0, Math.max(0, mine.length - this.options.perAccount))) await this.end(old.id);
  }

  /** Forgets a session the transport already closed (DELETE). */
  forget(id: string): void {
    this.sessions.delete(id);
  }

  /** Ends a session: later requests with its id get 404. */
  async end(id: string): Promise<void> {
    const session = this.sessions.get(id);
    if (!session) return;
    this.sessions.delete(id);
    await session.server.close().catch(() => undefined);
  }

  async sweep(): Promise<void> {
    const cutoff = this.now() - this.options.idleMs;
    for (const session of [...this.sessions.values()]) if (session.lastSeen < cutoff) await this.end(session.id);
  }

  count(userId?: number): number {
    return [...this.sessions.values()].filter((s) => userId === undefined || s.userId === userId).length;
  }

  async closeAll(): Promise<void> {
    clearInterval(this.sweeper);
    for (const id of [...this.sessions.keys()]) await this.end(id);
  }
}
