/**
 * `rampart templates sync`: installs the latest community nuclei-templates release into the
 * templates directory, atomically. The release JSON (GitHub's `releases/latest`, or a mirror)
 * names the archive (`tarball_url`); the archive is downloaded (time-limited, retried), unpacked
 * into a fresh directory beside the target, and verified there:
 * - the archive must be whole (templates-archive.ts refuses any gzip or tar error);
 * - every template's ProjectDiscovery signature is checked (templates/signature.ts). A template that
 *   does not verify, and an unsigned template that is not a workflow, is removed from the set and
 *   listed in the manifest; when fewer than MIN_VERIFIED_SHARE of them verify, the whole release is
 *   refused (a wrong key, a tampered mirror).
 * Only then the new directory replaces the old one by renames; on any failure the old set stays
 * and the temporary directory is removed.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parseTemplate, isTemplateFailure } from '../engines/nuclei/templates/parse-template.js';
import { verifyTemplateSignature } from '../engines/nuclei/templates/signature.js';
import { download } from '../vulndb/download.js';
import { unpackTemplatesArchive } from './templates-archive.js';
import { SYNC_MANIFEST, type SyncManifest } from '../engines/nuclei/templates/sync-manifest.js';

/** A release is refused when fewer of its signed templates verify than this share. */
export const MIN_VERIFIED_SHARE = 0.95;

/** What a sync needs. */
export interface TemplatesSyncOptions {
  /** The release JSON (`tag_name`, `tarball_url`). */
  releaseUrl: string;
  /** The templates directory to replace. */
  directory: string;
  /** The longest wait for a response, then for each next piece of a download. */
  timeoutMs: number;
  retries: number;
  progress: (line: string) => void;
  /** Delay before retry n is n times this (default 2000 ms). */
  retryDelayMs?: number;
}

const MB = 1024 * 1024;
/** A release archive is tens of MB; a body past this is no release (or an endless stream). */
const MAX_ARCHIVE_BYTES = 512 * MB;

/** `tag_name` and `tarball_url` of a release JSON, or an error naming what is missing. */
function readRelease(body: Buffer, url: string): { tag: string; archiveUrl: string } {
  let release: unknown;
  try {
    release = JSON.parse(body.toString('utf8'));
  } catch {
    throw new Error(`The release description at ${url} is not JSON.`);
  }
  const r = (release ?? {}) as Record<string, unknown>;
  if (typeof r.tarball_url !== 'string' || !/^https?:\/\//.test(r.tarball_url)) {
    throw new Error(`The release description at ${url} has no tarball_url.`);
  }
  return { tag: typeof r.tag_name === 'string' ? r.tag_name : 'unknown', archiveUrl: r.tarball_url };
}

/** Every `.yaml` file below a directory (relative paths). */
async function yamlFiles(directory: string): Promise<string[]> {
  return ((await readdir(directory, { recursive: true })) as string[]).filter((name) => name.toLowerCase().endsWith('.yaml')).sort();
}

/**
 * Checks every template's signature in a freshly unpacked set; removes the ones that fail. A
 * template without a digest must be a workflow (never signed upstream), or a file that is no
 * template at all (a config file): anything else unsigned is removed too.
 */
async function verifySet(directory: string): Promise<Pick<SyncManifest, 'templates' | 'signed' | 'verified' | 'removed'>> {
  const files = await yamlFiles(directory);
  let signed = 0;
  let verified = 0;
  const removed: string[] = [];
  for (const file of files) {
    const content = await readFile(path.join(directory, file));
    const verdict = verifyTemplateSignature(content);
    if (verdict === 'unsigned') {
      const parsed = parseTemplate(content.toString('utf8'), file);
      const runnable = !isTemplateFailure(parsed) && parsed.protocols.some((p) => p !== 'workflows');
      if (!runnable) continue;
    } else {
      signed++;
      if (verdict === 'verified') {
        verified++;
        continue;
      }
    }
    removed.push(file.split(path.sep).join('/'));
    await rm(path.join(directory, file));
  }
  return { templates: files.length, signed, verified, removed };
}

