/**
 * NVD configurations, evaluated (issue 14). A CVE's `configurations` say which products, alone or
 * together, make it apply. Each configuration is a tree: nodes of CPE match criteria joined by
 * AND or OR (a node may be negated), and with `operator: AND` a configuration needs all its
 * nodes. Criteria marked `vulnerable: false` are the "running on/with" parts: the platform or the
 * companion product that must be present, not what is vulnerable.
 *
 * A scan knows one product version on a port, and sometimes the operating system (a Debian
 * package revision names Debian 12). Each criterion is therefore true, false or unknown:
 * - it names the scanned product: true when it covers its version (cpe.ts), else false;
 * - it names the known operating system: true when it covers it, unknown when the versions cannot
 *   be compared; another operating system, once the scan knows which one it is: false;
 * - another product marked vulnerable: false (the port runs the scanned product, not that one);
 * - another product or a platform the scan cannot see ("running on" hardware, "with" a library):
 *   unknown.
 * AND is false when any part is false, true when all are true, else unknown; OR the reverse; a
 * negated node swaps true and false. The CVE applies when a configuration holding a vulnerable
 * criterion that covers the scanned product is true; when the best is unknown, it applies on a
 * condition the scan could not check, which the finding states (and its quality is lowered).
 */
import { criterionCovers, parseCpe, type Cpe, type MatchCriterion } from './cpe.js';

/** One `cpeMatch` as kept: the criterion, its bounds and whether it is the vulnerable part. */
export interface ConfigurationMatch extends MatchCriterion {
  vulnerable: boolean;
}

export interface ConfigurationNode {
  operator: 'AND' | 'OR';
  negate: boolean;
  cpeMatch: ConfigurationMatch[];
}

/** One NVD configuration: its nodes, all needed (AND) or any (OR). */
export interface Configuration {
  operator: 'AND' | 'OR';
  negate: boolean;
  nodes: ConfigurationNode[];
}

type Truth = 'true' | 'false' | 'unknown';

/** What the scan knows of the service: its product (normalised) and, when known, its operating system. */
export interface ScannedProduct {
  product: Cpe;
  platforms: Cpe[];
}

/** Whether a CVE's configurations apply to the scanned product, and on what unchecked conditions. */
export type Applicability = { applies: false } | { applies: true; conditions: string[] };

const and = (values: Truth[]): Truth => (values.includes('false') ? 'false' : values.every((v) => v === 'true') ? 'true' : 'unknown');
const or = (values: Truth[]): Truth => (values.includes('true') ? 'true' : values.every((v) => v === 'false') ? 'false' : 'unknown');
const not = (value: Truth): Truth => (value === 'true' ? 'false' : value === 'false' ? 'true' : 'unknown');

function criterionTruth(match: ConfigurationMatch, scanned: ScannedProduct, unknowns: Set<string>): Truth {
  const c = parseCpe(match.criteria);
  if (!c) return 'false';
  const { product } = scanned;
  if (c.vendor === product.vendor && c.product === product.product) return criterionCovers(match, product) ? 'true' : 'false';
  const platform = scanned.platforms.find((p) => p.vendor === c.vendor && p.product === c.product);
  if (platform) {
    // NVD writes a platform of any release as version `-` (`apple:macos:-`).
    if (c.version === '-' || criterionCovers(match, platform)) return 'true';
    // A platform whose release the scan did not learn cannot fail a bounded criterion.
    if (platform.version === '*') {
      unknowns.add(match.criteria);
      return 'unknown';
    }
    return 'false';
  }
  if (c.part === 'o' && scanned.platforms.some((p) => p.part === 'o')) return 'false';
  if (match.vulnerable) return 'false';
  unknowns.add(match.criteria);
  return 'unknown';
}

/**
 * Evaluates a CVE's configurations for the scanned product. `null` configurations (a row synced
 * before they were kept) apply unconditionally, as one vulnerable criterion did before.
 */
export function evaluateConfigurations(configurations: Configuration[] | null, scanned: ScannedProduct): Applicability {
  if (!configurations) return { applies: true, conditions: [] };
  let conditional: string[] | null = null;
  for (const configuration of configurations) {
    const targetsProduct = configuration.nodes.some((n) => !n.negate && n.cpeMatch.some((m) => m.vulnerable && criterionCovers(m, scanned.product)));
    if (!targetsProduct) continue;
    const unknowns = new Set<string>();
    const nodes = configuration.nodes.map((node) => {
      const values = node.cpeMatch.map((m) => criterionTruth(m, scanned, unknowns));
      const value = node.operator === 'AND' ? and(values) : or(values);
      return node.negate ? not(value) : value;
    });
    let truth = configuration.operator === 'AND' ? and(nodes) : or(nodes);
    if (configuration.negate) truth = not(truth);
    if (truth === 'true') return { applies: true, conditions: [] };
    if (truth === 'unknown' && conditional === null) conditional = [...unknowns];
  }
  return conditional ? { applies: true, conditions: conditional } : { applies: false };
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const list = (v: unknown): Json[] => (Array.isArray(v) ? v.filter(isObject) : []);
const bound = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

/** The configurations of an NVD `cve` object, kept to what evaluation needs. */
export function parseConfigurationList(value: unknown): Configuration[] {
  return list(value).map((config) => ({
    operator: config.operator === 'AND' ? 'AND' : 'OR',
    negate: config.negate === true,
    nodes: list(config.nodes).map((node) => ({
      operator: node.operator === 'AND' ? 'AND' : 'OR',
      negate: node.negate === true,
      cpeMatch: list(node.cpeMatch)
        .filter((m) => typeof m.criteria === 'string')
        .map((m) => ({
          criteria: m.criteria as string,
          vulnerable: m.vulnerable === true,
          versionStartIncluding: bound(m.versionStartIncluding),
          versionStartExcluding: bound(m.versionStartExcluding),
          versionEndIncluding: bound(m.versionEndIncluding),
          versionEndExcluding: bound(m.versionEndExcluding),
        })),
    })),
  }));
}

/**
 * Programs of a product that NVD names with the server's own CPE but that a server never runs:
 * NVD has one CPE for OpenSSH (`openbsd:openssh`), whatever part of it is affected, so its
 * configurations cannot tell a flaw of the `ssh` client or `ssh-agent` from one of `sshd`. The
 * description does: NVD's text names the component ("ssh-add in OpenSSH before 9.3", "In ssh in
 * OpenSSH before 9.6"). A CVE whose description names a client program (or a client-only
 * option) and never the server is client-only: a scan of the server does not report it.
 */
const CLIENT_ONLY: Record<string, { client: RegExp; server: RegExp }> = {
  'openbsd:openssh': {
    client: /\b(?:ssh-agent|ssh-add|ssh-keygen|ssh-keyscan|ssh-pkcs11-helper|scp|sftp)\b|\bIn ssh in OpenSSH\b|^ssh in OpenSSH\b|\bssh\(1\)|\bOpenSSH client\b|\bVerifyHostKeyDNS\b/,
    server: /\bsshd\b|\bsftp-server\b|OpenSSH'?s server|\bthe server side\b|SSH transport protocol/i,
  },
};

/** Whether NVD's description shows the CVE affects only client programs of a product that also has a server. */
export function isClientOnly(vendor: string, product: string, description: string): boolean {
  const rule = CLIENT_ONLY[`${vendor}:${product}`];
  return rule !== undefined && rule.client.test(description) && !rule.server.test(description);
}
