import { createReadStream } from 'node:fs';
import type { Readable } from 'node:stream';
import {
  CreateBucketCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadBucketCommand,
  NoSuchKey,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import type { ObjectStore, StoredObject } from '../domain/ports.js';

export interface S3Options {
  endpoint: string;
  bucket: string;
  region: string;
  accessKeyId?: string | undefined;
  secretAccessKey?: string | undefined;
  /** Path-style URLs (`<endpoint>/<bucket>/<key>`), what S3-compatible stores expect. */
  forcePathStyle: boolean;
}

/** Attachments in a bucket, over S3's protocol (the official client). */
export class S3ObjectStore implements ObjectStore {
  private readonly client: S3Client;

  constructor(private readonly options: S3Options) {
    this.client = new S3Client({
      endpoint: options.endpoint,
      region: options.region,
      forcePathStyle: options.forcePathStyle,
      ...(options.accessKeyId && options.secretAccessKey
        ? { credentials: { accessKeyId: options.accessKeyId, secretAccessKey: options.secretAccessKey } }
        : {}),
      // Checksums only where S3 requires them: streamed bodies with trailing checksums are not
      // understood by every S3-compatible store.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
  }

  /** Makes the bucket if the store has none yet (a fresh development store); another replica may race it. */
  async ensureBucket(): Promise<void> {
    try {
      await this.client.send(new HeadBucketCommand({ Bucket: this.options.bucket }));
    } catch (err) {
      if (!(err instanceof S3ServiceException && err.$metadata.httpStatusCode === 404)) throw err;
      try {
        await this.client.send(new CreateBucketCommand({ Bucket: this.options.bucket }));
      } catch (createErr) {
        const name = (createErr as { name?: string }).name;
        if (name !== 'BucketAlreadyOwnedByYou' && name !== 'BucketAlreadyExists') throw createErr;
      }
    }
  }

  async putFile(key: string, path: string, size: number, contentType: string): Promise<void> {
    await this.client.send(
      new PutObjectCommand({
        Bucket: this.options.bucket,
        Key: key,
        Body: createReadStream(path),
        ContentLength: size,
        ContentType: contentType,
      }),
    );
  }

  async get(key: string): Promise<StoredObject | undefined> {
    try {
      const answer = await this.client.send(new GetObjectCommand({ Bucket: this.options.bucket, Key: key }));
      return {
        body: answer.Body as Readable,
        contentType: answer.ContentType ?? 'application/octet-stream',
        size: answer.ContentLength ?? 0,
      };
    } catch (err) {
      if (err instanceof NoSuchKey || (err instanceof S3ServiceException && err.$metadata.httpStatusCode === 404)) return undefined;
      throw err;
    }
  }

  /** Removes the objects (one that is already gone is no error); fails if the store kept any. */
  async delete(keys: string[]): Promise<void> {
    // DeleteObjects takes 1000 keys a request, and answers 200 with a list of the ones it could not remove.
    for (let at = 0; at < keys.length; at += 1000) {
      const answer = await this.client.send(
        new DeleteObjectsCommand({
          Bucket: this.options.bucket,
          Delete: { Objects: keys.slice(at, at + 1000).map((Key) => ({ Key })), Quiet: true },
        }),
      );
      const kept = (answer.Errors ?? []).filter((e) => e.Code !== 'NoSuchKey');
      if (kept.length > 0) throw new Error(`the object store kept ${kept.length} objects: ${kept[0]!.Code ?? 'unknown error'}`);
    }
  }

  close(): void {
    this.client.destroy();
  }
}
