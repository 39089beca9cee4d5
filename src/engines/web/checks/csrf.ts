/**
 * Cross-site request forgery (CWE-352): a state-changing POST form that the server accepts from
 * another site. For each form that is not a login, search or destructive one, the check proves
 * three things before it reports:
 * 1. the action needs the session: sent without cookies it is refused (otherwise anyone can do it
 *    directly and forging it through a victim gains nothing);
 * 2. sent with the session, as another site's page would send it (Origin and Referer of an outside
 *    host, every anti-forgery-looking field left out, a fresh marker in the text fields), it is
 *    accepted: no error status, no refusal;
 * 3. it changed state: the marker shows on the page the server answers with or on the form's page
 *    fetched again.
 * Session cookies the server marked SameSite=Lax or Strict keep browsers from sending them with a
 * cross-site POST: the finding is still reported, with a lower quality of detection, and says so.
 */
import { looksDestructive } from '../crawl/destructive.js';
import type { CheckContext, Endpoint, FormField, WebCheck, WebResponse, WebRule } from '../contract.js';
import { requestFor } from '../inputs.js';
import { isSessionCookieName, parseSetCookies } from './passive/cookies.js';
import { sendProbe, whileBudgetLasts } from './probe.js';
import { webRule } from './rule.js';

const TOKEN_NAME = /csrf|xsrf|token|authenticity|nonce|verification|anti.?forgery|form_key|__requestverificationtoken/i;
const SEARCH_ACTION = /search|find|query|filter|lookup/i;
const SEARCH_FIELD = /^(?:q|query|search|s|keywords?|term|filter)$/i;
const LOGIN_ACTION = /log.?in|sign.?in|auth|session/i;
const TEXT_TYPES = new Set(['text', 'email', 'textarea', 'url', 'search', '']);
const REFUSAL = /invalid\W+(?:\w+\W+){0,3}token|token\W+(?:\w+\W+){0,3}(?:invalid|missing|expired|mismatch)|forgery|csrf|xsrf|forbidden|access denied|not (?:allowed|authori[sz]ed)|sign in first|session (?:expired|timed out)/i;

/** Why a form is left alone, or null when it is tested. */
function skipReason(endpoint: Endpoint, ctx: CheckContext): string | null {
  const fields = endpoint.body?.fields ?? [];
  const visible = fields.filter((f) => f.type !== 'hidden' && f.type !== 'submit' && f.type !== 'button' && f.type !== 'file');
  const passwords = fields.filter((f) => f.type === 'password');
  const action = new URL(endpoint.url).pathname;
  if (!ctx.allowDestructive && looksDestructive(action, ...fields.map((f) => f.name), ...fields.filter((f) => f.type === 'submit').map((f) => f.value))) return 'it looks destructive';
  if (passwords.length === 1 && (LOGIN_ACTION.test(action) || visible.length <= 2)) return 'it is a login form';
  if (SEARCH_ACTION.test(action) || (visible.length > 0 && visible.every((f) => SEARCH_FIELD.test(f.name)))) return 'it is a search form';
  if (!fields.some((f) => TEXT_TYPES.has(f.type) && !TOKEN_NAME.test(f.name))) return 'it has no text field to carry a marker';
  return null;
}

/** The form's fields as another site would forge them: no anti-forgery field, the marker in the text fields. */
function forgedFields(fields: FormField[], marker: string): { fields: FormField[]; omitted: string[] } {
  const omitted: string[] = [];
  const out: FormField[] = [];
  for (const field of fields) {
    if (field.type === 'hidden' && TOKEN_NAME.test(field.name)) {
      omitted.push(field.name);
      continue;
    }
    if (TEXT_TYPES.has(field.type) && !TOKEN_NAME.test(field.name)) out.push({ ...field, value: field.type === 'email' || /mail/i.test(field.name) ? `${marker}@example.com` : field.type === 'url' ? `https://example.com/${marker}` : marker });
    else out.push(field);
  }
  return { fields: out, omitted };
}

