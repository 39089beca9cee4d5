/**
 * Page geometry, palette and size limits of the PDF report: every drawing module takes its
 * measures and colors from here, so the sections look alike.
 */
import type { Lifecycle, Threat } from '../report.js';

/** The margin all round, in points. */
export const MARGIN = 50;
/** A4, in points. */
export const PAGE_WIDTH = 595.28;
/** A4, in points. */
export const PAGE_HEIGHT = 841.89;
/** The width text runs across, margin to margin. */
export const WIDTH = PAGE_WIDTH - 2 * MARGIN;
/** Where the right margin starts. */
export const RIGHT = PAGE_WIDTH - MARGIN;

/** Body text. */
export const INK = '#1f2933';
/** Secondary text: labels, notes, the footer. */
export const MUTED = '#616e7c';
/** Hairlines. */
export const RULE = '#cbd2d9';
/** Table zebra rows and tiles. */
export const TINT = '#f5f7fa';
/** Headings, the cover band and block labels. */
export const ACCENT = '#1f3a5f';
/** Links. */
export const LINK = '#1f5fa8';
/** Errors, regressions, known-exploited flags. */
export const DANGER = '#c62828';
/** The grey panel evidence is drawn on. */
export const PANEL = '#f1f3f5';
/** Evidence text. */
export const CODE_INK = '#263238';

/** Threat colors, one sober palette used for badges, bars and headings alike. */
export const THREAT_COLOR: Record<Threat, string> = {
  Critical: '#7b1fa2',
  High: '#d32f2f',
  Medium: '#f57c00',
  Low: '#fbc02d',
  Informational: '#1976d2',
};
/** Badge text per threat: white on yellow is unreadable, so Low badges get dark text. */
export const BADGE_TEXT: Record<Threat, string> = { Critical: '#ffffff', High: '#ffffff', Medium: '#ffffff', Low: '#3d3000', Informational: '#ffffff' };
/** A threat's color for text on white (yellow text is unreadable, so Low is ink). */
export function threatInk(threat: Threat): string {
  return threat === 'Low' ? INK : THREAT_COLOR[threat];
}

/** How a lifecycle label reads. */
export const LIFECYCLE_LABEL: Record<Lifecycle, string> = { new: 'new', still_open: 'still open', fixed: 'fixed', regressed: 'regressed' };
/** A lifecycle label's color. */
export const LIFECYCLE_COLOR: Record<Lifecycle, string> = { new: '#1976d2', still_open: MUTED, fixed: '#2e7d32', regressed: DANGER };

/** Characters of evidence drawn per finding in the full layout. */
export const EVIDENCE_LIMIT = 3000;
/**
 * Descriptions and solutions are prose from engines and the NVD; the cap only guards the layout
 * against a pathological value, far above any real one.
 */
export const PROSE_LIMIT = 8000;
/** Characters of a one-line value (names, hosts, table cells). */
export const CELL_LIMIT = 300;
/** Items of a list (CVEs, engines, references) drawn before "and N more". */
export const LIST_LIMIT = 12;

