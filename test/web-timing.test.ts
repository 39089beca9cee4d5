/**
 * The timing discipline of the time-based checks (src/engines/web/checks/timing.ts) on synthetic
 * measurements, no clock involved: the delays chosen from a page's latency, what proves a delay,
 * and what must never pass for one (lag, a server slow throughout, a slow control, jitter).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { WebResponse } from '../src/engines/web/contract.js';
import { SharedExclusiveLock } from '../src/engines/web/checks/shared-exclusive-lock.js';
import { chooseDelays, judgeDelays, profileLatency, proveDelay, showsDelay, type DelayProbe } from '../src/engines/web/checks/timing.js';
import { EgressError } from '../src/shared/egress-error.js';

const quiet = profileLatency([12, 9, 15, 11, 10]);

/** A response that took `timeMs` (the only field the timing discipline reads). */
const took = (timeMs: number): WebResponse => ({ timeMs }) as WebResponse;

/** A deterministic stream of numbers in [0, 1) (mulberry32), so the jitter cases are repeatable. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let x = Math.imul(state ^ (state >>> 15), 1 | state);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

describe('timing: the delays asked for', () => {
  it('profiles the samples', () => {
    assert.deepEqual(quiet, { samples: [12, 9, 15, 11, 10], low: 9, median: 11, high: 15, spread: 6 });
  });

  it('2 s and 4 s on a fast page, longer on a slow or jittery one, none past 5 s', () => {
    assert.deepEqual(chooseDelays(quiet), { short: 2, long: 4 });
    assert.deepEqual(chooseDelays(profileLatency([40, 1480, 700, 1200, 90])), { short: 3, long: 6 });
    assert.equal(chooseDelays(profileLatency([2600, 2700, 2650])), null);
  });
});

describe('timing: what proves a delay', () => {
  it('a delay that scales with the seconds asked and a fast control is proven', () => {
    assert.deepEqual(judgeDelays(quiet, { short: { seconds: 2, ms: 2013 }, long: { seconds: 4, ms: 4011 }, controlMs: 12 }), { proven: true });
  });

  it('the baseline measured under load does not hide a delay measured later, when the server is quieter', () => {
    const busy = profileLatency([510, 890, 640, 700, 560]);
    assert.deepEqual(judgeDelays(busy, { short: { seconds: 2, ms: 2080 }, long: { seconds: 4, ms: 4240 }, controlMs: 150 }), { proven: true });
  });

  it('a response shorter than the sleep asked for is no delay, however slow next to the baseline', () => {
    assert.equal(showsDelay(quiet, 2, 1900), false);
    assert.equal(showsDelay(quiet, 2, 1990), true);
    assert.equal(showsDelay(profileLatency([100, 1500]), 2, 2300), false, 'under half the delay above the slowest sample');
  });

  it('a server slow throughout is no delay: the two delays take the same time', () => {
    const verdict = judgeDelays(quiet, { short: { seconds: 2, ms: 4100 }, long: { seconds: 4, ms: 4200 }, controlMs: 20 });
    assert.equal(verdict.proven, false);
  });

  it('one lag spike on the long probe is no delay: the difference does not match', () => {
    const verdict = judgeDelays(quiet, { short: { seconds: 2, ms: 2010 }, long: { seconds: 4, ms: 7400 }, controlMs: 10 });
    assert.deepEqual(verdict, { proven: false, reason: 'the delays differ by 5.39 s instead of 2.00 s' });
  });

  it('a slow control is no delay: the page was slow whatever was asked', () => {
    const verdict = judgeDelays(quiet, { short: { seconds: 2, ms: 2400 }, long: { seconds: 4, ms: 4300 }, controlMs: 2100 });
    assert.deepEqual(verdict, { proven: false, reason: 'the zero-delay control took 2.10 s' });
  });

  it('two equal delays prove nothing', () => {
    assert.equal(judgeDelays(quiet, { short: { seconds: 2, ms: 2010 }, long: { seconds: 2, ms: 2010 }, controlMs: 10 }).proven, false);
  });

  it('a page jittering between 0 and 1.5 s (plus up to 0.5 s of load) never proves a delay, whatever its samples: the long one is out of its reach', () => {
    const next = random(16);
    const jitter = (): number => next() * 1500 + next() * 500;
    for (let round = 0; round < 2000; round++) {
      const profile = profileLatency([jitter(), jitter(), jitter(), jitter(), jitter()]);
      const delays = chooseDelays(profile);
      if (!delays) continue;
      const observed = { short: { seconds: delays.short, ms: jitter() }, long: { seconds: delays.long, ms: jitter() }, controlMs: jitter() };
      assert.equal(judgeDelays(profile, observed).proven, false);
    }
  });
});

describe('timing: proveDelay over probes', () => {
  const never = new AbortController().signal;
  /** A probe whose response takes what `time(seconds)` says, recording the seconds asked. */
  const probe = (label: string, time: (seconds: number) => number, asked: number[] = []): DelayProbe => ({
    label,
    send: async (seconds) => {
      asked.push(seconds);
      return took(time(seconds));
    },
  });

  it('skips probes that show no delay and proves the one that sleeps, short, long, then the control', async () => {
    const asked: number[] = [];
    const proof = await proveDelay(quiet, [probe('inert', () => 11), probe('sleeps', (s) => s * 1000 + 12, asked)], never);
    assert.equal(proof?.probe.label, 'sleeps');
    assert.deepEqual(asked, [2, 2, 4, 0], 'screened, then confirmed: short again, long, control');
    assert.deepEqual([proof.short.timeMs, proof.long.timeMs, proof.control.timeMs], [2012, 4012, 12]);
    assert.match(proof.summary, /Asked for 2 s it took 2\.01 s, for 4 s 4\.01 s, and for 0 s 0\.01 s/);
  });

  it('confirms a second time when lag spoilt the first confirmation, and says why the first failed', async () => {
    const times = [2010, 2010, 6500, 10, 2012, 4011, 11];
    const reasons: string[] = [];
    const proof = await proveDelay(quiet, [probe('lagged once', () => times.shift()!)], never, (why) => reasons.push(why));
    assert.equal(proof?.long.timeMs, 4011);
    assert.equal(reasons.length, 1);
    assert.match(reasons[0]!, /^`lagged once` seemed to delay the page but did not confirm it \(attempt 1\): the delays differ by 4\.49 s/);
  });

  it('gives up on a probe after two spoilt confirmations, and on one that times out', async () => {
    const lagging = probe('lag each time', (s) => (s === 0 ? 3000 : 2500));
    const timingOut: DelayProbe = {
      label: 'times out',
      send: async () => {
        throw new EgressError('timeout', 'no answer');
      },
    };
    const reasons: string[] = [];
    assert.equal(await proveDelay(quiet, [lagging, timingOut], never, (why) => reasons.push(why)), null);
    assert.equal(reasons.length, 2);
  });

  it('does not test a page too slow to tell a delay from its own latency', async () => {
    const asked: number[] = [];
    const reasons: string[] = [];
    assert.equal(await proveDelay(profileLatency([2900, 3000]), [probe('sleeps', (s) => s * 1000 + 3000, asked)], never, (why) => reasons.push(why)), null);
    assert.deepEqual(asked, []);
    assert.match(reasons[0]!, /not tested for delays/);
  });
});

