/**
 * The cookie jar of one template execution: nuclei reuses cookies between the requests of a
 * template by default (`cookie-reuse` is deprecated as always on), so a login step's session
 * reaches the next step. Deliberately small: cookies by host name, no path or domain scoping,
 * expiry only as deletion (`Max-Age=0` or a past `Expires`), enough for one short execution.
 */

/** Name/value cookies by host name. */
export class CookieJar {
  private readonly hosts = new Map<string, Map<string, string>>();

  /** Stores the `Set-Cookie` values a response from `host` carried. */
  store(host: string, setCookies: readonly string[]): void {
    for (const line of setCookies) {
      const [pair = '', ...attributes] = line.split(';');
      const eq = pair.indexOf('=');
      if (eq <= 0) continue;
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      let cookies = this.hosts.get(host);
      if (!cookies) this.hosts.set(host, (cookies = new Map()));
      if (attributes.some(isExpired)) cookies.delete(name);
      else cookies.set(name, value);
    }
  }

  /** The `Cookie` header value for `host`, or undefined when it has none. */
  header(host: string): string | undefined {
    const cookies = this.hosts.get(host);
    if (!cookies || cookies.size === 0) return undefined;
    return [...cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  /** A copy (a shared exchange runs on a copy; every template applies the answer to its own jar). */
  clone(): CookieJar {
    const copy = new CookieJar();
    for (const [host, cookies] of this.hosts) copy.hosts.set(host, new Map(cookies));
    return copy;
  }
}

function isExpired(attribute: string): boolean {
  const [key = '', value = ''] = attribute.split('=', 2).map((part) => part.trim());
  if (key.toLowerCase() === 'max-age') return Number(value) <= 0;
  if (key.toLowerCase() === 'expires') {
    const when = Date.parse(value);
    return Number.isFinite(when) && when < Date.now();
  }
  return false;
}
