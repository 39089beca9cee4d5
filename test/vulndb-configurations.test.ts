/**
 * NVD configuration evaluation on the real records of ../shared/vulndb/nvd (issue 14): AND/OR
 * nodes, "running on/with" criteria, negation, and the client-only rule for OpenSSH; and the
 * distribution builds banners show. No store: the records are parsed as the sync parses them.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { evaluateConfigurations, isClientOnly, type Configuration } from '../src/vulndb/configurations.js';
import { criterionCovers, normaliseTarget, parseCpe, type Cpe } from '../src/vulndb/cpe.js';
import { parseNvdCve, type NvdCve } from '../src/vulndb/nvd.js';
import { describeBuild, detectPackagedBuild } from '../src/shared/distribution.js';
import { records, skip } from './helpers/vulndb-sources.js';

const cves = new Map<string, NvdCve>(records.map((r) => parseNvdCve(r as unknown as Record<string, unknown>)!).map((c) => [c.cve, c]));
const cpe = (text: string): Cpe => normaliseTarget(parseCpe(text)!);
const scanned = (product: string, platforms: string[] = []) => ({ product: cpe(product), platforms: platforms.map(cpe) });
const DEBIAN_12 = 'cpe:2.3:o:debian:debian_linux:12:*:*:*:*:*:*:*';

function applies(id: string, product: string, platforms: string[] = []) {
  const record = cves.get(id);
  assert.ok(record, `${id} is in the fixtures`);
  return evaluateConfigurations(record.configurations, scanned(product, platforms));
}

test('OpenSSH 9.2p1: NVD gives the six CVEs one CPE; the descriptions name four client programs only', { skip }, () => {
  const target = cpe('cpe:2.3:a:openbsd:openssh:9.2p1');
  const matched = [...cves.values()].filter((c) => c.matches.some((m) => m.vulnerable && criterionCovers(m, target))).map((c) => c.cve).sort();
  assert.deepEqual(matched, ['CVE-2023-28531', 'CVE-2023-38408', 'CVE-2023-48795', 'CVE-2023-51385', 'CVE-2024-6387', 'CVE-2025-26465']);
  // Every one of them is a plain OR of openbsd:openssh ranges: the configurations cannot tell a client flaw from a server one.
  for (const id of matched) {
    const ssh = cves.get(id)!.configurations.filter((c) => c.nodes.some((n) => n.cpeMatch.some((m) => m.criteria.includes(':openbsd:openssh:'))));
    assert.ok(ssh.every((c) => c.nodes.length === 1 && c.nodes[0]!.operator === 'OR' && c.nodes[0]!.cpeMatch.every((m) => m.vulnerable)), id);
    assert.deepEqual(applies(id, 'cpe:2.3:a:openbsd:openssh:9.2p1', [DEBIAN_12]), { applies: true, conditions: [] }, id);
  }
  const clientOnly = matched.filter((id) => isClientOnly('openbsd', 'openssh', cves.get(id)!.description));
  assert.deepEqual(clientOnly, ['CVE-2023-28531', 'CVE-2023-38408', 'CVE-2023-51385', 'CVE-2025-26465']);
  // Server flaws stay: sshd named, or the transport protocol both sides speak.
  for (const id of ['CVE-2021-41617', 'CVE-2024-6387', 'CVE-2023-48795', 'CVE-2016-6210']) assert.equal(isClientOnly('openbsd', 'openssh', cves.get(id)!.description), false, id);
  assert.equal(isClientOnly('openbsd', 'openssh', cves.get('CVE-2021-28041')!.description), true, 'ssh-agent');
  assert.equal(isClientOnly('apache', 'http_server', 'mod_proxy in Apache HTTP Server'), false, 'only products with a client rule');
});

test('"running on/with" criteria: unknown without the platform, false on another, true on it', { skip }, () => {
  // CVE-2018-15473: NetApp VASA Provider >= 7.2 AND (not vulnerable) clustered Data ONTAP.
  assert.deepEqual(applies('CVE-2018-15473', 'cpe:2.3:a:netapp:vasa_provider:7.3'), { applies: true, conditions: ['cpe:2.3:o:netapp:clustered_data_ontap:-:*:*:*:*:*:*:*'] });
  assert.deepEqual(applies('CVE-2018-15473', 'cpe:2.3:a:netapp:vasa_provider:7.1'), { applies: false }, 'below the range');
  // CVE-2023-48795: Panic Transmit 5 < 5.10.4 running on macOS.
  assert.deepEqual(applies('CVE-2023-48795', 'cpe:2.3:a:panic:transmit_5:5.10.0'), { applies: true, conditions: ['cpe:2.3:o:apple:macos:-:*:*:*:*:*:*:*'] });
  assert.deepEqual(applies('CVE-2023-48795', 'cpe:2.3:a:panic:transmit_5:5.10.0', [DEBIAN_12]), { applies: false }, 'on Debian, not macOS');
  assert.deepEqual(applies('CVE-2023-48795', 'cpe:2.3:a:panic:transmit_5:5.10.0', ['cpe:2.3:o:apple:macos:14.5']), { applies: true, conditions: [] });
  // CVE-2021-3156 (sudo) in Oracle MICROS ES400 firmware 400-410 on that hardware.
  assert.deepEqual(applies('CVE-2021-3156', 'cpe:2.3:o:oracle:micros_es400_firmware:405'), { applies: true, conditions: ['cpe:2.3:h:oracle:micros_es400:-:*:*:*:*:*:*:*'] });
});

test('AND, OR and negate evaluate three-valued', () => {
  const product = 'cpe:2.3:a:example:server:2.0';
  const node = (operator: 'AND' | 'OR', matches: [string, boolean][], negate = false) => ({ operator, negate, cpeMatch: matches.map(([criteria, vulnerable]) => ({ criteria, vulnerable })) });
  const config = (operator: 'AND' | 'OR', nodes: Configuration['nodes']): Configuration[] => [{ operator, negate: false, nodes }];
  const server = ['cpe:2.3:a:example:server:2.0:*:*:*:*:*:*:*', true] as [string, boolean];
  const withLib = ['cpe:2.3:a:example:lib:*:*:*:*:*:*:*:*', false] as [string, boolean];
  const onWindows = ['cpe:2.3:o:microsoft:windows:*:*:*:*:*:*:*:*', false] as [string, boolean];
  const e = (c: Configuration[], platforms: string[] = []) => evaluateConfigurations(c, scanned(product, platforms));
  assert.deepEqual(e(config('AND', [node('OR', [server]), node('OR', [withLib])])), { applies: true, conditions: ['cpe:2.3:a:example:lib:*:*:*:*:*:*:*:*'] });
  assert.deepEqual(e(config('AND', [node('OR', [server]), node('OR', [onWindows], true)]), [DEBIAN_12]), { applies: true, conditions: [] }, 'NOT Windows, on Debian');
  assert.deepEqual(e(config('AND', [node('OR', [server]), node('OR', [onWindows])]), [DEBIAN_12]), { applies: false });
  assert.deepEqual(e(config('OR', [node('OR', [['cpe:2.3:a:example:server:3.0:*:*:*:*:*:*:*', true]])])), { applies: false }, 'another version');
  assert.deepEqual(evaluateConfigurations(null, scanned(product)), { applies: true, conditions: [] }, 'rows synced before 0017: as before');
});

test('distribution builds in banners: Debian, Ubuntu, RHEL family, Alpine; upstream versions say nothing', () => {
  const seen = (text: string) => {
    const build = detectPackagedBuild(text);
    return build && [build.distribution, build.revision, build.osCpe];
  };
  assert.deepEqual(seen('SSH-2.0-OpenSSH_9.2p1 Debian-2+deb12u10'), ['Debian', '2+deb12u10', DEBIAN_12]);
  assert.deepEqual(seen('5.5.5-10.11.6-MariaDB-0+deb12u1'), ['Debian', '0+deb12u1', DEBIAN_12]);
  assert.deepEqual(seen('Apache/2.4.57 (Debian)')?.slice(0, 2), ['Debian', null]);
  assert.deepEqual(seen('SSH-2.0-OpenSSH_8.9p1 Ubuntu-3ubuntu0.6')?.slice(0, 2), ['Ubuntu', '3ubuntu0.6']);
  assert.deepEqual(seen('OpenSSH_8.0p1 el8')?.[1], 'el8');
  assert.deepEqual(seen('Apache/2.4.37 (Rocky Linux)')?.[0], 'Rocky Linux');
  assert.deepEqual(seen('nginx/1.24.0-r7')?.slice(0, 2), ['Alpine', 'r7']);
  for (const upstream of ['nginx/1.22.1', 'SSH-2.0-OpenSSH_9.6', 'Apache/2.4.49 (Unix)', 'Redis 7.0.15']) assert.equal(seen(upstream), null, upstream);
  assert.equal(describeBuild(detectPackagedBuild('OpenSSH_9.2p1 Debian-2+deb12u10')!), 'Debian package revision 2+deb12u10');
});
