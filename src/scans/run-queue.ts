/**
 * The in-process side of the run queue. The queue itself is the runs table; this only lets the
 * API wake this process's workers at once (other processes poll) and cancel a run this process
 * is executing (other processes notice at their next heartbeat, when the run is gone).
 */
import { EventEmitter } from 'node:events';

export class RunQueue {
  readonly #events = new EventEmitter();

  /** A run was queued. */
  notify(): void {
    this.#events.emit('queued');
  }

  onQueued(listener: () => void): () => void {
    this.#events.on('queued', listener);
    return () => this.#events.off('queued', listener);
  }

  /** Stop the run with this id if it executes here. */
  cancel(runId: number): void {
    this.#events.emit('cancel', runId);
  }

  onCancel(listener: (runId: number) => void): () => void {
    this.#events.on('cancel', listener);
    return () => this.#events.off('cancel', listener);
  }
}
