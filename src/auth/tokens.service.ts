/**
 * Access tokens: HS256 JWTs carrying sub (user id), iat, exp, jti, iss and aud (both the base URL),
 * plus `akid`, the API key the token was minted from, so that a refresh can be refused once that
 * key is deleted. The signing key is RAMPART_JWT_SECRET, or a random key generated once and kept
 * in the store so every process of a deployment shares it.
 */
import { randomUUID } from 'node:crypto';
import { errors as joseErrors, jwtVerify, SignJWT } from 'jose';
import { unauthenticated } from '../shared/errors.js';
import type { Db } from '../db/database.js';
import { deploymentSecret } from './signing-secret.js';

export interface TokenClaims {
  userId: number;
  apiKeyId: number;
  tokenId: string;
  expiresAt: Date;
}

export interface IssuedToken {
  token: string;
  expiresIn: number;
}

export interface TokenService {
  issue(userId: number, apiKeyId: number): Promise<IssuedToken>;
  /** Verifies signature, issuer, audience and expiry; throws a 401 AppError otherwise. */
  verify(token: string): Promise<TokenClaims>;
}

export async function createTokenService(
  db: Db,
  options: { secret: string | undefined; issuer: string; ttlSeconds: number },
): Promise<TokenService> {
  const secret = await deploymentSecret(db, options.secret);
  const key = new TextEncoder().encode(secret);
  const { issuer, ttlSeconds } = options;

  return {
    async issue(userId, apiKeyId) {
      const now = Math.floor(Date.now() / 1000);
      const token = await new SignJWT({ akid: apiKeyId })
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
        .setSubject(String(userId))
        .setIssuedAt(now)
        .setExpirationTime(now + ttlSeconds)
        .setJti(randomUUID())
        .setIssuer(issuer)
        .setAudience(issuer)
        .sign(key);
      return { token, expiresIn: ttlSeconds };
    },

    async verify(token) {
      try {
        const { payload } = await jwtVerify(token, key, { issuer, audience: issuer, algorithms: ['HS256'], clockTolerance: 5 });
        const userId = Number(payload.sub);
        const apiKeyId = Number(payload.akid);
        if (!Number.isSafeInteger(userId) || !Number.isSafeInteger(apiKeyId) || !payload.jti || !payload.exp) {
          throw unauthenticated('Unauthenticated.', { reason: 'missing claims' });
        }
        return { userId, apiKeyId, tokenId: payload.jti, expiresAt: new Date(payload.exp * 1000) };
      } catch (error) {
        if (error instanceof joseErrors.JOSEError) throw unauthenticated('Unauthenticated.', { reason: error.code });
        throw error;
      }
    },
  };
}
