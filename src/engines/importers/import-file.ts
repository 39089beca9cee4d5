/**
 * The one entry point for an uploaded results file: detect the tool from the content, then hand
 * the stream to its importer.
 */
import { ACCEPTED_FORMATS, peekFormat, type ImportFormat } from './detect-format.js';
import { invalidFile, type ImportedResults, type ImportSource } from './importer.js';
import { importNmap } from './nmap.importer.js';
import { importNuclei } from './nuclei.importer.js';
import { importOpenvasCsv, importOpenvasXml } from './openvas.importer.js';
import { importZapJson, importZapXml } from './zap.importer.js';

const IMPORTERS: Record<ImportFormat, (source: ImportSource) => Promise<ImportedResults>> = {
  'nmap-xml': importNmap,
  'openvas-xml': importOpenvasXml,
  'openvas-csv': importOpenvasCsv,
  'zap-xml': importZapXml,
  'zap-json': importZapJson,
  'nuclei-json': importNuclei,
};

/**
 * Reads a results file of any supported tool. An empty file or an unknown format throws
 * AppError('validation_failed') naming the formats accepted.
 */
export async function importFile(source: ImportSource): Promise<ImportedResults & { format: ImportFormat }> {
  const { format, stream } = await peekFormat(source);
  if (format === 'empty') throw invalidFile(`The results file is empty. Accepted formats: ${ACCEPTED_FORMATS}.`);
  if (format === null) throw invalidFile(`The results file is in no format Rampart reads. Accepted formats: ${ACCEPTED_FORMATS}.`);
  return { format, ...(await IMPORTERS[format](stream)) };
}

export { ACCEPTED_FORMATS, type ImportFormat } from './detect-format.js';
export type { ImportedResults, ImportSource } from './importer.js';
