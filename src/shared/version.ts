/** The package version (package.json), reported by the CLI, the server card and the logs. */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The nearest package.json above this module: works from src/ (tsx) and from dist/ alike. */
function findPackageJson(): string {
  for (let dir = path.dirname(fileURLToPath(import.meta.url)); ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'package.json');
    if (existsSync(candidate)) return candidate;
    if (path.dirname(dir) === dir) throw new Error('package.json not found above ' + fileURLToPath(import.meta.url));
  }
}

const packageJson = findPackageJson();
const pkg = JSON.parse(readFileSync(packageJson, 'utf8')) as { version: string };
/** The installed package's root directory (assets/, dist/client/ are found from it). */
export const PACKAGE_ROOT: string = path.dirname(packageJson);
export const VERSION: string = pkg.version;
/** The interface version of the API contract (spec "Versioning"). */
export const API_VERSION = '1.2.0';
