/**
 * Distribution awareness (issue 14): whether what a service says about itself (an SSH
 * identification, a Server header, a database's version string, nmap's version line) shows a
 * build packaged by a Linux distribution. Distributions fix vulnerabilities by patching the
 * version they ship ("backporting") without changing the upstream version number, so a CVE
 * matched from such a version may well be fixed: its quality of detection is `QOD.packaged`.
 *
 * Recognised, with what each looks like:
 * - Debian: `OpenSSH_9.2p1 Debian-2+deb12u10`, `Apache/2.4.57 (Debian)`, `10.11.6-MariaDB-0+deb12u1`
 *   (`+debNuM`/`~debN` revisions name the release: deb12 is Debian 12), Raspbian.
 * - Ubuntu: `OpenSSH_8.9p1 Ubuntu-3ubuntu0.6`, `Apache/2.4.52 (Ubuntu)`, `1:10.6.12-0ubuntu0.22.04.1`.
 * - RHEL and rebuilds (Alma, Rocky, CentOS, Oracle, Fedora): `(Red Hat Enterprise Linux)`,
 *   `(CentOS)`, `(AlmaLinux)`, `(Rocky Linux)`, `(Fedora)`, or an `.el8`/`el9_2` release tag.
 * - Alpine: an `-rN` package revision after a version (`1.24.0-r7`) or `(Alpine)`.
 *
 * A bare upstream version (`nginx/1.22.1`, `SSH-2.0-OpenSSH_9.6`) says nothing of who built it:
 * null, and a match from it is `QOD.version`. nginx on Debian sends no distribution by default,
 * so such a server is judged by its upstream version: that is what it says.
 */

/** A distribution's build seen in a service's self-description. */
export interface PackagedBuild {
  /** The distribution's name: `Debian`, `Ubuntu`, `RHEL-family`, `Alpine`... */
  distribution: string;
  /** The package revision seen (`2+deb12u10`, `3ubuntu0.6`, `el8`, `r7`), or null when only the name was given. */
  revision: string | null;
  /** The operating system as a CPE 2.3 name when the text tells it (`cpe:2.3:o:debian:debian_linux:12:...`), for NVD "running on" criteria. */
  osCpe: string | null;
}

const os = (vendor: string, product: string, version = '*') => `cpe:2.3:o:${vendor}:${product}:${version}:*:*:*:*:*:*:*`;

/** Patterns, most specific first: a revision beats a bare name. */
const PATTERNS: ReadonlyArray<{ pattern: RegExp; build: (m: RegExpExecArray) => PackagedBuild }> = [
  // `Debian-2+deb12u10`, `0+deb12u1`, `1:9.2p1-2+deb12u3`, `~deb11u1`
  { pattern: /(?:Debian[-_ ])?([\w.:~]*[+~]deb(\d+)u\d+[\w.]*)/i, build: (m) => ({ distribution: 'Debian', revision: m[1]!, osCpe: os('debian', 'debian_linux', m[2]!) }) },
  // `Ubuntu-3ubuntu0.6`, `0ubuntu0.22.04.1`
  { pattern: /([\w.:~+]*\d+ubuntu[\d.]+[\w.~+]*)/i, build: (m) => ({ distribution: 'Ubuntu', revision: m[1]!, osCpe: os('canonical', 'ubuntu_linux', /ubuntu\d+\.(\d\d\.\d\d)/i.exec(m[1]!)?.[1] ?? '*') }) },
  // `OpenSSH_7.4p1 Debian-10` (a Debian revision without the release tag)
  { pattern: /\b(?:Debian|Raspbian)[-_](\d[\w.+~]*)/i, build: (m) => ({ distribution: 'Debian', revision: m[1]!, osCpe: os('debian', 'debian_linux') }) },
  // `.el8`, `el9_2`, `-1.el7`
  { pattern: /(?:^|[\s._-])(el\d+(?:_\d+)?)\b/i, build: (m) => ({ distribution: 'RHEL-family (RHEL, AlmaLinux, Rocky Linux, CentOS)', revision: m[1]!, osCpe: os('redhat', 'enterprise_linux', /el(\d+)/i.exec(m[1]!)![1]!) }) },
  // Alpine's `-rN` package revision right after a version.
  { pattern: /\b\d+(?:\.\d+)+[\w.]*-(r\d+)\b/, build: (m) => ({ distribution: 'Alpine', revision: m[1]!, osCpe: os('alpinelinux', 'alpine_linux') }) },
  { pattern: /\((Debian|Raspbian)\)|\bDebian\b/i, build: () => ({ distribution: 'Debian', revision: null, osCpe: os('debian', 'debian_linux') }) },
  { pattern: /\(Ubuntu\)|\bUbuntu\b/i, build: () => ({ distribution: 'Ubuntu', revision: null, osCpe: os('canonical', 'ubuntu_linux') }) },
  { pattern: /\((Red Hat(?: Enterprise Linux)?|RHEL|CentOS(?: Stream)?|AlmaLinux|Rocky(?: Linux)?|Oracle(?: Linux)?|Fedora)\)/i, build: (m) => ({ distribution: m[1]!, revision: null, osCpe: null }) },
  { pattern: /\(Alpine\)|\bAlpine\b/i, build: () => ({ distribution: 'Alpine', revision: null, osCpe: os('alpinelinux', 'alpine_linux') }) },
];

/** The distribution build the texts show (banners, headers, version lines), or null for an upstream-only version. */
export function detectPackagedBuild(...texts: (string | null | undefined)[]): PackagedBuild | null {
  const text = texts.filter((t): t is string => typeof t === 'string' && t !== '').join('\n');
  if (!text) return null;
  for (const { pattern, build } of PATTERNS) {
    const match = pattern.exec(text);
    if (match) return build(match);
  }
  return null;
}

const TRACKERS: ReadonlyArray<[RegExp, (cve: string) => string]> = [
  [/^(Debian|Raspbian)/, (cve) => `https://security-tracker.debian.org/tracker/${cve}`],
  [/^Ubuntu/, (cve) => `https://ubuntu.com/security/${cve}`],
  [/^(RHEL|Red Hat|CentOS|AlmaLinux|Rocky|Oracle|Fedora)/i, (cve) => `https://access.redhat.com/security/cve/${cve}`],
  [/^Alpine/, (cve) => `https://security.alpinelinux.org/vuln/${cve}`],
];

/** The distribution's own page on a CVE (which package revisions fix it), or null when none is known. */
export function securityTrackerUrl(build: PackagedBuild, cve: string): string | null {
  return TRACKERS.find(([pattern]) => pattern.test(build.distribution))?.[1](cve) ?? null;
}

/** "Debian package revision 2+deb12u10" / "a Debian package": how findings name the build. */
export function describeBuild(build: PackagedBuild): string {
  return build.revision ? `${build.distribution} package revision ${build.revision}` : `a ${build.distribution} package (no revision shown)`;
}
