/**
 * Which of a login's cookies belong to a host: one rule for the built-in web scanner's sessions
 * (engines/web/login/session.ts) and for the cookie header ZAP is given (engines/zap/zap-scope.ts).
 */

/** RFC 6265 5.1.3 domain-match; a leading dot (a cookie for subdomains too) is ignored, and an IP address matches only itself. */
export function cookieDomainMatches(host: string, cookieDomain: string): boolean {
  const domain = cookieDomain.replace(/^\./, '').toLowerCase();
  const name = host.toLowerCase();
  if (name === domain) return true;
  return name.endsWith(`.${domain}`) && !/^[\d.]+$|:/.test(name);
}
