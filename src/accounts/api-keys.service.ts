/**
 * API keys: `rk_<8 visible chars>_<secret>`. Only the SHA-256 of the whole key is stored (a key has
 * 256 bits of entropy, so a fast digest is safe and lets the exchange find it with one indexed
 * lookup). The visible prefix names the key in listings and logs.
 */
import { randomBytes } from 'node:crypto';
import { fieldError, notFound } from '../shared/errors.js';
import { randomToken, sha256Hex } from '../shared/crypto.js';
import type { Db } from '../db/database.js';
import type { ApiKey, User } from '../db/schema.js';
import * as keys from './api-keys.queries.js';

const KEY_PATTERN = /^(rk_[0-9a-f]{8})_[A-Za-z0-9_-]{43}$/;

export interface CreatedApiKey {
  /** The whole key: shown once, never stored. */
  key: string;
  record: ApiKey;
}

/** The listing shape of a key: never the key itself. */
export interface PublicApiKey {
  id: number;
  name: string;
  prefix: string;
  created_at: string;
  last_used_at: string | null;
}

export function toPublicApiKey(key: ApiKey): PublicApiKey {
  return {
    id: key.id,
    name: key.name,
    prefix: key.prefix,
    created_at: key.created_at.toISOString(),
    last_used_at: key.last_used_at?.toISOString() ?? null,
  };
}

export async function createApiKey(db: Db, userId: number, name = 'default'): Promise<CreatedApiKey> {
  const trimmed = name.trim();
  if (trimmed.length === 0 || trimmed.length > 255) throw fieldError('name', 'The name field must be 1 to 255 characters.');
  const prefix = `rk_${randomBytes(4).toString('hex')}`;
  const key = `${prefix}_${randomToken(32)}`;
  const record = await keys.insertApiKey(db, { user_id: userId, name: trimmed, prefix, key_hash: sha256Hex(key) });
  return { key, record };
}

/** The key's owner, or undefined for an unknown, deleted or malformed key. */
export async function authenticateApiKey(db: Db, key: string): Promise<{ key: ApiKey; user: User } | undefined> {
  if (!KEY_PATTERN.test(key)) return undefined;
  return keys.useApiKeyByHash(db, sha256Hex(key));
}

export const listApiKeys = keys.listApiKeys;
export const apiKeyExists = keys.apiKeyExists;
/** Revokes every key of an account (a claimed account loses the keys whoever held it before made). */
export const deleteUserApiKeys = keys.deleteUserApiKeys;

/** Revokes a key given the whole key or its visible prefix. */
export async function deleteApiKey(db: Db, userId: number, keyOrPrefix: string): Promise<ApiKey> {
  const value = keyOrPrefix.trim();
  const full = KEY_PATTERN.exec(value);
  const deleted = full
    ? await keys.deleteApiKey(db, userId, { keyHash: sha256Hex(value) })
    : /^rk_[0-9a-f]{8}$/.test(value)
      ? await keys.deleteApiKey(db, userId, { prefix: value })
      : undefined;
  if (!deleted) throw notFound('API key');
  return deleted;
}

/**
 * Revokes one of the user's keys by its id (the settings page's revoke button). Another account's
 * key, or one already revoked, is "not found": the page cannot tell them apart from an unknown id.
 */
export async function revokeApiKey(db: Db, userId: number, id: number): Promise<ApiKey> {
  const deleted = await keys.deleteApiKeyById(db, userId, id);
  if (!deleted) throw notFound('API key');
  return deleted;
}
