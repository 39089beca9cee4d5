import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { hostOf, type ParsedTarget, parseScanTargets, type ScanType } from '../src/scans/targets.js';

const NETWORK_TYPES: ScanType[] = ['Rampart', 'OpenVas', 'Nuclei'];
const LIMIT = { maxAddresses: 65536 };

/** JSON for assertion messages; results hold bigints, which plain JSON.stringify refuses. */
function show(value: unknown): string {
  return JSON.stringify(value, (_, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v));
}

function parseOk(text: string, scanType: ScanType, maxAddresses = LIMIT.maxAddresses) {
  const result = parseScanTargets(text, scanType, { maxAddresses });
  assert.ok(result.ok, `expected ${JSON.stringify(text)} to parse, got ${show(result)}`);
  return result.value;
}

function parseErrors(text: string, scanType: ScanType, maxAddresses = LIMIT.maxAddresses): string[] {
  const result = parseScanTargets(text, scanType, { maxAddresses });
  assert.ok(!result.ok, `expected ${JSON.stringify(text)} to be rejected, got ${show(result)}`);
  return result.errors;
}

describe('network scan targets (Rampart, OpenVas, Nuclei)', () => {
  const accepted: [string, ParsedTarget, bigint][] = [
    ['192.0.2.1', { kind: 'ip', value: '192.0.2.1' }, 1n],
    ['8.8.8.8', { kind: 'ip', value: '8.8.8.8' }, 1n],
    ['0.0.0.0', { kind: 'ip', value: '0.0.0.0' }, 1n],
    ['::1', { kind: 'ip', value: '::1' }, 1n],
    ['::0001', { kind: 'ip', value: '::1' }, 1n],
    ['2001:DB8:0:0:0:0:0:1', { kind: 'ip', value: '2001:db8::1' }, 1n],
    ['2001:db8:0:0:1:0:0:1', { kind: 'ip', value: '2001:db8::1:0:0:1' }, 1n],
    ['2001:0db8:0000:0000:0000:ff00:0042:8329', { kind: 'ip', value: '2001:db8::ff00:42:8329' }, 1n],
    ['::ffff:1.2.3.4', { kind: 'ip', value: '::ffff:102:304' }, 1n],
    ['10.0.0.0/24', { kind: 'cidr', value: '10.0.0.0/24' }, 256n],
    ['10.0.0.5/24', { kind: 'cidr', value: '10.0.0.0/24' }, 256n],
    ['10.0.0.5/32', { kind: 'ip', value: '10.0.0.5' }, 1n],
    ['10.0.0.0/16', { kind: 'cidr', value: '10.0.0.0/16' }, 65536n],
    ['2001:DB8::1/64', { kind: 'cidr', value: '2001:db8::/64' }, 1n << 64n],
    ['2001:db8::1/128', { kind: 'ip', value: '2001:db8::1' }, 1n],
    ['::/0', { kind: 'cidr', value: '::/0' }, 1n << 128n],
    ['0.0.0.0/0', { kind: 'cidr', value: '0.0.0.0/0' }, 1n << 32n],
    ['example.com', { kind: 'hostname', value: 'example.com' }, 1n],
    ['Example.COM.', { kind: 'hostname', value: 'example.com' }, 1n],
    ['localhost', { kind: 'hostname', value: 'localhost' }, 1n],
    ['LOCALHOST.', { kind: 'hostname', value: 'localhost' }, 1n],
    ['a-b.c-d.example.co.uk', { kind: 'hostname', value: 'a-b.c-d.example.co.uk' }, 1n],
    ['xn--bcher-kva.de', { kind: 'hostname', value: 'xn--bcher-kva.de' }, 1n],
    ['123.example.com', { kind: 'hostname', value: '123.example.com' }, 1n],
    [`${'a'.repeat(63)}.com`, { kind: 'hostname', value: `${'a'.repeat(63)}.com` }, 1n],
    [`${'abcdefghi.'.repeat(25)}com`, { kind: 'hostname', value: `${'abcdefghi.'.repeat(25)}com` }, 1n],
  ];
  for (const scanType of NETWORK_TYPES) {
    for (const [input, target, count] of accepted) {
      test(`${scanType} accepts ${input} as ${target.kind} ${target.value}`, () => {
        // An unbounded cap: the /0 and /64 cases are about normalisation, not the limit.
        const value = parseOk(input, scanType, Infinity);
        assert.deepEqual(value, { targets: [target], addressCount: count });
      });
    }
  }

  const rejected: [string, RegExp][] = [
    ['http://example.com', /^"http:\/\/example\.com" has a scheme; drop "http:\/\/" for a Rampart scan, or use a ZAP scan to scan a URL\.$/],
    ['HTTPS://example.com/path', /has a scheme; drop "HTTPS:\/\/"/],
    ['ftp://10.0.0.1', /has a scheme; drop "ftp:\/\/"/],
    ['example.com:8080', /^"example\.com:8080" includes a port; give the host alone/],
    ['10.0.0.1:22', /^"10\.0\.0\.1:22" includes a port/],
    ['[::1]:443', /^"\[::1\]:443" includes a port/],
    ['[::1]', /^"\[::1\]": write IPv6 addresses without brackets\.$/],
    ['fe80::1%eth0', /^"fe80::1%eth0" has an IPv6 zone id \(%eth0\), which is not supported; remove it\.$/],
    ['fe80::1%eth0/64', /has an IPv6 zone id \(%eth0\)/],
    ['1::2::3', /^"1::2::3" is not a valid IPv6 address\.$/],
    ['2001:db8::g', /is not a valid IPv6 address/],
    ['256.1.1.1', /^"256\.1\.1\.1" is not a valid IPv4 address\.$/],
    ['1.2.3', /^"1\.2\.3" is not a valid IPv4 address\.$/],
    ['01.2.3.4', /^"01\.2\.3\.4" is not a valid IPv4 address\.$/],
    ['10.0.0.0/33', /^"10\.0\.0\.0\/33" has an invalid prefix length; IPv4 ranges take \/0 to \/32\.$/],
    ['2001:db8::/129', /IPv6 ranges take \/0 to \/128/],
    ['10.0.0.0/', /invalid prefix length/],
    ['10.0.0.0/08', /invalid prefix length/],
    ['10.0.0.0/-1', /invalid prefix length/],
    ['example.com/24', /^"example\.com\/24" is not a valid CIDR range; write an address and a prefix length/],
    ['10.0.0.0/8/8', /is not a valid CIDR range/],
    ['intranet', /^"intranet" is not a valid hostname: it needs at least one dot .*only "localhost" may stand alone\.$/],
    ['-bad.example.com', /the label "-bad" may hold only letters, digits and hyphens/],
    ['bad-.example.com', /the label "bad-"/],
    ['under_score.example.com', /the label "under_score"/],
    ['a..b.com', /it has an empty label/],
    ['.example.com', /it has an empty label/],
    [`${'a'.repeat(64)}.com`, /is longer than 63 characters/],
    [`${'abcdefghi.'.repeat(25)}info`, /it is longer than 253 characters/],
    ['example.123', /its last label is all digits/],
    ['0x7f.0.0.1', /its last label is all digits/],
    ['bücher.de', /contains non-ASCII characters; write it in punycode \(xn--bcher-kva\.de\)/],
    ['user@example.com', /the label "user@example"/],
    ['mailto:x@example.com', /is not a valid IP address, CIDR range or hostname/],
  ];
  for (const [input, message] of rejected) {
    test(`Rampart rejects ${input}`, () => {
      const errors = parseErrors(input, 'Rampart');
      assert.equal(errors.length, 1);
      assert.match(errors[0] ?? '', message);
    });
  }

  test('the scheme message names the scan type', () => {
    assert.match(parseErrors('https://example.com', 'OpenVas')[0] ?? '', /for a OpenVas scan/);
  });

  test('Nuclei scans take http(s) URLs beside hosts', () => {
    const parsed = parseScanTargets('https://Example.com/app/ 10.0.0.1', 'Nuclei', { maxAddresses: 10 });
    assert.ok(parsed.ok);
    assert.deepEqual(parsed.value.targets, [{ kind: 'url', value: 'https://example.com/app/' }, { kind: 'ip', value: '10.0.0.1' }]);
    assert.match(parseErrors('ftp://example.com/', 'Nuclei')[0] ?? '', /uses the ftp scheme; Nuclei scans take only http:\/\/ and https:\/\/ URLs/);
  });

  test('a very long item is cut short in its message', () => {
    const [error = ''] = parseErrors(`${'a'.repeat(300)}`, 'Rampart');
    assert.ok(error.length < 250, error);
    assert.match(error, /^"a{77}\.\.\." is not a valid hostname/);
  });
});

