/**
 * The attack narrative of the PDF report: who wrote it, then entry points, attack chains and fixes,
 * each statement followed by the findings it rests on.
 */
import type { Narrative, NarrativeClaim } from '../report.js';
import { heading2, paragraph } from './elements.js';
import { citations } from './format.js';
import { ensureSpace, heightOf, ink, setStyle, type Pen } from './pen.js';
import { pdfLine, pdfText } from './text.js';
import { ACCENT, MARGIN, MUTED, PROSE_LIMIT, WIDTH } from './theme.js';

/** A claim of the narrative, with the findings it rests on: "text [#12, #15]". */
export function claim(pen: Pen, item: NarrativeClaim, marker: string): void {
  const { doc } = pen;
  const text = pdfText(item.text, PROSE_LIMIT);
  setStyle(pen, 'Sans', 10);
  ensureSpace(pen, heightOf(pen, text, WIDTH - 18) + 8);
  const y = doc.y;
  setStyle(pen, 'Sans-Bold', 10, ACCENT);
  ink(pen).text(marker, MARGIN, y, { lineBreak: false });
  setStyle(pen, 'Sans', 10);
  ink(pen).text(`${text} `, MARGIN + 18, y, { width: WIDTH - 18, lineGap: 1.5, continued: true });
  setStyle(pen, 'Sans-Bold', 9, MUTED);
  ink(pen).text(citations(item.findingIds));
  doc.y += 6;
}

/** Draws the narrative section's body (its title is drawn by the caller). */
export function drawNarrative(pen: Pen, narrative: Narrative): void {
  const producer =
    narrative.producedBy === 'llm'
      ? `Written by the LLM ${pdfLine(narrative.model ?? 'of the account')}.`
      : "Written by Rampart's deterministic narrative builder.";
  const fallback = narrative.fallbackReason ? ` The LLM's answer was not used: ${pdfLine(narrative.fallbackReason, 1000)}.` : '';
  paragraph(pen, `${producer}${fallback} Each statement cites the findings it rests on, such as [#12]; they are detailed under Findings.`, {
    color: MUTED,
    size: 9.5,
    gap: 8,
  });
  const parts: [string, NarrativeClaim[], boolean][] = [
    ['Entry points', narrative.entryPoints, false],
    ['Attack chains', narrative.chains, false],
    ['Fixes in order of effect', narrative.fixes, true],
  ];
  for (const [title, claims, numbered] of parts) {
    heading2(pen, title);
    if (claims.length === 0) paragraph(pen, 'None identified.', { color: MUTED });
    claims.forEach((item, i) => claim(pen, item, numbered ? `${i + 1}.` : '•'));
  }
}
