/**
 * Elasticsearch (and its fork OpenSearch) over HTTP: `GET /` answers a JSON document with
 * `version.number` and the tagline "You Know, for Search"; with security on, a 401 whose JSON
 * error is a `security_exception`. Since 7.14 every answer carries `X-elastic-product`.
 */
import type { HttpResponse, Identified } from './info.js';

interface RootDocument {
  cluster_name?: unknown;
  tagline?: unknown;
  version?: { number?: unknown; distribution?: unknown; build_flavor?: unknown; lucene_version?: unknown };
  error?: { type?: unknown; root_cause?: unknown };
}

function parseJson(body: Buffer): RootDocument | null {
  try {
    const value: unknown = JSON.parse(body.toString('utf8'));
    return typeof value === 'object' && value !== null ? (value as RootDocument) : null;
  } catch {
    return null;
  }
}

/** The Elasticsearch or OpenSearch node behind an HTTP answer; null for any other HTTP service. */
export function identifyElasticsearch(response: HttpResponse): Identified | null {
  const document = parseJson(response.body);
  const productHeader = response.headers.get('x-elastic-product') === 'Elasticsearch';
  const tagline = typeof document?.tagline === 'string' && /for Search|OpenSearch/.test(document.tagline);
  const securityError = response.status === 401 && document?.error?.type === 'security_exception';
  if (!productHeader && !tagline && !securityError) return null;

  const number = document?.version?.number;
  const opensearch = document?.version?.distribution === 'opensearch';
  const details: Record<string, string> = {
    protocol: 'http',
    status: String(response.status),
    auth: response.status === 401 || response.status === 403 ? 'required' : 'none',
  };
  if (typeof document?.cluster_name === 'string') details.cluster_name = document.cluster_name;
  if (typeof document?.version?.build_flavor === 'string') details.build_flavor = document.version.build_flavor;
  if (typeof document?.version?.lucene_version === 'string') details.lucene_version = document.version.lucene_version;
  const server = response.headers.get('server');
  if (server) details.server = server;
  return {
    name: 'elasticsearch',
    product: opensearch ? 'OpenSearch' : 'Elasticsearch',
    version: typeof number === 'string' && /^\d+\.\d+\.\d+/.test(number) ? number : null,
    details,
  };
}
