/**
 * Unrestricted file upload (CWE-434): a multipart form with a file field is sent a harmless text
 * file under a server-script name (`rampart-<token>.php`, then `.phtml`, then `.jsp` while the
 * server refuses), and a finding needs the file served back from the site under that extension
 * with its content: found through the links of the answer or of the form's page, or at the usual
 * upload folders next to the form's action. The file holds a plain text marker and no code, and
 * stays on the server (the finding says where).
 */
import type { CheckContext, Endpoint, WebCheck, WebResponse, WebRule } from '../contract.js';
import { requestFor } from '../inputs.js';
import { linksOf } from './html.js';
import { sendProbe, whileBudgetLasts } from './probe.js';
import { webRule } from './rule.js';

const EXTENSIONS = ['php', 'phtml', 'jsp'];
const FOLDERS = ['uploads/', 'upload/', 'files/', 'images/', 'media/', 'static/uploads/', ''];

/** Where the stored file may be served: links that name it, then the usual folders beside the action and at the root. */
function candidates(name: string, endpoint: Endpoint, pages: WebResponse[], ctx: CheckContext): string[] {
  const linked = pages.flatMap((p) => linksOf(p.body, p.url)).filter((url) => url.includes(name));
  const action = new URL(endpoint.url);
  const guessed = [new URL('./', action), new URL('/', action)].flatMap((dir) => FOLDERS.map((folder) => new URL(`${folder}${name}`, dir).href));
  return [...new Set([...linked, ...guessed].map((url) => url.replace(/#.*$/, '')))].filter((url) => ctx.client.inScope(url));
}

async function testEndpoint(endpoint: Endpoint, ctx: CheckContext): Promise<void> {
  const fileField = endpoint.body?.encoding === 'multipart' ? endpoint.body.fields.find((f) => f.type === 'file') : undefined;
  if (endpoint.method !== 'POST' || !fileField) return;
  await whileBudgetLasts(ctx, async () => {
    for (const extension of EXTENSIONS) {
      const token = ctx.token();
      const name = `rampart-${token}.${extension}`;
      const marker = `rampart-upload-${token}`;
      const content = `${marker}: a harmless text file the Rampart web scanner uploaded to test this form; it contains no code.\n`;
      const answer = await sendProbe(ctx, requestFor(endpoint, { files: { [fileField.name]: { filename: name, contentType: 'text/plain', content } } }), { followRedirects: true });
      if (!answer) return;
      // Refused: try the next extension (a block list may miss it); accepted but not found: more files would not be found either.
      if (answer.status >= 400) continue;
      const formPage = await sendProbe(ctx, { method: 'GET', url: endpoint.foundOn }, { followRedirects: true });
      for (const url of candidates(name, endpoint, formPage ? [answer, formPage] : [answer], ctx)) {
        const served = await sendProbe(ctx, { method: 'GET', url });
        if (!served || served.status !== 200 || !served.body.includes(marker) || new URL(served.url).pathname.split('/').pop() !== name) continue;
        ctx.report({
          ruleId: 'rampart:web-file-upload',
          url: endpoint.url,
          method: 'POST',
          parameter: fileField.name,
          location: 'body',
          proof: [answer, served],
          summary: `The form accepted ${name} (a plain text file, no code) in the field "${fileField.name}" and the site serves it back with its script extension at ${served.url} (content-type ${served.headers['content-type'] ?? 'none'}); whether the server would run code in such a file was not tested. The harmless file remains on the server at ${served.url}: delete it.`,
          highlight: marker,
        });
        return;
      }
      return;
    }
  });
}

export const CHECKS: WebCheck[] = [{ id: 'upload', kind: 'active', testEndpoint }];

export const RULES: WebRule[] = [
  webRule({
    ruleId: 'rampart:web-file-upload',
    name: 'Unrestricted file upload',
    description: 'A form stores uploaded files under the name and extension the client chose, with any content, and the site serves them back. A file with a server-script extension (.php, .jsp) becomes code the server may run, and an .html or .svg file becomes a page that runs script in the site\'s origin.',
    solution: 'Accept only the file types the feature needs, checked by content as well as extension; store uploads under names the server generates, outside the web root (or on a separate domain), and serve them with a fixed safe content type and `Content-Disposition: attachment`; never let the web server execute files in the upload folder.',
    cwe: 'CWE-434',
    references: ['https://owasp.org/www-community/vulnerabilities/Unrestricted_File_Upload', 'https://cheatsheetseries.owasp.org/cheatsheets/File_Upload_Cheat_Sheet.html'],
    threat: 'Medium',
    cvssVector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:L/I:L/A:N',
    reason: 'Proven: a file with a script extension is stored and served back from the site; running code in it was not tried (the test file holds none), so the impact is rated as content planted on the site, not code execution, which would make it Critical.',
  }),
];
