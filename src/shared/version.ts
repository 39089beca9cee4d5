/** The package version (package.json), reported by the CLI, the server card and the logs. */
import { readFileSync } from 'node:fs';

const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string };
export const VERSION: string = pkg.version;
/** The interface version of the API contract (spec "Versioning"). */
export const API_VERSION = '1.2.0';
