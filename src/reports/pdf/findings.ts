/**
 * The Findings section of the PDF report: every present finding, under a heading per threat, as
 * the record yields them. A large run's findings are drawn dense, its Low and Informational ones
 * as short blocks.
 */
import type { ReportFinding, Threat } from '../report.js';
import type { PdfStream } from './document.js';
import { paragraph, startSection } from './elements.js';
import { DENSE_FULL, DENSE_SHORT, drawDenseFinding } from './finding-dense.js';
import { drawFullFinding } from './finding-full.js';
import { plural } from './format.js';
import { atPageTop, ensureSpace, fillRect, hairline, setStyle, textAt, type Pen } from './pen.js';
import { INK, MARGIN, MUTED, THREAT_COLOR } from './theme.js';

/**
 * From this many present findings a run is large: in the full layout its findings would fill
 * hundreds of pages (two or three findings a page) and take seconds to draw.
 */
const LARGE_RUN = 500;
const SHORT_THREATS: ReadonlySet<Threat> = new Set(['Low', 'Informational']);

type DrawFinding = (pen: Pen, finding: ReportFinding) => void;
const drawDenseFull: DrawFinding = (pen, finding) => drawDenseFinding(pen, finding, DENSE_FULL);
const drawDenseShort: DrawFinding = (pen, finding) => drawDenseFinding(pen, finding, DENSE_SHORT);

/** Every present finding under a heading per threat; false when the reader went away. */
export async function drawFindings(pen: Pen, out: PdfStream): Promise<boolean> {
  const outline = startSection(pen, 'Findings');
  const large = pen.record.total >= LARGE_RUN;
  let threat: Threat | null = null;
  let draw: DrawFinding = drawFullFinding;
  for await (const finding of pen.record.findings()) {
    if (out.destroyed) return false;
    if (finding.threat !== threat) {
      threat = finding.threat;
      const short = large && SHORT_THREATS.has(threat);
      draw = !large ? drawFullFinding : short ? drawDenseShort : drawDenseFull;
      threatHeading(pen, threat, outline, large, short);
    }
    draw(pen, finding);
    await out.drained();
  }
  if (threat === null) paragraph(pen, 'No finding was present in this run.', { color: MUTED });
  return !out.destroyed;
}

function threatHeading(pen: Pen, threat: Threat, outline: PDFKit.PDFOutline, large: boolean, short: boolean): void {
  const { doc } = pen;
  ensureSpace(pen, large ? 130 : 170);
  if (!atPageTop(pen)) doc.y += 8;
  const y = doc.y;
  fillRect(pen, MARGIN, y, 5, 18, THREAT_COLOR[threat]);
  setStyle(pen, 'Sans-Bold', 13, INK);
  textAt(pen, `${threat} · ${plural(pen.record.counts[threat], 'finding')}`, MARGIN + 12, y + 3);
  hairline(pen, y + 22, 0.75, THREAT_COLOR[threat]);
  doc.x = MARGIN;
  doc.y = y + 34;
  outline.addItem(threat);
  if (short) {
    const why = `This run has ${plural(pen.record.total, 'present finding')}, so its ${threat.toLowerCase()} findings are listed in short: host, service, the first lines of the evidence and the solution. The HTML, text, CSV and XML reports give every detail.`;
    paragraph(pen, why, { size: 8.5, color: MUTED, gap: 10 });
  }
}
