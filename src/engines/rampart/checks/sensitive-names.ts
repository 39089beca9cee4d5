/**
 * Which file names, seen in an HTTP directory listing or an anonymous FTP listing, deserve a
 * second look: database dumps, backups and old copies, archives, key and credential files,
 * configuration. Judged on the name alone (nothing is downloaded), so a match says "this name
 * suggests", and the finding says so.
 */

/** Why a name is flagged, tested in order; the first match is the reason shown. */
const SENSITIVE_PATTERNS: ReadonlyArray<{ pattern: RegExp; reason: string }> = [
  { pattern: /\.(sql|sqlite3?|db|dump|mdb)(\.(gz|bz2|xz|zip|7z))?$/i, reason: 'database dump' },
  { pattern: /\.(bak|backup|old|orig|save|swp|tmp)$|~$/i, reason: 'backup or old copy' },
  { pattern: /\.(tar|tgz|tar\.gz|tar\.bz2|tar\.xz|zip|7z|rar|gz)$/i, reason: 'archive' },
  { pattern: /^id_(rsa|dsa|ecdsa|ed25519)$|\.(pem|key|p12|pfx|kdbx|ppk|jks|keystore)$/i, reason: 'key or certificate store' },
  { pattern: /passw(or)?d|shadow|credential|secret|\.htpasswd$|\.netrc$|\.pgpass$/i, reason: 'credentials' },
  { pattern: /^\.env(\..*)?$|^\.git$|^\.svn$|^\.htaccess$|^web\.config$|^wp-config\.php|config|settings\.(php|py|json|ya?ml)$|\.(conf|cfg|ini)$/i, reason: 'configuration' },
];

/** The reason a file name looks sensitive, or null. Only the last path segment is judged. */
export function sensitiveReason(name: string): string | null {
  const base = name.replace(/\/+$/, '').split('/').pop() ?? '';
  if (base === '' || base === '.' || base === '..') return null;
  return SENSITIVE_PATTERNS.find(({ pattern }) => pattern.test(base))?.reason ?? null;
}

/** `name (reason)` for each sensitive name, in the order given. */
export function describeSensitive(names: readonly string[]): string[] {
  return names.flatMap((name) => {
    const reason = sensitiveReason(name);
    return reason === null ? [] : [`${name} (${reason})`];
  });
}
