/**
 * Reading what the nuclei binary writes. stdout: one JSON result a line (`-jsonl`), mapped through
 * the nuclei importer's own mapping so a run and an imported file give the same findings; any other
 * line (a banner, a warning a version prints there) is counted and skipped. stderr: `-stats -sj`
 * JSON lines (every value a string, `percent` among them) and nuclei's log lines, the last of which
 * explain a failure.
 */
import type { Finding } from '../../engine.js';
import { nucleiFinding } from '../../importers/nuclei.importer.js';

/** The finding of one stdout line, or null when the line is no nuclei result. */
export function findingOfLine(line: string): Finding | null {
  const text = line.trim();
  if (!text.startsWith('{')) return null;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  const record = value as Record<string, unknown> | null;
  if (!record || typeof record !== 'object' || Array.isArray(record)) return null;
  if (!record['template-id'] && !record.templateID) return null;
  return nucleiFinding(record);
}

/** Progress of one stderr stats line, or null for any other line. */
export function progressOfLine(line: string): { percent: number; detail: string } | null {
  const text = line.trim();
  if (!text.startsWith('{') || !text.includes('percent')) return null;
  let stats: Record<string, unknown>;
  try {
    stats = JSON.parse(text) as Record<string, unknown>;
  } catch {
    return null;
  }
  const percent = Number(stats.percent);
  if (!Number.isFinite(percent)) return null;
  const part = (key: string) => (stats[key] === undefined ? null : `${key} ${String(stats[key])}`);
  const detail = [part('requests') && `requests ${String(stats.requests)}/${String(stats.total ?? '?')}`, part('matched'), part('errors')].filter(Boolean).join(', ');
  return { percent: Math.max(0, Math.min(100, Math.round(percent))), detail };
}

/** Keeps the last `size` non-empty lines (what a failure message quotes). */
export class LastLines {
  private readonly lines: string[] = [];
  constructor(private readonly size: number) {}

  push(line: string): void {
    const text = line.trim();
    if (!text) return;
    this.lines.push(text.length > 500 ? `${text.slice(0, 500)}...` : text);
    if (this.lines.length > this.size) this.lines.shift();
  }

  toString(): string {
    return this.lines.join('\n');
  }
}
