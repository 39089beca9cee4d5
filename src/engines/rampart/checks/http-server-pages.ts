/**
 * The status, info and management pages of common servers, recognised by their own content
 * (never by a status alone): Apache mod_status and mod_info, nginx stub_status, PHP-FPM status and
 * ping, the Tomcat Manager (its login challenge or its page) and the Spring Boot actuator index.
 * Each recogniser returns a safe one-line description of what it saw, with a threat when the page
 * sets one apart from its rule's.
 */
import type { Threat } from '../../engine.js';
import type { HttpResponse } from './http-request.js';

/** What a recogniser saw: a safe one-line description, and a threat when it differs from the rule's. */
export type Recognised = string | { seen: string; threat: Threat };

const text = (body: Buffer): string => body.toString('latin1');

/** Status pages that show counters only (no URLs, no clients): Low rather than Medium. */
const COUNTERS_ONLY = new Set(['nginx stub_status page', 'PHP-FPM ping page']);

/** Apache mod_status, nginx stub_status, PHP-FPM status or ping; the label says which. */
export const statusPage = (body: Buffer): string | null => {
  const content = text(body);
  if (/Apache Server Status for|Server uptime:[\s\S]*Total accesses:/i.test(content)) return 'Apache mod_status page';
  if (/Active connections:\s*\d+\s*\n\s*server accepts handled requests/i.test(content)) return 'nginx stub_status page';
  if (/^pool:\s+\S+[\s\S]*^process manager:/m.test(content)) return 'PHP-FPM status page';
  // PHP-FPM's ping.response, answered as it is.
  if (/^pong\r?\n?$/.test(content)) return 'PHP-FPM ping page';
  return null;
};

/** A status page's threat: Low when it shows counters only. */
export const statusThreat = (seen: string): Recognised => (COUNTERS_ONLY.has(seen) ? { seen, threat: 'Low' } : seen);

/** Apache mod_info: the whole configuration, module by module. */
export const serverInfo = (body: Buffer): string | null => {
  const content = text(body);
  if (!/Apache Server Information/i.test(content) || !/Server Settings|Module Name:|Current Configuration/i.test(content)) return null;
  const version = /Server Version:\s*(?:<\/?[a-z]+[^>]*>\s*)*([^<\n]{1,80})/i.exec(content)?.[1]?.trim();
  return `Apache mod_info page${version ? ` (Server Version: ${version})` : ''}`;
};

/**
 * Tomcat's manager application: its Basic challenge (realm "Tomcat Manager Application") means
 * the deploy console is reachable from here, guarded by a password only; a 200 with the manager's
 * own page means it is open to anyone. The default 403 ("only accessible from a browser running
 * on the same machine") is no finding.
 */
export const tomcatManager = (response: HttpResponse): Recognised | null => {
  const content = text(response.body);
  const challenge = String(response.headers['www-authenticate'] ?? '');
  if (response.status === 401 && /realm="Tomcat Manager Application"/i.test(challenge)) {
    return 'login of the Tomcat Manager (401, realm "Tomcat Manager Application"): deploying code needs only this password';
  }
  if (response.status === 200 && /Tomcat Web Application Manager/i.test(content) && /<title>\/manager<\/title>|Deploy|List Applications/i.test(content)) {
    return { seen: 'the Tomcat Web Application Manager page without any login: anyone can deploy code', threat: 'Critical' };
  }
  return null;
};

/** Actuator endpoints that hand out secrets, memory, logs or control. */
const SENSITIVE_ACTUATORS = new Set(['env', 'heapdump', 'threaddump', 'configprops', 'logfile', 'jolokia', 'httptrace', 'httpexchanges', 'shutdown', 'gateway', 'loggers', 'sessions', 'auditevents']);
/** Actuator endpoints Spring Boot exposes over HTTP by default: no finding on their own. */
const DEFAULT_ACTUATORS = new Set(['self', 'health', 'health-path', 'info']);

/** Spring Boot's actuator index (`{"_links": {"self": {"href": ".../actuator"}, ...}}`): which endpoints it exposes. */
export const actuatorIndex = (body: Buffer): Recognised | null => {
  let links: Record<string, unknown>;
  try {
    const parsed = JSON.parse(text(body)) as { _links?: Record<string, { href?: unknown }> };
    links = parsed._links ?? {};
    if (typeof parsed._links?.self?.href !== 'string' || !/\/actuator\/?$/.test(parsed._links.self.href)) return null;
  } catch {
    return null;
  }
  const names = Object.keys(links).filter((name) => !DEFAULT_ACTUATORS.has(name) && !name.includes('-'));
  if (names.length === 0) return null;
  const sensitive = names.filter((name) => SENSITIVE_ACTUATORS.has(name));
  const seen = `Spring Boot actuator exposing ${names.slice(0, 25).join(', ')}${sensitive.length > 0 ? ` (sensitive: ${sensitive.join(', ')})` : ''}`;
  return { seen, threat: sensitive.length > 0 ? 'High' : 'Medium' };
};
