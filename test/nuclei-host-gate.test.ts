/**
 * The nuclei engine's host gate (src/engines/nuclei/host-gate.ts): per-host concurrency, rate
 * slots on a pinned clock, skipping a host after consecutive network errors; and the caps of the
 * engine's options.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Value } from 'typebox/value';
import { HostSkippedError } from '../src/engines/nuclei/execute/contract.js';
import { createHostGate } from '../src/engines/nuclei/host-gate.js';
import { nucleiOptionsSchema } from '../src/engines/nuclei/options.js';

describe('nuclei host gate', () => {
  it('holds a host to its concurrency and rejects waiting requests once it is skipped', async () => {
    const skipped: string[] = [];
    const gate = createHostGate({ concurrency: 2, ratePerHost: 0, rateOverall: 0, maxErrors: 3, signal: new AbortController().signal, onSkip: (host) => skipped.push(host) });
    let inFlight = 0;
    let most = 0;
    const releases: Array<() => void> = [];
    const send = () =>
      new Promise<void>((resolve) => {
        inFlight += 1;
        most = Math.max(most, inFlight);
        releases.push(() => {
          inFlight -= 1;
          resolve();
        });
      });
    const runs = [0, 1, 2, 3].map(() => gate.run('h', send));
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(inFlight, 2, 'two in flight, two waiting');
    for (let i = 0; i < 3; i += 1) gate.networkError('h', new Error('reset'));
    assert.equal(gate.isSkipped('h'), true);
    assert.deepEqual(skipped, ['h'], 'told once');
    gate.networkError('h', new Error('again'));
    assert.deepEqual(skipped, ['h']);
    const settled = await Promise.allSettled(runs.slice(2));
    assert.ok(settled.every((s) => s.status === 'rejected' && s.reason instanceof HostSkippedError));
    for (const release of releases.splice(0)) release();
    await Promise.all(runs.slice(0, 2));
    assert.equal(most, 2);
    await assert.rejects(gate.run('h', send), HostSkippedError);
    assert.equal(gate.isSkipped('other'), false, 'hosts are gated apart');
  });

  it('an answer resets the count of consecutive errors', () => {
    const gate = createHostGate({ concurrency: 1, ratePerHost: 0, rateOverall: 0, maxErrors: 2, signal: new AbortController().signal });
    gate.networkError('h', new Error('timeout'));
    gate.answered('h');
    gate.networkError('h', new Error('timeout'));
    assert.equal(gate.isSkipped('h'), false);
    gate.networkError('h', new Error('timeout'));
    assert.equal(gate.isSkipped('h'), true);
  });

  it('holds a request back until its rate slot; other hosts have their own slots (pinned clock)', async () => {
    const controller = new AbortController();
    const gate = createHostGate({ concurrency: 10, ratePerHost: 1, rateOverall: 0, maxErrors: 2, signal: controller.signal, now: () => 0 });
    const sent: string[] = [];
    await gate.run('h', async () => sent.push('h1'));
    await gate.run('other', async () => sent.push('other1'));
    // The clock stands still, so the second request to h waits for its slot a second later: the abort ends the wait unsent.
    const second = gate.run('h', async () => sent.push('h2'));
    controller.abort();
    await assert.rejects(second, { name: 'AbortError' });
    assert.deepEqual(sent, ['h1', 'other1']);
  });
});

describe('nuclei options', () => {
  it('bound the politeness options by the deployment caps', () => {
    const schema = nucleiOptionsSchema({ ratePerSecond: 100, maxConcurrency: 64 });
    assert.equal(Value.Check(schema, { rate_per_host: 100, concurrency: 64, tags: ['cve'], severities: ['high'] }), true);
    assert.equal(Value.Check(schema, { rate_per_host: 101 }), false);
    assert.equal(Value.Check(schema, { concurrency: 65 }), false);
    assert.equal(Value.Check(schema, { severities: ['severe'] }), false);
    assert.equal(Value.Check(schema, { ports: [80] }), false, 'no unknown option');
  });
});
