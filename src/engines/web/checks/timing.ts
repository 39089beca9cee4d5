/**
 * The timing discipline of the time-based checks (blind SQL and command injection): a delay is a
 * finding only when it is proven to be the one the payload asked for, so that lag (a slow server,
 * a jittery page, the scanner's own load) never becomes one.
 *
 * How a delay is proven, on one input:
 * 1. the page's latency is measured with its own value, several times (`measureLatency`);
 * 2. two delays are chosen from it (`chooseDelays`): short = at least 2 s and twice the slowest
 *    sample, long = twice short; a page too slow for a short delay of 5 s is not tested;
 * 3. a payload asking for `short` seconds must take at least `short`, and half of `short` more
 *    than the slowest sample (`showsDelay`); then, alone in the scan (shared-exclusive-lock.ts), the same
 *    payload asks for `short` seconds again, for `long` seconds, and for zero (the control);
 * 4. `judgeDelays`: both delays shown, their difference matches `long - short` within the
 *    tolerance (the spread, and at least 40 % of `short`), and the control is as fast as the page
 *    (under half of `short` above its slowest sample).
 *
 * The decision (`profileLatency`, `chooseDelays`, `showsDelay`, `judgeDelays`) is pure, on
 * milliseconds, so that it is tested on synthetic samples; `proveDelay` drives it over the network,
 * and `proveDelayOnInput` on one input of a scan.
 */
import { EgressError } from '../../../shared/egress-error.js';
import type { CheckContext, InputPoint, WebResponse } from '../contract.js';
import { inputLine, sendWith } from './probe.js';
import { SharedExclusiveLock, timingLockOf } from './shared-exclusive-lock.js';

/** Baseline samples taken per input. */
export const BASELINE_SAMPLES = 5;

/** The delays a check may ask for, in seconds. */
export const DELAY_BOUNDS = { minSeconds: 2, maxSeconds: 5 } as const;

/** A page's latency, from its baseline samples (ms). */
export interface LatencyProfile {
  samples: number[];
  low: number;
  median: number;
  high: number;
  /** high - low: how much the page jitters on its own. */
  spread: number;
}

export function profileLatency(samples: number[]): LatencyProfile {
  if (samples.length === 0) throw new Error('a latency profile needs at least one sample');
  const sorted = [...samples].sort((a, b) => a - b);
  const low = sorted[0]!;
  const high = sorted[sorted.length - 1]!;
  const median = sorted[Math.floor(sorted.length / 2)]!;
  return { samples, low, median, high, spread: high - low };
}

/**
 * The two delays to ask for (seconds): short at least twice the slowest baseline sample (so that
 * lag of the size the page showed cannot pass for it), long twice short; null when the page is
 * too slow for a short delay within the bounds.
 */
export function chooseDelays(profile: LatencyProfile, bounds: { minSeconds: number; maxSeconds: number } = DELAY_BOUNDS): { short: number; long: number } | null {
  const short = Math.max(bounds.minSeconds, Math.ceil((2 * profile.high) / 1000));
  if (short > bounds.maxSeconds) return null;
  return { short, long: 2 * short };
}

/**
 * Whether a response that asked for `seconds` took long enough to be that delay: at least the
 * delay itself (a sleep cannot be shorter; 2 % slack for timer granularity), and half the delay
 * more than the slowest baseline sample. Not "the delay more than the fastest sample": the
 * baseline may have been measured while the server was busier than it is now.
 */
export function showsDelay(profile: LatencyProfile, seconds: number, ms: number): boolean {
  const delay = seconds * 1000;
  return ms >= 0.98 * delay && ms >= profile.high + delay / 2;
}

/** What the probes of one payload measured. */
export interface DelayObservation {
  short: { seconds: number; ms: number };
  long: { seconds: number; ms: number };
  /** The same payload asking for zero seconds. */
  controlMs: number;
}

export type DelayVerdict = { proven: true } | { proven: false; reason: string };

/** Decides whether the observed times prove the delays were the payload's. */
export function judgeDelays(profile: LatencyProfile, observed: DelayObservation): DelayVerdict {
  const { short, long, controlMs } = observed;
  if (long.seconds <= short.seconds) return { proven: false, reason: 'the two delays must differ' };
  for (const delay of [short, long]) {
    if (!showsDelay(profile, delay.seconds, delay.ms)) {
      return { proven: false, reason: `asked for ${delay.seconds} s it took ${seconds(delay.ms)}, against ${seconds(profile.low)}–${seconds(profile.high)} without` };
    }
  }
  const expected = (long.seconds - short.seconds) * 1000;
  const tolerance = Math.max(profile.spread, short.seconds * 1000 * 0.4);
  const difference = long.ms - short.ms;
  if (Math.abs(difference - expected) > tolerance) {
    return { proven: false, reason: `the delays differ by ${seconds(difference)} instead of ${seconds(expected)}` };
  }
  if (controlMs >= profile.high + (short.seconds * 1000) / 2) return { proven: false, reason: `the zero-delay control took ${seconds(controlMs)}` };
  return { proven: true };
}

