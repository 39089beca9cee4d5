/**
 * The rules shared by every mailed link of the account entry (verification, password reset): how
 * often an account may be sent one, and the link's address.
 */
import type { Db } from '../db/database.js';
import type { EmailTokenPurpose } from '../db/schema.js';
import { countEmailTokensSince } from './email-tokens.service.js';

/** At most this many links of one purpose per account per hour... */
export const LINKS_PER_HOUR = 5;
/** ...and at most one per this many seconds. */
export const LINK_INTERVAL_SECONDS = 60;

/**
 * Whether an account may be sent another link of a purpose now. Pages answer the same either way
 * (the limit must not tell whether an address is registered), so an excess request sends nothing.
 */
export async function mailLinkAllowed(db: Db, userId: number, purpose: EmailTokenPurpose, now = new Date()): Promise<boolean> {
  const lastHour = await countEmailTokensSince(db, userId, purpose, new Date(now.getTime() - 3_600_000));
  if (lastHour.count >= LINKS_PER_HOUR) return false;
  return !lastHour.latest || lastHour.latest.getTime() <= now.getTime() - LINK_INTERVAL_SECONDS * 1000;
}

/** The address of a mailed link: `<base URL><path>?token=<token>`. */
export function mailLinkUrl(baseUrl: string, path: string, token: string): string {
  return `${baseUrl}${path}?token=${encodeURIComponent(token)}`;
}
