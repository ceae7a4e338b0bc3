import busboy from 'busboy';
import type { Request } from 'express';
import { ApiError } from '@kith/platform';

export interface MultipartForm {
  fields: Record<string, string>;
  files: Map<string, Buffer>;
}

/** The platform's answer to a file over the limit. */
export const tooLarge = () => new ApiError(413, { code: 40005, message: 'Request entity too large' });
const malformed = () => ApiError.form({ '': { code: 'MULTIPART_INVALID', message: 'The multipart body could not be read.' } });

/**
 * Reads a multipart/form-data body as it streams in (busboy): text fields, and files up to
 * `maxFileBytes` each (more is a 413 and the rest of the body is drained, not kept).
 */
export function readMultipart(req: Request, maxFileBytes: number): Promise<MultipartForm> {
  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({ headers: req.headers, limits: { fileSize: maxFileBytes, files: 2, fields: 32, fieldSize: 64 * 1024, parts: 40 } });
    } catch {
      return reject(malformed());
    }
    const form: MultipartForm = { fields: Object.create(null) as Record<string, string>, files: new Map() };
    let failure: ApiError | undefined;
    parser.on('field', (name, value) => {
      form.fields[name] = value;
    });
    parser.on('file', (name, stream) => {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('limit', () => (failure ??= tooLarge()));
      stream.on('close', () => {
        if (!failure) form.files.set(name, Buffer.concat(chunks));
      });
    });
    parser.on('error', () => reject(failure ?? malformed()));
    parser.on('close', () => (failure ? reject(failure) : resolve(form)));
    req.pipe(parser);
  });
}
