/**
 * What a page's markup and the scan's own request URLs show: HTTPS pages loading resources over
 * clear-text HTTP (mixed content), and secrets in URL queries (a password, token, key or session
 * identifier in a request URL or in a link). HTML is parsed with parse5, and only when a cheap
 * test of the text says the page may have something to find.
 */
import type { CheckContext, WebCheck, WebResponse } from '../../contract.js';
import { elementsOf, isHtml, type Element } from '../html.js';
import { firstTime } from '../once.js';
import { isHttps, withoutQuery } from './response.js';

/** Elements whose clear-text source a network attacker reads or replaces, with the attribute holding it. */
function insecureResource(element: Element): string | null {
  const { tag, attrs } = element;
  const attribute =
    tag === 'script' || tag === 'iframe' || tag === 'frame' || tag === 'img' || tag === 'audio' || tag === 'video' || tag === 'source' || tag === 'embed' || tag === 'track'
      ? 'src'
      : tag === 'link' && /\b(?:stylesheet|icon|preload|modulepreload)\b/i.test(attrs.get('rel') ?? '')
        ? 'href'
        : tag === 'object'
          ? 'data'
          : null;
  const value = attribute ? attrs.get(attribute)?.trim() : undefined;
  return value && /^http:\/\//i.test(value) ? value : null;
}

function inspectMixedContent(response: WebResponse, ctx: CheckContext): void {
  if (!isHttps(response.url) || response.status >= 300 || !isHtml(response) || !/(?:src|href|data)\s*=\s*["']?\s*http:/i.test(response.body)) return;
  const url = withoutQuery(response.url);
  const found = elementsOf(response.body).map((element) => ({ element, source: insecureResource(element) })).find((e) => e.source !== null);
  if (!found?.source || !firstTime(ctx, `mixed ${url}`)) return;
  ctx.report({
    ruleId: 'rampart:web-mixed-content',
    url,
    method: response.request.method,
    parameter: null,
    proof: [response],
    summary: `The HTTPS page loads a <${found.element.tag}> over clear-text HTTP: ${found.source}.`,
    highlight: found.source,
  });
}

/** Query parameter names that carry a secret. Passwords count with any value; the others when the value is long enough to be a real secret. */
const PASSWORD_NAME = /^(?:pass|passwd|password|pwd|passphrase|user_?password)$/i;
const SECRET_NAME = /^(?:token|access_token|auth_token|id_token|refresh_token|secret|client_secret|api_?key|api-key|apikey|session|session_?id|sessionid|sid|jsessionid|phpsessid|aspsessionid)$/i;

function secretParameter(url: URL): { name: string; value: string } | null {
  for (const [name, value] of url.searchParams) {
    if ((PASSWORD_NAME.test(name) && value !== '') || (SECRET_NAME.test(name) && value.length >= 8)) return { name, value };
  }
  return null;
}

const LINK_ATTRIBUTES = ['href', 'src', 'action', 'data-href'];

function inspectSensitiveUrls(response: WebResponse, ctx: CheckContext): void {
  const report = (target: URL, secret: { name: string; value: string }, url: string, method: string, summary: string): void => {
    // One finding per URL shape that carries the secret, whether seen as a link or as a request.
    if (!firstTime(ctx, `sensitive ${withoutQuery(target.href)} ${secret.name}`)) return;
    ctx.report({ ruleId: 'rampart:web-sensitive-url', url, method, parameter: secret.name, location: 'query', proof: [response], summary, highlight: `${secret.name}=` });
  };
  // Only URLs the site itself produced: its redirects and its links. A request URL may be a probe
  // of an active check (a parameter set to a payload), which says nothing of the site.
  const location = response.headers.location !== undefined ? parseUrl(response.headers.location, response.url) : null;
  const inLocation = location && /^https?:$/.test(location.protocol) ? secretParameter(location) : null;
  if (location && inLocation) {
    report(location, inLocation, withoutQuery(response.url), response.request.method, `The site redirects to ${withoutQuery(location.href)} with the "${inLocation.name}" parameter in the query string.`);
  }
  if (response.status >= 300 || !isHtml(response) || !/[?&;](?:[\w-]*(?:pass|pwd|token|secret|key|sess|sid)[\w-]*)=/i.test(response.body)) return;
  for (const element of elementsOf(response.body)) {
    for (const attribute of LINK_ATTRIBUTES) {
      const value = element.attrs.get(attribute);
      const target = value && value.includes('?') ? parseUrl(value, response.url) : null;
      const secret = target && /^https?:$/.test(target.protocol) ? secretParameter(target) : null;
      if (target && secret) {
        report(target, secret, withoutQuery(response.url), response.request.method, `The page links to ${withoutQuery(target.href)} with the "${secret.name}" parameter in the query string (<${element.tag} ${attribute}>).`);
      }
    }
  }
}

function parseUrl(url: string, base?: string): URL | null {
  try {
    return new URL(url, base);
  } catch {
    return null;
  }
}

export const CONTENT_CHECKS: WebCheck[] = [
  { id: 'passive-mixed-content', kind: 'passive', inspect: inspectMixedContent },
  { id: 'passive-sensitive-url', kind: 'passive', inspect: inspectSensitiveUrls },
];
