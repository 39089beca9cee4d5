/** Encryption helpers of projectdiscovery/dsl that need no network and no secrets of ours. */
import { createCipheriv, createHmac } from 'node:crypto';
import { DslError, toBytes, toText, type DslValue } from '../values.js';
import { goJson } from './encoding.js';
import type { FunctionTable } from './types.js';

/** aes_cbc(plaintext, key, iv): AES-CBC with PKCS#5/7 padding; raw ciphertext bytes, as upstream. */
function aesCbc([plaintext, key, iv]: DslValue[]): DslValue | DslError {
  const keyBytes = toBytes(key);
  const ivBytes = toBytes(iv);
  if (![16, 24, 32].includes(keyBytes.length)) return new DslError(`crypto/aes: invalid key size ${keyBytes.length}`);
  if (ivBytes.length !== 16) return new DslError('cipher.NewCBCEncrypter: IV length must equal block size');
  const cipher = createCipheriv(`aes-${keyBytes.length * 8}-cbc`, keyBytes, ivBytes);
  return new Uint8Array(Buffer.concat([cipher.update(toBytes(plaintext)), cipher.final()]));
}

const base64Url = (bytes: Uint8Array): string => Buffer.from(bytes).toString('base64url');
const HMAC_ALGORITHMS: Readonly<Record<string, string>> = { HS256: 'sha256', HS384: 'sha384', HS512: 'sha512' };

/**
 * generate_jwt(json, algorithm, optionalKey) as upstream with kataras/jwt: header
 * {"alg":..,"typ":"JWT"}, claims re-marshalled by Go (sorted keys), base64url without padding.
 * "" signs with NONE, any spelling of "none" keeps that spelling, both with an empty signature.
 * Only the HMAC algorithms sign; RSA/ECDSA/EdDSA keys and the max-age argument are not supported.
 */
function generateJwt(args: DslValue[]): DslValue | DslError {
  if (args.length < 2 || args.length > 4) return new DslError('invalid dsl function signature');
  if (args.length === 4) return new DslError('generate_jwt: the max-age argument is not supported');
  let claims: unknown;
  try {
    claims = JSON.parse(toText(args[0]));
  } catch (error) {
    return new DslError((error as Error).message);
  }
  if (claims === null || typeof claims !== 'object' || Array.isArray(claims)) return new DslError('json: cannot unmarshal into a map');
  const requested = toText(args[1]);
  const upper = requested.toUpperCase();
  const isNone = requested.trim().toLowerCase() === 'none';
  const name = isNone ? requested : upper === '' ? 'NONE' : upper;
  const hash = HMAC_ALGORITHMS[upper];
  if (!isNone && upper !== '' && !hash) return new DslError(`generate_jwt: algorithm ${upper} is not supported`);
  const signingInput = `${base64Url(Buffer.from(`{"alg":"${name}","typ":"JWT"}`))}.${base64Url(Buffer.from(goJson(claims)))}`;
  const signature = hash ? base64Url(createHmac(hash, args.length > 2 ? toBytes(args[2]) : new Uint8Array()).update(signingInput).digest()) : '';
  return `${signingInput}.${signature}`;
}

/** Cipher functions. */
export const CIPHER_FUNCTIONS: FunctionTable = {
  aes_cbc: { arity: 3, call: aesCbc },
  generate_jwt: { call: generateJwt },
};
