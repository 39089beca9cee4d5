/**
 * Per-host timing, in the spirit of TCP and nmap: a round-trip estimator (RFC 6298) sets each
 * probe's timeout from what the host has shown, and a congestion window (additive increase,
 * multiplicative decrease) bounds the probes in flight to it. A host that answers quickly gets
 * short timeouts and a growing window; one that loses probes (a retransmission was answered)
 * gets a smaller window. Before any answer a probe waits 500 ms (nmap -T4's initial timeout); the
 * configured connect timeout is the ceiling of every timeout, retransmissions included.
 */
import { takeRoom } from './budget.js';

/**
 * Lower bound of a timeout learned from samples: nmap -T4's. It was 100 ms before issue 14 too,
 * and ports were lost under CPU load, but not because of the floor: the timer was judged before
 * an answer already received had been read (a stalled loop runs its timers before it polls), and
 * nothing was retransmitted. Now a timeout counts only after the loop has polled (port-scan.ts),
 * and a timed-out probe is sent again with a doubled timeout, so a higher floor would only slow
 * every filtered port (measured: 250 ms made the bench's scan about 1.7 times slower).
 */
export const MIN_TIMEOUT_MS = 100;
/**
 * The timeout before anything was measured (nmap -T4's initial RTT timeout), within the ceiling.
 * A slower host's first probes time out and are retransmitted with twice as long.
 */
const INITIAL_TIMEOUT_MS = 500;
/** A retransmission waits this many times longer than the attempt before it (within the ceiling). */
const RETRY_GROWTH = 2;
/**
 * The window shrinks by a tenth per lost probe and never below a quarter of its maximum: even a
 * host that loses probes must not be starved.
 */
const DECREASE = 0.9;
const MIN_WINDOW_SHARE = 0.25;

export class HostTiming {
  #srtt: number | undefined;
  #rttvar = 0;
  #window: number;
  #inFlight = 0;
  #waiters: (() => void)[] = [];
  #answered = false;

  /**
   * @param fallback the scan-wide estimate, used until this host has answered once: hosts of one
   *   scan usually share a network path, and a firewalled host may never answer at all.
   */
  constructor(
    private readonly maxTimeoutMs: number,
    private readonly maxWindow: number,
    private readonly fallback?: HostTiming,
  ) {
    this.#window = maxWindow;
  }

  /** Whether any answer was measured. */
  get measured(): boolean {
    return this.#srtt !== undefined;
  }

  /** The timeout for the next probe. */
  timeoutMs(): number {
    if (this.#srtt === undefined) return this.fallback?.measured ? this.fallback.timeoutMs() : Math.min(this.maxTimeoutMs, INITIAL_TIMEOUT_MS);
    const rto = this.#srtt + Math.max(4 * this.#rttvar, 10);
    return Math.round(Math.min(this.maxTimeoutMs, Math.max(MIN_TIMEOUT_MS, rto)));
  }

  /**
   * The timeout of the `n`th retransmission (0: the first attempt): the host's current estimate
   * doubled per retransmission, as TCP and nmap back off, within the configured ceiling. Grown
   * from the estimate now, not from what an earlier attempt waited: the first probes of a scan
   * wait the whole ceiling before any answer was measured, and their retransmissions need not.
   */
  retryTimeoutMs(n: number): number {
    return Math.min(this.maxTimeoutMs, Math.round(this.timeoutMs() * RETRY_GROWTH ** n));
  }

  /** The host answered (connected or refused) after `rttMs`. */
  answered(rttMs: number): void {
    this.#answered = true;
    if (this.#srtt === undefined) {
      this.#srtt = rttMs;
      this.#rttvar = rttMs / 2;
    } else {
      this.#rttvar = 0.75 * this.#rttvar + 0.25 * Math.abs(this.#srtt - rttMs);
      this.#srtt = 0.875 * this.#srtt + 0.125 * rttMs;
    }
    this.#window = Math.min(this.maxWindow, this.#window + 1);
  }

  /**
   * The host lost a probe: a retransmission was answered (scan.ts). A timeout alone is no loss: a
   * firewall drops on purpose. Only a host that has answered can be said to lose probes.
   */
  dropped(): void {
    if (this.#answered) this.#window = Math.max(Math.max(1, Math.floor(this.maxWindow * MIN_WINDOW_SHARE)), this.#window * DECREASE);
  }

  /** Waits for room in the window (or the signal's abort). */
  async acquire(signal: AbortSignal): Promise<boolean> {
    const tryTake = (): boolean => {
      if (this.#inFlight >= Math.floor(this.#window)) return false;
      this.#inFlight += 1;
      return true;
    };
    return takeRoom(tryTake, this.#waiters, signal);
  }

  release(): void {
    this.#inFlight -= 1;
    this.#waiters.shift()?.();
  }
}
