/**
 * The token exchange and refresh of the spec's Authentication section, and bearer-token
 * authentication for every other request.
 */
import { unauthenticated } from '../shared/errors.js';
import type { Db } from '../db/database.js';
import type { User } from '../db/schema.js';
import { apiKeyExists, authenticateApiKey } from '../accounts/api-keys.service.js';
import { findUserById } from '../accounts/users.service.js';
import type { IssuedToken, TokenService } from './tokens.service.js';

/** Who a request is: the account, and the key and token it came with. */
export interface Principal {
  user: User;
  apiKeyId: number;
  tokenId: string;
}

/** POST /api/token: an API key for a fresh access token. */
export async function exchangeApiKey(db: Db, tokens: TokenService, key: string): Promise<IssuedToken> {
  const found = await authenticateApiKey(db, key);
  if (!found) throw unauthenticated('Invalid API key.');
  // The key is genuine, so its holder may learn why it no longer works.
  if (found.user.disabled_at) throw unauthenticated('This account is disabled.', { reason: 'account disabled', userId: found.user.id });
  return tokens.issue(found.user.id, found.key.id);
}

/**
 * Resolves a bearer token to its principal; 401 when the token is bad or its account is gone or
 * disabled (the API and the MCP endpoint both come through here, so a disabled account's tokens
 * stop working at once, not when they expire).
 */
export async function authenticateBearer(db: Db, tokens: TokenService, token: string): Promise<Principal> {
  const claims = await tokens.verify(token);
  const user = await findUserById(db, claims.userId);
  if (!user) throw unauthenticated('Unauthenticated.', { reason: 'user deleted' });
  if (user.disabled_at) throw unauthenticated('Unauthenticated.', { reason: 'account disabled', userId: user.id });
  return { user, apiKeyId: claims.apiKeyId, tokenId: claims.tokenId };
}

/**
 * POST /api/refresh: a new token for the same key. Refused once the key it was minted from is
 * deleted (tokens already issued still work until they expire, as the spec says).
 */
export async function refreshToken(db: Db, tokens: TokenService, principal: Principal): Promise<IssuedToken> {
  if (!(await apiKeyExists(db, principal.apiKeyId, principal.user.id))) {
    throw unauthenticated('Unauthenticated.', { reason: 'api key deleted' });
  }
  return tokens.issue(principal.user.id, principal.apiKeyId);
}
