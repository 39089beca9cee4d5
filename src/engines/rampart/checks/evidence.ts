/**
 * Evidence text for findings: what a server sent, made safe to show (it may hold any byte).
 */

/** Printable text of received bytes for evidence (CR/LF kept readable, control bytes escaped), cut at `max` chars. */
export function printable(text: string, max = 300): string {
  const clean = text.replace(/[^\x20-\x7e]/g, (c) => (c === '\n' ? '\\n' : c === '\r' ? '\\r' : `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`));
  return clean.length > max ? `${clean.slice(0, max)}...` : clean;
}
