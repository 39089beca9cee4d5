/**
 * Webhook signatures in the Standard Webhooks scheme (https://www.standardwebhooks.com/, DESIGN.md
 * "Webhook signing"), byte for byte, so a receiver can verify our deliveries with the public
 * `standardwebhooks` libraries instead of code of its own.
 */
import { createHmac, randomBytes } from 'node:crypto';

const SECRET_PREFIX = 'whsec_';
/** 24 random bytes: 192 bits, as the reference libraries generate. */
const SECRET_BYTES = 24;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** The three headers that carry a delivery's signature. */
type SignatureHeaders = {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
};

/** A new webhook secret: `whsec_` followed by the base64 of 24 random bytes. */
export function generateSecret(): string {
  return SECRET_PREFIX + randomBytes(SECRET_BYTES).toString('base64');
}

/**
 * The HMAC key inside a secret. The prefix is optional, as in the reference libraries. Throws a
 * TypeError for text that is not base64: Node's decoder would otherwise skip the bad characters
 * and sign with a shorter key than the receiver holds, making every delivery fail verification.
 */
function decodeSecret(secret: string): Buffer {
  const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  if (!BASE64.test(encoded)) throw new TypeError('A webhook secret must be whsec_ followed by base64.');
  return Buffer.from(encoded, 'base64');
}

/**
 * `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`, keyed with the decoded secret. The body must be
 * the exact text sent: the receiver signs the bytes it received. Throws a TypeError for a malformed
 * secret or a timestamp that is not whole seconds (it would be signed as "1.5" but fail the
 * receiver's integer parse).
 */
export function signPayload(secret: string, id: string, timestampSeconds: number, body: string): string {
  if (!Number.isSafeInteger(timestampSeconds)) throw new TypeError('The webhook timestamp must be whole seconds.');
  const mac = createHmac('sha256', decodeSecret(secret)).update(`${id}.${timestampSeconds}.${body}`, 'utf8');
  return `v1,${mac.digest('base64')}`;
}

/** The `webhook-id`, `webhook-timestamp` and `webhook-signature` headers for one message. */
export function signatureHeaders(secret: string, id: string, timestampSeconds: number, body: string): SignatureHeaders {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': signPayload(secret, id, timestampSeconds, body),
  };
}
