/**
 * Access tokens: HS256 JWTs carrying sub (user id), iat, exp, jti, iss and aud (both the base URL),
 * plus `akid`, the API key the token was minted from, so that a refresh can be refused once that
 * key is deleted. The signing key is RAMPART_JWT_SECRET, or a random key generated once and kept
 * in the store so every process of a deployment shares it. RAMPART_JWT_PREVIOUS_SECRET, during a
 * rotation, is accepted when verifying and never used to sign.
 */
import { randomUUID } from 'node:crypto';
import { errors as joseErrors, jwtVerify, SignJWT } from 'jose';
import { unauthenticated } from '../shared/errors.js';
import type { Db } from '../db/database.js';
import { deploymentSecret, discardGeneratedSecret } from './signing-secret.js';

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

/** The key tokens are signed with: the configured secret, else the one generated for the store. */
async function signingSecret(db: Db, configured: string | undefined): Promise<string> {
  // A key generated before the operator configured one is no longer accepted; removing it keeps
  // the store free of signing secrets, and a later start without the variable makes a fresh key
  // rather than bringing back one that may have been read while it sat in the store.
  if (configured !== undefined) await discardGeneratedSecret(db);
  return deploymentSecret(db, configured);
}

export async function createTokenService(
  db: Db,
  options: { secret: string | undefined; previousSecret?: string | undefined; issuer: string; ttlSeconds: number },
): Promise<TokenService> {
  const encode = (text: string) => new TextEncoder().encode(text);
  const key = encode(await signingSecret(db, options.secret));
  const previousKey = options.previousSecret === undefined ? undefined : encode(options.previousSecret);
  const { issuer, ttlSeconds } = options;
  const checks = { issuer, audience: issuer, algorithms: ['HS256'], clockTolerance: 5 };

  /** Checks with the current key; a signature it does not match may be the previous key's. */
  const verifySignature = async (token: string) => {
    try {
      return await jwtVerify(token, key, checks);
    } catch (error) {
      if (!previousKey || !(error instanceof joseErrors.JWSSignatureVerificationFailed)) throw error;
      return jwtVerify(token, previousKey, checks);
    }
  };

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
        const { payload } = await verifySignature(token);
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
