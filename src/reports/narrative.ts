/**
 * The deterministic attack narrative (DESIGN "Attack narrative"): written from the findings alone,
 * with no model, so the same run always reads the same and every sentence cites the findings it
 * rests on. It is also what `narrative-llm.ts` falls back to when the LLM's answer is refused.
 *
 * Glossary:
 * - endpoint: one host, port and transport protocol (or a host alone, for findings with no port).
 * - access weakness: a service that lets anyone in or shows what crosses it: no authentication,
 *   anonymous login, default credentials, cleartext protocols.
 * - entry point: an endpoint an attacker reaches first: it has a finding of Medium or worse, or an
 *   access weakness.
 * - chain: entry point -> the weakness on it (a CVE or a rule) -> what an attacker gains.
 */
import { THREAT_ORDER, type Narrative, type NarrativeClaim, type ReportFinding, type ReportService, type Threat } from './report.js';
import { accessWeakness, describeImpact, type AccessWeakness } from './narrative-impact.js';

/** What a narrative is written from: the run's present findings (most severe first, bounded by the caller) and services. */
export interface NarrativeInput {
  findings: ReportFinding[];
  services: ReportService[];
}

/** A narrative is read, not searched: past this many claims per section the rest goes unnamed. */
const MAX_CLAIMS = 10;
const MAX_NAME = 120;
const MAX_SOLUTION = 400;
/** Weights of the fix score: a Critical finding counts ten Low ones; KEV doubles a finding. */
const WEIGHT: Record<Threat, number> = { Critical: 10, High: 5, Medium: 2, Low: 1, Informational: 0 };
const MEDIUM = THREAT_ORDER.indexOf('Medium');

const ACCESS_PHRASE: Record<AccessWeakness, string> = {
  'no-auth': 'answers without authentication',
  anonymous: 'accepts anonymous logins',
  'default-credentials': 'accepts default credentials',
  cleartext: 'carries logins and data in cleartext',
};

interface Endpoint {
  /** "the redis service on host-1.example.test:6379". */
  subject: string;
  host: string;
  /** Most severe first. */
  findings: ReportFinding[];
  /** The findings that make it an entry point: Medium or worse, or an access weakness. */
  reasons: ReportFinding[];
  access: AccessWeakness | null;
}

/**
 * Builds the narrative from the findings alone. With no usable finding every list is empty: a claim
 * must cite at least one finding, so not even a summary can be written. Findings triaged as false
 * positives are left out: a story built on them would mislead the reader the triage was meant to inform.
 */
export function buildNarrative(input: NarrativeInput): Narrative {
  const findings = narrativeFindings(input.findings);
  const empty: Narrative = { producedBy: 'deterministic', model: null, fallbackReason: null, summary: [], entryPoints: [], chains: [], fixes: [] };
  if (findings.length === 0) return empty;
  const entries = findEntryPoints(findings, input.services);
  const fixes = writeFixes(findings);
  return {
    ...empty,
    summary: writeSummary(findings, entries, fixes),
    entryPoints: entries.slice(0, MAX_CLAIMS).map(writeEntryPoint),
    chains: entries.slice(0, MAX_CLAIMS).flatMap(writeChains).slice(0, MAX_CLAIMS),
    fixes: fixes.slice(0, MAX_CLAIMS),
  };
}

/** The findings a narrative may rest on, in report order (threat, CVSS desc, id): all but false positives. */
export function narrativeFindings(findings: ReportFinding[]): ReportFinding[] {
  return findings.filter((f) => f.status !== 'False Positive').sort(byReportOrder);
}

function byReportOrder(a: ReportFinding, b: ReportFinding): number {
  return rank(a) - rank(b) || (b.cvssBase ?? -1) - (a.cvssBase ?? -1) || a.id - b.id;
}

const rank = (f: ReportFinding): number => THREAT_ORDER.indexOf(f.threat);
const hostOf = (f: { hostname: string; hostIp: string }): string => f.hostname || f.hostIp;
const endpointKey = (f: ReportFinding | ReportService): string => [f.hostname, f.hostIp, f.port ?? '', f.protocol ?? ''].join('\u0000');
const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