describe('timing: the scan\'s timing lock', () => {
  /** A work that records its start and end and finishes when told (or fails, when told so). */
  function gated(events: string[], name: string, fail = false): { work: () => Promise<string>; finish: () => void } {
    let finish!: () => void;
    const done = new Promise<void>((resolve) => (finish = resolve));
    return {
      finish: () => finish(),
      work: async () => {
        events.push(`${name} started`);
        await done;
        events.push(`${name} done`);
        if (fail) throw new Error(`${name} failed`);
        return name;
      },
    };
  }
  /** Lets every pending promise callback run. */
  const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

  it('shared holders run together; a confirmation waits for them and runs alone, before shared holders that came after it', async () => {
    const lock = new SharedExclusiveLock();
    const events: string[] = [];
    const [a, b, confirm, c] = [gated(events, 'baseline a'), gated(events, 'screen b'), gated(events, 'confirmation', true), gated(events, 'screen c')];
    const outcomes = Promise.allSettled([lock.runShared(a.work), lock.runShared(b.work), lock.runExclusive(confirm.work), lock.runShared(c.work)]);
    await settle();
    assert.deepEqual(events, ['baseline a started', 'screen b started']);
    a.finish();
    await settle();
    assert.deepEqual(events.slice(2), ['baseline a done'], 'the confirmation still waits for screen b');
    b.finish();
    await settle();
    assert.deepEqual(events.slice(3), ['screen b done', 'confirmation started'], 'screen c waits for the confirmation');
    confirm.finish();
    await settle();
    assert.deepEqual(events.slice(5), ['confirmation done', 'screen c started'], 'a failed confirmation releases the lock');
    c.finish();
    assert.deepEqual(
      (await outcomes).map((outcome) => outcome.status),
      ['fulfilled', 'fulfilled', 'rejected', 'fulfilled'],
    );
  });
});
