/**
 * The identity of a finding (its fingerprint): the weakness at a location, for an account. The
 * weakness is the lowest CVE id when there is one, else the rule id. The location is the host,
 * port and protocol, and for web findings the URL (normalised, below), the method and the
 * parameter. A finding seen again with the same identity, by a later run or another engine or
 * an upload, updates the same record and keeps its triage status.
 *
 * Network findings (no URL, method or parameter) keep exactly the fingerprint they had before
 * web locations existed, so stores written then keep matching.
 *
 * A CVE names the weakness of the service, wherever a tool proved it: a finding with a CVE takes
 * the network identity even with a URL, so Rampart's version match (no URL) and a nuclei template
 * (the URL it matched at) on the same host and port are one finding listing both engines, and a
 * template matching at two paths of one service is one finding. The URL stays a field. Rows
 * stored before this rule were moved to it by migration 0018.
 */
import { sha256Hex } from '../shared/crypto.js';
import type { Finding } from '../shared/finding.js';

type Located = Pick<Finding, 'hostname' | 'port' | 'protocol' | 'cve' | 'ruleId' | 'url' | 'method' | 'parameter'>;

/**
 * The URL as identity sees it: scheme and host lower-cased, a default port dropped (so nuclei's
 * `https://h:443/a` and ZAP's `https://h/a` agree), dot segments resolved, the path kept as
 * given (servers tell `/A` from `/a`), the query and the fragment dropped: which input is
 * vulnerable is the parameter's business, and the values a tool happened to send change
 * between runs. A URL that does not parse is kept as given, without query and fragment.
 */
export function identityUrl(url: string): string {
  const trimmed = url.trim();
  try {
    const parsed = new URL(trimmed);
    return `${parsed.protocol}//${parsed.host}${parsed.pathname}`;
  } catch {
    return trimmed.replace(/[?#].*$/s, '');
  }
}

/** Whether the finding has a web location (any of url, method, parameter). */
export function hasWebLocation(f: Pick<Finding, 'url' | 'method' | 'parameter'>): boolean {
  return Boolean(f.url?.trim() || f.method?.trim() || f.parameter?.trim());
}

/** The fingerprint of a finding for an account (see the module comment). */
export function fingerprintOf(userId: number, f: Located): string {
  const identity = f.cve.length > 0 ? [...f.cve].sort()[0] : f.ruleId;
  const network = [userId, f.hostname.toLowerCase(), f.port ?? '', f.protocol ?? '', identity];
  if (f.cve.length > 0 || !hasWebLocation(f)) return sha256Hex(network.join('|'));
  // A fourth and later part only web findings have: network fingerprints stay as they were.
  // JSON, so a `|` inside a URL or a parameter name cannot make two locations one.
  const location = JSON.stringify([identityUrl(f.url ?? ''), (f.method ?? '').trim().toUpperCase(), (f.parameter ?? '').trim()]);
  return sha256Hex([...network, location].join('|'));
}
