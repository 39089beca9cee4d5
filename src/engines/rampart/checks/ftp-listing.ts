/**
 * Reading FTP listings (`MLSD` facts, RFC 3659; `LIST` output in Unix `ls -l` lines or the
 * MS-DOS/IIS format) and judging, from a directory's own entry, whether the anonymous session can
 * probably write to it. That judgement is never a test (Rampart never writes on a scanned host):
 * from `MLSD`, it is the server's own statement of this session's rights (`perm=` facts); from
 * `LIST`, an inference from the mode bits and the owner, blind to the FTP server's own switches
 * (vsftpd `anon_upload_enable`, ProFTPD `<Limit WRITE>`).
 */

/** One entry of a listing. */
export interface FtpEntry {
  name: string;
  type: 'file' | 'dir' | 'link' | 'other';
  /** The 9 permission characters of a Unix listing (`rwxr-xr-x`), or null when the format has none. */
  mode: string | null;
  owner: string | null;
  size: number | null;
  /** The `perm=` fact of an `MLSD` entry (what this session may do), or null from `LIST`. */
  perm?: string | null;
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

/**
 * The entries of an `MLSD` answer (`fact=value;...; name` lines), and the listed directory's own
 * entry (`type=cdir`) when the server sent one.
 */
export function parseMlsd(text: string): { entries: FtpEntry[]; self: FtpEntry | null } {
  const entries: FtpEntry[] = [];
  let self: FtpEntry | null = null;
  for (const line of text.split(/\r?\n/)) {
    const space = line.indexOf(' ');
    if (space <= 0) continue;
    const facts = new Map(
      line
        .slice(0, space)
        .split(';')
        .filter((fact) => fact.includes('='))
        .map((fact) => [fact.slice(0, fact.indexOf('=')).toLowerCase(), fact.slice(fact.indexOf('=') + 1)] as const),
    );
    const name = line.slice(space + 1);
    const kind = facts.get('type')?.toLowerCase() ?? '';
    const mode = /^[0-7]{3,4}$/.test(facts.get('unix.mode') ?? '') ? modeString(facts.get('unix.mode')!) : null;
    const size = Number(facts.get('size'));
    const entry: FtpEntry = {
      name,
      type: kind === 'dir' || kind === 'cdir' ? 'dir' : kind === 'file' ? 'file' : kind.includes('slink') ? 'link' : 'other',
      mode,
      owner: facts.get('unix.owner') ?? facts.get('unix.uid') ?? null,
      size: Number.isFinite(size) && facts.has('size') ? size : null,
      perm: facts.get('perm')?.toLowerCase() ?? null,
    };
    if (kind === 'cdir') self = entry;
    else if (kind !== 'pdir' && name !== '.' && name !== '..') entries.push(entry);
  }
  return { entries, self };
}

/** `755` -> `rwxr-xr-x`. */
function modeString(octal: string): string {
  return [...octal.slice(-3)].map((digit) => {
    const bits = Number(digit);
    return `${bits & 4 ? 'r' : '-'}${bits & 2 ? 'w' : '-'}${bits & 1 ? 'x' : '-'}`;
  }).join('');
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
 * - probable: its MLSD `perm=` fact grants `c` (create files) or `m` (make directories); or its
 *   mode lets everyone write (`d???????w?`);
 * - possible: it lets its owner write and the owner is the session's own account (the name `STAT`
 *   gave, else `ftp`/`anonymous`) or a number other than 0. Only possible: vsftpd's `hide_ids`
 *   shows every owner as `ftp`, so an ordinary read-only `drwxr-xr-x ftp ftp pub` looks owned by
 *   the session; and a numeric owner cannot be matched to the anonymous account from outside.
 */
export function writableGuess(entry: FtpEntry, account: string | null): WritableGuess | null {
  if (entry.type !== 'dir') return null;
  // The server's own word on this session beats any reading of mode bits.
  if (entry.perm !== undefined && entry.perm !== null) {
    const rights = [entry.perm.includes('c') ? 'create files' : null, entry.perm.includes('m') ? 'make directories' : null].filter((right) => right !== null);
    return rights.length === 0 ? null : { reason: `MLSD perm=${entry.perm}: the server says this session may ${rights.join(' and ')} in it`, strength: 'probable' };
  }
  if (entry.mode === null) return null;
  const shown = `d${entry.mode} owner ${entry.owner ?? '?'}`;
  if (entry.mode[7] === 'w') return { reason: `${shown}: every user may create files in it`, strength: 'probable' };
  if (entry.owner === null || entry.mode[1] !== 'w') return null;
  const ownAccount = account === null ? ANONYMOUS_ACCOUNTS.has(entry.owner.toLowerCase()) : entry.owner === account;
  if (ownAccount) {
    return { reason: `${shown}: shown as owned by the anonymous session's account, which may write in it (servers that hide owners show every entry so)`, strength: 'possible' };
  }
  if (/^[1-9]\d*$/.test(entry.owner)) {
    return { reason: `${shown}: its owner may write in it, and uid ${entry.owner} is not root; it may be the anonymous session's account`, strength: 'possible' };
  }
  return null;
}
