/** A throwaway PKI for TLS tests: a test CA and leaf certificates with chosen dates, keys and digests (openssl CLI). */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export function hasOpenssl(): boolean {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

export interface KeyPair {
  key: string;
  cert: string;
}

/** An `openssl ca` in a temp dir: one test CA, and leaf certificates with chosen dates and keys. */
export class TestPki {
  readonly dir = mkdtempSync(path.join(tmpdir(), 'rampart-tls-'));
  private count = 0;
  ca!: KeyPair;

  constructor() {
    writeFileSync(path.join(this.dir, 'index.txt'), '');
    writeFileSync(path.join(this.dir, 'serial'), '1000\n');
    writeFileSync(
      path.join(this.dir, 'ca.cnf'),
      [
        '[ca]', 'default_ca = testca', '[testca]', `dir = ${this.dir}`, 'database = $dir/index.txt',
        'new_certs_dir = $dir', 'serial = $dir/serial', 'default_md = sha256', 'policy = any',
        'copy_extensions = copy', 'unique_subject = no', '[any]', 'commonName = supplied', '',
      ].join('\n'),
    );
    this.run(['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', this.file('ca.key'), '-out', this.file('ca.pem'),
      '-subj', '/CN=Rampart Test CA', '-days', '30']);
    this.ca = { key: readFileSync(this.file('ca.key'), 'utf8'), cert: readFileSync(this.file('ca.pem'), 'utf8') };
  }

  /** A leaf for `cn`; signed by the test CA unless `selfSigned`; `-days` or explicit dates. */
  issue(options: { cn?: string; san?: string; bits?: number; md?: string; selfSigned?: boolean; days?: number; start?: string; end?: string }): KeyPair {
    const id = `leaf${++this.count}`;
    const cn = options.cn ?? 'localhost';
    this.run(['req', '-new', '-newkey', `rsa:${options.bits ?? 2048}`, '-nodes', '-keyout', this.file(`${id}.key`),
      '-out', this.file(`${id}.csr`), '-subj', `/CN=${cn}`, '-addext', `subjectAltName=${options.san ?? `DNS:${cn}`}`]);
    const signer = options.selfSigned
      ? ['-selfsign', '-keyfile', this.file(`${id}.key`)]
      : ['-cert', this.file('ca.pem'), '-keyfile', this.file('ca.key')];
    const dates = options.start !== undefined && options.end !== undefined
      ? ['-startdate', options.start, '-enddate', options.end]
      : ['-days', String(options.days ?? 20 * 365)];
    this.run(['ca', '-batch', '-notext', '-config', this.file('ca.cnf'), ...signer, '-md', options.md ?? 'sha256', ...dates,
      '-in', this.file(`${id}.csr`), '-out', this.file(`${id}.pem`)]);
    return { key: readFileSync(this.file(`${id}.key`), 'utf8'), cert: readFileSync(this.file(`${id}.pem`), 'utf8') };
  }

  cleanup(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }

  private file(name: string): string {
    return path.join(this.dir, name);
  }

  private run(args: string[]): void {
    execFileSync('openssl', args, { stdio: 'pipe' });
  }
}

