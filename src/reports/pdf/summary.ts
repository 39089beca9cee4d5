/**
 * The executive summary of the PDF report: a lead paragraph, the run's counts as tiles, present
 * findings by threat as bars, the narrative's summary, and what went wrong or went unchecked.
 */
import { THREAT_ORDER } from '../report.js';
import { heading2, paragraph, tiles } from './elements.js';
import { plural } from './format.js';
import { claim } from './narrative.js';
import { ensureSpace, fillRect, heightOf, setStyle, textAt, widthOf, type Pen } from './pen.js';
import { grouped, pdfText } from './text.js';
import { ACCENT, DANGER, INK, LIFECYCLE_COLOR, MARGIN, PROSE_LIMIT, RIGHT, RULE, THREAT_COLOR, WIDTH } from './theme.js';

/** Draws the summary section's body (its title is drawn by the caller). */
export function drawSummary(pen: Pen): void {
  const { doc, record } = pen;
  const { counts, lifecycle, run } = record;
  const urgent = counts.Critical + counts.High;
  let lead = `Run ${run.index} of this scan found ${plural(record.total, 'present finding')} on ${plural(run.hostsUp, 'host')} that answered (${grouped(run.hostsDown)} did not).`;
  if (urgent > 0) lead += ` ${grouped(urgent)} of them ${urgent === 1 ? 'is' : 'are'} critical or high and should be fixed first.`;
  if (lifecycle.regressed > 0) lead += ` ${plural(lifecycle.regressed, 'weakness')} that had been fixed came back.`;
  paragraph(pen, lead, { size: 10.5, gap: 12 });

  tiles(pen, [
    { value: record.total, label: 'Present findings', color: ACCENT },
    { value: lifecycle.new, label: 'New', color: LIFECYCLE_COLOR.new },
    { value: lifecycle.still_open, label: 'Still open', color: LIFECYCLE_COLOR.still_open },
    { value: lifecycle.regressed, label: 'Regressed', color: LIFECYCLE_COLOR.regressed },
    { value: lifecycle.fixed, label: 'Fixed', color: LIFECYCLE_COLOR.fixed },
    { value: `${run.hostsUp} / ${run.hostsDown}`, label: 'Hosts up / down', color: RULE },
  ]);

  heading2(pen, 'Findings by threat');
  threatChart(pen);

  if (record.narrative && record.narrative.summary.length > 0) {
    heading2(pen, 'In short');
    for (const item of record.narrative.summary) claim(pen, item, '•');
  }
  if (run.error) {
    heading2(pen, 'Run error', DANGER);
    paragraph(pen, pdfText(run.error, PROSE_LIMIT), { color: DANGER });
  }
  if (run.notes.length > 0) {
    heading2(pen, 'What this run could not check');
    for (const note of run.notes.map((n) => pdfText(n, PROSE_LIMIT))) {
      setStyle(pen, 'Sans', 10);
      ensureSpace(pen, heightOf(pen, note, WIDTH - 18) + 6);
      setStyle(pen, 'Sans-Bold', 10, ACCENT);
      textAt(pen, '•', MARGIN, doc.y);
      paragraph(pen, note, { x: MARGIN + 18, gap: 4 });
    }
  }
}

/** Horizontal bars of present findings by threat, on a common scale with a grey track. */
function threatChart(pen: Pen): void {
  const { doc, record } = pen;
  const max = Math.max(1, ...THREAT_ORDER.map((t) => record.counts[t]));
  const labelWidth = 90;
  const countWidth = 50;
  const trackWidth = WIDTH - labelWidth - countWidth;
  ensureSpace(pen, THREAT_ORDER.length * 22);
  for (const threat of THREAT_ORDER) {
    const y = doc.y;
    const count = record.counts[threat];
    setStyle(pen, 'Sans', 9.5, INK);
    textAt(pen, threat, MARGIN, y + 3);
    fillRect(pen, MARGIN + labelWidth, y, trackWidth, 14, '#eef0f3');
    if (count > 0) fillRect(pen, MARGIN + labelWidth, y, Math.max(2, (trackWidth * count) / max), 14, THREAT_COLOR[threat]);
    const text = grouped(count);
    setStyle(pen, 'Sans-Bold', 9.5, INK);
    textAt(pen, text, RIGHT - widthOf(pen, text), y + 3);
    doc.x = MARGIN;
    doc.y = y + 22;
  }
  doc.y += 6;
}
