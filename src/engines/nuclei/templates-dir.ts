/**
 * Whether a templates directory can serve Nuclei scans: it exists and holds at least one `.yaml`
 * file. Asked each time a scan is created or a run claimed (cheap: the walk stops at the first
 * template), so a `rampart templates sync` makes Nuclei scans available without a restart.
 */
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';

/** Directories visited before the walk gives up looking for a template. */
const MAX_DIRECTORIES = 2000;

function holdsTemplate(root: string): boolean {
  const queue = [root];
  for (let visited = 0; queue.length > 0 && visited < MAX_DIRECTORIES; visited += 1) {
    const dir = queue.shift()!;
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      continue;
    }
    if (entries.some((e) => e.isFile() && e.name.toLowerCase().endsWith('.yaml'))) return true;
    // Hidden folders (.git, .github) hold no templates.
    for (const e of entries) if (e.isDirectory() && !e.name.startsWith('.')) queue.push(path.join(dir, e.name));
  }
  return false;
}

/** Why the directory cannot serve Nuclei scans, as the end of a sentence; undefined when it can. */
export function findTemplatesDirProblem(directory: string): string | undefined {
  try {
    if (!statSync(directory).isDirectory()) return `${directory} is not a directory`;
  } catch {
    return `${directory} does not exist`;
  }
  return holdsTemplate(directory) ? undefined : `${directory} holds no .yaml template`;
}
