/**
 * What a finding means for an attacker, for the deterministic narrative: whether it is an access
 * weakness (anyone gets in, or sees what crosses the service) and what an attacker gains through
 * it, read from its CWE, its rule family, its name and its CVSS impact metrics.
 */
import type { ReportFinding } from './report.js';

export type AccessWeakness = 'no-auth' | 'anonymous' | 'default-credentials' | 'cleartext';

const cweSet = (...ids: number[]): Set<string> => new Set(ids.map((n) => `CWE-${n}`));
const NO_AUTH_CWES = cweSet(287, 306, 862);
const DEFAULT_CREDENTIAL_CWES = cweSet(798, 1391, 1392);

/**
 * Whether the finding lets anyone in or shows what crosses the service. Read from the rule id and
 * name as well as the CWE, since other engines name these weaknesses their own way. CWE-319 alone
 * is not enough: a missing HSTS header carries it and is no way in.
 */
export function accessWeakness(f: ReportFinding): AccessWeakness | null {
  const text = `${f.ruleId} ${f.name}`.toLowerCase();
  if (text.includes('anonymous')) return 'anonymous';
  if (/default[- ](community|credential|password|login)/.test(text) || DEFAULT_CREDENTIAL_CWES.has(f.cwe ?? '')) return 'default-credentials';
  if (/unauth|noauth|no-auth|without auth|no auth/.test(text) || NO_AUTH_CWES.has(f.cwe ?? '')) return 'no-auth';
  if (/cleartext|clear-text|plaintext|no-starttls/.test(text)) return 'cleartext';
  return null;
}

/** What an attacker gains, after "an attacker can". */
const IMPACT = {
  files: 'read files outside the served directories, such as configuration, keys and passwords',
  commands: 'run commands on the host',
  database: 'read or change the database behind it',
  access: 'read or change the data it holds, or take it over, without credentials',
  session: "steal users' sessions through their browsers",
  forgery: "make users' browsers act on their behalf",
  browser: 'attack its users in their browsers (session theft, clickjacking, content injection)',
  interception: 'intercept or tamper with its encrypted traffic from a position on the network path',
  cleartext: 'read logins and data in transit from a position on the network path',
  ssh: 'downgrade or tamper with SSH sessions from a position on the network path',
  impersonation: 'impersonate the server to its clients',
  disclosure: 'learn internal details (source, secrets, layout) that prepare further attacks',
  ssrf: 'make the server reach internal systems for them',
  xml: 'read files or reach internal systems through crafted XML',
  memory: 'crash the service or run code in it',
  memoryRead: 'read process memory, which can hold keys and passwords',
  denial: 'exhaust its resources and take it down',
  amplification: 'use it to amplify denial-of-service attacks against others',
  redirect: 'send its users to a site of their choosing, for phishing',
  permissions: 'change files or settings that should be protected',
  privilege: 'gain higher privileges',
} as const;
type Impact = keyof typeof IMPACT;

const CWE_IMPACT = new Map<string, Impact>(
  (
    [
      [[22, 23, 24, 35, 36, 73], 'files'],
      [[77, 78, 88, 94, 95, 96, 434, 502, 917, 1336], 'commands'],
      [[89, 564, 943], 'database'],
      [[284, 285, 287, 288, 290, 294, 306, 425, 521, 639, 798, 862, 863, 1390, 1391, 1392], 'access'],
      [[79, 80, 384], 'session'],
      [[352], 'forgery'],
      [[614, 693, 1004, 1021, 1275], 'browser'],
      [[310, 311, 326, 327, 328, 354, 757], 'interception'],
      [[319], 'cleartext'],
      [[295, 297, 298, 299], 'impersonation'],
      [[200, 201, 209, 497, 530, 532, 538, 540, 548, 615], 'disclosure'],
      [[918], 'ssrf'],
      [[611, 776], 'xml'],
      [[119, 120, 121, 122, 190, 415, 416, 787], 'memory'],
      [[125, 126, 127], 'memoryRead'],
      [[400, 405, 674, 770, 835, 1333], 'denial'],
      [[406], 'amplification'],
      [[601], 'redirect'],
      [[276, 732], 'permissions'],
      [[250, 269], 'privilege'],
    ] as [number[], Impact][]
  ).flatMap(([ids, impact]) => ids.map((n) => [`CWE-${n}`, impact] as const)),
);

/** Rule families, for findings without a CWE we know; matched on the rule id after the engine prefix. */
const RULE_IMPACT: [RegExp, Impact][] = [
  [/unauth|noauth|no-auth|anonymous|default-(community|credential)/, 'access'],
  [/cleartext|no-starttls|telnet|no-https-redirect/, 'cleartext'],
  [/^tls-/, 'interception'],
  [/^ssh-/, 'ssh'],
  [/^http-(missing|cookie)|trace-enabled/, 'browser'],
  [/exposed|directory-listing|disclosure|modules-listed|name-table/, 'disclosure'],
  [/amplification|open-resolver/, 'amplification'],
];

/**
 * What an attacker gains through the finding, or null when the finding does not say: by CWE, then
 * by rule family, then by an access weakness in its name, then by the CVSS impact metrics rated High. A KEV finding with none of these is
 * still a way in, so it gets a plain statement of that.
 */
export function describeImpact(f: ReportFinding): string | null {
  const byCwe = CWE_IMPACT.get(f.cwe?.toUpperCase() ?? '');
  if (byCwe) return IMPACT[byCwe];
  const rule = f.ruleId.slice(f.ruleId.lastIndexOf(':') + 1).toLowerCase();
  const byRule = RULE_IMPACT.find(([pattern]) => pattern.test(rule));
  if (byRule) return IMPACT[byRule[1]];
  const access = accessWeakness(f);
  if (access) return IMPACT[access === 'cleartext' ? 'cleartext' : 'access'];
  // CVSS 3/4 rate impact High; CVSS 2 rates it Complete.
  const high = (metric: string): boolean => new RegExp(`(^|/)V?${metric}:[HC](/|$)`).test(f.cvssVector ?? '');
  const gains = [high('C') && 'read its data', high('I') && 'change its data', high('A') && 'take it down'].filter((g): g is string => Boolean(g));
  if (gains.length > 0) return gains.length === 1 ? gains[0]! : `${gains.slice(0, -1).join(', ')} and ${gains.at(-1)}`;
  return f.kev ? 'compromise it through a flaw attackers already use' : null;
}