describe('Nuclei host:port targets', () => {
  const accepted: [string, string][] = [
    ['example.com:8080', 'example.com:8080'],
    ['Example.COM.:443', 'example.com:443'],
    ['localhost:1', 'localhost:1'],
    ['10.0.0.1:22', '10.0.0.1:22'],
    ['10.0.0.1:65535', '10.0.0.1:65535'],
    ['10.0.0.1:0080', '10.0.0.1:80'],
    ['[::1]:443', '[::1]:443'],
    ['[2001:DB8:0:0:0:0:0:1]:8443', '[2001:db8::1]:8443'],
  ];
  for (const [input, value] of accepted) {
    test(`${input} is the service ${value}, its host the address guard's`, () => {
      const parsed = parseOk(input, 'Nuclei');
      assert.deepEqual(parsed, { targets: [{ kind: 'service', value }], addressCount: 1n });
      assert.equal(hostOf({ kind: 'service', value }), value.replace(/:\d+$/, '').replace(/^\[(.*)\]$/, '$1'));
    });
  }

  test('spellings of one service collapse; the same host on another port is another service', () => {
    const parsed = parseOk('EXAMPLE.com:80 example.com.:80 example.com:81 example.com', 'Nuclei');
    assert.deepEqual(parsed.targets.map((t) => `${t.kind} ${t.value}`), ['service example.com:80', 'service example.com:81', 'hostname example.com']);
  });

  const rejected: [string, RegExp][] = [
    ['10.0.0.1:0', /^"10\.0\.0\.1:0" has an invalid port; ports are 1 to 65535\.$/],
    ['example.com:65536', /^"example\.com:65536" has an invalid port; ports are 1 to 65535\.$/],
    ['example.com:999999', /has an invalid port/],
    ['[::1]:', /^"\[::1\]:" has an invalid port/],
    ['[::1]:0', /has an invalid port/],
    ['[10.0.0.1]:80', /only IPv6 addresses go in brackets/],
    ['[fe80::1%eth0]:80', /has an IPv6 zone id \(%eth0\)/],
    ['256.1.1.1:80', /^"256\.1\.1\.1" is not a valid IPv4 address\.$/],
    ['intranet:80', /^"intranet" is not a valid hostname/],
    ['[::1]', /write IPv6 addresses without brackets/],
    ['example.com:http', /is not a valid IP address, CIDR range or hostname/],
  ];
  for (const [input, message] of rejected) {
    test(`Nuclei rejects ${input}`, () => {
      const errors = parseErrors(input, 'Nuclei');
      assert.equal(errors.length, 1);
      assert.match(errors[0] ?? '', message);
    });
  }

  for (const scanType of ['Rampart', 'OpenVas'] as ScanType[]) {
    test(`${scanType} scans still refuse host:port with their message`, () => {
      assert.match(parseErrors('example.com:8080', scanType)[0] ?? '', /^"example\.com:8080" includes a port; give the host alone \(ports are a separate scan option\)\.$/);
      assert.match(parseErrors('[::1]:443', scanType)[0] ?? '', /^"\[::1\]:443" includes a port; give the address alone, without brackets/);
    });
  }
  test('ZAP scans still want a URL', () => {
    assert.match(parseErrors('example.com:8080', 'ZAP')[0] ?? '', /has no scheme; ZAP scans need a full URL/);
  });

});

