import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import busboy from 'busboy';
import type { Request } from 'express';
import { ApiError } from '@kith/platform';
import type { ReceivedFile, UploadedFile } from '../domain/attachments.service.js';

export interface MultipartLimits {
  maxFiles: number;
  maxFileBytes: number;
  maxRequestBytes: number;
}

export interface MultipartBody {
  /** `payload_json`, or the plain form fields. */
  payload: Record<string, unknown>;
  files: UploadedFile[];
}

let uploadsDir: Promise<string> | undefined;
const uploadDir = () => (uploadsDir ??= mkdtemp(join(tmpdir(), 'kith-webhooks-')));

export const isMultipart = (req: Request): boolean => /^multipart\/form-data\b/i.test(req.headers['content-type'] ?? '');

const tooLarge = () => ApiError.of('REQUEST_TOO_LARGE');
const badForm = (message: string) => ApiError.form({ '': { code: 'MULTIPART_INVALID', message } });
const FIELD_INDEX = /^files?\[(\d{1,2})\]$/;

/** A request larger than the limit is refused before a byte of it is read. */
export function checkDeclaredSize(req: Request, limits: MultipartLimits): void {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > limits.maxRequestBytes) throw tooLarge();
}

/**
 * Reads a multipart/form-data body as it arrives (busboy): each file goes to a temporary file on
 * disk and then to `upload`, so a request holds no file in memory. Fails with the platform's
 * error on a malformed or truncated body, an 11th file, or a file over the size limit; whatever it
 * stored by then is handed to `discard`.
 */
export async function readMultipart(
  req: Request,
  limits: MultipartLimits,
  upload: (file: ReceivedFile) => Promise<UploadedFile>,
  discard: (files: UploadedFile[]) => Promise<void>,
): Promise<MultipartBody> {
  checkDeclaredSize(req, limits);
  const dir = await uploadDir();
  const uploads: Promise<UploadedFile>[] = [];
  const temporary: string[] = [];
  const fields: Record<string, string> = {};
  let failure: ApiError | undefined;
  let fileCount = 0;
  const fail = (err: ApiError) => (failure ??= err);

  let parser: busboy.Busboy;
  try {
    parser = busboy({
      headers: req.headers,
      limits: { files: limits.maxFiles, fileSize: limits.maxFileBytes, fields: 64, fieldSize: 1024 * 1024, parts: 128 },
    });
  } catch {
    throw badForm('Malformed multipart body.');
  }
  const finished = new Promise<void>((resolve, reject) => {
    parser.on('file', (name, stream, info) => {
      if (failure) return void stream.resume();
      const index = FIELD_INDEX.exec(name)?.[1] ?? String(fileCount);
      fileCount += 1;
      const path = join(dir, randomUUID());
      temporary.push(path);
      let size = 0;
      const counter = new Transform({
        transform(chunk: Buffer, _enc, done) {
          size += chunk.length;
          done(null, chunk);
        },
      });
      stream.on('limit', () => fail(tooLarge()));
      const written = pipeline(stream, counter, createWriteStream(path));
      uploads.push(
        written.then(() => {
          if (failure) throw failure;
          return upload({
            index,
            path,
            size,
            filename: info.filename || 'unknown',
            contentType: info.mimeType || 'application/octet-stream',
          });
        }),
      );
    });
    parser.on('field', (name, value, info) => {
      if (info.valueTruncated) fail(tooLarge());
      else fields[name] = value;
    });
    parser.on('filesLimit', () =>
      fail(ApiError.form({ files: { code: 'BASE_TYPE_MAX_LENGTH', message: `Must be ${limits.maxFiles} or fewer in length.` } })),
    );
    parser.on('partsLimit', () => fail(badForm('Too many parts.')));
    parser.on('fieldsLimit', () => fail(badForm('Too many fields.')));
    parser.on('error', () => reject(badForm('Malformed multipart body.')));
    parser.on('close', () => resolve());
    // A client that goes away mid-body never ends the form: stop here rather than wait forever.
    req.on('close', () => {
      if (!req.complete) reject(badForm('The body ended before the form did.'));
    });
  });
  req.pipe(parser);

  // The form first (files are added while it is read), then every file it had.
  const form = await Promise.allSettled([finished]);
  const settled = await Promise.allSettled(uploads);
  const stored = settled.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
  await Promise.all(temporary.map((path) => rm(path, { force: true })));
  const rejected = [...form, ...settled].find((r) => r.status === 'rejected');
  if (failure || rejected) {
    req.unpipe(parser);
    await discard(stored).catch(() => undefined);
    if (failure) throw failure;
    throw (rejected as PromiseRejectedResult).reason;
  }
  return { payload: payloadOf(fields), files: stored };
}

/** `payload_json` as JSON (a 50109 when it is not), or the simple fields the platform takes as form fields. */
function payloadOf(fields: Record<string, string>): Record<string, unknown> {
  if (fields.payload_json !== undefined) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(fields.payload_json);
    } catch {
      throw ApiError.of('INVALID_JSON');
    }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
      throw ApiError.form({ payload_json: { code: 'DICT_TYPE_CONVERT', message: 'Only dictionaries may be used in a DictType' } });
    return parsed as Record<string, unknown>;
  }
  const payload: Record<string, unknown> = {};
  for (const key of ['content', 'username', 'avatar_url', 'thread_name'] as const)
    if (fields[key] !== undefined) payload[key] = fields[key];
  if (fields.tts !== undefined) payload.tts = fields.tts === 'true' || fields.tts === 'True' || fields.tts === '1';
  if (fields.flags !== undefined) payload.flags = Number(fields.flags);
  return payload;
}
