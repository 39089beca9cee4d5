import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  type AddressClass,
  classifyAddress,
  createAddressGuard,
  parseAllowList,
  resolveAndCheck,
} from '../src/shared/address-guard.js';

describe('classifyAddress', () => {
  const cases: [string, AddressClass][] = [
    ['8.8.8.8', 'public'],
    ['2606:4700:4700::1111', 'public'],
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['::1', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['fd12:3456::1', 'private'],
    ['fec0::1', 'private'],
    ['169.254.1.1', 'link-local'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['100.64.0.1', 'cgnat'],
    ['100.127.255.255', 'cgnat'],
    ['169.254.169.254', 'metadata'],
    ['169.254.170.2', 'metadata'],
    ['fd00:ec2::254', 'metadata'],
    ['100.100.100.200', 'metadata'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['ff02::1', 'multicast'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['::', 'unspecified'],
    ['240.0.0.1', 'reserved'],
    ['255.255.255.255', 'reserved'],
    ['192.0.0.8', 'reserved'],
    ['192.0.2.1', 'reserved'],
    ['198.18.0.1', 'reserved'],
    ['198.19.255.255', 'reserved'],
    ['198.51.100.7', 'reserved'],
    ['203.0.113.9', 'reserved'],
    ['2001:db8::1', 'reserved'],
    ['100::1', 'reserved'],
    ['2002:7f00:1::1', 'reserved'],
    ['2001::1', 'reserved'],
    ['::7f00:1', 'reserved'],
    // Neighbours of refused blocks stay public.
    ['172.32.0.1', 'public'],
    ['100.128.0.1', 'public'],
    ['11.0.0.1', 'public'],
    ['223.255.255.255', 'public'],
    // IPv4-mapped IPv6 is judged as its IPv4.
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:169.254.169.254', 'metadata'],
    ['::ffff:8.8.8.8', 'public'],
    // NAT64 is judged by its embedded IPv4.
    ['64:ff9b::7f00:1', 'loopback'],
    ['64:ff9b::a9fe:a9fe', 'metadata'],
    ['64:ff9b::808:808', 'public'],
    ['64:ff9b:1::1', 'reserved'],
    // Odd IPv4 spellings are judged by what the resolver would reach.
    ['127.1', 'loopback'],
    ['0x7f.0.0.1', 'loopback'],
  ];
  for (const [address, expected] of cases) {
    test(`${address} is ${expected}`, () => {
      assert.equal(classifyAddress(address), expected);
    });
  }

  test('text that is no address throws', () => {
    assert.throws(() => classifyAddress('example.com'), /Not an IP address: "example.com"/);
  });
});

describe('parseAllowList', () => {
  test('splits on commas, spaces and newlines', () => {
    assert.deepEqual(parseAllowList(' 127.0.0.0/8,::1/128\n10.0.0.0/8 ,, \t192.168.1.1\n'), [
      '127.0.0.0/8',
      '::1/128',
      '10.0.0.0/8',
      '192.168.1.1',
    ]);
  });

  test('empty text gives no entries', () => {
    assert.deepEqual(parseAllowList(' ,\n '), []);
  });
});

describe('createAddressGuard', () => {
  const invalid: [string, RegExp][] = [
    ['example.com', /"example\.com": not an IP address or CIDR range/],
    ['10.0.0.0/33', /"10\.0\.0\.0\/33": prefix length above 32/],
    ['::/129', /"::\/129": prefix length above 128/],
    ['10.0.0.0/', /"10\.0\.0\.0\/": bad prefix length/],
    ['10.0.0.0/x', /bad prefix length/],
    ['10.0.0.0/8/8', /not an IP address or CIDR range/],
    ['127.1', /"127\.1": not an IP address/],
    ['fe80::1%eth0', /"fe80::1%eth0": not an IP address/],
    ['', /"": not an IP address/],
    ['10.0.0.5/8', /host bits are set \(did you mean 10\.0\.0\.0\/8\?\)/],
    ['2001:db8::1/32', /host bits are set \(did you mean 2001:db8::\/32\?\)/],
  ];
  for (const [entry, message] of invalid) {
    test(`throws for the allow-list entry ${JSON.stringify(entry)}`, () => {
      assert.throws(() => createAddressGuard(['127.0.0.0/8', entry]), message);
    });
  }

  const checks: [string[], string, boolean, AddressClass][] = [
    [[], '8.8.8.8', true, 'public'],
    [[], '127.0.0.1', false, 'loopback'],
    [[], '::ffff:127.0.0.1', false, 'loopback'],
    [['127.0.0.0/8'], '127.0.0.1', true, 'loopback'],
    [['127.0.0.0/8'], '::ffff:127.0.0.1', true, 'loopback'],
    [['127.0.0.0/8'], '::1', false, 'loopback'],
    [['::1/128'], '::1', true, 'loopback'],
    [['::1'], '::1', true, 'loopback'],
    [['10.0.0.0/8'], '10.200.0.1', true, 'private'],
    [['10.0.0.0/8'], '64:ff9b::a00:1', true, 'private'],
    [['10.0.0.0/8'], '192.168.0.1', false, 'private'],
    [['192.168.1.7'], '192.168.1.7', true, 'private'],
    [['192.168.1.7'], '192.168.1.8', false, 'private'],
    [['169.254.0.0/16'], '169.254.1.1', true, 'link-local'],
    // A broad entry must not open a cloud metadata endpoint...
    [['169.254.0.0/16'], '169.254.169.254', false, 'metadata'],
    [['0.0.0.0/0', '::/0'], '169.254.169.254', false, 'metadata'],
    [['fc00::/7'], 'fd00:ec2::254', false, 'metadata'],
    [['100.64.0.0/10'], '100.100.100.200', false, 'metadata'],
    // ...only an entry naming it exactly does.
    [['169.254.169.254/32'], '169.254.169.254', true, 'metadata'],
    [['169.254.169.254'], '::ffff:169.254.169.254', true, 'metadata'],
    [['fd00:ec2::254/128'], 'fd00:ec2::254', true, 'metadata'],
    [['0.0.0.0/0', '::/0'], '10.0.0.1', true, 'private'],
    // Text that is no address fails closed.
    [['0.0.0.0/0'], 'not-an-address', false, 'reserved'],
  ];
  for (const [allow, address, allowed, cls] of checks) {
    test(`with [${allow.join(', ')}] ${address} is ${allowed ? 'allowed' : 'refused'} (${cls})`, () => {
      assert.deepEqual(createAddressGuard(allow).check(address), { allowed, class: cls });
    });
  }

  const ranges: [string[], string, boolean, AddressClass][] = [
    [[], '0.0.0.0/0', false, 'unspecified'],
    [[], '::/0', false, 'unspecified'],
    [[], '8.8.8.0/24', true, 'public'],
    [[], '8.8.8.8', true, 'public'],
    [[], '2606:4700::/32', true, 'public'],
    [[], '11.0.0.0/8', true, 'public'],
    [[], '10.0.0.0/7', false, 'private'],
    [[], '172.0.0.0/8', false, 'private'],
    [[], '::ffff:0:0/96', false, 'unspecified'],
    [['10.0.0.0/8'], '10.1.2.0/24', true, 'private'],
    [['10.0.0.0/8'], '10.0.0.0/8', true, 'private'],
    [['10.0.0.0/8'], '10.0.0.0/7', true, 'private'],
    [['10.0.0.0/8'], '8.0.0.0/6', true, 'private'],
    [['10.0.0.0/9'], '10.0.0.0/8', false, 'private'],
    // Two halves of the allow list together cover the range.
    [['10.0.0.0/9', '10.128.0.0/9'], '10.0.0.0/8', true, 'private'],
    [['127.0.0.0/8'], '127.0.0.0/16', true, 'loopback'],
    [['169.254.0.0/16'], '169.254.0.0/16', false, 'metadata'],
    [['169.254.0.0/16'], '169.254.1.0/24', true, 'link-local'],
    [['169.254.0.0/16', '169.254.169.254/32'], '169.254.169.0/24', true, 'link-local'],
    [['0.0.0.0/0'], '0.0.0.0/0', false, 'metadata'],
    [
      ['0.0.0.0/0', '169.254.169.254/32', '169.254.170.2/32', '169.254.170.23/32', '100.100.100.200/32'],
      '0.0.0.0/0',
      true,
      'unspecified',
    ],
    [[], 'garbage/8', false, 'reserved'],
  ];
  for (const [allow, cidr, allowed, cls] of ranges) {
    test(`with [${allow.join(', ')}] the range ${cidr} is ${allowed ? 'allowed' : 'refused'} (${cls})`, () => {
      assert.deepEqual(createAddressGuard(allow).checkRange(cidr), { allowed, class: cls });
    });
  }
});

describe('resolveAndCheck', () => {
  const guard = createAddressGuard([]);
  const fakeLookup = (answers: Record<string, string[]>) => async (hostname: string) => {
    const addresses = answers[hostname];
    if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return addresses;
  };
  const lookup = fakeLookup({
    'public.test': ['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c'],
    'mixed.test': ['93.184.215.14', '10.0.0.7', '93.184.215.15'],
    'empty.test': [],
  });

  test('a name with only public addresses is allowed', async () => {
    assert.deepEqual(await resolveAndCheck('public.test', guard, { lookup }), {
      ok: true,
      addresses: ['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c'],
    });
  });

  test('one private address among several refuses the name, naming that address', async () => {
    const result = await resolveAndCheck('mixed.test', guard, { lookup });
    assert.equal(result.ok, false);
    assert.ok(!result.ok);
    assert.equal(result.reason, 'refused');
    assert.match(result.message, /"mixed\.test" resolves to 10\.0\.0\.7 \(private\)/);
    assert.doesNotMatch(result.message, /93\.184/);
    assert.deepEqual(result.addresses, ['93.184.215.14', '10.0.0.7', '93.184.215.15']);
  });

  test('the allow list lets the private address through', async () => {
    const result = await resolveAndCheck('mixed.test', createAddressGuard(['10.0.0.0/8']), { lookup });
    assert.equal(result.ok, true);
  });

  test('a failing lookup is unresolvable', async () => {
    const result = await resolveAndCheck('missing.test', guard, { lookup });
    assert.deepEqual(result, {
      ok: false,
      reason: 'unresolvable',
      message: 'The host "missing.test" could not be resolved (ENOTFOUND).',
      addresses: [],
    });
  });

  test('a lookup that throws synchronously is unresolvable', async () => {
    const throwing = (): Promise<string[]> => {
      throw new Error('boom');
    };
    const result = await resolveAndCheck('x.test', guard, { lookup: throwing });
    assert.equal(result.ok, false);
    assert.ok(!result.ok);
    assert.equal(result.reason, 'unresolvable');
    assert.match(result.message, /boom/);
  });

  test('a name without addresses is unresolvable', async () => {
    const result = await resolveAndCheck('empty.test', guard, { lookup });
    assert.ok(!result.ok);
    assert.equal(result.reason, 'unresolvable');
    assert.match(result.message, /"empty\.test" has no IPv4 or IPv6 address/);
  });

  test('a lookup that never settles is unresolvable after the timeout', async () => {
    const started = Date.now();
    const never = () => new Promise<string[]>(() => {});
    const result = await resolveAndCheck('slow.test', guard, { lookup: never, timeoutMs: 50 });
    const elapsed = Date.now() - started;
    assert.ok(!result.ok);
    assert.equal(result.reason, 'unresolvable');
    assert.match(result.message, /"slow\.test" could not be resolved \(no answer within 50 ms\)/);
    assert.ok(elapsed >= 45 && elapsed < 2000, `took ${elapsed} ms`);
  });

  test('an IP literal is checked without a lookup, brackets allowed', async () => {
    const refuse = async (): Promise<string[]> => assert.fail('lookup must not be called');
    assert.deepEqual(await resolveAndCheck('8.8.8.8', guard, { lookup: refuse }), { ok: true, addresses: ['8.8.8.8'] });
    const result = await resolveAndCheck('[::1]', guard, { lookup: refuse });
    assert.ok(!result.ok);
    assert.equal(result.reason, 'refused');
    assert.match(result.message, /::1 \(loopback\)/);
  });

  test('a lookup answering a non-address fails closed', async () => {
    const result = await resolveAndCheck('odd.test', guard, { lookup: async () => ['not-an-ip'] });
    assert.ok(!result.ok);
    assert.equal(result.reason, 'refused');
  });

  test('localhost, resolved for real, is refused as loopback by an empty allow list', async () => {
    const result = await resolveAndCheck('localhost', guard);
    assert.ok(!result.ok, 'localhost must be refused');
    assert.equal(result.reason, 'refused');
    assert.ok(result.addresses.length > 0);
    for (const address of result.addresses) assert.equal(classifyAddress(address), 'loopback');
    assert.match(result.message, /\(loopback\)/);
    assert.equal((await resolveAndCheck('localhost', createAddressGuard(['127.0.0.0/8', '::1/128']))).ok, true);
  });
});
