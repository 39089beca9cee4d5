/**
 * Importing a results file into a scan (POST /api/scans/{uuid}/results, `rampart import`): the
 * owner's scan (404 for anyone else's), the file spooled within RAMPART_UPLOAD_MAX_BYTES (413),
 * its tool detected from the content and parsed by the importers (422), and its hosts and
 * findings recorded as a completed run through the run recorder, in one transaction.
 */
import type { Config } from '../config.js';
import type { Db } from '../db/database.js';
import type { Logger } from '../shared/logger.js';
import { importFile } from '../engines/importers/import-file.js';
import { importRun } from '../runs/run-import.service.js';
import { requireScan } from '../scans/scans.service.js';
import { AppError, fieldError } from '../shared/errors.js';
import { spoolUpload } from './upload-spool.js';

/** What an import did. */
export interface ImportOutcome {
  runIndex: number;
  findings: number;
  engine: { name: string; version: string };
}

/** What importing needs. */
export interface ImportDeps {
  db: Db;
  config: Config;
  log: Logger;
}

/** Imports the results file `body` into the scan `uuid` of user `userId`. */
export async function importResults(deps: ImportDeps, userId: number, uuid: string, body: AsyncIterable<Uint8Array | string>): Promise<ImportOutcome> {
  const scan = await requireScan(deps.db, userId, uuid);
  const spooled = await spoolUpload(body, deps.config.uploadMaxBytes);
  try {
    const { engine, events } = await importFile(spooled.open());
    const { runIndex, findings } = await importRun(deps, scan, { engine, events });
    return { runIndex, findings, engine };
  } catch (error) {
    // The importers say what is wrong with the file; the API names the field it came in.
    if (error instanceof AppError && error.code === 'validation_failed' && !error.errors) throw fieldError('file', error.message);
    throw error;
  } finally {
    await spooled.remove();
  }
}
