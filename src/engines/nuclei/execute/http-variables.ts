/**
 * The variables an http request is rendered with (nuclei `pkg/protocols/utils/variables.go`,
 * `pkg/templates/preprocessors.go`, `pkg/protocols/common/variables`): the helper variables of the
 * input URL, `randstr` values, the template's `variables` and the user's `-var` values, and the
 * check for markers left unresolved.
 *
 * Glossary:
 * - input URL: the service as nuclei's input (`http://host:port/base`, the default port left out).
 * - constants: `randstr` and `randstr_N`, one random value each per template execution (nuclei
 *   fills them once per template load), seen by requests and matchers alike.
 */
import { randomInt } from 'node:crypto';
import path from 'node:path/posix';
import { compileExpression, expandMarkers, isDslError } from '../dsl/index.js';
import { readExpressionNames } from '../templates/dsl-names.js';
import type { ServiceTarget } from './contract.js';

const ALPHANUMERIC = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const RANDSTR_MARKER = /\{\{(randstr(?:_[a-z0-9_]+)?)\}\}/gi;

/** A ksuid-shaped value (27 base62 characters) as nuclei's `randstr`. */
function randomString(): string {
  let out = '';
  for (let i = 0; i < 27; i++) out += ALPHANUMERIC[randomInt(ALPHANUMERIC.length)];
  return out;
}

/** `randstr`, `randstr_1`... named anywhere in `texts`, each with its own random value. */
export function makeConstants(texts: Iterable<string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const text of texts) {
    for (const match of text.matchAll(RANDSTR_MARKER)) {
      const name = match[1]!;
      out[name] ??= randomString();
    }
  }
  return out;
}

/** The input URL of a service: scheme, host (IPv6 in brackets), the port unless default, the base path. */
export function inputUrl(service: ServiceTarget, port = service.port): URL {
  const scheme = service.scheme ?? (service.tls ? 'https' : 'http');
  const host = service.host.includes(':') && !service.host.startsWith('[') ? `[${service.host}]` : service.host;
  const url = new URL(`${scheme}://${host}:${port}`);
  if (service.basePath !== '/' && service.basePath !== '') url.pathname = service.basePath;
  return url;
}

/** The input URL as nuclei prints it: no `/` when the path is empty. */
export function printUrl(url: URL): string {
  const text = url.href;
  return url.pathname === '/' && !text.endsWith('//') && url.search === '' ? text.slice(0, -1) : text;
}

/**
 * Helper variables of an input URL (BaseURL, RootURL, Hostname, Host, Port, Path, File, Query, Scheme,
 * Input, FQDN, RDN, DN, TLD, SD) plus `ip`. `trimSlash`: the request path starts `{{Var}}/`, so the
 * input's trailing slash is dropped (nuclei's automerge: `http://h/app/` + `/x` gives `/app/x`).
 */
export function helperVariables(url: URL, address: string, trimSlash: boolean): Record<string, string> {
  const portOf = url.port || (url.protocol === 'https:' ? '443' : '80');
  let pathname = url.pathname === '/' && url.href.endsWith('/') ? '' : url.pathname;
  if (trimSlash && pathname.endsWith('/')) pathname = pathname.slice(0, -1);
  const root = `${url.protocol}//${url.host}`;
  const base = `${root}${pathname}`;
  let dir = path.dirname(pathname);
  if (dir === '.') dir = '';
  let file = path.basename(pathname);
  if (file === '.' || pathname === '') file = '';
  const hostname = url.hostname.replace(/^\[(.*)\]$/, '$1');
  return {
    BaseURL: base,
    RootURL: root,
    Hostname: url.host,
    Host: hostname,
    Port: portOf,
    Path: pathname === '' ? '' : dir,
    File: file,
    Query: url.search,
    Scheme: url.protocol.slice(0, -1),
    Input: base,
    ip: address,
    ...dnsVariables(hostname),
  };
}

/**
 * FQDN and, for a name of two labels or more, RDN/DN/TLD/SD by the last label as the suffix (nuclei
 * uses the public-suffix list; `example.co.uk` differs, and 34 templates use these at all).
 */
function dnsVariables(hostname: string): Record<string, string> {
  const labels = hostname.split('.');
  if (/^[\d.]+$/.test(hostname) || hostname.includes(':') || labels.length < 2) return { FQDN: hostname };
  const tld = labels.at(-1)!;
  const dn = labels.at(-2)!;
  return { FQDN: hostname, RDN: `${dn}.${tld}`, DN: dn, TLD: tld, SD: labels.slice(0, -2).join('.') };
}

/**
 * The template's `variables`, in order, each rendered against the scope and the variables before it.
 * A name the user gave with `-var` keeps the user's value (nuclei's data-over-template rule).
 */
export function evaluateTemplateVariables(
  variables: Record<string, string>,
  scope: Record<string, unknown>,
  userVars: Record<string, string>,
): Record<string, string> {
  const out: Record<string, string> = {};
  const combined: Record<string, unknown> = { ...scope };
  for (const [name, value] of Object.entries(variables)) {
    const evaluated = Object.hasOwn(userVars, name) ? userVars[name]! : expandMarkers(value, combined);
    out[name] = evaluated;
    combined[name] = evaluated;
  }
  return out;
}

const UNRESOLVED = /(?:%7[Bb]|\{){2}([^}]+)(?:%7[Dd]|\}){2}/g;
const NUMERICAL = /^[0-9+\-/\W]+$/;

/**
 * The first marker left unresolved in `texts` (nuclei's ContainsUnresolvedVariables): a `{{...}}`
 * (or `%7B%7B...%7D%7D`) that is neither arithmetic nor a literal-only expression. Undefined when none.
 */
export function findUnresolved(...texts: string[]): string | undefined {
  for (const text of texts) {
    for (const match of text.matchAll(UNRESOLVED)) {
      const inner = match[1]!;
      if (NUMERICAL.test(inner)) continue;
      if (!isDslError(compileExpression(inner)) && readExpressionNames(inner).variables.size === 0) continue;
      return inner.trim();
    }
  }
  return undefined;
}
