/**
 * A finding in full in the PDF report: header (badge, name, id), a grid of its details, then
 * description, evidence, solution and references.
 */
import { webLocation, type ReportFinding } from '../report.js';
import { block, evidence, findingHeader, references } from './finding-blocks.js';
import { formatEndpoint, formatUtc, listOf } from './format.js';
import { ensureSpace, fitsOneLine, hairline, ink, setStyle, textAt, type Pen } from './pen.js';
import { pdfLine } from './text.js';
import { DANGER, INK, LIFECYCLE_COLOR, LIFECYCLE_LABEL, MARGIN, MUTED, threatInk, WIDTH } from './theme.js';

/** Draws one finding at the cursor, in full, and the separator under it. */
export function drawFullFinding(pen: Pen, f: ReportFinding): void {
  const { doc } = pen;
  findingHeader(pen, f, { nameSize: 11.5, idSize: 10, minHeight: 14, keepWith: 110, badgeDy: 1, nameDy: 0, gap: 6 });

  metaGrid(pen, findingMeta(f));
  doc.y += 4;
  block(pen, 'Description', f.description);
  evidence(pen, f.evidence);
  block(pen, 'Solution', f.solution);
  references(pen, f.references);
  separator(pen);
}

/** The rule under a finding; at a page end the page break separates instead. */
export function separator(pen: Pen, before = 4, after = 14): void {
  const { doc } = pen;
  // A separator at the top of a page would only look like a stray line.
  if (doc.y + before + after + 6 > doc.page.maxY()) {
    doc.addPage();
    return;
  }
  doc.y += before;
  hairline(pen, doc.y);
  doc.y += after;
}

/** One label / value of a finding's details; a wide one has a row of its own. */
interface Meta {
  label: string;
  value: string;
  color?: string;
  wide?: boolean;
}

function findingMeta(f: ReportFinding): Meta[] {
  const cvss = f.cvssBase === null ? '' : ` · CVSS ${f.cvssBase.toFixed(1)}`;
  const cells: Meta[] = [
    { label: 'THREAT', value: `${f.threat}${cvss}`, color: threatInk(f.threat) },
    { label: 'LIFECYCLE', value: LIFECYCLE_LABEL[f.lifecycle], color: LIFECYCLE_COLOR[f.lifecycle] },
    { label: 'HOST', value: formatEndpoint(f) },
    { label: 'SERVICE', value: pdfLine(f.service ?? '-') },
    { label: 'CVE', value: listOf(f.cve) },
    { label: 'CWE', value: pdfLine(f.cwe ?? '-') },
  ];
  if (f.kev) cells.push({ label: 'KEV', value: 'Yes: known exploited (CISA)', color: DANGER });
  if (f.epss !== null) cells.push({ label: 'EPSS', value: `${(f.epss * 100).toFixed(1)}% chance of exploitation in 30 days` });
  cells.push(
    { label: 'QOD', value: String(f.qod) },
    { label: 'ENGINES', value: listOf(f.engines) },
    { label: 'TRIAGE', value: f.status },
    { label: 'FIRST SEEN', value: formatUtc(f.firstSeenAt) },
    { label: 'LAST SEEN', value: formatUtc(f.lastSeenAt) },
    { label: 'RULE', value: pdfLine(f.ruleId), wide: true },
  );
  if (f.cvssVector) cells.push({ label: 'CVSS VECTOR', value: pdfLine(f.cvssVector), wide: true });
  const web = webLocation(f);
  if (web !== null) cells.push({ label: 'URL', value: pdfLine(web), wide: true });
  return cells;
}

const LABEL_WIDTH = 66;
const COLUMN_WIDTH = WIDTH / 2;

/** A row of the details grid, measured. */
interface MetaRow {
  cells: Meta[];
  valueWidth: number;
  /** Per cell: whether its value fits on one line (drawn without pdfkit's line breaker). */
  oneLine: boolean[];
  height: number;
}

function layOutMeta(pen: Pen, cells: Meta[]): MetaRow[] {
  const { doc } = pen;
  setStyle(pen, 'Sans', 8.5);
  const lineHeight = doc.currentLineHeight();
  const rows: MetaRow[] = [];
  let i = 0;
  while (i < cells.length) {
    const first = cells[i]!;
    const second = cells[i + 1];
    const row = first.wide || !second || second.wide ? [first] : [first, second];
    i += row.length;
    const valueWidth = (row.length === 1 && first.wide ? WIDTH : COLUMN_WIDTH - 8) - LABEL_WIDTH;
    // Nearly every value fits on one line: one width measure instead of a layout.
    const oneLine = row.map(({ value }) => fitsOneLine(pen, value, valueWidth));
    const heights = row.map(({ value }, k) => (oneLine[k] ? lineHeight : doc.heightOfString(value, { width: valueWidth })));
    rows.push({ cells: row, valueWidth, oneLine, height: Math.max(...heights) + 3 });
  }
  return rows;
}

/**
 * Details two to a row (a wide one alone); each row moves to a new page whole. The rows that share
 * a page are drawn labels first, then values color by color: each color change is an operator on
 * the page, and this grid is drawn once per finding.
 */
function metaGrid(pen: Pen, cells: Meta[]): void {
  const { doc } = pen;
  const rows = layOutMeta(pen, cells);
  let start = 0;
  while (start < rows.length) {
    ensureSpace(pen, rows[start]!.height);
    const tops: number[] = [];
    let y = doc.y;
    for (let end = start; end < rows.length && (end === start || y + rows[end]!.height <= doc.page.maxY()); end++) {
      tops.push(y);
      y += rows[end]!.height;
    }
    const onPage = rows.slice(start, start + tops.length);
    setStyle(pen, 'Sans-Bold', 7, MUTED);
    onPage.forEach((row, r) => row.cells.forEach(({ label }, k) => textAt(pen, label, MARGIN + k * COLUMN_WIDTH, tops[r]! + 0.5)));
    const byColor = new Map<string, [MetaRow, number, number][]>();
    onPage.forEach((row, r) =>
      row.cells.forEach(({ color = INK }, k) => {
        const values = byColor.get(color) ?? [];
        values.push([row, k, tops[r]!]);
        byColor.set(color, values);
      }),
    );
    for (const [color, values] of byColor) {
      setStyle(pen, 'Sans', 8.5, color);
      for (const [row, k, top] of values) {
        const x = MARGIN + k * COLUMN_WIDTH + LABEL_WIDTH;
        const value = row.cells[k]!.value;
        if (row.oneLine[k]) textAt(pen, value, x, top);
        else ink(pen).text(value, x, top, { width: row.valueWidth });
      }
    }
    doc.x = MARGIN;
    doc.y = y;
    start += tops.length;
  }
}
