/**
 * The passive checks: they read every response the scan sees (the crawl's and the probes') and
 * send nothing. Security headers and version banners (passive/headers.ts), cookie flags
 * (passive/cookies.ts), directory listings and error pages (passive/disclosure.ts), mixed content
 * and secrets in URLs (passive/content.ts); their rules and ratings in passive/rules.ts.
 */
import type { WebCheck, WebRule } from '../contract.js';
import { CONTENT_CHECKS } from './passive/content.js';
import { COOKIE_CHECKS } from './passive/cookies.js';
import { DISCLOSURE_CHECKS } from './passive/disclosure.js';
import { HEADER_CHECKS } from './passive/headers.js';
import { PASSIVE_RULES } from './passive/rules.js';

export const CHECKS: WebCheck[] = [...HEADER_CHECKS, ...COOKIE_CHECKS, ...DISCLOSURE_CHECKS, ...CONTENT_CHECKS];
export const RULES: WebRule[] = PASSIVE_RULES;