describe('ZAP scan targets', () => {
  const accepted: [string, string, string][] = [
    ['https://example.com', 'https://example.com/', 'example.com'],
    ['HTTP://Example.COM:8080/a/../b?q=1#frag', 'http://example.com:8080/b?q=1#frag', 'example.com'],
    ['https://example.com:443/', 'https://example.com/', 'example.com'],
    ['http://10.0.0.1/', 'http://10.0.0.1/', '10.0.0.1'],
    ['http://[2001:DB8::1]:8080/x', 'http://[2001:db8::1]:8080/x', '2001:db8::1'],
    ['http://localhost:3000', 'http://localhost:3000/', 'localhost'],
    ['https://bücher.de/', 'https://xn--bcher-kva.de/', 'xn--bcher-kva.de'],
  ];
  for (const [input, href, host] of accepted) {
    test(`accepts ${input} as ${href}`, () => {
      const value = parseOk(input, 'ZAP');
      assert.deepEqual(value, { targets: [{ kind: 'url', value: href }], addressCount: 1n });
      assert.equal(hostOf({ kind: 'url', value: href }), host);
    });
  }

  const rejected: [string, RegExp][] = [
    ['example.com', /^"example\.com" has no scheme; ZAP scans need a full URL, like https:\/\/example\.com\/\.$/],
    ['10.0.0.1', /has no scheme; ZAP scans need a full URL/],
    ['example.com:8080', /has no scheme/],
    ['ftp://example.com/', /^"ftp:\/\/example\.com\/" uses the ftp scheme; ZAP scans take only http:\/\/ and https:\/\/ URLs\.$/],
    ['http://', /^"http:\/\/" is not a valid URL\.$/],
    ['http://exa mple.com', /has no scheme|is not a valid URL|valid host/],
    ['http://[fe80::1%25eth0]/', /is not a valid URL/],
    ['https://user:secret@example.com/', /contains credentials; remove them/],
    ['http://intranet/', /^"http:\/\/intranet\/" does not have a valid host: it needs at least one dot/],
    ['http://under_score.example.com/', /does not have a valid host: the label "under_score"/],
  ];
  for (const [input, message] of rejected) {
    test(`rejects ${input}`, () => {
      const errors = parseErrors(input, 'ZAP');
      assert.ok(errors.length >= 1);
      assert.match(errors[0] ?? '', message);
    });
  }
});

