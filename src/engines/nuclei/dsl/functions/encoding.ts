/** Encoding, compression and number-conversion helpers of projectdiscovery/dsl. */
import zlib from 'node:zlib';
import { DslError, formatNumber, fromBytes, toBytes, toInteger, toText, type DslValue } from '../values.js';
import { INVALID_SIGNATURE, type FunctionTable } from './types.js';

/** Decompressed output is capped as upstream (DefaultMaxDecompressionSize, 10 MiB). */
const MAX_DECOMPRESSED = 10 * 1024 * 1024;

const fixed = (arity: number, call: (args: DslValue[]) => DslValue | DslError) => ({ arity, call });

/** Go's base64.StdEncoding.DecodeString: strict padding; \r and \n are ignored. */
function decodeBase64(value: DslValue | undefined): DslValue | DslError {
  const text = toText(value).replace(/[\r\n]/g, '');
  if (text.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(text)) return new DslError('illegal base64 data');
  return fromBytes(Buffer.from(text, 'base64'));
}

/** Python's base64.encodebytes: lines of 76 characters, each ended by a newline (upstream insertInto). */
function base64Python(value: DslValue | undefined): string {
  const encoded = Buffer.from(toBytes(value)).toString('base64');
  return `${encoded.replace(/(.{76})(?=.)/g, '$1\n')}\n`;
}

