/**
 * The report's few shapes (filled rectangles, hairlines, badge pills) written into the page as
 * pdfkit draws them, as one string each.
 *
 * Why: pdfkit writes a shape as five to a dozen operators, each made into bytes on its own, and a
 * 10,000-finding report draws some 80,000 shapes (badges, table rows, evidence panels, rules).
 *
 * Risk: the operators are pdfkit's own, between the same `q` and `Q`, with the color set before
 * the path (pdfkit sets it between path and fill, which viewers accept). The coordinates are the
 * caller's, in the current transformation, as pdfkit writes them, but for a badge's path: made once
 * at the origin and moved into place, it can land a millionth of a point off, which at some
 * resolutions shades a corner pixel differently. When the page or the color is not of the shape
 * expected these return false, having written nothing, and the caller draws with pdfkit.
 */
import { appendContent, colorOperator, num } from './fast-content.js';

// pdfkit's constant for quarter circles as Bézier curves.
const KAPPA = 4.0 * ((Math.sqrt(2) - 1.0) / 3.0);

/** A rectangle filled with `color`. */
export function writeFilledRect(doc: PDFKit.PDFDocument, x: number, y: number, width: number, height: number, color: string): boolean {
  const fill = colorOperator(color, 'rg');
  return fill !== null && appendContent(doc, `q\n${fill}${num(x)} ${num(y)} ${num(width)} ${num(height)} re\nf\nQ\n`);
}

/** A horizontal line from `x1` to `x2` at `y`, `width` thick, in `color`. */
export function writeLine(doc: PDFKit.PDFDocument, x1: number, x2: number, y: number, width: number, color: string): boolean {
  const stroke = colorOperator(color, 'RG');
  return stroke !== null && appendContent(doc, `q\n${num(width)} w\n${stroke}${num(x1)} ${num(y)} m\n${num(x2)} ${num(y)} l\nS\nQ\n`);
}

// Paths of rounded rectangles at the origin: the report has a few (badges).
const roundedPaths: { width: number; height: number; r: number; path: string }[] = [];

/** pdfkit's `roundedRect` path for a rectangle at (0, 0); `r` is more than 0. */
function roundedPath(width: number, height: number, r: number): string {
  let path = roundedPaths.find((known) => known.width === width && known.height === height && known.r === r)?.path;
  if (path === undefined) {
    const cp = r * (1.0 - KAPPA);
    const [w, h] = [num(width), num(height)];
    const steps = [
      `${num(r)} 0 m`,
      `${num(width - r)} 0 l`,
      `${num(width - cp)} 0 ${w} ${num(cp)} ${w} ${num(r)} c`,
      `${w} ${num(height - r)} l`,
      `${w} ${num(height - cp)} ${num(width - cp)} ${h} ${num(width - r)} ${h} c`,
      `${num(r)} ${h} l`,
      `${num(cp)} ${h} 0 ${num(height - cp)} 0 ${num(height - r)} c`,
      `0 ${num(r)} l`,
      `0 ${num(cp)} ${num(cp)} 0 ${num(r)} 0 c`,
    ];
    path = `${steps.join('\n')}\nh\n`;
    // A handful in practice; a report drawing ever more sizes keeps only the latest hundred.
    if (roundedPaths.push({ width, height, r, path }) > 100) roundedPaths.shift();
  }
  return path;
}

/**
 * A rectangle with corners of `radius` filled with `color`: pdfkit's `roundedRect` path, made once
 * at the origin and moved into place by a translation inside the same `q` / `Q`.
 */
export function writeFilledRoundedRect(doc: PDFKit.PDFDocument, x: number, y: number, width: number, height: number, radius: number, color: string): boolean {
  const fill = colorOperator(color, 'rg');
  if (fill === null) return false;
  const r = Math.max(0, Math.min(radius, 0.5 * width, 0.5 * height));
  if (r === 0) return writeFilledRect(doc, x, y, width, height, color);
  return appendContent(doc, `q\n${fill}1 0 0 1 ${num(x)} ${num(y)} cm\n${roundedPath(width, height, r)}f\nQ\n`);
}
