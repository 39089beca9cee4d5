import { randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { UploadedFile, VulnAppContext, VulnPage } from '../app.js';
import { escapeHtml, page } from '../app.js';

/** A directory of the app's private directory, made on first use. */
async function directory(ctx: VulnAppContext, name: string): Promise<string> {
  const dir = path.join(ctx.dir, name);
  await mkdir(dir, { recursive: true });
  return dir;
}

async function uploadForm(action: string, dir: string, served: string): Promise<string> {
  const names = await readdir(dir);
  const list = names.map((name) => `<li><a href="${served}/${encodeURIComponent(name)}">${escapeHtml(name)}</a></li>`).join('');
  return `<form method="post" action="${action}" enctype="multipart/form-data"><label>Title <input name="title" value=""></label> <input type="file" name="file"> <button type="submit">Upload</button></form>\n<ul>${list}</ul>`;
}

function uploadedFile(request: FastifyRequest): UploadedFile | null {
  const value = (request.body as Record<string, unknown> | undefined)?.file;
  return value && typeof value === 'object' && 'filename' in value ? (value as UploadedFile) : null;
}

/** Serves a stored file by name (basename only), with the given content type. */
async function serve(dir: string, request: FastifyRequest, reply: FastifyReply, type: string): Promise<unknown> {
  const name = path.basename((request.params as { name: string }).name);
  try {
    return reply.type(type).send(await readFile(path.join(dir, name)));
  } catch {
    return reply.code(404).type('text/plain').send('Not found\n');
  }
}

const IMAGES: Record<string, { type: string; magic: Buffer }> = {
  '.png': { type: 'image/png', magic: Buffer.from([0x89, 0x50, 0x4e, 0x47]) },
  '.jpg': { type: 'image/jpeg', magic: Buffer.from([0xff, 0xd8, 0xff]) },
  '.gif': { type: 'image/gif', magic: Buffer.from('GIF8') },
};

/** The file upload pages and their safe twins. */
export const PAGES: VulnPage[] = [
  {
    path: '/upload',
    methods: ['GET', 'POST'],
    link: '/upload',
    title: 'Upload a picture',
    expect: { ruleId: 'rampart:web-file-upload', parameter: 'file', method: 'POST' },
    // Vulnerable: any name and content are stored as sent and served from /uploads/.
    handle: async (request, reply, ctx) => {
      const dir = await directory(ctx, 'uploads');
      const file = request.method === 'POST' ? uploadedFile(request) : null;
      if (request.method === 'POST') {
        if (!file?.filename) return reply.code(400).type('text/html').send(page('Upload', '<p>Choose a file.</p>'));
        const name = path.basename(file.filename);
        await writeFile(path.join(dir, name), file.content);
        return reply.type('text/html').send(page('Upload', `<p>Stored <a href="/uploads/${encodeURIComponent(name)}">${escapeHtml(name)}</a>.</p>`));
      }
      return reply.type('text/html').send(page('Upload a picture', await uploadForm('/upload', dir, '/uploads')));
    },
  },
  {
    path: '/uploads/:name',
    title: 'An uploaded file',
    handle: async (request, reply, ctx) => serve(await directory(ctx, 'uploads'), request, reply, 'application/octet-stream'),
  },
  {
    path: '/safe/upload',
    methods: ['GET', 'POST'],
    link: '/safe/upload',
    title: 'Upload a picture (safe)',
    // Safe: only PNG, JPEG and GIF, by extension and by content, stored under a name of the server's choosing.
    handle: async (request, reply, ctx) => {
      const dir = await directory(ctx, 'uploads-safe');
      if (request.method === 'GET') return reply.type('text/html').send(page('Upload a picture', await uploadForm('/safe/upload', dir, '/safe/uploads')));
      const file = uploadedFile(request);
      const image = IMAGES[path.extname(file?.filename ?? '').toLowerCase()];
      if (!file || !image || !file.content.subarray(0, image.magic.length).equals(image.magic)) {
        return reply.code(400).type('text/html').send(page('Upload', '<p>Only PNG, JPEG and GIF pictures are accepted.</p>'));
      }
      const name = `${randomBytes(8).toString('hex')}${path.extname(file.filename).toLowerCase()}`;
      await writeFile(path.join(dir, name), file.content);
      return reply.type('text/html').send(page('Upload', `<p>Stored <a href="/safe/uploads/${name}">your picture</a>.</p>`));
    },
  },
  {
    path: '/safe/uploads/:name',
    title: 'An uploaded picture',
    handle: async (request, reply, ctx) => {
      const name = path.basename((request.params as { name: string }).name);
      return serve(await directory(ctx, 'uploads-safe'), request, reply, IMAGES[path.extname(name)]?.type ?? 'application/octet-stream');
    },
  },
];
