/**
 * POST /api/scans/{uuid}/results: a scanner's results file as the raw body (XML, JSON, JSON
 * Lines, CSV) or as the multipart field `file`. The content type only says how the body is
 * wrapped; the tool is detected from the content. The content type parsers are registered in this
 * plugin only and hand the route the raw request stream, so the body is never buffered whole.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import multipart from '@fastify/multipart';
import { Type } from 'typebox';
import type { IncomingMessage } from 'node:http';
import { authErrors, UuidParamsSchema } from '../http/schemas.js';
import { AppError, fieldError } from '../shared/errors.js';
import { ACCEPTED_FORMATS } from '../engines/importers/import-file.js';
import { importResults } from './imports.service.js';
import { boundedFileStream, tooLarge } from './upload-spool.js';

/** The content types a raw results file may be sent with. */
export const RAW_CONTENT_TYPES = ['application/xml', 'text/xml', 'application/json', 'application/x-ndjson', 'text/plain', 'text/csv'];

const unsupported = () =>
  new AppError('unsupported_media_type', `Unsupported Content-Type: send the results file as ${RAW_CONTENT_TYPES.join(', ')} or multipart/form-data (field "file").`);

const EMPTY: AsyncIterable<Uint8Array> = { async *[Symbol.asyncIterator]() {} };

export const importRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const maxBytes = app.ctx.config.uploadMaxBytes;
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(RAW_CONTENT_TYPES, (_request, payload, done) => done(null, payload));
  app.addContentTypeParser('*', (_request, _payload, done) => done(unsupported(), undefined));
  await app.register(multipart, { limits: { fileSize: maxBytes, files: 1, fields: 0, parts: 1 } });

  app.post(
    '/scans/:uuid/results',
    {
      // 413 before reading a byte when the client announces the length.
      onRequest: async (request) => {
        const length = Number(request.headers['content-length'] ?? 0);
        if (length > maxBytes + 64 * 1024) throw tooLarge(maxBytes);
      },
      schema: {
        tags: ['Scans'],
        security: [{ bearerAuth: [] }],
        summary: 'Upload a scanner results file',
        description:
          `Records the file as a completed run of the scan (engine: the tool that wrote it). Body: the raw file (${RAW_CONTENT_TYPES.join(', ')}) ` +
          `or multipart/form-data with the field "file". Formats, detected from the content: ${ACCEPTED_FORMATS}. ` +
          'At most RAMPART_UPLOAD_MAX_BYTES (413 beyond). Uploading the same file again labels its findings still_open.',
        consumes: [...RAW_CONTENT_TYPES, 'multipart/form-data'],
        params: UuidParamsSchema,
        response: {
          201: Type.Object({ message: Type.String(), run_index: Type.Integer() }),
          404: Type.Ref('Error'),
          409: Type.Ref('Error'),
          413: Type.Ref('Error'),
          415: Type.Ref('Error'),
          422: Type.Ref('ValidationError'),
          ...authErrors,
        },
      },
    },
    async (request, reply) => {
      let body: AsyncIterable<Uint8Array | string>;
      if (request.isMultipart()) {
        const part = await request.file().catch((error: unknown) => {
          throw fieldError('file', `The multipart body is malformed: ${(error as Error).message}`);
        });
        if (!part) throw fieldError('file', 'The multipart body has no "file" field.');
        if (part.fieldname !== 'file') throw fieldError('file', `The multipart field must be called "file", not "${part.fieldname}".`);
        body = boundedFileStream(part.file, maxBytes);
      } else {
        body = (request.body as IncomingMessage | undefined) ?? EMPTY;
      }
      const outcome = await importResults({ db: app.ctx.db, config: app.ctx.config, log: request.log }, request.principal!.user.id, request.params.uuid, body);
      return reply.code(201).send({
        message: `Results imported: ${outcome.findings} finding${outcome.findings === 1 ? '' : 's'} from ${outcome.engine.name} ${outcome.engine.version} recorded as run ${outcome.runIndex}.`,
        run_index: outcome.runIndex,
      });
    },
  );
};

