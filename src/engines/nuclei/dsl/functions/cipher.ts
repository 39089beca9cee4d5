/** Encryption helpers of projectdiscovery/dsl that need no network and no secrets of ours. */
import { createCipheriv } from 'node:crypto';
import { DslError, toBytes, type DslValue } from '../values.js';
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

/** Cipher functions. */
export const CIPHER_FUNCTIONS: FunctionTable = {
  aes_cbc: { arity: 3, call: aesCbc },
};
