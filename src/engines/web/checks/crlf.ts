import type { WebCheck, WebRule } from '../contract.js';

/** The crlf check(s). */
export const CHECKS: WebCheck[] = [];
/** The rules its findings use (rows of the web severity table). */
export const RULES: WebRule[] = [];
