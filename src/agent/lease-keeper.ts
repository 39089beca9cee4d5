/**
 * Keeps an attempt's lease alive: a heartbeat every lease_seconds/3 renews it and carries the
 * scan's progress. The service's answer can stop the attempt: `cancel` (the run was cancelled or
 * the scan deleted), a 409 (another agent took the run over), a 401/404 (the credential or the
 * scan is gone). A heartbeat that cannot get through is logged and tried again at the next beat:
 * the lease outlives two missed beats.
 */
import { AGENT_PATHS } from '../shared/agent-protocol.js';
import { ServiceError, type AgentClient } from './http-client.js';
import type { AgentLog } from './agent-log.js';

/** Why the keeper stopped the attempt. */
export type LeaseLoss = { kind: 'cancelled' } | { kind: 'taken-over'; message: string } | { kind: 'refused'; error: ServiceError };

/** Progress is logged at most this often. */
const PROGRESS_LOG_EVERY_MS = 5000;

export class LeaseKeeper {
  private percent = 0;
  private detail: string | undefined;
  private timer: NodeJS.Timeout | undefined;
  private beating = false;
  private lastLogged = 0;
  private loggedPercent = -1;
  /** Set when the service's answer ended the attempt. */
  loss: LeaseLoss | undefined;

  constructor(
    private readonly client: AgentClient,
    private readonly runIndex: number,
    private readonly lease: string,
    private readonly log: AgentLog,
    /** Called once when the attempt must stop. */
    private readonly onLoss: (loss: LeaseLoss) => void,
  ) {}

  start(leaseSeconds: number): void {
    const everyMs = Math.max(1000, Math.floor((leaseSeconds * 1000) / 3));
    this.timer = setInterval(() => void this.beat(), everyMs);
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** Records the engine's progress (sent with the next beat) and logs it now and then. */
  progress(percent: number, detail?: string): void {
    this.percent = Math.max(0, Math.min(100, Math.round(percent)));
    this.detail = detail;
    const now = Date.now();
    if (this.percent !== this.loggedPercent && now - this.lastLogged >= PROGRESS_LOG_EVERY_MS) {
      this.lastLogged = now;
      this.loggedPercent = this.percent;
      this.log.info(`progress ${this.percent}%${detail ? `: ${detail}` : ''}`);
    }
  }

  private async beat(): Promise<void> {
    // A beat still waiting on its retries is not doubled.
    if (this.beating || this.loss) return;
    this.beating = true;
    try {
      const body = { lease: this.lease, percent: this.percent, ...(this.detail ? { detail: this.detail.slice(0, 500) } : {}) };
      const answer = await this.client.call<{ cancel?: boolean }>('POST', AGENT_PATHS.heartbeat(this.runIndex), body, { attempts: 2 });
      if (answer.cancel === true) this.lose({ kind: 'cancelled' });
      else this.log.info(`heartbeat: lease renewed, ${this.percent}% sent`);
    } catch (error) {
      if (error instanceof ServiceError) {
        this.lose(error.status === 409 ? { kind: 'taken-over', message: error.message } : { kind: 'refused', error });
      } else {
        this.log.warn(`heartbeat failed, trying again at the next one: ${(error as Error).message}`);
      }
    } finally {
      this.beating = false;
    }
  }

  private lose(loss: LeaseLoss): void {
    if (this.loss) return;
    this.loss = loss;
    this.stop();
    this.onLoss(loss);
  }
}
