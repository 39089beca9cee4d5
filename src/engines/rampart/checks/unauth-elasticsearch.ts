/**
 * Elasticsearch (or OpenSearch) without authentication: `GET /` and `GET /_cat/indices` answered
 * 200 without credentials means anyone reaching the port can read, change and delete every
 * index. A 401/403 means security is on: no finding.
 */
import type { Check, CheckFinding, Endpoint, ServiceInfo } from './check.js';
import { sendHttpRequest } from './http-request.js';
import { printable } from './evidence.js';
import { severityOf } from '../severity.js';

const MAX_NAMES_IN_EVIDENCE = 10;
/** Sent with both requests: JSON, and no credentials of any kind. */
const ACCEPT_JSON = { accept: 'application/json' };

/** One GET without credentials; the body as text (cut at the HTTP helper's cap), or null. */
async function httpGet(endpoint: Endpoint, secure: boolean, path: string): Promise<{ status: number; body: string } | null> {
  const response = await sendHttpRequest(endpoint, secure, { path, headers: ACCEPT_JSON });
  return response && { status: response.status, body: response.body.toString('utf8') };
}

/** The Elasticsearch check: applies to `elasticsearch` and `opensearch`, over HTTPS when the service speaks TLS. */
export const elasticsearchNoAuthCheck: Check = {
  id: 'elasticsearch-noauth',
  appliesTo: (service: ServiceInfo) => service.name === 'elasticsearch' || service.name === 'opensearch',
  async run(endpoint: Endpoint, service: ServiceInfo): Promise<CheckFinding[]> {
    const root = await httpGet(endpoint, service.tls, '/');
    if (root?.status !== 200) return [];
    const info = parseJson(root.body);
    const version = info && typeof info.version === 'object' && info.version ? (info.version as Record<string, unknown>).number : undefined;
    // A 200 from `/` alone could be any web server: the JSON must look like a cluster's.
    if (typeof version !== 'string') return [];
    const facts = [`version ${version}`];
    if (typeof info?.cluster_name === 'string') facts.push(`cluster_name ${info.cluster_name}`);
    const indices = await httpGet(endpoint, service.tls, '/_cat/indices?format=json&h=index');
    // A listing cut at the body cap does not parse: the finding then rests on `GET /` alone.
    const list = indices?.status === 200 ? parseJsonArray(indices.body) : null;
    if (list) {
      const names = list.flatMap((row) => (row && typeof row === 'object' && typeof (row as { index?: unknown }).index === 'string' ? [(row as { index: string }).index] : []));
      const shown = names.slice(0, MAX_NAMES_IN_EVIDENCE).join(', ') + (names.length > MAX_NAMES_IN_EVIDENCE ? ', ...' : '');
      facts.push(`GET /_cat/indices answered 200 with ${names.length} index(es)${names.length ? `: ${shown}` : ''}`);
    }
    return [
      {
        ruleId: 'rampart:elasticsearch-noauth',
        name: 'Elasticsearch accessible without authentication',
        description:
          'The Elasticsearch REST API answers requests without credentials: anyone who can reach it can read, modify or delete every index and change cluster settings. Open clusters are a leading source of data leaks.',
        solution:
          'Enable the security features (xpack.security.enabled: true, with TLS and user passwords; on by default since 8.0), bind to trusted interfaces only (network.host), and firewall ports 9200/9300.',
        ...severityOf('rampart:elasticsearch-noauth'),
        cve: [],
        cwe: 'CWE-306',
        evidence: printable(`GET / answered 200 without credentials (${facts.join('; ')}).`, 600),
        references: [
          'https://www.elastic.co/guide/en/elasticsearch/reference/current/secure-cluster.html',
          'https://cwe.mitre.org/data/definitions/306.html',
        ],
      },
    ];
  },
};

function parseJson(text: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

function parseJsonArray(text: string): unknown[] | null {
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value) ? value : null;
  } catch {
    return null;
  }
}
