/**
 * Row types of every table, as Kysely sees them. The migrations in `migrations/` are the source
 * of truth; keep this file in step with them.
 */
import type { ColumnType, Generated, Insertable, Selectable } from 'kysely';
import type { Role } from '../accounts/roles.js';

type CreatedAt = ColumnType<Date, Date | string | undefined, never>;
type UpdatedAt = ColumnType<Date, Date | string | undefined, Date | string>;

export interface SettingsTable {
  key: string;
  value: string;
  created_at: CreatedAt;
}

export interface UsersTable {
  id: Generated<number>;
  name: string;
  email: string;
  password_hash: string | null;
  role: Role;
  email_verified_at: Date | null;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

export interface ApiKeysTable {
  id: Generated<number>;
  user_id: number;
  name: string;
  /** The visible part of the key, e.g. `rk_3fA9c0de`; unique, safe to show and log. */
  prefix: string;
  /** SHA-256 of the whole key; the key itself is never stored. */
  key_hash: string;
  created_at: CreatedAt;
  last_used_at: Date | null;
}

export interface AgentRegistrationsTable {
  id: string;
  email: string;
  name: string | null;
  key_name: string | null;
  code_hash: string;
  attempts: Generated<number>;
  expires_at: Date;
  claimed_at: Date | null;
  created_at: CreatedAt;
}

export interface Database {
  settings: SettingsTable;
  users: UsersTable;
  api_keys: ApiKeysTable;
  agent_registrations: AgentRegistrationsTable;
}

export type User = Selectable<UsersTable>;
export type NewUser = Insertable<UsersTable>;
export type ApiKey = Selectable<ApiKeysTable>;
export type AgentRegistration = Selectable<AgentRegistrationsTable>;
