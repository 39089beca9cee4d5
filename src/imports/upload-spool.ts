/**
 * An upload is copied to a private temporary file before it is parsed, counting bytes as they
 * arrive (413 past the limit, also for a chunked body that announced no length). Why not parse
 * straight from the socket: the import is one database transaction, and a slow client would hold
 * it open (on the embedded store, every other write waits for it). The file is never in memory
 * whole: it streams to disk, then streams from disk into the parser.
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { AppError } from '../shared/errors.js';

/** The 413 of an upload over the limit. */
export function tooLarge(maxBytes: number): AppError {
  return new AppError('payload_too_large', `The results file is larger than the limit of ${maxBytes} bytes (RAMPART_UPLOAD_MAX_BYTES).`);
}

/** Passes chunks through, throwing 413 once more than `maxBytes` went by. */
export async function* limitBytes(source: AsyncIterable<Uint8Array | string>, maxBytes: number): AsyncGenerator<Uint8Array> {
  let total = 0;
  for await (const chunk of source) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    total += bytes.length;
    if (total > maxBytes) throw tooLarge(maxBytes);
    yield bytes;
  }
}

/** A spooled upload: open it as often as needed, and remove it when done. */
export interface Spooled {
  size: number;
  open(): AsyncIterable<Uint8Array>;
  remove(): Promise<void>;
}

/** Copies `source` to a temporary file (directory 0700, file 0600), at most `maxBytes`. */
export async function spoolUpload(source: AsyncIterable<Uint8Array | string>, maxBytes: number): Promise<Spooled> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'rampart-upload-'));
  const file = path.join(dir, 'results');
  const remove = () => rm(dir, { recursive: true, force: true });
  let size = 0;
  try {
    await pipeline(
      limitBytes(source, maxBytes),
      async function* (chunks: AsyncIterable<Uint8Array>) {
        for await (const chunk of chunks) {
          size += chunk.length;
          yield chunk;
        }
      },
      createWriteStream(file, { mode: 0o600 }),
    );
  } catch (error) {
    await remove();
    throw error;
  }
  return { size, open: () => createReadStream(file, { highWaterMark: 64 * 1024 }), remove };
}

/**
 * The bytes of an uploaded multipart file, bounded: @fastify/multipart's own size error, or a file
 * it truncated at the limit, becomes the 413 that names the limit (the API's upload and the scan
 * page's upload form alike).
 */
export async function* boundedFileStream(file: AsyncIterable<Uint8Array> & { truncated?: boolean }, maxBytes: number): AsyncGenerator<Uint8Array> {
  try {
    for await (const chunk of file) yield chunk;
  } catch (error) {
    if ((error as { code?: string }).code === 'FST_REQ_FILE_TOO_LARGE') throw tooLarge(maxBytes);
    throw error;
  }
  if (file.truncated) throw tooLarge(maxBytes);
}