describe('separators and duplicates', () => {
  test('commas, spaces, tabs and newlines in any mix', () => {
    const value = parseOk(' ,10.0.0.1,,  example.com\n\n\t2001:db8::1\r\n10.1.0.0/30 ,', 'Rampart');
    assert.deepEqual(value.targets.map((t) => t.value), ['10.0.0.1', 'example.com', '2001:db8::1', '10.1.0.0/30']);
    assert.equal(value.addressCount, 7n);
  });

  const duplicates: [string, ScanType, ParsedTarget][] = [
    ['10.0.0.1, 10.0.0.1\n10.0.0.1', 'Rampart', { kind: 'ip', value: '10.0.0.1' }],
    ['Example.COM example.com.', 'OpenVas', { kind: 'hostname', value: 'example.com' }],
    ['::0001 ::1', 'Nuclei', { kind: 'ip', value: '::1' }],
    ['10.0.0.1/32 10.0.0.1', 'Rampart', { kind: 'ip', value: '10.0.0.1' }],
    ['10.0.0.7/24 10.0.0.0/24', 'Rampart', { kind: 'cidr', value: '10.0.0.0/24' }],
    ['https://Example.com https://example.com:443/', 'ZAP', { kind: 'url', value: 'https://example.com/' }],
  ];
  for (const [input, scanType, target] of duplicates) {
    test(`${JSON.stringify(input)} gives one target`, () => {
      const value = parseOk(input, scanType);
      assert.deepEqual(value.targets, [target]);
      assert.equal(value.addressCount, target.kind === 'cidr' ? 256n : 1n);
    });
  }

  test('the first spelling keeps its place in the order', () => {
    const value = parseOk('b.example.com 10.0.0.1 B.example.com. a.example.com', 'Rampart');
    assert.deepEqual(value.targets.map((t) => t.value), ['b.example.com', '10.0.0.1', 'a.example.com']);
  });
});

describe('empty input', () => {
  for (const input of ['', '   ', ' ,\n,\t ']) {
    for (const scanType of ['Rampart', 'ZAP'] as ScanType[]) {
      test(`${JSON.stringify(input)} is required for ${scanType}`, () => {
        assert.deepEqual(parseErrors(input, scanType), ['The scan target field is required.']);
      });
    }
  }
});

