/** Where the project's shared third-party data lives: `../shared` beside the repository. */
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root, from src/test (tsx) or dist/test (compiled) alike. */
function repositoryRoot(): string {
  const here = path.dirname(fileURLToPath(import.meta.url));
  return path.resolve(here, here.includes(`${path.sep}dist${path.sep}`) ? '../../..' : '../..');
}

export const SHARED_DIR = process.env.RAMPART_SHARED_DIR ?? path.join(repositoryRoot(), '..', 'shared');
