/**
 * Signed report links: what the report email and webhook events carry, because a mail client or a
 * chat service cannot send a bearer token. A link names one scan, one run and one format and
 * expires; its signature is HMAC-SHA256 over those four with a key derived from the deployment's
 * signing secret (never the JWT key itself). The link is
 * `{base}/api/reports/{uuid}/{run_index}/{format}?expires=<unix seconds>&signature=<base64url>`.
 * Anyone holding it may download that report until it expires, like a password-reset link.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { derivedKey } from '../auth/signing-secret.js';
import type { Config } from '../config.js';
import type { Db } from '../db/database.js';
import { AppError } from '../shared/errors.js';
import { REPORT_FORMATS, type ReportFormat } from './report.js';

/** What a link grants: one format of one run of one scan, until `expires` (Unix seconds). */
export interface ReportLink {
  uuid: string;
  runIndex: number;
  format: ReportFormat;
  expires: number;
}

interface LinkDeps {
  db: Db;
  config: Pick<Config, 'baseUrl' | 'jwtSecret' | 'reportLinkTtlSeconds'>;
}

function linkKey(deps: LinkDeps): Promise<Buffer> {
  return derivedKey(deps.db, deps.config.jwtSecret, 'report-links');
}

/** The signature of a link: a version tag and the four fields, one per line (none holds a newline). */
function sign(key: Buffer, link: ReportLink): Buffer {
  return createHmac('sha256', key).update(`v1\n${link.uuid.toLowerCase()}\n${link.runIndex}\n${link.format}\n${link.expires}`).digest();
}

/** A run's signed links, one per format, and when they expire. */
export interface SignedReportLinks {
  urls: Record<ReportFormat, string>;
  expiresAt: Date;
}

/** The run's signed download link in every format, valid for RAMPART_REPORT_LINK_TTL seconds from `now`. */
export async function signedReportUrls(deps: LinkDeps, scanUuid: string, runIndex: number, now: Date): Promise<SignedReportLinks> {
  const key = await linkKey(deps);
  const expires = Math.floor(now.getTime() / 1000) + deps.config.reportLinkTtlSeconds;
  const base = `${deps.config.baseUrl.replace(/\/+$/, '')}/api/reports/${encodeURIComponent(scanUuid)}/${runIndex}`;
  const urls = REPORT_FORMATS.map((format) => {
    const signature = sign(key, { uuid: scanUuid, runIndex, format, expires }).toString('base64url');
    return [format, `${base}/${format}?expires=${expires}&signature=${signature}`] as const;
  });
  return { urls: Object.fromEntries(urls) as Record<ReportFormat, string>, expiresAt: new Date(expires * 1000) };
}

/**
 * Accepts a link whose signature matches (compared in constant time) and that has not expired;
 * otherwise throws a 403 AppError. The signature is checked first, so "expired" is only ever
 * said of a link the service made.
 */
export async function verifyReportLink(deps: LinkDeps, link: ReportLink, signature: string, now: Date): Promise<void> {
  const expected = sign(await linkKey(deps), link);
  const given = Buffer.from(signature, 'base64url');
  // base64url decoding ignores stray characters, so the text is compared back as well.
  const valid = given.length === expected.length && timingSafeEqual(given, expected) && given.toString('base64url') === signature;
  if (!valid) throw new AppError('forbidden', 'Invalid signature.');
  if (link.expires * 1000 <= now.getTime()) throw new AppError('forbidden', 'This report link has expired.');
}
