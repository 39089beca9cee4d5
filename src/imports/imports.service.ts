/**
 * Importing a results file into a scan (POST /api/scans/{uuid}/results, `rampart import`): the
 * owner's scan (404 for anyone else's), the file spooled within RAMPART_UPLOAD_MAX_BYTES (413),
 * its tool detected from the content and parsed by the importers (422), and its hosts and
 * findings recorded as a completed run through the run recorder, in one transaction.
 */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { Config } from '../config.js';
import type { Db } from '../db/database.js';
import type { Scan } from '../db/schema.js';
import type { EngineEvent } from '../engines/engine.js';
import { importFile } from '../engines/importers/import-file.js';
import { importRun } from '../runs/run-import.service.js';
import { findScanByUuid, requireScan } from '../scans/scans.service.js';
import { AppError, fieldError, notFound } from '../shared/errors.js';
import type { Logger } from '../shared/logger.js';
import { spoolUpload, tooLarge } from './upload-spool.js';

/** What an import did. */
export interface ImportOutcome {
  runIndex: number;
  findings: number;
  hostsUp: number;
  hostsDown: number;
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
    return await importInto(deps, scan, spooled.open());
  } finally {
    await spooled.remove();
  }
}

/**
 * Imports a local file into the scan `uuid` of any account (`rampart import`, an administrator's
 * command): no spooling, a local file is not a slow client.
 */
export async function importResultsFile(deps: ImportDeps, uuid: string, file: string): Promise<ImportOutcome> {
  const scan = await findScanByUuid(deps.db, uuid.toLowerCase());
  if (!scan) throw notFound('Scan');
  const size = await stat(file).then(
    (s) => s.size,
    () => {
      throw new AppError('validation_failed', `Cannot read ${file}.`);
    },
  );
  if (size > deps.config.uploadMaxBytes) throw tooLarge(deps.config.uploadMaxBytes);
  return importInto(deps, scan, createReadStream(file, { highWaterMark: 64 * 1024 }));
}

/** Detects, parses and records one file, counting the hosts as they pass. */
async function importInto(deps: ImportDeps, scan: Scan, source: AsyncIterable<Uint8Array | string>): Promise<ImportOutcome> {
  try {
    const { engine, events } = await importFile(source);
    const hosts = new Map<string, boolean>();
    async function* counted(): AsyncGenerator<EngineEvent> {
      for await (const event of events) {
        if (event.type === 'host') hosts.set(event.address, event.state === 'up' || hosts.get(event.address) === true);
        yield event;
      }
    }
    const { runIndex, findings } = await importRun(deps, scan, { engine, events: counted() });
    const up = [...hosts.values()].filter(Boolean).length;
    return { runIndex, findings, hostsUp: up, hostsDown: hosts.size - up, engine };
  } catch (error) {
    // The importers say what is wrong with the file; the API names the field it came in.
    if (error instanceof AppError && error.code === 'validation_failed' && !error.errors) throw fieldError('file', error.message);
    throw error;
  }
}
