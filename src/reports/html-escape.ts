/**
 * Escaping for the HTML report. Every value of the run record passes through here before it reaches
 * the document: findings quote what targets said (banners, page titles, headers), and a target
 * controls those, so markup in them must show as text and never run in the reader's browser.
 */

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

// C0 controls other than tab and newline, DEL and the C1 range: a browser would drop or mangle them
// silently (and they are parse errors in HTML), which hides what the target actually sent.
const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/**
 * Replaces each control character by a visible ASCII escape (BEL becomes `\x07`, ESC `\x1b`), as
 * curl and proxies print them. Unicode control pictures were tried first, but common Linux fonts
 * (DejaVu) have no glyph for them, so the reader saw an anonymous box. CRLF line ends become plain
 * newlines first, so Windows-style evidence does not sprout `\x0d` on every line.
 */
function showControls(text: string): string {
  return text.replace(/\r\n/g, '\n').replace(CONTROLS, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}

/** Escapes a value for element content or a double- or single-quoted attribute value. */
export function escapeHtml(value: string | number): string {
  return showControls(String(value)).replace(/[&<>"']/g, (c) => ENTITIES[c] ?? c);
}

/**
 * The escaped href for a reference URL, or null when it must be shown as text: only http(s) URLs
 * become links, so a `javascript:` or `data:` reference from an engine can never be clicked.
 */
export function safeHref(url: string): string | null {
  return /^https?:\/\/[^\s]/i.test(url) ? escapeHtml(url) : null;
}
