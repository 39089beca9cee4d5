/** The local agent's guard: exactly the scan's targets, private ones included, and nothing else. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createTargetGuard } from '../src/agent/target-guard.js';

test("the agent's guard allows the scan's IPs, ranges and the addresses its names resolve to, and refuses everything else", async () => {
  const lookups: string[] = [];
  const guard = await createTargetGuard(
    [
      { kind: 'ip', value: '192.168.7.20' },
      { kind: 'cidr', value: '10.213.5.0/24' },
      { kind: 'hostname', value: 'nas.lab' },
      { kind: 'url', value: 'http://[fd00::8]:8080/admin' },
      { kind: 'hostname', value: 'gone.lab' },
    ],
    {
      lookup: async (host) => {
        lookups.push(host);
        if (host === 'nas.lab') return ['172.20.0.9', 'fd00::9'];
        throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
      },
    },
  );
  assert.deepEqual(lookups, ['nas.lab', 'gone.lab']);
  assert.deepEqual(guard.resolved.get('nas.lab'), ['172.20.0.9', 'fd00::9']);
  for (const allowed of ['192.168.7.20', '10.213.5.0', '10.213.5.77', '10.213.5.255', '172.20.0.9', 'fd00::9', 'fd00::8', '::ffff:10.213.5.3']) {
    assert.equal(guard.check(allowed).allowed, true, allowed);
  }
  for (const refused of ['192.168.7.21', '10.213.6.1', '172.20.0.10', '127.0.0.1', '8.8.8.8', '169.254.169.254', 'fd00::10', '::ffff:192.168.7.21', 'not an address']) {
    assert.equal(guard.check(refused).allowed, false, refused);
  }
  assert.equal(guard.check('127.0.0.1').class, 'loopback');
});
