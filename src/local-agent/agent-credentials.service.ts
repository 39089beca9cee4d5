/**
 * The local agent's credential: `ragt_` + 32 random bytes (base64url), bound to one scan, stored
 * only as its SHA-256, expiring after RAMPART_AGENT_CREDENTIAL_DAYS, revoked by the next download
 * and removed with its scan. It authenticates the agent routes and nothing else.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Db } from '../db/database.js';
import { AGENT_TOKEN_PATTERN, AGENT_TOKEN_PREFIX } from '../shared/agent-protocol.js';
import { AppError, notFound, unauthenticated } from '../shared/errors.js';
import * as credentials from './agent-credentials.queries.js';

/** Who an agent request is: the credential and the scan it is bound to. */
export interface AgentPrincipal {
  credentialId: number;
  scanId: number;
  expiresAt: Date;
}

export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** Makes the scan's new credential, revoking the previous ones; returns the token (shown once) and its expiry. */
export async function issueCredential(db: Db, scanId: number, now: Date, days: number): Promise<{ token: string; expiresAt: Date }> {
  const token = `${AGENT_TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
  const expiresAt = new Date(now.getTime() + days * 86_400_000);
  await credentials.replaceCredential(db, scanId, sha256(token), now, expiresAt);
  return { token, expiresAt };
}

/**
 * Checks an agent request's credential for the scan `uuid`: 401 when it is missing, malformed,
 * unknown (or its scan deleted), its scan's owner disabled, expired or revoked, each with its own message; 404 when it
 * belongs to another scan. Records its use.
 */
export async function authenticateAgent(db: Db, token: string | undefined, uuid: string, now: Date): Promise<AgentPrincipal> {
  if (!token || !AGENT_TOKEN_PATTERN.test(token)) throw unauthenticated('Unauthenticated.', { reason: token ? 'not an agent credential' : 'no agent credential' });
  const found = await credentials.findCredential(db, sha256(token));
  if (!found) throw unauthenticated('Unauthenticated.', { reason: 'unknown agent credential' });
  // As with API keys (src/auth/auth.service.ts): a disabled account's agents stop with it.
  if (found.owner_disabled_at) throw unauthenticated("This agent's account is disabled.", { credential_id: found.id, reason: 'account disabled' });
  if (found.revoked_at) {
    throw unauthenticated('This agent was revoked because the agent was downloaded again for this scan: run the newest download.', { credential_id: found.id });
  }
  if (found.expires_at.getTime() <= now.getTime()) {
    throw unauthenticated(`This agent's credential expired on ${found.expires_at.toISOString()}: download the agent again from the scan's page.`, { credential_id: found.id });
  }
  // The credential sees nothing of other scans, not even whether they exist.
  if (found.scan_uuid !== uuid.toLowerCase()) throw notFound('Scan');
  await credentials.touchCredential(db, found.id);
  return { credentialId: found.id, scanId: found.scan_id, expiresAt: found.expires_at };
}

/** Whether an error is a refused agent credential (counted against the client address's rate limit). */
export function isRefusedCredential(error: unknown): boolean {
  return error instanceof AppError && error.code === 'unauthenticated';
}
