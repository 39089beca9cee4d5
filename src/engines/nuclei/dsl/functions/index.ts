/**
 * The helper function set of projectdiscovery/dsl. Every name is also reachable without its
 * underscores (`tolower`, `base64decode`), as upstream registers both.
 */
import { CIPHER_FUNCTIONS } from './cipher.js';
import { ENCODING_FUNCTIONS } from './encoding.js';
import { HASH_FUNCTIONS } from './hashing.js';
import { RANDOM_FUNCTIONS } from './random.js';
import { TEXT_FUNCTIONS } from './text.js';
import { TIME_FUNCTIONS } from './time.js';
import type { DslFunction } from './types.js';
import { VERSION_FUNCTIONS } from './versions.js';

export type { DslFunction } from './types.js';

/**
 * Upstream functions we do not implement, with the reason. A template calling one fails to compile,
 * exactly as it would if the name were unknown, so the matcher layer can report it.
 */
export const UNSUPPORTED_FUNCTIONS: Readonly<Record<string, string>> = {
  jarm: 'opens TLS connections to the target: network access does not belong in a pure evaluator',
  public_ip: 'asks an outside service for our address: network access',
  llm_prompt: 'calls the OpenAI API: network access and a secret',
  generate_java_gadget: 'emits ysoserial Java deserialisation payloads: large binary generators, not written yet',
  generate_dotnet_gadget: 'emits ysoserial.net payloads: large binary generators, not written yet',
  cookie_unsign: 'brute-forces cookie secrets with a bundled word list (cookiemonster)',
  aes_gcm: 'encryption helper not written yet (random nonce, no corpus use in the default set)',
  rsa_encrypt: 'encryption helper not written yet',
  ip_format: 'needs mapcidr IP re-formatting (11 formats); not written yet',
  unpack: 'Python struct.unpack emulation (gostruct); not written yet',
  zip: 'builds zip archives; not written yet',
  wappalyzer: 'needs the wappalyzer fingerprint database',
};

const ALL: Readonly<Record<string, DslFunction>> = {
  ...TEXT_FUNCTIONS,
  ...ENCODING_FUNCTIONS,
  ...HASH_FUNCTIONS,
  ...RANDOM_FUNCTIONS,
  ...TIME_FUNCTIONS,
  ...VERSION_FUNCTIONS,
  ...CIPHER_FUNCTIONS,
};

const REGISTRY = new Map<string, DslFunction>();
for (const [name, fn] of Object.entries(ALL)) {
  REGISTRY.set(name, fn);
  REGISTRY.set(name.replaceAll('_', ''), fn);
}

/** The helper function called `name` (with or without underscores), or undefined. */
export function lookupFunction(name: string): DslFunction | undefined {
  return REGISTRY.get(name);
}

/** Every callable function name, both spellings. */
export const FUNCTION_NAMES: readonly string[] = [...REGISTRY.keys()];

/** The implemented functions by their upstream (underscored) name. */
export const IMPLEMENTED_FUNCTIONS: readonly string[] = Object.keys(ALL);
