/**
 * Unpacks a nuclei-templates release archive (GitHub's `tarball_url`: a gzip'd tar whose entries
 * sit under one top folder) into a fresh directory. The archive must be whole: it is gunzipped in
 * full first (a truncated or corrupt gzip fails its length and CRC check before anything is
 * written), then any tar error or warning refuses it (node-tar in strict mode). Only regular files
 * and directories are written (links could point outside), within a size budget.
 */
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { gunzipSync } from 'node:zlib';
import * as tar from 'tar';

/** Unpacked bytes at most: far above a release (tens of MB), far below a decompression bomb. */
const MAX_UNPACKED_BYTES = 1024 * 1024 * 1024;

/** Unpacks a `.tar.gz` (or plain tar) held in memory into `directory`, dropping the top folder. */
export async function unpackTemplatesArchive(archive: Buffer, directory: string): Promise<{ files: number }> {
  const tarball = archive[0] === 0x1f && archive[1] === 0x8b ? gunzip(archive) : archive;
  let files = 0;
  let bytes = 0;
  let tooLarge = false;
  const unpack = tar.x({
    cwd: directory,
    strip: 1,
    strict: true,
    // No owners or modes from the archive: files are the running account's, under its umask.
    preserveOwner: false,
    noChmod: true,
    filter: (_path, entry) => {
      const type = 'type' in entry ? entry.type : entry.isDirectory() ? 'Directory' : 'File';
      if (type !== 'File' && type !== 'OldFile' && type !== 'Directory') return false;
      if (type !== 'Directory') {
        files++;
        bytes += entry.size ?? 0;
        if (bytes > MAX_UNPACKED_BYTES) tooLarge = true;
      }
      return !tooLarge;
    },
  });
  try {
    await pipeline(Readable.from([tarball]), unpack);
  } catch (error) {
    throw new Error(`The templates archive is damaged or incomplete: ${(error as Error).message}`, { cause: error });
  }
  if (tooLarge) throw tooLargeError();
  return { files };
}

function tooLargeError(): Error {
  return new Error(`The templates archive unpacks to more than ${MAX_UNPACKED_BYTES / 1024 / 1024} MB: refused.`);
}

/** The whole gzip member decompressed, or a clear refusal. */
function gunzip(archive: Buffer): Buffer {
  try {
    return gunzipSync(archive, { maxOutputLength: MAX_UNPACKED_BYTES });
  } catch (error) {
    if (error instanceof RangeError) throw tooLargeError();
    throw new Error(`The templates archive is damaged or incomplete: gzip: ${(error as Error).message}`, { cause: error });
  }
}