function findEntryPoints(findings: ReportFinding[], services: ReportService[]): Endpoint[] {
  const serviceNames = new Map(services.map((s) => [endpointKey(s), s.service]));
  const endpoints = new Map<string, Endpoint>();
  for (const f of findings) {
    const key = endpointKey(f);
    let endpoint = endpoints.get(key);
    if (!endpoint) {
      endpoint = { subject: subjectOf(f, f.service ?? serviceNames.get(key) ?? null), host: hostOf(f), findings: [], reasons: [], access: null };
      endpoints.set(key, endpoint);
    }
    endpoint.findings.push(f);
    const access = accessWeakness(f);
    if (access || rank(f) <= MEDIUM) endpoint.reasons.push(f);
    endpoint.access ??= access;
  }
  // Findings arrive most severe first, so each endpoint's first finding is its worst.
  return [...endpoints.values()]
    .filter((e) => e.reasons.length > 0)
    .sort((a, b) => byReportOrder(a.findings[0]!, b.findings[0]!));
}

function subjectOf(f: ReportFinding, service: string | null): string {
  const host = hostOf(f).includes(':') ? `[${hostOf(f)}]` : hostOf(f);
  const where = f.port === null ? host : `${host}:${f.port}${f.protocol && f.protocol !== 'tcp' ? `/${f.protocol}` : ''}`;
  return `the ${service ? `${clip(service, 40)} ` : ''}service on ${where}`;
}

function writeEntryPoint(e: Endpoint): NarrativeClaim {
  const access = e.access ? ` and ${ACCESS_PHRASE[e.access]}` : '';
  const more = e.findings.length > 1 ? ` (${plural(e.findings.length, 'finding')} on it)` : '';
  return {
    text: `${capitalise(e.subject)} is reachable${access}; its worst finding is ${describe(e.findings[0]!)}${more}.`,
    findingIds: e.findings.map((f) => f.id),
  };
}

/** One chain per distinct impact among the entry point's most severe findings and its access weaknesses. */
function writeChains(e: Endpoint): NarrativeClaim[] {
  const worst = rank(e.findings[0]!);
  const chosen = e.findings.filter((f) => (rank(f) === worst && worst <= MEDIUM) || accessWeakness(f) !== null);
  const byImpact = new Map<string, ReportFinding[]>();
  for (const f of chosen) {
    const impact = describeImpact(f);
    // No impact known: the findings do not support a chain, so none is invented.
    if (impact) byImpact.set(impact, [...(byImpact.get(impact) ?? []), f]);
  }
  return [...byImpact].map(([impact, group]) => {
    const lead = group[0]!;
    const weakness = `${weaknessLabel(lead)}${group.length > 1 ? ` and ${plural(group.length - 1, 'related finding')}` : ''}`;
    const kev = group.some((f) => f.kev) ? '; this flaw is known to be exploited in the wild (CISA KEV)' : '';
    const epss = Math.max(...group.map((f) => f.epss ?? 0));
    const likely = epss >= 0.1 ? `; EPSS puts the chance of exploitation in the next 30 days at ${Math.round(epss * 100)}%` : '';
    return { text: `${capitalise(e.subject)} -> ${weakness} -> an attacker can ${impact}${kev}${likely}.`, findingIds: group.map((f) => f.id) };
  });
}