/** Milliseconds as seconds with two decimals, for summaries. */
export function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(2)} s`;
}

/** One way of asking an input for a delay (a payload template). */
export interface DelayProbe {
  /** The payload as a person reads it, with `N` for the seconds, e.g. `'||(SELECT 1 FROM (SELECT SLEEP(N))x)||'`. */
  label: string;
  send(seconds: number, timeoutMs: number): Promise<WebResponse>;
}

/** A delay proven on one probe: its exchanges and what they measured. */
export interface DelayProof {
  probe: DelayProbe;
  profile: LatencyProfile;
  short: WebResponse;
  long: WebResponse;
  control: WebResponse;
  /** One sentence with the figures, for the finding's summary. */
  summary: string;
}

/** Sends the baseline `count` times, one after the other, and profiles the times. */
export async function measureLatency(sendBaseline: () => Promise<WebResponse>, count = BASELINE_SAMPLES): Promise<LatencyProfile> {
  const samples: number[] = [];
  for (let i = 0; i < count; i++) samples.push((await sendBaseline()).timeMs);
  return profileLatency(samples);
}

/** Confirmations a probe that showed the short delay gets: a second one when lag spoilt the first. */
const CONFIRMATIONS = 2;

/**
 * Tries each probe in turn and returns the first proven delay, or null. A probe first asks for the
 * short delay (holding `lock` shared); one that showed it is confirmed holding `lock` alone: short
 * again, long, control. A spoilt confirmation is tried once more, every condition again (lag on a
 * loaded server can spoil one); a probe that times out proves nothing and the next is tried;
 * other failures propagate.
 */
export async function proveDelay(
  profile: LatencyProfile,
  probes: DelayProbe[],
  signal: AbortSignal,
  onRejected: (why: string) => void = () => {},
  lock: SharedExclusiveLock = new SharedExclusiveLock(),
): Promise<DelayProof | null> {
  const delays = chooseDelays(profile);
  if (!delays) {
    onRejected(`not tested for delays: its latency varies from ${seconds(profile.low)} to ${seconds(profile.high)}`);
    return null;
  }
  const timeoutMs = delays.long * 1000 + profile.high + 3000;
  const showsShort = (response: WebResponse | null): boolean => response !== null && showsDelay(profile, delays.short, response.timeMs);
  for (const probe of probes) {
    if (signal.aborted) return null;
    if (!showsShort(await lock.runShared(() => orTimeout(probe.send(delays.short, timeoutMs))))) continue;
    for (let attempt = 1; attempt <= CONFIRMATIONS; attempt++) {
      const confirmation = await lock.runExclusive(async (): Promise<DelayProof | string | null> => {
        if (signal.aborted) return null;
        const short = await orTimeout(probe.send(delays.short, timeoutMs));
        if (!short) return 'a confirmation timed out';
        if (!showsShort(short)) return `asked for ${delays.short} s again it took ${seconds(short.timeMs)}`;
        const long = await orTimeout(probe.send(delays.long, timeoutMs));
        const control = long && (await orTimeout(probe.send(0, timeoutMs)));
        if (!long || !control) return 'a confirmation timed out';
        const verdict = judgeDelays(profile, { short: { seconds: delays.short, ms: short.timeMs }, long: { seconds: delays.long, ms: long.timeMs }, controlMs: control.timeMs });
        if (!verdict.proven) return verdict.reason;
        const summary =
          `Asked for ${delays.short} s it took ${seconds(short.timeMs)}, for ${delays.long} s ${seconds(long.timeMs)}, and for 0 s ${seconds(control.timeMs)}, ` +
          `against ${seconds(profile.low)}–${seconds(profile.high)} in ${profile.samples.length} baseline requests.`;
        return { probe, profile, short, long, control, summary };
      });
      if (confirmation === null) return null;
      if (typeof confirmation !== 'string') return confirmation;
      onRejected(`\`${probe.label}\` seemed to delay the page but did not confirm it (attempt ${attempt}): ${confirmation}`);
    }
  }
  return null;
}

async function orTimeout(exchange: Promise<WebResponse>): Promise<WebResponse | null> {
  try {
    return await exchange;
  } catch (error) {
    if (error instanceof EgressError && error.code === 'timeout') return null;
    throw error;
  }
}

/** A payload that asks an input for a delay. */
export interface DelayPayload {
  /** As a person reads it, `N` for the seconds. */
  label: string;
  /** The value to send for `seconds`. */
  value(seconds: number): string;
}

/**
 * Measures one input's latency and tries the payloads on it (`proveDelay`) under the scan's timing
 * lock; rejected confirmations and untestable pages are logged under `check`.
 */
export async function proveDelayOnInput(ctx: CheckContext, check: string, point: InputPoint, payloads: DelayPayload[]): Promise<DelayProof | null> {
  const lock = timingLockOf(ctx.client);
  const profile = await measureLatency(() => lock.runShared(() => sendWith(ctx, point, point.value)));
  const probes: DelayProbe[] = payloads.map(({ label, value }) => ({ label, send: (delay, timeoutMs) => sendWith(ctx, point, value(delay), { timeoutMs }) }));
  return proveDelay(profile, probes, ctx.signal, (why) => ctx.log('info', `${check}: ${inputLine(point)} ${why}`), lock);
}
