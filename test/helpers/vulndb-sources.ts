/**
 * Serves the real NVD, KEV and EPSS fixtures of ../shared/vulndb (read in place, never copied) as
 * the NVD CVE API 2.0, the KEV feed and the EPSS file, for `rampart vulndb sync` tests.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { TestContext } from 'node:test';
import { gzipSync } from 'node:zlib';
import type { SyncVulnDbOptions, VulnDbSources } from '../../src/vulndb/vulndb.service.js';
import { SHARED_DIR } from './shared.js';
import { listenOnLoopback } from './servers.js';

export const FIXTURES = process.env.RAMPART_VULNDB_FIXTURES ?? path.join(SHARED_DIR, 'vulndb');
export const skip = fs.existsSync(path.join(FIXTURES, 'nvd')) ? false : `vulndb fixtures not found at ${FIXTURES}: skipped`;

export interface NvdRecord { id: string; lastModified: string }

function loadRecords(): NvdRecord[] {
  if (skip) return [];
  const dir = path.join(FIXTURES, 'nvd');
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')) as NvdRecord);
}
export const records = loadRecords();
export const nvdTime = (s: string) => new Date(/Z|[+-]\d\d:\d\d$/.test(s) ? s : `${s}Z`).getTime();

export interface FakeSources {
  sources: VulnDbSources;
  base: string;
  /** Every request's path and query, in order. */
  requests: URL[];
  headers: http.IncomingHttpHeaders[];
  /** The next N NVD requests answer 503. */
  failNvd: number;
}

/** NVD pages of at most 20 records, whatever resultsPerPage asks, so paging is exercised. */
const SERVER_PAGE_CAP = 20;

export async function startSources(t: TestContext): Promise<FakeSources> {
  const kev = fs.readFileSync(path.join(FIXTURES, 'kev', 'known_exploited_vulnerabilities.json'));
  const epss = fs.readFileSync(path.join(FIXTURES, 'epss', 'epss_scores-excerpt.csv'));
  const state: FakeSources = { sources: {} as VulnDbSources, base: '', requests: [], headers: [], failNvd: 0 };
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    state.requests.push(url);
    state.headers.push(req.headers);
    if (url.pathname === '/hang') return; // never answers
    const status = /^\/status\/(\d{3})$/.exec(url.pathname);
    if (status) return void res.writeHead(Number(status[1])).end('scripted failure');
    if (url.pathname === '/stall') {
      // Headers and half the catalog, then nothing more.
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(kev.length) });
      res.write(kev.subarray(0, kev.length >> 1));
      return;
    }
    if (url.pathname === '/trickle') {
      // The catalog in 40 pieces, 20 ms apart: slow in all, never silent for long.
      const piece = Math.ceil(kev.length / 40);
      res.writeHead(200, { 'content-type': 'application/json' });
      let at = 0;
      const timer = setInterval(() => {
        res.write(kev.subarray(at, at + piece));
        at += piece;
        if (at >= kev.length) {
          clearInterval(timer);
          res.end();
        }
      }, 20);
      res.on('close', () => clearInterval(timer));
      return;
    }
    if (url.pathname === '/nvd') {
      if (state.failNvd > 0) {
        state.failNvd--;
        res.writeHead(503).end('busy');
        return;
      }
      const start = url.searchParams.get('lastModStartDate');
      const end = url.searchParams.get('lastModEndDate');
      const selected = records.filter(
        (r) => !start || !end || (nvdTime(r.lastModified) >= nvdTime(start) && nvdTime(r.lastModified) <= nvdTime(end)),
      );
      const startIndex = Number(url.searchParams.get('startIndex') ?? 0);
      const perPage = Math.min(Number(url.searchParams.get('resultsPerPage') ?? 2000), SERVER_PAGE_CAP);
      const page = selected.slice(startIndex, startIndex + perPage);
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          resultsPerPage: page.length,
          startIndex,
          totalResults: selected.length,
          format: 'NVD_CVE',
          version: '2.0',
          timestamp: new Date().toISOString().slice(0, 23),
          vulnerabilities: page.map((cve) => ({ cve })),
        }),
      );
      return;
    }
    if (url.pathname === '/kev.json') return void res.writeHead(200, { 'content-type': 'application/json' }).end(kev);
    if (url.pathname === '/epss.csv.gz') return void res.writeHead(200, { 'content-type': 'application/gzip' }).end(gzipSync(epss));
    if (url.pathname === '/epss.csv') return void res.writeHead(200, { 'content-type': 'text/csv' }).end(epss);
    res.writeHead(404).end('not found');
  });
  await listenOnLoopback(t, server);
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.base = base;
  state.sources = { nvdBaseUrl: `${base}/nvd`, kevUrl: `${base}/kev.json`, epssUrl: `${base}/epss.csv.gz` };
  return state;
}

/** Test options: no pauses between pages nor before retries. */
export function fast(sources: VulnDbSources, extra: Partial<SyncVulnDbOptions> = {}): SyncVulnDbOptions {
  return { sources, pageDelayMs: 0, retryDelayMs: 0, timeoutMs: 10_000, ...extra };
}

