/**
 * The variables a network block (tcp, ssl, dns) sees: nuclei's helper variables for a
 * `host:port` input (`Hostname` = host:port, `Host`, `Port`, `FQDN`...), then the template's
 * `variables` evaluated in order, then the user's `-var` values; and the check nuclei makes
 * before sending anything (`expressions.ContainsUnresolvedVariables`).
 */
import net from 'node:net';
import type { AttackType, PayloadSource, Template } from '../templates/template.types.js';
import { evaluateTemplateVariables, findUnresolved, makeConstants } from './http-variables.js';
import { combinePayloads, PayloadError, readPayloadSets } from './payloads.js';

/** `host:port`, with brackets around an IPv6 literal (Go's net.JoinHostPort). */
export function joinHostPort(host: string, port: number | string): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

/**
 * Go's net.SplitHostPort, undefined when there is no port; also accepts an unbracketed IPv6
 * address before the last colon (`{{Host}}:{{Port}}` of an IPv6 service, which Go refuses).
 */
export function splitHostPort(address: string): { host: string; port: string } | undefined {
  const bracketed = /^\[([^\]]+)\]:([^:]*)$/.exec(address);
  if (bracketed) return { host: bracketed[1]!, port: bracketed[2]! };
  const colon = address.lastIndexOf(':');
  if (colon < 0) return undefined;
  const host = address.slice(0, colon);
  if (address.indexOf(':') !== colon && !net.isIPv6(host)) return undefined;
  return { host, port: address.slice(colon + 1) };
}

/**
 * The helper variables of a `host:port` input, as nuclei's GenerateVariables gives them for a
 * network input. The DNS split (RDN, DN, TLD, SD) needs the public suffix list, which the engine
 * does not carry: only FQDN is set (no template of the network, ssl or dns sets uses the others).
 */
export function helperVariables(host: string, port: number | string): Record<string, string> {
  const hostname = joinHostPort(host, port);
  return { Hostname: hostname, Host: host, Port: String(port), Input: hostname, FQDN: host };
}

const constants = new WeakMap<Template, Record<string, string>>();

/** nuclei's `randstr`, `randstr_N`: one random value each per template (per run here), the same in every block. */
export function templateConstants(template: Template): Record<string, string> {
  let values = constants.get(template);
  if (values === undefined) {
    values = makeConstants([JSON.stringify([template.variables, template.tcp, template.ssl, template.dns])]);
    constants.set(template, values);
  }
  return values;
}

/**
 * Helper variables and `randstr`s, then the template's `variables` (each may use the earlier ones),
 * then the user's values. The helpers win over a template variable of the same name where nuclei's
 * protocol merges them last (network and ssl: a template cannot point `{{Host}}` or `{{Port}}`
 * elsewhere); `helpersWin: false` lets the template's win (nuclei's dns protocol).
 */
export function blockVariables(template: Template, helpers: Record<string, unknown>, userVars: Record<string, string>, helpersWin = true): Record<string, unknown> {
  const scope: Record<string, unknown> = { ...templateConstants(template), ...helpers };
  const own = evaluateTemplateVariables(template.variables, scope, userVars);
  return { ...scope, ...own, ...(helpersWin ? helpers : {}), ...userVars };
}

/** The first `{{...}}` left after expansion, as nuclei's ContainsUnresolvedVariables sees it (nuclei skips such a request). */
export function unresolvedMarker(text: string): string | undefined {
  const inner = findUnresolved(text);
  return inner === undefined ? undefined : `{{${inner}}}`;
}

/**
 * The payload combinations of a block (`[{}]` without payloads: one request), or the reason the
 * sets cannot be read (a wordlist outside the templates directory...).
 */
export async function blockCombinations(payloads: Record<string, PayloadSource>, attack: AttackType | undefined, templatesDir: string): Promise<Array<Record<string, string>> | PayloadError> {
  if (Object.keys(payloads).length === 0) return [{}];
  try {
    return [...combinePayloads(await readPayloadSets(payloads, templatesDir), attack)];
  } catch (error) {
    if (error instanceof PayloadError) return error;
    throw error;
  }
}
