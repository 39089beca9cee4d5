/**
 * Builds a `WebRule` row: the CVSS base score is computed from the vector, so a row states its
 * vector once and the two cannot disagree. Rows without a vector are rated by the table (their
 * `reason` is the basis).
 */
import { cvss31BaseScore } from '../../../shared/cvss.js';
import type { WebRule } from '../contract.js';

export function webRule(row: Omit<WebRule, 'cvssBase'>): WebRule {
  return { ...row, cvssBase: row.cvssVector === null ? null : cvss31BaseScore(row.cvssVector) };
}
