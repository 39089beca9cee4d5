/**
 * Agent registrations bound to the client that started them, and capped per client address.
 * - `claim_token_hash`: SHA-256 of the secret the start returned to its client only; a claim must
 *   present it. Rows started before this migration have none and cannot be claimed (their codes
 *   expire within RAMPART_AGENT_CODE_TTL anyway): the agent starts again.
 * - `client_address`: the address that asked for the code, counted by the per-client cap.
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table agent_registrations add column claim_token_hash text`.execute(db);
  await sql`alter table agent_registrations add column client_address text`.execute(db);
  await sql`create index agent_registrations_client_idx on agent_registrations (client_address, created_at)`.execute(db);
}
