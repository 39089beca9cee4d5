/**
 * Streams an attempt's events to the service in numbered chunks (`PUT chunks/{seq}`): a chunk is
 * sent when it holds AGENT_CHUNK_MAX_EVENTS events, when its body nears AGENT_BODY_MAX_BYTES, or
 * every few seconds, one chunk in flight at a time and in order. The service stores a seq once, so
 * a chunk whose answer was lost is simply sent again. Chunks sent are kept until the attempt
 * completes, because `complete` may name some as missing; AGENT_MAX_CHUNKS bounds them.
 */
import { AGENT_BODY_MAX_BYTES, AGENT_CHUNK_MAX_EVENTS, AGENT_MAX_CHUNKS, AGENT_PATHS, type WireEvent } from '../shared/agent-protocol.js';
import type { AgentClient } from './http-client.js';

/** Room left in a body for the lease and the JSON around the events. */
const BODY_MARGIN_BYTES = 64 * 1024;
/** A chunk's events are retried this many times before the attempt gives up (several minutes of backoff). */
const CHUNK_ATTEMPTS = 12;

export interface ChunkUploaderOptions {
  client: AgentClient;
  runIndex: number;
  lease: string;
  /** How often a partial chunk is sent; default 5 s. */
  flushEveryMs?: number;
  /** Told after each chunk the service acknowledged. */
  onSent?: (seq: number, events: number) => void;
}

export class ChunkUploader {
  private buffer: WireEvent[] = [];
  private bufferBytes = 0;
  private readonly sent: WireEvent[][] = [];
  /** Uploads run one after the other on this chain. */
  private chain: Promise<void> = Promise.resolve();
  private failure: unknown;
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly options: ChunkUploaderOptions) {
    this.timer = setInterval(() => void this.flush().catch(() => undefined), options.flushEveryMs ?? 5000);
  }

  /** How many chunks were handed to the service so far. */
  get chunks(): number {
    return this.sent.length;
  }

  /** Queues one event; waits while a full chunk is being sent (backpressure on the scan). */
  async add(event: WireEvent): Promise<void> {
    if (this.failure !== undefined) throw this.failure;
    const bytes = Buffer.byteLength(JSON.stringify(event));
    if (this.buffer.length > 0 && this.bufferBytes + bytes > AGENT_BODY_MAX_BYTES - BODY_MARGIN_BYTES) await this.flush();
    this.buffer.push(event);
    this.bufferBytes += bytes;
    if (this.buffer.length >= AGENT_CHUNK_MAX_EVENTS) await this.flush();
  }

  /** Sends what is buffered as the next chunk, after the chunks before it. */
  flush(): Promise<void> {
    if (this.buffer.length > 0) {
      const events = this.buffer;
      this.buffer = [];
      this.bufferBytes = 0;
      if (this.sent.length >= AGENT_MAX_CHUNKS) {
        this.failure ??= new Error(`the scan produced more than ${AGENT_MAX_CHUNKS} chunks of events, the most one run may upload`);
      } else {
        const seq = this.sent.length;
        this.sent.push(events);
        this.chain = this.chain.then(() => this.send(seq));
      }
    }
    return this.chain.then(() => {
      if (this.failure !== undefined) throw this.failure;
    });
  }

  /** Sends the rest and stops the timer; resolves with the number of chunks (for `complete`). */
  async finish(): Promise<number> {
    clearInterval(this.timer);
    await this.flush();
    return this.sent.length;
  }

  /** Stops the timer without sending anything more (an abandoned attempt). */
  abandon(): void {
    clearInterval(this.timer);
  }

  /** Sends again the chunks `complete` said the service lacks. */
  async resend(seqs: number[]): Promise<void> {
    for (const seq of seqs) {
      if (seq < 0 || seq >= this.sent.length) throw new Error(`the service asked for chunk ${seq}, which this agent never sent`);
      await this.send(seq);
    }
    if (this.failure !== undefined) throw this.failure;
  }

  private async send(seq: number): Promise<void> {
    if (this.failure !== undefined) return;
    const events = this.sent[seq] ?? [];
    try {
      await this.options.client.call('PUT', AGENT_PATHS.chunk(this.options.runIndex, seq), { lease: this.options.lease, events }, { attempts: CHUNK_ATTEMPTS });
      this.options.onSent?.(seq, events.length);
    } catch (error) {
      this.failure ??= error;
    }
  }
}
