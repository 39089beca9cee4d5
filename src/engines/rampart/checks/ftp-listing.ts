/**
 * Reading FTP `LIST` output (Unix `ls -l` lines, and the MS-DOS/IIS format) and judging, from a
 * directory's own entry, whether the anonymous session can probably write to it. That judgement
 * is an inference from the mode bits and the owner the server shows, never a test: the FTP
 * server's own switches (vsftpd `anon_upload_enable`, ProFTPD `<Limit WRITE>`) are invisible
 * without writing, and Rampart never writes on a scanned host.
 */

/** One entry of a listing. */
export interface FtpEntry {
  name: string;
  type: 'file' | 'dir' | 'link' | 'other';
  /** The 9 permission characters of a Unix listing (`rwxr-xr-x`), or null when the format has none. */
  mode: string | null;
  owner: string | null;
  size: number | null;
}

const MONTH_DATE = String.raw`[A-Za-z]{3}\s+\d{1,2}\s+(?:\d{1,2}:\d{2}|\d{4})`;
// type, mode, links, owner, optional group, size, date, name
const UNIX_LINE = new RegExp(String.raw`^([-dlbcps])([-rwxsStT]{9})[+@.]?\s+\d+\s+(\S+)\s+(?:(\S+)\s+)?(\d+)\s+${MONTH_DATE}\s(.+)$`);
const DOS_LINE = /^\d{2}-\d{2}-\d{2,4}\s+\d{1,2}:\d{2}(?:AM|PM)?\s+(<DIR>|\d+)\s+(.+)$/i;

/** One `LIST` line as an entry; null for `total N`, `.`/`..` and anything unrecognised. */
export function parseListLine(line: string): FtpEntry | null {
  const unix = UNIX_LINE.exec(line);
  if (unix) {
    const [, kind, mode, owner, , size, rawName] = unix as unknown as [string, string, string, string, string | undefined, string, string];
    const type = kind === 'd' ? 'dir' : kind === 'l' ? 'link' : kind === '-' ? 'file' : 'other';
    const name = type === 'link' ? rawName.replace(/ -> .*$/, '') : rawName;
    return name === '.' || name === '..' ? null : { name, type, mode, owner, size: Number(size) };
  }
  const dos = DOS_LINE.exec(line);
  if (dos) {
    const [, size, name] = dos as unknown as [string, string, string];
    const dir = size.toUpperCase() === '<DIR>';
    return name === '.' || name === '..' ? null : { name, type: dir ? 'dir' : 'file', mode: null, owner: null, size: dir ? null : Number(size) };
  }
  return null;
}

/** Every entry of a `LIST` answer, in the server's order. */
export function parseListing(text: string): FtpEntry[] {
  return text.split(/\r?\n/).flatMap((line) => parseListLine(line) ?? []);
}

/** Account names anonymous FTP sessions commonly run as, when the server does not say. */
const ANONYMOUS_ACCOUNTS = new Set(['ftp', 'anonymous', 'ftpuser']);

/** Why a directory looks writable to the anonymous session, and how sure that is. */
export interface WritableGuess {
  reason: string;
  /** `probable`: the mode or the named owner says so; `possible`: a numeric owner that may be the session's account. */
  strength: 'probable' | 'possible';
}

/**
 * Whether a directory entry looks writable by the anonymous session, or null:
 * - probable: its mode lets everyone write (`d???????w?`), or it belongs to the session's own
 *   account (the name `STAT` gave, else `ftp`/`anonymous`) and lets its owner write;
 * - possible: it lets its owner write and the owner is shown as a number other than 0 (vsftpd
 *   and others show numeric owners; the anonymous account is the usual unprivileged owner in an
 *   anonymous tree, but the number cannot be matched to it from outside).
 */
export function writableGuess(entry: FtpEntry, account: string | null): WritableGuess | null {
  if (entry.type !== 'dir' || entry.mode === null) return null;
  const shown = `d${entry.mode} owner ${entry.owner ?? '?'}`;
  if (entry.mode[7] === 'w') return { reason: `${shown}: every user may create files in it`, strength: 'probable' };
  if (entry.owner === null || entry.mode[1] !== 'w') return null;
  const ownAccount = account === null ? ANONYMOUS_ACCOUNTS.has(entry.owner.toLowerCase()) : entry.owner === account;
  if (ownAccount) return { reason: `${shown}: owned by the anonymous session's account, which may write in it`, strength: 'probable' };
  if (/^[1-9]\d*$/.test(entry.owner)) {
    return { reason: `${shown}: its owner may write in it, and uid ${entry.owner} is not root; it may be the anonymous session's account`, strength: 'possible' };
  }
  return null;
}
