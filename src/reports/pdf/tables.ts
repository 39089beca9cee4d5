/**
 * Tables of the PDF report (hosts and services, fixed findings): a shaded header row, rows of one
 * line each with zebra tint, cells cut with an ellipsis, and the header repeated on each new page.
 */
import type { Threat } from '../report.js';
import { badge } from './elements.js';
import { fillRect, fit, hairline, setStyle, textAt, widthOf, type Pen } from './pen.js';
import { INK, MARGIN, MUTED, TINT, WIDTH } from './theme.js';

/** A column: its title, width in points, and alignment. */
export interface Column {
  title: string;
  width: number;
  align?: 'right';
}

/** A cell: text, or a threat drawn as a badge ("-" when null). */
export type Cell = string | { threat: Threat | null };

const ROW_HEIGHT = 18;

/** The header row, at the cursor. */
export function tableHeader(pen: Pen, columns: Column[]): void {
  const { doc } = pen;
  const y = doc.y;
  fillRect(pen, MARGIN, y, WIDTH, ROW_HEIGHT, '#e4e7eb');
  setStyle(pen, 'Sans-Bold', 8, INK);
  let x = MARGIN;
  for (const column of columns) {
    cellText(pen, column.title.toUpperCase(), column, x, y);
    x += column.width;
  }
  doc.y = y + ROW_HEIGHT;
}

/** One row; a row that does not fit starts a new page under a repeated header row. */
export function tableRow(pen: Pen, columns: Column[], cells: Cell[], index: number): void {
  const { doc } = pen;
  if (doc.y + ROW_HEIGHT > doc.page.maxY()) {
    doc.addPage();
    tableHeader(pen, columns);
  }
  const y = doc.y;
  if (index % 2 === 1) fillRect(pen, MARGIN, y, WIDTH, ROW_HEIGHT, TINT);
  let x = MARGIN;
  columns.forEach((column, i) => {
    const cell = cells[i] ?? '';
    if (typeof cell !== 'string') {
      if (cell.threat) badge(pen, cell.threat, x + 4, y + 3);
      else {
        setStyle(pen, 'Sans', 8.5, MUTED);
        cellText(pen, '-', column, x, y);
      }
    } else {
      setStyle(pen, 'Sans', 8.5, INK);
      cellText(pen, cell, column, x, y);
    }
    x += column.width;
  });
  hairline(pen, y + ROW_HEIGHT, 0.3);
  doc.x = MARGIN;
  doc.y = y + ROW_HEIGHT;
}

/** A cell's text in the current style, cut to the column and aligned in it. */
function cellText(pen: Pen, text: string, column: Column, x: number, y: number): void {
  const shown = fit(pen, text, column.width - 8);
  const left = column.align === 'right' ? x + column.width - 4 - widthOf(pen, shown) : x + 4;
  textAt(pen, shown, left, y + 5.5);
}