/** Replaces `target` by `fresh` with renames; the old set is restored when the second rename fails. */
async function swapIn(fresh: string, target: string, suffix: string): Promise<boolean> {
  const old = `${target}.old-${suffix}`;
  let replaced = false;
  try {
    await rename(target, old);
    replaced = true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  try {
    await rename(fresh, target);
  } catch (error) {
    if (replaced) await rename(old, target);
    throw error;
  }
  if (replaced) await rm(old, { recursive: true, force: true });
  return replaced;
}

/** Runs a sync; returns the manifest of the installed set. Throws an Error a person can act on. */
export async function syncTemplates(options: TemplatesSyncOptions): Promise<SyncManifest> {
  const { progress } = options;
  const target = path.resolve(options.directory);
  const fetchOptions = { timeoutMs: options.timeoutMs, retries: options.retries, retryDelayMs: options.retryDelayMs ?? 2000, onRetry: progress };
  progress(`release: reading ${options.releaseUrl}`);
  const releaseBody = await download(options.releaseUrl, {
    ...fetchOptions,
    label: 'Templates release',
    headers: { accept: 'application/vnd.github+json', 'user-agent': 'rampart' },
  });
  const { tag, archiveUrl } = readRelease(releaseBody, options.releaseUrl);
  progress(`release ${tag}: downloading ${archiveUrl}`);
  let reported = 0;
  const tooLarge = new AbortController();
  const archive = await download(archiveUrl, {
    ...fetchOptions,
    label: 'Templates archive',
    headers: { 'user-agent': 'rampart' },
    signal: tooLarge.signal,
    onBytes: (received) => {
      if (received > MAX_ARCHIVE_BYTES) tooLarge.abort();
      if (received - reported < 5 * MB) return;
      reported = received;
      progress(`downloaded ${(received / MB).toFixed(1)} MB`);
    },
  }).catch((error: unknown) => {
    if (tooLarge.signal.aborted) throw new Error(`The templates archive at ${archiveUrl} is larger than ${MAX_ARCHIVE_BYTES / MB} MB: refused.`);
    throw error;
  });
  const archiveSha256 = createHash('sha256').update(archive).digest('hex');
  progress(`downloaded ${(archive.length / MB).toFixed(1)} MB (sha256 ${archiveSha256})`);

  await mkdir(path.dirname(target), { recursive: true });
  const suffix = randomBytes(6).toString('hex');
  const fresh = `${target}.new-${suffix}`;
  await mkdir(fresh);
  try {
    const { files } = await unpackTemplatesArchive(archive, fresh);
    progress(`unpacked ${files} files; verifying signatures`);
    const checked = await verifySet(fresh);
    // Judged: the signed templates and the unsigned ones that are not workflows.
    const judged = checked.verified + checked.removed.length;
    const share = judged === 0 ? 0 : checked.verified / judged;
    progress(`signatures: ${checked.verified} of ${judged} templates verify (${(100 * share).toFixed(1)}%)`);
    if (judged === 0 || share < MIN_VERIFIED_SHARE) {
      throw new Error(
        `Release ${tag} refused: ${checked.verified} of ${judged} templates carry a valid ProjectDiscovery signature ` +
          `(at least ${100 * MIN_VERIFIED_SHARE}% must). The installed templates are unchanged.`,
      );
    }
    const manifest: SyncManifest = { release: tag, archiveUrl, archiveSha256, syncedAt: new Date().toISOString(), ...checked };
    await writeFile(path.join(fresh, SYNC_MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`);
    const replaced = await swapIn(fresh, target, suffix);
    const left = checked.removed.length > 0 ? `; ${checked.removed.length} left out (not verified): ${checked.removed.slice(0, 5).join(', ')}${checked.removed.length > 5 ? ', ...' : ''}` : '';
    progress(`installed ${tag} into ${target}${replaced ? ' (replacing the previous set)' : ''}${left}`);
    return manifest;
  } finally {
    // Retries: a refused archive's last writes may still be settling.
    await rm(fresh, { recursive: true, force: true, maxRetries: 5 });
  }
}