describe('address cap', () => {
  test('exactly the limit is accepted', () => {
    assert.equal(parseOk('10.0.0.0/16', 'Rampart', 65536).addressCount, 65536n);
    assert.equal(parseOk('10.0.0.0/17 10.1.0.0/18 10.2.0.0/19 10.3.0.0/19', 'Rampart', 65536).addressCount, 65536n);
  });

  test('one over the limit is refused, naming the total and the limit', () => {
    assert.deepEqual(parseErrors('10.0.0.0/16 example.com', 'Rampart', 65536), [
      'The scan targets cover 65537 addresses; at most 65536 are allowed per scan.',
    ]);
  });

  test('duplicates do not count twice', () => {
    assert.equal(parseOk('10.0.0.0/16 10.0.0.0/16', 'Rampart', 65536).addressCount, 65536n);
  });

  test('the example from the brief', () => {
    assert.deepEqual(parseErrors('10.0.0.0/15', 'Rampart', 65536), [
      'The scan targets cover 131072 addresses; at most 65536 are allowed per scan.',
    ]);
  });

  test('huge ranges are counted exactly', () => {
    assert.deepEqual(parseErrors('::/0', 'Rampart', 65536), [
      'The scan targets cover 340282366920938463463374607431768211456 addresses; at most 65536 are allowed per scan.',
    ]);
    assert.match(parseErrors('2001:db8::/64', 'Nuclei', 65536)[0] ?? '', /cover 18446744073709551616 addresses/);
  });

  test('the cap is reported beside item errors', () => {
    assert.deepEqual(parseErrors('10.0.0.0/8 intranet', 'Rampart', 65536), [
      '"intranet" is not a valid hostname: it needs at least one dot (like host.example.com); only "localhost" may stand alone.',
      'The scan targets cover 16777216 addresses; at most 65536 are allowed per scan.',
    ]);
  });
});

describe('error list', () => {
  test('up to ten item errors, then a count of the rest', () => {
    const bad = Array.from({ length: 13 }, (_, i) => `bad${i}`);
    const errors = parseErrors(['10.0.0.1', ...bad].join(' '), 'Rampart');
    assert.equal(errors.length, 11);
    assert.match(errors[0] ?? '', /^"bad0" is not a valid hostname/);
    assert.match(errors[9] ?? '', /^"bad9" /);
    assert.equal(errors[10], 'And 3 more invalid targets.');
  });

  test('exactly ten errors need no count', () => {
    const errors = parseErrors(Array.from({ length: 10 }, (_, i) => `bad${i}`).join(','), 'Rampart');
    assert.equal(errors.length, 10);
  });

  test('one more error is counted in the singular', () => {
    const errors = parseErrors(Array.from({ length: 11 }, (_, i) => `bad${i}`).join(','), 'Rampart');
    assert.equal(errors[10], 'And 1 more invalid target.');
  });

  test('a repeated bad item is reported once', () => {
    assert.equal(parseErrors('intranet intranet intranet', 'Rampart').length, 1);
  });
});

describe('hostOf', () => {
  const cases: [ParsedTarget, string][] = [
    [{ kind: 'ip', value: '10.0.0.1' }, '10.0.0.1'],
    [{ kind: 'ip', value: '2001:db8::1' }, '2001:db8::1'],
    [{ kind: 'hostname', value: 'example.com' }, 'example.com'],
    [{ kind: 'cidr', value: '10.0.0.0/24' }, '10.0.0.0'],
    [{ kind: 'cidr', value: '2001:db8::/64' }, '2001:db8::'],
    [{ kind: 'url', value: 'https://example.com:8443/x' }, 'example.com'],
    [{ kind: 'url', value: 'http://[::1]:8080/' }, '::1'],
  ];
  for (const [target, host] of cases) {
    test(`${target.kind} ${target.value} -> ${host}`, () => {
      assert.equal(hostOf(target), host);
    });
  }

  test('round-trips parsed targets', () => {
    const value = parseOk('10.0.0.9/24 Example.com. 2001:DB8::1', 'Rampart');
    assert.deepEqual(value.targets.map(hostOf), ['10.0.0.0', 'example.com', '2001:db8::1']);
  });
});
