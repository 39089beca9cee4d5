/**
 * The `host:port` form of a service target (Nuclei scans): a host name or IPv4 address and a port,
 * or an IPv6 address in brackets (`[2001:db8::1]:8443`), the same spelling URLs use.
 */

/** A host and port split from `host:port` / `[ipv6]:port`, or undefined when `value` is not of that form. */
export function splitHostPort(value: string): { host: string; port: number } | undefined {
  const match = /^(?:\[([^\][]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(value);
  if (!match) return undefined;
  const port = Number(match[3]);
  if (port < 1 || port > 65535) return undefined;
  return { host: match[1] ?? match[2] ?? '', port };
}

/** `host:port`, with an IPv6 address in brackets. */
export function joinHostPort(host: string, port: number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}