/** The answer refuses: an error status, a login page, or a refusal in the page's text (not its markup: a token field is no refusal). */
function refused(response: WebResponse): boolean {
  const text = response.body.replace(/<[^>]*>/g, ' ');
  return response.status >= 400 || /log.?in|sign.?in/i.test(new URL(response.url).pathname) || /<input[^>]+type\s*=\s*["']?password/i.test(response.body) || REFUSAL.test(text);
}

/**
 * Names of the session's cookies the server set with SameSite=Lax or Strict (browsers keep them off
 * cross-site POSTs), when every cookie that looks like a session's (or, if none does, every cookie sent) is.
 */
function sameSiteProtected(ctx: CheckContext, url: string, seen: WebResponse[]): string[] {
  const all = ctx.client.cookieHeader(url).split(/;\s*/).map((pair) => pair.split('=')[0]!).filter(Boolean);
  const sent = new Set(all.some(isSessionCookieName) ? all.filter(isSessionCookieName) : all);
  const strictness = new Map<string, boolean>();
  for (const response of [...ctx.site.pages.map((p) => p.response), ...seen]) {
    for (const cookie of parseSetCookies(response.headers['set-cookie'])) {
      if (sent.has(cookie.name)) strictness.set(cookie.name, /^(?:lax|strict)$/i.test(cookie.attributes.get('samesite') ?? ''));
    }
  }
  return sent.size > 0 && [...sent].every((name) => strictness.get(name) === true) ? [...sent] : [];
}

async function testEndpoint(endpoint: Endpoint, ctx: CheckContext): Promise<void> {
  if (endpoint.method !== 'POST' || !endpoint.body || endpoint.source !== 'form') return;
  const skip = skipReason(endpoint, ctx);
  if (skip) return;
  await whileBudgetLasts(ctx, async () => {
    // The form's page, as the victim's browser would have it: it also refreshes the session's cookies.
    const formPage = await sendProbe(ctx, { method: 'GET', url: endpoint.foundOn }, { followRedirects: true });
    if (!formPage || formPage.status >= 400 || ctx.client.cookieHeader(endpoint.url) === '') return;
    const crossSite = { origin: `https://${ctx.canaryHost}`, referer: `https://${ctx.canaryHost}/` };
    const anonymous = forgedFields(endpoint.body!.fields, `rampart-${ctx.token()}`);
    const withoutSession = await sendProbe(ctx, requestFor({ ...endpoint, body: { ...endpoint.body!, fields: anonymous.fields } }, { headers: crossSite }), { followRedirects: true, withoutCookies: true });
    // Accepted without any session: the action needs no authority a victim could lend.
    if (!withoutSession || !refused(withoutSession)) return;
    const marker = `rampart-${ctx.token()}`;
    const forged = forgedFields(endpoint.body!.fields, marker);
    const answer = await sendProbe(ctx, requestFor({ ...endpoint, body: { ...endpoint.body!, fields: forged.fields } }, { headers: crossSite }), { followRedirects: true });
    if (!answer || refused(answer)) return;
    // Stored, not merely echoed: the marker must come back on a page fetched after the post (the
    // page a post-redirect-get led to, or the form's page fetched again), never in the post's own
    // answer, which may only refill the form (a validation error saves nothing).
    const shown = answer.redirects.length > 0 && answer.body.includes(marker) ? answer : await sendProbe(ctx, { method: 'GET', url: endpoint.foundOn }, { followRedirects: true });
    if (!shown?.body.includes(marker)) return;
    const protectedBy = sameSiteProtected(ctx, endpoint.url, [formPage]);
    const token = forged.omitted.length > 0 ? `without its anti-forgery field${forged.omitted.length > 1 ? 's' : ''} ${forged.omitted.join(', ')} (the server does not check ${forged.omitted.length > 1 ? 'them' : 'it'})` : 'which has no anti-forgery token';
    ctx.report({
      ruleId: 'rampart:web-csrf',
      url: endpoint.url,
      method: 'POST',
      parameter: null,
      proof: shown === answer ? [answer, withoutSession] : [answer, shown, withoutSession],
      summary:
        `The form posted as another site would post it (Origin ${crossSite.origin}), ${token}, was accepted with the session's cookies and stored the marker ${marker}, shown on ${shown.url}; without the session the same post was refused (status ${withoutSession.status}).` +
        (protectedBy.length > 0 ? ` The session cookie${protectedBy.length > 1 ? 's' : ''} ${protectedBy.join(', ')} ${protectedBy.length > 1 ? 'are' : 'is'} SameSite=Lax or Strict, so current browsers do not send ${protectedBy.length > 1 ? 'them' : 'it'} with a cross-site POST: exploitable through older browsers or a same-site page.` : ''),
      highlight: marker,
      ...(protectedBy.length > 0 ? { qod: 50 } : {}),
    });
  });
}

export const CHECKS: WebCheck[] = [{ id: 'csrf', kind: 'active', testEndpoint }];

export const RULES: WebRule[] = [
  webRule({
    ruleId: 'rampart:web-csrf',
    name: 'Cross-site request forgery',
    description: "A form that changes state with the user's session is accepted when another site submits it: a page the user visits can make their browser post it, with their cookies, and change their data without their knowledge.",
    solution: 'Require an unpredictable per-session (or per-request) anti-forgery token in every state-changing request and refuse requests without a valid one (most frameworks provide this); also set SameSite=Lax or Strict on session cookies and check the Origin header.',
    cwe: 'CWE-352',
    references: ['https://owasp.org/www-community/attacks/csrf', 'https://cheatsheetseries.owasp.org/cheatsheets/Cross-Site_Request_Forgery_Prevention_Cheat_Sheet.html'],
    threat: 'Medium',
    cvssVector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:R/S:U/C:N/I:L/A:N',
    reason: 'Needs the victim to visit a hostile page while signed in (user interaction); proven to change one form\'s data, limited integrity impact; what the form controls (an email address can lead to account takeover) may make it worse.',
  }),
];
