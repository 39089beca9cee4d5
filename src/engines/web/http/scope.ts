/**
 * The scope of a web scan: the start URL's scheme, host, port and path prefix. The prefix is the
 * start path's directory when its last segment names a file (`/app/index.php` -> `/app/`), and
 * the path itself and everything below it otherwise (`/app` -> `/app` and `/app/...`).
 */
export interface Scope {
  /** `http://host:port` of the start URL. */
  readonly origin: string;
  /** The path prefix URLs must start with. */
  readonly prefix: string;
  contains(url: string): boolean;
}

export function createScope(start: string): Scope {
  const base = new URL(start);
  const origin = base.origin;
  const path = base.pathname;
  const last = path.slice(path.lastIndexOf('/') + 1);
  const prefix = path.endsWith('/') ? path : last.includes('.') ? path.slice(0, path.lastIndexOf('/') + 1) : `${path}/`;
  const exact = path.endsWith('/') ? null : path;
  return {
    origin,
    prefix,
    contains(url) {
      let parsed: URL;
      try {
        parsed = new URL(url);
      } catch {
        return false;
      }
      if (parsed.origin !== origin) return false;
      return parsed.pathname.startsWith(prefix) || parsed.pathname === exact;
    },
  };
}
