/** Accounts, API keys, settings (the JWT signing key lives here) and agent registrations. */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table settings (
      key text primary key,
      value text not null,
      created_at timestamptz not null default now()
    )`.execute(db);
  await sql`
    create table users (
      id bigint generated always as identity primary key,
      name text not null,
      email text not null,
      password_hash text,
      role text not null default 'trial'
        check (role in ('trial', 'basic', 'premium', 'pro', 'admin')),
      email_verified_at timestamptz,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    )`.execute(db);
  await sql`create unique index users_email_lower_key on users (lower(email))`.execute(db);
  await sql`
    create table api_keys (
      id bigint generated always as identity primary key,
      user_id bigint not null references users (id) on delete cascade,
      name text not null,
      prefix text not null unique,
      key_hash text not null unique,
      created_at timestamptz not null default now(),
      last_used_at timestamptz
    )`.execute(db);
  await sql`create index api_keys_user_id_idx on api_keys (user_id)`.execute(db);
  await sql`
    create table agent_registrations (
      id uuid primary key,
      email text not null,
      name text,
      key_name text,
      code_hash text not null,
      attempts integer not null default 0,
      expires_at timestamptz not null,
      claimed_at timestamptz,
      created_at timestamptz not null default now()
    )`.execute(db);
  await sql`create index agent_registrations_email_idx on agent_registrations (lower(email), created_at)`.execute(db);
}