/** Groups findings by their fix and orders the groups by the risk each removes. */
function writeFixes(findings: ReportFinding[]): NarrativeClaim[] {
  const groups = new Map<string, { solution: string; findings: ReportFinding[]; score: number }>();
  for (const f of findings) {
    const solution = f.solution.replace(/\s+/g, ' ').trim();
    if (!solution) continue;
    const key = solution.toLowerCase();
    const group = groups.get(key) ?? { solution, findings: [], score: 0 };
    group.findings.push(f);
    group.score += WEIGHT[f.threat] * (f.kev ? 2 : 1);
    groups.set(key, group);
  }
  const all = [...groups.values()];
  const useful = all.filter((g) => g.findings.some((f) => f.threat !== 'Informational'));
  // Stable sort: equal scores keep the order of their most severe finding.
  return (useful.length > 0 ? useful : all)
    .sort((a, b) => b.score - a.score)
    .map((g) => {
      const hosts = new Set(g.findings.map(hostOf)).size;
      const n = g.findings.length;
      const kev = g.findings.filter((f) => f.kev).length;
      const exploited =
        kev === 0 ? '' : n === 1 ? '; it is known to be exploited in the wild' : `; ${kev === n ? 'all' : `${kev} of them`} are known to be exploited in the wild`;
      return {
        text: `${sentence(clip(g.solution, MAX_SOLUTION))} This closes ${plural(n, 'finding')} on ${plural(hosts, 'host')}${exploited}.`,
        findingIds: g.findings.map((f) => f.id),
      };
    });
}

function writeSummary(findings: ReportFinding[], entries: Endpoint[], fixes: NarrativeClaim[]): NarrativeClaim[] {
  if (entries.length === 0) {
    const threat = findings[0]!.threat;
    const worst = findings.filter((f) => f.threat === threat);
    const which = findings.length === 1 ? 'the one finding is' : `the worst of the ${findings.length} findings ${worst.length === 1 ? 'is' : 'are'}`;
    return [{ text: `No exposed service has a finding of Medium or worse or an access weakness; ${which} ${threat}.`, findingIds: worst.map((f) => f.id) }];
  }
  const hosts = new Set(entries.map((e) => e.host)).size;
  const first = entries[0]!;
  const summary: NarrativeClaim[] = [{
    text: `${plural(entries.length, 'entry point')} on ${plural(hosts, 'host')}; the most serious: ${first.subject}, with ${describe(first.findings[0]!)}.`,
    findingIds: [...new Set(entries.flatMap((e) => e.reasons.map((f) => f.id)))],
  }];
  const kev = findings.filter((f) => f.kev);
  if (kev.length > 0) {
    const cves = [...new Set(kev.flatMap((f) => f.cve))];
    const named = cves.length > 0 ? ` (${cves.slice(0, 3).join(', ')}${cves.length > 3 ? ', ...' : ''})` : '';
    summary.push({
      text: `${plural(kev.length, 'finding')}${named} ${kev.length === 1 ? 'is' : 'are'} known to be exploited in the wild; fix ${kev.length === 1 ? 'it' : 'them'} first.`,
      findingIds: kev.map((f) => f.id),
    });
  } else if (fixes[0]) {
    const serious = findings.filter((f) => f.threat !== 'Informational');
    const closed = serious.filter((f) => fixes[0]!.findingIds.includes(f.id)).length;
    if (closed > 0) {
      const text =
        closed === serious.length
          ? `The first fix below closes ${serious.length === 1 ? 'the only finding' : `all ${serious.length} findings`} above Informational.`
          : `The first fix below closes ${closed} of the ${plural(serious.length, 'finding')} above Informational.`;
      summary.push({ text, findingIds: fixes[0].findingIds });
    }
  }
  return summary;
}

/** "Apache HTTP Server path traversal (CVE-2021-41773, Critical, CVSS 9.8)". */
function describe(f: ReportFinding): string {
  const facts = [f.cve[0], f.threat, f.cvssBase === null ? undefined : `CVSS ${f.cvssBase}`].filter(Boolean);
  return `${clip(f.name, MAX_NAME)} (${facts.join(', ')})`;
}

function weaknessLabel(f: ReportFinding): string {
  return f.cve[0] ? `${f.cve[0]} (${clip(f.name, MAX_NAME)})` : clip(f.name, MAX_NAME);
}

/** Shortens engine-supplied text (names, solutions may be long or hostile) without splitting a surrogate pair. */
function clip(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1).replace(/[\uD800-\uDBFF]$/, '')}…`;
}

const capitalise = (text: string): string => text.charAt(0).toUpperCase() + text.slice(1);
const sentence = (text: string): string => (/[.!?…]$/.test(text) ? text : `${text}.`);
