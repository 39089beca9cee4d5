/** SQL for the local agent's scan-scoped credentials (only their SHA-256 is stored). */
import { sql } from 'kysely';
import type { Db } from '../db/database.js';

/**
 * Revokes every live credential of the scan, then stores the new one: one agent per scan at a
 * time. One transaction with the scan's row locked, so two downloads at once take turns (the
 * second revokes the first) instead of both inserting a live credential.
 */
export async function replaceCredential(db: Db, scanId: number, tokenHash: string, now: Date, expiresAt: Date): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx.selectFrom('scans').select('id').where('id', '=', scanId).forUpdate().execute();
    await trx.updateTable('agent_credentials').set({ revoked_at: now }).where('scan_id', '=', scanId).where('revoked_at', 'is', null).execute();
    await trx.insertInto('agent_credentials').values({ scan_id: scanId, token_hash: tokenHash, created_at: now, expires_at: expiresAt }).execute();
  });
}

/** The credential with this hash, the uuid of its scan and whether the scan's owner is disabled; undefined when unknown (or its scan deleted). */
export function findCredential(db: Db, tokenHash: string) {
  return db
    .selectFrom('agent_credentials')
    .innerJoin('scans', 'scans.id', 'agent_credentials.scan_id')
    .innerJoin('users', 'users.id', 'scans.user_id')
    .select([
      'agent_credentials.id',
      'agent_credentials.scan_id',
      'agent_credentials.expires_at',
      'agent_credentials.revoked_at',
      'scans.uuid as scan_uuid',
      'users.disabled_at as owner_disabled_at',
    ])
    .where('agent_credentials.token_hash', '=', tokenHash)
    .executeTakeFirst();
}

export async function touchCredential(db: Db, id: number): Promise<void> {
  await db.updateTable('agent_credentials').set({ last_used_at: sql`now()` }).where('id', '=', id).execute();
}
