/**
 * ZAP login scripts: user code, stored under `<data dir>/login-scripts/<scan uuid>.py` with mode
 * 0600. The Scan resource shows the path relative to the data directory.
 */
import fs from 'node:fs/promises';
import path from 'node:path';

const DIR = 'login-scripts';

/** Decodes and checks a base64 script; returns the text or a message fit for a 422. */
export function decodeLoginScript(base64: string, maxBytes: number): { ok: true; text: string } | { ok: false; error: string } {
  const compact = base64.replace(/\s+/g, '');
  if (compact.length === 0) return { ok: false, error: 'The zap login script field must not be empty.' };
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(compact) || compact.length % 4 !== 0) {
    return { ok: false, error: 'The zap login script field must be valid base64.' };
  }
  const bytes = Buffer.from(compact, 'base64');
  if (bytes.length > maxBytes) return { ok: false, error: `The zap login script must not be larger than ${maxBytes} bytes.` };
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return { ok: false, error: 'The zap login script must be a text file (UTF-8).' };
  }
  if (text.includes('\u0000')) return { ok: false, error: 'The zap login script must be a text file, not binary data.' };
  if (text.trim().length === 0) return { ok: false, error: 'The zap login script must not be empty.' };
  return { ok: true, text };
}

/** Writes the script; returns its storage path relative to the data directory. */
export async function storeLoginScript(dataDir: string, scanUuid: string, text: string): Promise<string> {
  const relative = path.posix.join(DIR, `${scanUuid}.py`);
  await fs.mkdir(path.join(dataDir, DIR), { recursive: true, mode: 0o700 });
  await fs.writeFile(path.join(dataDir, relative), text, { mode: 0o600 });
  return relative;
}

export async function removeLoginScript(dataDir: string, relative: string | null): Promise<void> {
  if (!relative) return;
  await fs.rm(path.join(dataDir, relative), { force: true });
}

/**
 * The login script a run replays: the text stored with the scan, or (scans stored before the text
 * was) the file. Null when the scan has none; an error naming the file when it is gone.
 */
export async function loginScriptOf(dataDir: string, scan: { zap_authenticated: boolean; zap_login_script: string | null; login_script: string | null }): Promise<string | null> {
  if (!scan.zap_authenticated) return null;
  if (scan.login_script !== null) return scan.login_script;
  if (!scan.zap_login_script) return null;
  return fs.readFile(path.join(dataDir, scan.zap_login_script), 'utf8');
}
