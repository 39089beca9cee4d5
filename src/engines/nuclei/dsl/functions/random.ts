/** Random helpers of projectdiscovery/dsl (crypto-strength, like upstream's randint). */
import { randomBytes, randomInt } from 'node:crypto';
import { isIP } from 'node:net';
import { DslError, toInteger, toText, type DslValue } from '../values.js';
import { trimAll } from './text.js';
import { INVALID_SIGNATURE, type FunctionTable } from './types.js';

const LETTERS = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';
const NUMBERS = '1234567890';

/** n characters drawn from the alphabet; an empty alphabet is an error (Go would panic). */
function randomSequence(alphabet: string, length: number | DslError): string | DslError {
  if (length instanceof DslError) return length;
  if (alphabet.length === 0) return new DslError('empty character set');
  let out = '';
  for (let i = 0; i < length; i++) out += alphabet[randomInt(alphabet.length)];
  return out;
}

/** rand_text_*(length, optionalBadChars). */
const fromSet = (alphabet: string) => ({
  call: (args: DslValue[]) => {
    if (args.length !== 1 && args.length !== 2) return new DslError(INVALID_SIGNATURE);
    return randomSequence(trimAll(alphabet, args.length === 2 ? toText(args[1]) : ''), toInteger(args[0]));
  },
});

/** A random address inside an IPv4 or IPv6 CIDR range (upstream randomip.GetRandomIPWithCidr). */
function randomAddressIn(cidr: string): string | DslError {
  const [address = '', prefixText = ''] = cidr.split('/');
  const version = isIP(address);
  const bits = version === 4 ? 32 : 128;
  const prefix = Number(prefixText);
  if (version === 0 || !/^\d+$/.test(prefixText) || prefix > bits) return new DslError(`invalid CIDR address: ${cidr}`);
  let base = 0n;
  if (version === 4) for (const part of address.split('.')) base = (base << 8n) | BigInt(part);
  else {
    const [head = '', tail = ''] = address.split('::');
    const groups = (text: string): string[] => (text === '' ? [] : text.split(':'));
    const full = address.includes('::')
      ? [...groups(head), ...Array(8 - groups(head).length - groups(tail).length).fill('0'), ...groups(tail)]
      : groups(address);
    for (const group of full) base = (base << 16n) | BigInt(`0x${group}`);
  }
  const hostBits = BigInt(bits - prefix);
  const mask = (1n << hostBits) - 1n;
  const random = BigInt(`0x${randomBytes(16).toString('hex')}`) & mask;
  const value = (base & ~mask & ((1n << BigInt(bits)) - 1n)) | random;
  if (version === 4) return [24n, 16n, 8n, 0n].map((shift) => String((value >> shift) & 255n)).join('.');
  return Array.from({ length: 8 }, (_, i) => ((value >> BigInt(112 - i * 16)) & 0xffffn).toString(16)).join(':');
}

/** Random functions. */
export const RANDOM_FUNCTIONS: FunctionTable = {
  rand_base: {
    call: (args) => {
      if (args.length < 1 || args.length > 3) return new DslError(INVALID_SIGNATURE);
      const custom = args.length === 2 ? toText(args[1]) : '';
      return randomSequence(custom.trim() !== '' ? custom : LETTERS + NUMBERS, toInteger(args[0]));
    },
  },
  rand_char: {
    call: (args) => {
      if (args.length > 1) return new DslError(INVALID_SIGNATURE);
      const custom = args.length === 1 ? toText(args[0]) : '';
      return randomSequence(custom.trim() !== '' ? custom : LETTERS + NUMBERS, 1);
    },
  },
  rand_text_alpha: fromSet(LETTERS),
  rand_text_alphanumeric: fromSet(LETTERS + NUMBERS),
  rand_text_numeric: fromSet(NUMBERS),
  rand_ip: {
    call: (args) => {
      if (args.length === 0) return new DslError(INVALID_SIGNATURE);
      return randomAddressIn(toText(args[randomInt(args.length)]));
    },
  },
  rand_int: {
    call: (args) => {
      if (args.length > 2) return new DslError(INVALID_SIGNATURE);
      const min = args.length >= 1 ? toInteger(args[0]) : 0;
      const max = args.length === 2 ? toInteger(args[1]) : 2 ** 31 - 1;
      if (min instanceof DslError) return min;
      if (max instanceof DslError) return max;
      // Upstream draws from [min, max): max itself is never returned.
      if (max - min <= 0) return new DslError('invalid argument to IntN');
      return min + randomInt(max - min);
    },
  },
};
