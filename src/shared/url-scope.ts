/**
 * The scope of a web scan's start URL, one rule for the built-in web scanner
 * (engines/web/http/scope.ts) and for what ZAP is told (engines/zap/zap-scope.ts), so that both
 * scan the same URLs: the start URL's scheme, host and port, and its path prefix. The prefix is
 * the start path's directory when its last segment names a file (`/app/index.php` -> `/app/`),
 * and the path itself and everything below it otherwise (`/app` -> `/app` and `/app/...`).
 */
export interface UrlScope {
  /** `http://host:port` of the start URL. */
  readonly origin: string;
  /** The path prefix URLs in scope start with. */
  readonly prefix: string;
  /** A path in scope that the prefix does not cover (`/app` for the start `/app`), or null. */
  readonly exact: string | null;
}

/** The scope of `start` (an absolute URL; throws when it does not parse). */
export function urlScopeOf(start: string): UrlScope {
  const { origin, pathname: path } = new URL(start);
  if (path.endsWith('/')) return { origin, prefix: path, exact: null };
  const directory = path.slice(0, path.lastIndexOf('/') + 1);
  if (path.slice(directory.length).includes('.')) return { origin, prefix: directory, exact: null };
  return { origin, prefix: `${path}/`, exact: path };
}
