/**
 * Product names as detectors report them, mapped to NVD's CPE 2.3 vendor and product, so that a
 * detected version can be matched against the vulnerability database. Only products whose NVD
 * names were checked are listed: a wrong CPE would match the wrong CVEs, which is worse than none.
 */

interface CpeEntry {
  vendor: string;
  product: string;
  /**
   * Splits a detected version into NVD's version and update fields where NVD does so (OpenSSH
   * `9.6p1` is version `9.6`, update `p1`; ProFTPD `1.3.5e` is `1.3.5`, update `e`).
   */
  split?: (version: string) => [string, string];
}

const splitSuffix =
  (pattern: RegExp) =>
  (version: string): [string, string] => {
    const match = pattern.exec(version);
    return match ? [match[1] ?? version, match[2] ?? '*'] : [version, '*'];
  };

const CPE_TABLE: Readonly<Record<string, CpeEntry>> = {
  OpenSSH: { vendor: 'openbsd', product: 'openssh', split: splitSuffix(/^(\d+(?:\.\d+)*)(p\d+)$/) },
  Dropbear: { vendor: 'dropbear_ssh_project', product: 'dropbear_ssh' },
  nginx: { vendor: 'f5', product: 'nginx' },
  'Apache httpd': { vendor: 'apache', product: 'http_server' },
  'Microsoft IIS': { vendor: 'microsoft', product: 'internet_information_services' },
  lighttpd: { vendor: 'lighttpd', product: 'lighttpd' },
  PHP: { vendor: 'php', product: 'php' },
  Redis: { vendor: 'redis', product: 'redis' },
  memcached: { vendor: 'memcached', product: 'memcached' },
  MariaDB: { vendor: 'mariadb', product: 'mariadb' },
  MySQL: { vendor: 'oracle', product: 'mysql' },
  PostgreSQL: { vendor: 'postgresql', product: 'postgresql' },
  MongoDB: { vendor: 'mongodb', product: 'mongodb' },
  Elasticsearch: { vendor: 'elastic', product: 'elasticsearch' },
  vsftpd: { vendor: 'beasts', product: 'vsftpd' },
  ProFTPD: { vendor: 'proftpd', product: 'proftpd', split: splitSuffix(/^(\d+\.\d+\.\d+)([a-z]|rc\d+)$/) },
  'Pure-FTPd': { vendor: 'pureftpd', product: 'pure-ftpd' },
  Exim: { vendor: 'exim', product: 'exim' },
  Postfix: { vendor: 'postfix', product: 'postfix' },
  Sendmail: { vendor: 'sendmail', product: 'sendmail' },
  Dovecot: { vendor: 'dovecot', product: 'dovecot' },
};

/** Characters a version may hold and still be written into a CPE without escaping. */
const PLAIN_VERSION = /^[0-9A-Za-z][0-9A-Za-z._-]*$/;

/**
 * The CPE 2.3 name of a product version, e.g. `cpeFor('OpenSSH', '9.6p1')` is
 * `cpe:2.3:a:openbsd:openssh:9.6:p1:*:*:*:*:*:*`. Null for an unknown product, and without a
 * version: a version-less CPE would match every CVE the product ever had.
 */
export function cpeFor(product: string | null, version: string | null): string | null {
  if (product === null || version === null) return null;
  const entry = CPE_TABLE[product];
  if (!entry || !PLAIN_VERSION.test(version)) return null;
  const [base, update] = entry.split ? entry.split(version) : [version, '*'];
  return `cpe:2.3:a:${entry.vendor}:${entry.product}:${base}:${update}:*:*:*:*:*:*`;
}
