/**
 * Secrets recognised by their shape alone, wherever they appear: shared by the logger (every
 * line it writes) and the evidence cap (every finding stored), so both mask the same things.
 */

/** What a masked secret is replaced by. */
export const MASK = '[REDACTED]';

/**
 * Values that are secrets by their shape: a JWT (three base64url parts, the first a JSON header,
 * so `eyJ`), a Rampart API key (`rk_<8 hex>_<secret>`), a webhook secret (`whsec_<base64>`), a
 * local agent credential (`ragt_<base64url>`).
 * Bounded by characters those alphabets lack, so they are found inside URLs, headers and text.
 */
const SECRET_SHAPES = /(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*|(?<![A-Za-z0-9_])rk_[0-9a-f]{8}_[A-Za-z0-9_-]+|whsec_[A-Za-z0-9+/=%]+|(?<![A-Za-z0-9_])ragt_[A-Za-z0-9_-]+/g;

/** `text` with every JWT, API key, webhook secret and agent credential in it replaced by [REDACTED]. */
export function redactSecrets(text: string): string {
  return text.replace(SECRET_SHAPES, MASK);
}
