/**
 * The cover page of the PDF report: title band, the run's particulars, present findings by threat,
 * and the confidentiality note.
 */
import { engineLine, qualityLine, THREAT_ORDER } from '../report.js';
import { keyValues, tiles } from './elements.js';
import { formatDuration, formatUtc, listOf, plural } from './format.js';
import { fillRect, ink, setStyle, type Pen } from './pen.js';
import { pdfLine } from './text.js';
import { ACCENT, DANGER, INK, MARGIN, MUTED, PAGE_HEIGHT, PAGE_WIDTH, THREAT_COLOR, WIDTH } from './theme.js';

/** Draws the cover on the current (first) page. */
export function drawCover(pen: Pen): void {
  const { doc, record } = pen;
  const { run, scan } = record;
  fillRect(pen, 0, 0, PAGE_WIDTH, 215, ACCENT);
  setStyle(pen, 'Sans-Bold', 9, '#9fb3c8');
  ink(pen).text('RAMPART  ·  SECURITY SCAN', MARGIN, 62, { characterSpacing: 1.5, lineBreak: false });
  setStyle(pen, 'Sans-Bold', 26, '#ffffff');
  ink(pen).text('Rampart scan report', MARGIN, 82, { width: WIDTH });
  setStyle(pen, 'Sans', 15, '#e4e7eb');
  ink(pen).text(pdfLine(scan.name, 400), MARGIN, 122, { width: WIDTH, height: 60, ellipsis: true });

  const outcome = run.outcome ?? (run.status === 'current' ? 'in progress' : 'unknown');
  const outcomeColor = { succeeded: '#2e7d32', failed: DANGER, cancelled: MUTED }[run.outcome ?? 'cancelled'];
  const trigger = { create: 'started when the scan was created', schedule: 'scheduled', rerun: 're-run on request', import: 'imported from uploaded results' }[run.trigger];
  const completed =
    run.completedAt && run.startedAt
      ? `${formatUtc(run.completedAt)}  (took ${formatDuration(run.completedAt.getTime() - run.startedAt.getTime())})`
      : formatUtc(run.completedAt);
  doc.y = 250;
  keyValues(
    pen,
    [
      ['Scan type', pdfLine(scan.type)],
      ['Targets', listOf(scan.targets, 20)],
      ['Run', `Run ${run.index} (${trigger})`],
      ['Started', formatUtc(run.startedAt)],
      ['Completed', completed],
      ['Outcome', outcome.charAt(0).toUpperCase() + outcome.slice(1), outcomeColor],
      ['Engine', pdfLine(engineLine(run) ?? 'not recorded')],
      ['Vulnerability database', record.vulnDbSyncedAt ? `synced ${formatUtc(record.vulnDbSyncedAt)}` : 'never synced'],
      ['Report generated', formatUtc(record.generatedAt)],
      ['Quality of detection', qualityLine(record.quality)],
      ['Scan id', pdfLine(scan.uuid)],
    ],
    150,
  );

  doc.y += 26;
  setStyle(pen, 'Sans-Bold', 10, INK);
  ink(pen).text(`${plural(record.total, 'present finding')} by threat`, MARGIN, doc.y);
  doc.y += 8;
  tiles(pen, THREAT_ORDER.map((threat) => ({ value: record.counts[threat], label: threat, color: THREAT_COLOR[threat] })));

  const note = 'Confidential. This report describes security weaknesses of the systems named above; share it only with those who need it.';
  setStyle(pen, 'Sans', 8, MUTED);
  ink(pen).text(note, MARGIN, PAGE_HEIGHT - 100, { width: WIDTH });
}