/** Upstream url_encode: keeps letters, digits and -_.!~*'() (only alphanumerics when asked). */
function urlEncode(args: DslValue[]): string {
  const all = args[1] === true || args[1] === 1;
  const keep = all ? /[A-Za-z0-9]/ : /[A-Za-z0-9\-_.!~*'()]/;
  let result = '';
  for (const char of toText(args[0])) {
    if (keep.test(char)) result += char;
    else for (const byte of Buffer.from(char, 'utf8')) result += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return result;
}

/** Upstream url_decode: %XX sequences only ('+' stays), invalid ones kept literally. */
function urlDecode(value: DslValue | undefined): DslValue {
  const input = Buffer.from(toBytes(value));
  const out: number[] = [];
  for (let i = 0; i < input.length; i++) {
    const byte = input[i] as number;
    const hex = input.subarray(i + 1, i + 3).toString('latin1');
    if (byte === 0x25 && i + 2 < input.length && /^[0-9A-Fa-f]{2}$/.test(hex)) {
      out.push(parseInt(hex, 16));
      i += 2;
    } else {
      out.push(byte);
    }
  }
  return fromBytes(Uint8Array.from(out));
}

const HTML_ENTITIES: Readonly<Record<string, string>> = {
  amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0', copy: '\u00a9', reg: '\u00ae',
};

/** Go's html.UnescapeString for numeric entities and the common named ones. */
function htmlUnescape(text: string): string {
  return text.replace(/&(#[xX][0-9a-fA-F]+|#\d+|[A-Za-z]+);?/g, (whole, entity: string) => {
    if (entity.startsWith('#')) {
      const code = entity[1] === 'x' || entity[1] === 'X' ? parseInt(entity.slice(2), 16) : parseInt(entity.slice(1), 10);
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : '\ufffd';
    }
    return HTML_ENTITIES[entity] ?? whole;
  });
}

/** Runs a decompressor with upstream's read limit; a DslError for corrupt input. */
function decompress(args: DslValue[], inflate: (input: Buffer, options: zlib.ZlibOptions) => Buffer): DslValue | DslError {
  if (args.length === 0) return new DslError(INVALID_SIGNATURE);
  const limitArg = args.length > 1 ? toInteger(args[1]) : MAX_DECOMPRESSED;
  const limit = typeof limitArg === 'number' && limitArg > 0 ? Math.min(limitArg, MAX_DECOMPRESSED) : MAX_DECOMPRESSED;
  try {
    return fromBytes(inflate(Buffer.from(toBytes(args[0])), { maxOutputLength: limit }));
  } catch (error) {
    // Upstream truncates output at the limit; we refuse it instead (recorded in DECISIONS).
    if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') return new DslError('decompressed data over the limit');
    return new DslError((error as Error).message);
  }
}

/** Go json.Marshal of a decoded value: object keys sorted, <, > and & escaped. */
export function goJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(goJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${goJson(k)}:${goJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value).replace(/</g, '\\u003c').replace(/>/g, '\\u003e').replace(/&/g, '\\u0026');
}

/** Upstream stringNumberToDecimal: base-prefixed or bare digits to a number. */
function toDecimal(value: DslValue | undefined, prefix: string, base: number): DslValue | DslError {
  const input = toText(value);
  const digits = input.startsWith(prefix) ? input.slice(prefix.length) : input;
  const pattern = base === 16 ? /^[+-]?[0-9a-fA-F]+$/ : base === 8 ? /^[+-]?[0-7]+$/ : /^[+-]?[01]+$/;
  if (!pattern.test(digits)) return new DslError(`invalid number: ${input}`);
  return parseInt(digits, base);
}

/** Encoding functions. */
export const ENCODING_FUNCTIONS: FunctionTable = {
  base64: fixed(1, ([v]) => Buffer.from(toBytes(v)).toString('base64')),
  base64_py: fixed(1, ([v]) => base64Python(v)),
  base64_decode: fixed(1, ([v]) => decodeBase64(v)),
  url_encode: { call: (args) => (args.length < 1 || args.length > 2 ? new DslError(INVALID_SIGNATURE) : urlEncode(args)) },
  url_decode: fixed(1, ([v]) => urlDecode(v)),
  hex_encode: {
    call: (args) => {
      if (args.length !== 1) return new DslError(args.length === 2 ? 'hex_encode: output formats are not supported' : INVALID_SIGNATURE);
      return Buffer.from(toBytes(args[0])).toString('hex');
    },
  },
  hex_decode: fixed(1, ([v]) => {
    const text = toText(v);
    if (!/^([0-9a-fA-F]{2})*$/.test(text)) return new DslError('encoding/hex: invalid byte or odd length');
    return fromBytes(Buffer.from(text, 'hex'));
  }),
  html_escape: {
    call: (args) => {
      if (args.length < 1) return new DslError(INVALID_SIGNATURE);
      const text = toText(args[0]);
      if (args.length > 1 && (args[1] === true || toText(args[1]) === 'true' || args[1] === 1)) {
        return Array.from(text).map((c) => `&#${c.codePointAt(0)};`).join('');
      }
      return text.replace(/&/g, '&amp;').replace(/'/g, '&#39;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&#34;');
    },
  },
  html_unescape: fixed(1, ([v]) => htmlUnescape(toText(v))),
  gzip: fixed(1, ([v]) => fromBytes(zlib.gzipSync(toBytes(v)))),
  gzip_decode: { call: (args) => decompress(args, zlib.gunzipSync) },
  zlib: fixed(1, ([v]) => fromBytes(zlib.deflateSync(toBytes(v)))),
  zlib_decode: { call: (args) => decompress(args, zlib.inflateSync) },
  deflate: fixed(1, ([v]) => fromBytes(zlib.deflateRawSync(toBytes(v)))),
  inflate: { call: (args) => decompress(args, zlib.inflateRawSync) },
  gzip_mtime: fixed(1, ([v]) => {
    const bytes = Buffer.from(toBytes(v));
    if (bytes.length < 10 || bytes[0] !== 0x1f || bytes[1] !== 0x8b) return new DslError('gzip: invalid header');
    return bytes.readUInt32LE(4);
  }),
  json_minify: fixed(1, ([v]) => {
    try {
      const parsed: unknown = JSON.parse(toText(v));
      if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return new DslError('json: cannot unmarshal into an object');
      return goJson(parsed);
    } catch (error) {
      return new DslError((error as Error).message);
    }
  }),
  json_prettify: fixed(1, ([v]) => {
    try {
      return JSON.stringify(JSON.parse(toText(v)), null, 4);
    } catch (error) {
      return new DslError((error as Error).message);
    }
  }),
  to_number: fixed(1, ([v]) => {
    const text = toText(v);
    return /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(text) ? Number(text) : new DslError(`${text} could not be converted to int`);
  }),
  dec_to_hex: fixed(1, ([v]) => {
    const n = toInteger(v);
    return typeof n === 'number' ? (n < 0 ? `-${(-n).toString(16)}` : n.toString(16)) : new DslError(`invalid number: ${formatNumber(Number(v))}`);
  }),
  hex_to_dec: fixed(1, ([v]) => toDecimal(v, '0x', 16)),
  oct_to_dec: fixed(1, ([v]) => toDecimal(v, '0o', 8)),
  bin_to_dec: fixed(1, ([v]) => toDecimal(v, '0b', 2)),
  xor: {
    call: (args) => {
      if (args.length < 2) return new DslError('at least two arguments needed');
      const inputs = args.map((arg) => toBytes(arg));
      if (inputs.some((bytes) => bytes.length === 0)) return new DslError('empty arguments are not allowed');
      const size = Math.max(...inputs.map((bytes) => bytes.length));
      const out = new Uint8Array(size);
      for (let i = 0; i < size; i++) for (const bytes of inputs) out[i] = (out[i] as number) ^ (bytes[i % bytes.length] as number);
      return fromBytes(out);
    },
  },
};
