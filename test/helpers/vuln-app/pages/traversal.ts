import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { VulnAppContext, VulnPage } from '../app.js';
import { escapeHtml, page, param } from '../app.js';

/** The documents the viewer shows, written to the app's private directory on first use. */
async function documentsDir(ctx: VulnAppContext): Promise<string> {
  const dir = path.join(ctx.dir, 'documents');
  await mkdir(dir, { recursive: true });
  await writeFile(path.join(dir, 'about.txt'), 'Rampart test application: a document viewer.\n');
  return dir;
}

/** Shows a document's text, or a generic error (the file system's message never reaches the page). */
async function showDocument(file: string, reply: Parameters<VulnPage['handle']>[1]): Promise<unknown> {
  try {
    const text = await readFile(file, 'utf8');
    return reply.type('text/html').send(page('Document', `<pre>${escapeHtml(text)}</pre>`));
  } catch {
    return reply.code(404).type('text/html').send(page('Document', '<p>No such document.</p>'));
  }
}

/** The path traversal pages and their safe twins. */
export const PAGES: VulnPage[] = [
  {
    path: '/view',
    link: '/view?file=about.txt',
    title: 'Document viewer',
    expect: { ruleId: 'rampart:web-path-traversal', parameter: 'file' },
    // Vulnerable: the name is joined to the documents directory unchecked, so "../" climbs out of it.
    handle: async (request, reply, ctx) => showDocument(path.join(await documentsDir(ctx), param(request, 'file')), reply),
  },
  {
    path: '/safe/view',
    link: '/safe/view?file=about.txt',
    title: 'Document viewer (safe)',
    handle: async (request, reply, ctx) => {
      const dir = await documentsDir(ctx);
      const file = path.resolve(dir, param(request, 'file'));
      // Safe: the resolved path must stay inside the documents directory (and name no NUL byte).
      if (!file.startsWith(dir + path.sep) || file.includes('\0')) return reply.code(400).type('text/html').send(page('Document', '<p>Invalid document name.</p>'));
      return showDocument(file, reply);
    },
  },
  {
    path: '/docs/:name',
    link: '/docs/about.txt',
    title: 'Documents by path',
    // Vulnerable: the path segment (decoded, so "..%2f" is "../") is joined to the documents directory unchecked.
    // No `expect`: the finding's URL is the folder (/docs/), which is not this route's path.
    handle: async (request, reply, ctx) => showDocument(path.join(await documentsDir(ctx), (request.params as { name: string }).name), reply),
  },
  {
    path: '/safe/docs/:name',
    link: '/safe/docs/about.txt',
    title: 'Documents by path (safe)',
    // Safe: only a plain file name of the directory.
    handle: async (request, reply, ctx) => {
      const name = (request.params as { name: string }).name;
      if (name !== path.basename(name) || name.startsWith('.')) return reply.code(400).type('text/html').send(page('Document', '<p>Invalid document name.</p>'));
      return showDocument(path.join(await documentsDir(ctx), name), reply);
    },
  },
];
