/**
 * People in the web application (issue 17): browser sessions, sign-in throttling, the one-time
 * links sent by email (verification, password reset, email change), OpenID Connect logins in
 * flight, and disabled accounts.
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // An admin disables an account: its sessions end, its keys and tokens stop working.
  await sql`alter table users add column disabled_at timestamptz`.execute(db);

  // The cookie carries a random token; only its SHA-256 is stored (a stolen table opens nothing).
  await sql`
    create table web_sessions (
      id_hash text primary key,
      user_id integer not null references users (id) on delete cascade,
      created_at timestamptz not null default now(),
      last_seen_at timestamptz not null default now(),
      idle_expires_at timestamptz not null,
      expires_at timestamptz not null,
      user_agent text,
      address text
    )`.execute(db);
  await sql`create index web_sessions_user on web_sessions (user_id)`.execute(db);
  await sql`create index web_sessions_expiry on web_sessions (expires_at)`.execute(db);

  // Failed sign-ins per key ('account:<email>' or 'address:<ip>'), whether the account exists or not.
  await sql`
    create table auth_throttles (
      key text primary key,
      failures integer not null default 0,
      window_started_at timestamptz not null default now(),
      locked_until timestamptz,
      updated_at timestamptz not null default now()
    )`.execute(db);

  // Links sent by email: random tokens, stored hashed, single use, expiring.
  await sql`
    create table email_tokens (
      token_hash text primary key,
      user_id integer not null references users (id) on delete cascade,
      purpose text not null check (purpose in ('verify-email', 'reset-password', 'change-email')),
      email text not null,
      expires_at timestamptz not null,
      used_at timestamptz,
      created_at timestamptz not null default now()
    )`.execute(db);
  await sql`create index email_tokens_user_purpose on email_tokens (user_id, purpose, created_at)`.execute(db);

  // An OpenID Connect sign-in between the redirect to the provider and its callback.
  await sql`
    create table oidc_logins (
      state_hash text primary key,
      code_verifier text not null,
      nonce text not null,
      return_to text not null,
      expires_at timestamptz not null,
      created_at timestamptz not null default now()
    )`.execute(db);
}
