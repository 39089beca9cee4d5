/** Hash helpers of projectdiscovery/dsl: hex digests, HMAC and mmh3 (Shodan's favicon hash). */
import { createHash, createHmac } from 'node:crypto';
import { DslError, toBytes, type DslValue } from '../values.js';
import type { FunctionTable } from './types.js';

const digest = (algorithm: string) => ({
  arity: 1,
  call: ([v]: DslValue[]) => createHash(algorithm).update(toBytes(v)).digest('hex'),
});

/** MurmurHash3 x86 32-bit of the bytes, seed 0, as a signed 32-bit integer (spaolacci/murmur3). */
export function murmur3Signed(bytes: Uint8Array, seed = 0): number {
  const c1 = 0xcc9e2d51;
  const c2 = 0x1b873593;
  let h = seed >>> 0;
  const blocks = bytes.length - (bytes.length % 4);
  for (let i = 0; i < blocks; i += 4) {
    let k = ((bytes[i] as number) | ((bytes[i + 1] as number) << 8) | ((bytes[i + 2] as number) << 16) | ((bytes[i + 3] as number) << 24)) >>> 0;
    k = Math.imul(k, c1);
    k = (k << 15) | (k >>> 17);
    k = Math.imul(k, c2);
    h ^= k;
    h = (h << 13) | (h >>> 19);
    h = (Math.imul(h, 5) + 0xe6546b64) | 0;
  }
  let k = 0;
  const tail = bytes.length % 4;
  if (tail === 3) k ^= (bytes[blocks + 2] as number) << 16;
  if (tail >= 2) k ^= (bytes[blocks + 1] as number) << 8;
  if (tail >= 1) {
    k ^= bytes[blocks] as number;
    k = Math.imul(k, c1);
    k = (k << 15) | (k >>> 17);
    k = Math.imul(k, c2);
    h ^= k;
  }
  h ^= bytes.length;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h | 0;
}

/** Hash functions. */
export const HASH_FUNCTIONS: FunctionTable = {
  md5: digest('md5'),
  sha1: digest('sha1'),
  sha256: digest('sha256'),
  sha512: digest('sha512'),
  // Upstream returns the decimal text of the signed hash: `mmh3(base64_py(body)) == "-1234"`.
  mmh3: { arity: 1, call: ([v]) => String(murmur3Signed(toBytes(v))) },
  hmac: {
    arity: 3,
    call: ([algorithm, data, key]) => {
      const name = { sha1: 'sha1', 'sha-1': 'sha1', sha256: 'sha256', 'sha-256': 'sha256', sha512: 'sha512', 'sha-512': 'sha512' }[String(algorithm)];
      if (!name) return new DslError(`unsupported hash algorithm: '${String(algorithm)}'`);
      return createHmac(name, toBytes(key)).update(toBytes(data)).digest('hex');
    },
  },
};
